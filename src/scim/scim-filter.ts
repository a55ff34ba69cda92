/**
 * SCIM 2.0 filters (RFC 7644 §3.4.2.2), parsed into a tree the query builder turns
 * into SQL. The grammar:
 *
 *   FILTER    = attrExp / logExp / valuePath / *1"not" "(" FILTER ")" / "(" FILTER ")"
 *   valuePath = attrPath "[" valFilter "]" [ "." subAttr (SP "pr" / SP compareOp SP compValue) ]
 *   attrExp   = (attrPath SP "pr") / (attrPath SP compareOp SP compValue)
 *   logExp    = FILTER SP ("and" / "or") SP FILTER      ; "not" binds tighter than "and", "and" than "or"
 *   compValue = false / null / true / number / string  ; strings as in JSON
 *   attrPath  = [URI ":"] ATTRNAME *1("." subAttr)
 *
 * Operators, keywords and attribute names are case-insensitive (names are
 * lower-cased here; a schema URI prefix is kept apart). The trailing
 * `.subAttr` after a value path is not in RFC 7644's filter grammar, but it is
 * what directories send (`emails[type eq "work"].value eq "…"`, Entra ID): it
 * means an element matching the bracket whose sub-attribute matches too.
 *
 * Hand-written rather than taken from a library: the SCIM filter parsers on npm
 * turn `emails[type eq "work"].value co "x"` into two independent conditions (any
 * work email, and any email containing "x"), which is a different question.
 */

const COMPARE_OPS = ['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'lt', 'ge', 'le'] as const;
export type CompareOp = (typeof COMPARE_OPS)[number];
type CompareValue = string | number | boolean | null;

export interface AttrPath {
  /** A schema URI the path was qualified with (`urn:…:enterprise:2.0:User`), as sent; undefined for the core schema. */
  uri?: string;
  /** Lower-cased attribute name. */
  attr: string;
  /** Lower-cased sub-attribute name. */
  sub?: string;
}

/** What is asked of an attribute (or of an element's sub-attribute): present, or compared with a value. */
export type Test = { op: 'pr' } | { op: CompareOp; value: CompareValue };

export type Filter =
  | { kind: 'attr'; path: AttrPath; test: Test }
  | { kind: 'and' | 'or'; left: Filter; right: Filter }
  | { kind: 'not'; filter: Filter }
  /** An element of the multi-valued `path` matching `filter` (whose paths name the element's sub-attributes), and, with `then`, whose `then.sub` passes `then.test`. */
  | { kind: 'valuePath'; path: AttrPath; filter: Filter; then?: { sub: string; test: Test } };

/** A filter that does not parse; `message` says where and why (SCIM's `invalidFilter`). */
export class ScimFilterError extends Error {}

/** Longest filter accepted, and deepest nesting of parentheses, brackets and `not`. */
const MAX_FILTER_LENGTH = 4096;
const MAX_DEPTH = 32;

type Token =
  | { type: 'word'; text: string; at: number }
  | { type: 'string'; value: string; at: number }
  | { type: 'number'; value: number; at: number }
  | { type: '(' | ')' | '[' | ']'; at: number };

const WORD = /[A-Za-z0-9_:.$-]/;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
    } else if (c === '(' || c === ')' || c === '[' || c === ']') {
      tokens.push({ type: c, at: i });
      i++;
    } else if (c === '"') {
      // A JSON string: find its end (a quote not escaped), then let JSON read the escapes.
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) throw new ScimFilterError(`unterminated string at ${i + 1}`);
      let value: unknown;
      try {
        value = JSON.parse(text.slice(i, j + 1));
      } catch {
        throw new ScimFilterError(`malformed string at ${i + 1}`);
      }
      tokens.push({ type: 'string', value: value as string, at: i });
      i = j + 1;
    } else if (WORD.test(c)) {
      let j = i;
      while (j < text.length && WORD.test(text[j])) j++;
      const word = text.slice(i, j);
      if (NUMBER.test(word)) tokens.push({ type: 'number', value: Number(word), at: i });
      else tokens.push({ type: 'word', text: word, at: i });
      i = j;
    } else {
      throw new ScimFilterError(`unexpected "${c}" at ${i + 1}`);
    }
  }
  return tokens;
}

/** Splits `urn:…:User:name.givenName` into its URI and the attribute path; attribute names must start with a letter. */
function attrPathOf(word: string, at: number): AttrPath {
  const colon = word.lastIndexOf(':');
  const uri = colon >= 0 ? word.slice(0, colon) : undefined;
  const rest = colon >= 0 ? word.slice(colon + 1) : word;
  const parts = rest.split('.');
  if (parts.length > 2 || parts.some((p) => !/^[A-Za-z][A-Za-z0-9_$-]*$/.test(p))) {
    throw new ScimFilterError(`"${word}" at ${at + 1} is not an attribute path`);
  }
  if (uri !== undefined && !/^urn:[A-Za-z0-9:._-]+$/i.test(uri)) throw new ScimFilterError(`"${uri}" at ${at + 1} is not a schema URI`);
  return { ...(uri !== undefined ? { uri } : {}), attr: parts[0].toLowerCase(), ...(parts[1] !== undefined ? { sub: parts[1].toLowerCase() } : {}) };
}

class Parser {
  private pos = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  parse(): Filter {
    const filter = this.or();
    const extra = this.tokens[this.pos];
    if (extra) throw new ScimFilterError(`unexpected ${describe(extra)} at ${extra.at + 1}`);
    return filter;
  }

  private or(): Filter {
    let left = this.and();
    while (this.keyword('or')) left = { kind: 'or', left, right: this.and() };
    return left;
  }

  private and(): Filter {
    let left = this.unary();
    while (this.keyword('and')) left = { kind: 'and', left, right: this.unary() };
    return left;
  }

  private unary(): Filter {
    this.enter();
    try {
      const token = this.peek();
      if (token?.type === 'word' && token.text.toLowerCase() === 'not' && this.tokens[this.pos + 1]?.type === '(') {
        this.pos++;
        return { kind: 'not', filter: this.group() };
      }
      if (token?.type === '(') return this.group();
      return this.attrExpression();
    } finally {
      this.depth--;
    }
  }

  private group(): Filter {
    this.expect('(');
    const inner = this.or();
    this.expect(')');
    return inner;
  }

  private attrExpression(): Filter {
    const token = this.next();
    if (token?.type !== 'word') throw new ScimFilterError(token ? `expected an attribute at ${token.at + 1}, found ${describe(token)}` : 'expected an attribute, found the end');
    const path = attrPathOf(token.text, token.at);
    if (this.peek()?.type === '[') {
      if (path.sub !== undefined) throw new ScimFilterError(`"${token.text}" at ${token.at + 1}: a value filter follows an attribute, not a sub-attribute`);
      this.pos++;
      this.enter();
      const filter = this.or();
      this.depth--;
      this.expect(']');
      const dot = this.peek();
      // `emails[type eq "work"].value eq "…"`: the bracket's element, and its sub-attribute.
      if (dot?.type === 'word' && dot.text.startsWith('.')) {
        this.pos++;
        const sub = dot.text.slice(1);
        if (!/^[A-Za-z][A-Za-z0-9_$-]*$/.test(sub)) throw new ScimFilterError(`"${dot.text}" at ${dot.at + 1} is not a sub-attribute`);
        return { kind: 'valuePath', path, filter, then: { sub: sub.toLowerCase(), test: this.test() } };
      }
      return { kind: 'valuePath', path, filter };
    }
    return { kind: 'attr', path, test: this.test() };
  }

  private test(): Test {
    const op = this.next();
    if (op?.type !== 'word') throw new ScimFilterError(op ? `expected an operator at ${op.at + 1}, found ${describe(op)}` : 'expected an operator, found the end');
    const name = op.text.toLowerCase();
    if (name === 'pr') return { op: 'pr' };
    if (!(COMPARE_OPS as readonly string[]).includes(name)) throw new ScimFilterError(`"${op.text}" at ${op.at + 1} is not an operator`);
    const value = this.next();
    if (value?.type === 'string' || value?.type === 'number') return { op: name as CompareOp, value: value.value };
    if (value?.type === 'word' && ['true', 'false', 'null'].includes(value.text.toLowerCase())) {
      const text = value.text.toLowerCase();
      return { op: name as CompareOp, value: text === 'null' ? null : text === 'true' };
    }
    throw new ScimFilterError(value ? `expected a value at ${value.at + 1}, found ${describe(value)}` : 'expected a value, found the end');
  }

  private keyword(word: string): boolean {
    const token = this.peek();
    if (token?.type === 'word' && token.text.toLowerCase() === word) {
      this.pos++;
      return true;
    }
    return false;
  }

  private expect(type: '(' | ')' | ']'): void {
    const token = this.next();
    if (token?.type !== type) throw new ScimFilterError(token ? `expected "${type}" at ${token.at + 1}, found ${describe(token)}` : `expected "${type}", found the end`);
  }

  private enter(): void {
    if (++this.depth > MAX_DEPTH) throw new ScimFilterError(`the filter nests more than ${MAX_DEPTH} levels deep`);
  }

  private peek(): Token | undefined {
    return this.tokens[this.pos];
  }

  private next(): Token | undefined {
    return this.tokens[this.pos++];
  }
}

function describe(token: Token): string {
  switch (token.type) {
    case 'word':
      return `"${token.text}"`;
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    default:
      return `"${token.type}"`;
  }
}

/** Parses a SCIM filter; ScimFilterError (with where and why) when it is not one. */
export function parseScimFilter(text: string): Filter {
  if (text.length > MAX_FILTER_LENGTH) throw new ScimFilterError(`the filter is longer than ${MAX_FILTER_LENGTH} characters`);
  const tokens = tokenize(text);
  if (tokens.length === 0) throw new ScimFilterError('the filter is empty');
  return new Parser(tokens).parse();
}
