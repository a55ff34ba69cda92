import { Filter, parseScimFilter, ScimFilterError, Test } from './scim-filter';
import { ScimError } from './scim-error';

/**
 * SCIM PATCH (RFC 7644 §3.5.2) applied to a resource's JSON: the result is then
 * validated and stored like a PUT body, so a PATCH can never store what a PUT could
 * not. Operation names are case-insensitive (Entra ID sends `Replace`); attribute
 * names too. Paths: `attr`, `attr.sub`, a schema-qualified attribute
 * (`urn:…:enterprise:2.0:User:department`), `attr[filter]` and `attr[filter].sub`.
 * Without a path, `add` and `replace` take an object of attributes, whose keys may
 * themselves be paths (`name.givenName`, a schema-qualified name), as Entra ID
 * sends them.
 */

const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const MAX_OPERATIONS = 100;

type Json = Record<string, unknown>;

interface Path {
  /** The extension schema the attribute is in, when qualified with one (core schema qualifiers are dropped). */
  uri?: string;
  attr: string;
  filter?: Filter;
  sub?: string;
}

const badPath = (detail: string) => new ScimError(400, detail, 'invalidPath');
const badValue = (detail: string) => new ScimError(400, detail, 'invalidValue');

/**
 * Applies a PatchOp body to `resource` (left untouched); the patched copy.
 * `coreSchema`: the resource's own schema (a qualifier naming it is dropped);
 * `extensions`: its extension schemas (their attributes live in an object under the URI).
 */
export function applyPatch(resource: Json, body: unknown, coreSchema: string, extensions: string[] = []): Json {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ScimError(400, 'The body must be a PatchOp object.', 'invalidSyntax');
  const { schemas, Operations } = body as { schemas?: unknown; Operations?: unknown };
  if (!Array.isArray(schemas) || !schemas.some((s) => typeof s === 'string' && s.toLowerCase() === PATCH_SCHEMA.toLowerCase())) {
    throw new ScimError(400, `schemas must include ${PATCH_SCHEMA}.`, 'invalidSyntax');
  }
  if (!Array.isArray(Operations) || Operations.length === 0 || Operations.length > MAX_OPERATIONS) {
    throw new ScimError(400, `Operations must hold 1 to ${MAX_OPERATIONS} operations.`, 'invalidSyntax');
  }
  const out = structuredClone(resource);
  Operations.forEach((operation: unknown, i) => {
    if (typeof operation !== 'object' || operation === null) throw new ScimError(400, `Operations[${i}] must be an object.`, 'invalidSyntax');
    const { op, path, value } = operation as { op?: unknown; path?: unknown; value?: unknown };
    const name = typeof op === 'string' ? op.toLowerCase() : '';
    if (name !== 'add' && name !== 'replace' && name !== 'remove') throw new ScimError(400, `Operations[${i}].op must be add, replace or remove.`, 'invalidSyntax');
    if (path !== undefined && typeof path !== 'string') throw badPath(`Operations[${i}].path must be a string.`);
    if (name === 'remove') {
      if (path === undefined || path === '') throw new ScimError(400, `Operations[${i}]: remove needs a path.`, 'noTarget');
      remove(out, parsePath(path, coreSchema), value);
    } else if (path === undefined || path === '') {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badValue(`Operations[${i}]: without a path, value must be an object of attributes.`);
      for (const [key, v] of Object.entries(value as Json)) {
        if (key.toLowerCase() === 'schemas') continue;
        const isExtension = extensions.some((x) => x.toLowerCase() === key.toLowerCase()) && isObject(v);
        // A whole extension object (`"urn:…:enterprise:2.0:User": {…}`) merges into the extension.
        if (isExtension) for (const [k, w] of Object.entries(v as Json)) set(out, { uri: key, attr: k }, w, name);
        else set(out, parsePath(key, coreSchema), v, name);
      }
    } else {
      set(out, parsePath(path, coreSchema), value, name);
    }
  });
  return out;
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `[urn:…:]attr[.sub]` or `attr[filter][.sub]`. */
function parsePath(text: string, coreSchema: string): Path {
  const bracket = text.indexOf('[');
  let head = bracket >= 0 ? text.slice(0, bracket) : text;
  let filter: Filter | undefined;
  let sub: string | undefined;
  if (bracket >= 0) {
    const close = text.lastIndexOf(']');
    if (close < bracket) throw badPath(`"${text}" is not a path`);
    try {
      filter = parseScimFilter(text.slice(bracket + 1, close));
    } catch (err) {
      throw badPath(`"${text}": ${err instanceof ScimFilterError ? err.message : 'not a filter'}`);
    }
    const rest = text.slice(close + 1);
    if (rest !== '') {
      if (!/^\.[A-Za-z][A-Za-z0-9_$-]*$/.test(rest)) throw badPath(`"${text}" is not a path`);
      sub = rest.slice(1);
    }
  }
  let uri: string | undefined;
  const colon = head.lastIndexOf(':');
  if (colon >= 0) {
    uri = head.slice(0, colon);
    head = head.slice(colon + 1);
    if (uri.toLowerCase() === coreSchema.toLowerCase()) uri = undefined;
  }
  const parts = head.split('.');
  if (parts.length > 2 || parts.some((p) => !/^[A-Za-z][A-Za-z0-9_$-]*$/.test(p)) || (filter && parts.length > 1)) throw badPath(`"${text}" is not a path`);
  return { ...(uri ? { uri } : {}), attr: parts[0], ...(filter ? { filter } : {}), ...((sub ?? parts[1]) ? { sub: sub ?? parts[1] } : {}) };
}

/** The key of `obj` equal to `name` case-insensitively (or `name` itself when there is none). */
function keyOf(obj: Json, name: string): string {
  return Object.keys(obj).find((k) => k.toLowerCase() === name.toLowerCase()) ?? name;
}

/** The object the path's attribute lives in: the resource, or its extension's object (created when missing). */
function container(resource: Json, path: Path, create: boolean): Json | undefined {
  if (!path.uri) return resource;
  const key = keyOf(resource, path.uri);
  if (!isObject(resource[key])) {
    if (!create) return undefined;
    resource[key] = {};
    const schemas = Array.isArray(resource.schemas) ? (resource.schemas as unknown[]) : [];
    if (!schemas.some((s) => typeof s === 'string' && s.toLowerCase() === path.uri!.toLowerCase())) resource.schemas = [...schemas, path.uri];
  }
  return resource[key] as Json;
}

function set(resource: Json, path: Path, value: unknown, op: 'add' | 'replace'): void {
  const holder = container(resource, path, true)!;
  const key = keyOf(holder, path.attr);
  if (path.filter) {
    const list = Array.isArray(holder[key]) ? (holder[key] as unknown[]) : [];
    let matched = list.filter((e) => isObject(e) && matches(e, path.filter!));
    if (matched.length === 0) {
      // `emails[type eq "work"].value` with no work email yet: the element is made, with what the filter says of it.
      const seed = seedOf(path.filter);
      if (!seed) throw new ScimError(400, `No value of ${path.attr} matches the path's filter.`, 'noTarget');
      list.push(seed);
      holder[key] = list;
      matched = [seed];
    }
    for (const element of matched as Json[]) {
      if (path.sub) element[keyOf(element, path.sub)] = value;
      else if (isObject(value)) Object.assign(element, value);
      else throw badValue(`The value for ${path.attr}[…] must be an object.`);
    }
    return;
  }
  if (path.sub) {
    const inner = isObject(holder[key]) ? (holder[key] as Json) : (holder[key] = {});
    (inner as Json)[keyOf(inner as Json, path.sub)] = value;
    return;
  }
  if (op === 'add' && Array.isArray(holder[key]) && Array.isArray(value)) {
    // Adding to a multi-valued attribute appends what is not there yet.
    const current = holder[key] as unknown[];
    for (const v of value) if (!current.some((c) => JSON.stringify(c) === JSON.stringify(v) || (isObject(c) && isObject(v) && c.value !== undefined && c.value === v.value))) current.push(v);
    return;
  }
  if (op === 'add' && isObject(holder[key]) && isObject(value)) {
    Object.assign(holder[key] as Json, value);
    return;
  }
  holder[key] = value;
}

function remove(resource: Json, path: Path, value: unknown): void {
  const holder = container(resource, path, false);
  if (!holder) return;
  const key = keyOf(holder, path.attr);
  if (path.filter) {
    if (!Array.isArray(holder[key])) return;
    const list = holder[key] as unknown[];
    if (path.sub) {
      for (const e of list) if (isObject(e) && matches(e, path.filter)) delete e[keyOf(e, path.sub)];
    } else {
      holder[key] = list.filter((e) => !(isObject(e) && matches(e, path.filter!)));
    }
    return;
  }
  if (path.sub) {
    if (isObject(holder[key])) delete (holder[key] as Json)[keyOf(holder[key] as Json, path.sub)];
    return;
  }
  // `remove` of `members` with a value (Entra ID and others): those values only.
  if (Array.isArray(holder[key]) && Array.isArray(value)) {
    const gone = new Set(value.map((v) => (isObject(v) ? String(v.value) : String(v))));
    holder[key] = (holder[key] as unknown[]).filter((e) => !(isObject(e) && gone.has(String(e.value))));
    return;
  }
  delete holder[key];
}

/** The element a filter of `type eq "…"` (and such equalities joined by `and`) describes; undefined for any other filter. */
function seedOf(filter: Filter): Json | undefined {
  if (filter.kind === 'attr' && filter.test.op === 'eq' && filter.path.sub === undefined && !filter.path.uri) return { [filter.path.attr]: filter.test.value };
  if (filter.kind === 'and') {
    const left = seedOf(filter.left);
    const right = seedOf(filter.right);
    return left && right ? { ...left, ...right } : undefined;
  }
  return undefined;
}

/** Whether an element of a multi-valued attribute passes a bracket's filter (its paths name the element's sub-attributes). */
function matches(element: Json, filter: Filter): boolean {
  switch (filter.kind) {
    case 'and':
      return matches(element, filter.left) && matches(element, filter.right);
    case 'or':
      return matches(element, filter.left) || matches(element, filter.right);
    case 'not':
      return !matches(element, filter.filter);
    case 'attr':
      return passes(element[keyOf(element, filter.path.attr)], filter.test);
    case 'valuePath':
      return false;
  }
}

function passes(actual: unknown, test: Test): boolean {
  if (test.op === 'pr') return actual !== undefined && actual !== null && actual !== '';
  const expected = test.value;
  if (typeof actual === 'boolean' || typeof expected === 'boolean') {
    const a = typeof actual === 'string' ? actual.toLowerCase() === 'true' : actual;
    return test.op === 'eq' ? a === expected : test.op === 'ne' ? a !== expected : false;
  }
  if (actual === undefined || actual === null) return test.op === 'ne' ? expected !== null : test.op === 'eq' && expected === null;
  const a = String(actual).toLowerCase();
  const e = String(expected).toLowerCase();
  switch (test.op) {
    case 'eq':
      return a === e;
    case 'ne':
      return a !== e;
    case 'co':
      return a.includes(e);
    case 'sw':
      return a.startsWith(e);
    case 'ew':
      return a.endsWith(e);
    case 'gt':
      return a > e;
    case 'ge':
      return a >= e;
    case 'lt':
      return a < e;
    case 'le':
      return a <= e;
  }
}
