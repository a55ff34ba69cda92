/**
 * A small, safe renderer for the subset of Handlebars the service's templates use
 * (src/mail/mail-templates.ts renders them with Handlebars itself): `{{name}}`
 * (HTML-escaped in HTML mode), `{{{name}}}` and `{{&name}}` (never escaped),
 * comments `{{! … }}` / `{{!-- … --}}`, `{{#if name}}…{{else}}…{{/if}}`,
 * `{{#unless name}}…{{/unless}}` and the `~` whitespace control. Unknown variables
 * render empty, as on the server. It never evaluates code (the page's CSP forbids
 * `eval`, which Handlebars' compiler needs), so it is only a preview: the service
 * still validates the template when it is saved.
 */

export type TemplateMode = 'plain' | 'html';
export type TemplateVars = Record<string, string | number | undefined>;

type Node =
  | { kind: 'text'; value: string }
  | { kind: 'var'; name: string; raw: boolean }
  | { kind: 'block'; helper: 'if' | 'unless'; name: string; body: Node[]; inverse: Node[] };

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#x27;', '`': '&#x60;', '=': '&#x3D;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`=]/g, (c) => HTML_ESCAPES[c]);
}

interface Tag {
  start: number;
  end: number;
  body: string;
  triple: boolean;
  stripBefore: boolean;
  stripAfter: boolean;
}

/** Finds the next mustache tag at or after `from`. */
function nextTag(src: string, from: number): Tag | undefined {
  const start = src.indexOf('{{', from);
  if (start < 0) return undefined;
  // An escaped mustache (\{{) is literal text in Handlebars.
  if (start > 0 && src[start - 1] === '\\') return nextTag(src, start + 2);
  if (src.startsWith('{{!--', start) || src.startsWith('{{~!--', start)) {
    const close = src.indexOf('--', start + 5);
    const end = close < 0 ? -1 : src.indexOf('}}', close);
    if (end < 0) throw new Error('an unclosed comment');
    return { start, end: end + 2, body: '!', triple: false, stripBefore: src[start + 2] === '~', stripAfter: src[end - 1] === '~' };
  }
  const triple = src.startsWith('{{{', start) || src.startsWith('{{~{', start);
  const closer = triple ? '}}}' : '}}';
  const end = src.indexOf(closer, start + 2);
  if (end < 0) throw new Error('a tag without its closing braces');
  let inner = src.slice(start + (triple ? 3 : 2), end);
  let stripBefore = false;
  let stripAfter = false;
  if (inner.startsWith('~')) {
    stripBefore = true;
    inner = inner.slice(1);
  }
  if (triple && inner.startsWith('{')) inner = inner.slice(1);
  if (inner.endsWith('~')) {
    stripAfter = true;
    inner = inner.slice(0, -1);
  }
  if (triple && inner.endsWith('}')) inner = inner.slice(0, -1);
  return { start, end: end + closer.length, body: inner.trim(), triple, stripBefore, stripAfter };
}

const NAME = /^[A-Za-z_][\w.-]*$/;

/** Parses a template into nodes; throws an Error with a readable message on a syntax error. */
export function parseTemplate(src: string): Node[] {
  const root: Node[] = [];
  const stack: Array<{ node: Extract<Node, { kind: 'block' }>; inElse: boolean }> = [];
  const target = (): Node[] => {
    const top = stack[stack.length - 1];
    return top ? (top.inElse ? top.node.inverse : top.node.body) : root;
  };
  let pos = 0;
  let stripNextText = false;
  for (;;) {
    const tag = nextTag(src, pos);
    let text = src.slice(pos, tag ? tag.start : src.length);
    // A block, else, close or comment tag alone on its line takes the whole line with it (Handlebars' "standalone" rule).
    let resume = tag?.end ?? src.length;
    if (tag && /^[#/!^]|^else$/.test(tag.body)) {
      const lineStart = src.lastIndexOf('\n', tag.start - 1) + 1;
      const newline = src.indexOf('\n', tag.end);
      const lineEnd = newline < 0 ? src.length : newline;
      if (lineStart >= pos && /^[ \t]*$/.test(src.slice(lineStart, tag.start)) && /^[ \t\r]*$/.test(src.slice(tag.end, lineEnd))) {
        text = text.slice(0, text.length - (tag.start - lineStart));
        resume = newline < 0 ? src.length : newline + 1;
      }
    }
    text = text.replace(/\\\{\{/g, '{{');
    if (stripNextText) text = text.replace(/^\s+/, '');
    if (tag?.stripBefore) text = text.replace(/\s+$/, '');
    if (text) target().push({ kind: 'text', value: text });
    if (!tag) break;
    pos = resume;
    stripNextText = tag.stripAfter;
    const body = tag.body;
    if (body.startsWith('!')) continue;
    if (body.startsWith('#')) {
      const [helper, name, ...rest] = body.slice(1).trim().split(/\s+/);
      if ((helper !== 'if' && helper !== 'unless') || !name || rest.length > 0 || !NAME.test(name)) {
        throw new Error(`the preview supports only {{#if name}} and {{#unless name}} blocks, not {{${body}}}`);
      }
      const node: Extract<Node, { kind: 'block' }> = { kind: 'block', helper, name, body: [], inverse: [] };
      target().push(node);
      stack.push({ node, inElse: false });
      continue;
    }
    if (body === 'else' || body === '^') {
      const top = stack[stack.length - 1];
      if (!top || top.inElse) throw new Error('{{else}} outside a block');
      top.inElse = true;
      continue;
    }
    if (body.startsWith('/')) {
      const name = body.slice(1).trim();
      const top = stack.pop();
      if (!top || top.node.helper !== name) throw new Error(`{{/${name}}} does not close an open block`);
      continue;
    }
    let name = body;
    let raw = tag.triple;
    if (name.startsWith('&')) {
      raw = true;
      name = name.slice(1).trim();
    }
    if (!NAME.test(name)) throw new Error(`the preview does not understand {{${body}}}`);
    target().push({ kind: 'var', name, raw });
  }
  if (stack.length > 0) throw new Error(`{{#${stack[stack.length - 1].node.helper}}} is not closed`);
  return root;
}

function truthy(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '' && value !== false && value !== 0;
}

function renderNodes(nodes: Node[], vars: TemplateVars, mode: TemplateMode): string {
  let out = '';
  for (const node of nodes) {
    if (node.kind === 'text') out += node.value;
    else if (node.kind === 'var') {
      const value = Object.prototype.hasOwnProperty.call(vars, node.name) ? vars[node.name] : undefined;
      const text = value === undefined ? '' : String(value);
      out += mode === 'html' && !node.raw ? escapeHtml(text) : text;
    } else {
      const value = Object.prototype.hasOwnProperty.call(vars, node.name) ? vars[node.name] : undefined;
      const yes = node.helper === 'if' ? truthy(value) : !truthy(value);
      out += renderNodes(yes ? node.body : node.inverse, vars, mode);
    }
  }
  return out;
}

export type RenderResult = { ok: true; output: string } | { ok: false; error: string };

/** Renders `template` with `vars`; plain mode never escapes (subjects, text bodies, SMS), HTML mode escapes values. */
export function renderTemplate(template: string, vars: TemplateVars, mode: TemplateMode): RenderResult {
  try {
    return { ok: true, output: renderNodes(parseTemplate(template), vars, mode) };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

/** A subject is one header line: line breaks become spaces (as on the server). */
export function renderSubject(template: string, vars: TemplateVars): RenderResult {
  const r = renderTemplate(template, vars, 'plain');
  return r.ok ? { ok: true, output: r.output.replace(/\s*[\r\n]+\s*/g, ' ').trim() } : r;
}
