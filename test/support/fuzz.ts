/**
 * Request fuzzing for the e2e specs (test/fuzz.e2e-spec.ts): the operations of the
 * served OpenAPI document, and fast-check arbitraries of malformed requests for
 * them (path ids, query values, bodies, content types, credentials, request ids).
 *
 * Generated requests are plain data. Ids that only exist at run time (the
 * fixtures' sectors, users, tokens, the tenants' routed ids) are symbolic `Ref`s,
 * resolved when the request is sent, so that a seed replays the same requests on
 * a freshly booted app.
 */
import fc from 'fast-check';

// ---------------------------------------------------------------------------------------------
// Operations from the OpenAPI document
// ---------------------------------------------------------------------------------------------

type Schema = {
  type?: string;
  $ref?: string;
  allOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
};

type DocOperation = {
  parameters?: Array<{ name: string; in: string; schema?: Schema }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  security?: unknown[];
};

export type OpenApiDoc = {
  paths: Record<string, Record<string, DocOperation>>;
  components?: { schemas?: Record<string, Schema> };
};

type Method = 'get' | 'post' | 'put' | 'delete' | 'patch';
const METHODS: readonly Method[] = ['get', 'post', 'put', 'delete', 'patch'];

interface BodyField {
  name: string;
  /** The schema type: string, boolean, integer, number, array, object. */
  type: string;
  /** The fields of a nested object (one level). */
  fields?: BodyField[];
}

export interface Operation {
  /** "POST /api/v1/sectors/{sectorID}/users" */
  key: string;
  method: Method;
  /** The path template, with {param} placeholders. */
  path: string;
  /** The path parameters, from the template (the document does not declare all of them). */
  pathParams: string[];
  queryParams: Array<{ name: string; type: string }>;
  hasBody: boolean;
  bodyFields: BodyField[];
  /** Documented with a bearer security requirement. */
  secured: boolean;
}

function resolveSchema(doc: OpenApiDoc, schema: Schema | undefined, depth = 0): Schema | undefined {
  if (!schema || depth > 5) return schema;
  if (schema.$ref) return resolveSchema(doc, doc.components?.schemas?.[schema.$ref.replace('#/components/schemas/', '')], depth + 1);
  if (schema.allOf?.length === 1) return resolveSchema(doc, schema.allOf[0], depth + 1);
  return schema;
}

function fieldsOf(doc: OpenApiDoc, schema: Schema | undefined, depth: number): BodyField[] {
  const resolved = resolveSchema(doc, schema);
  return Object.entries(resolved?.properties ?? {}).map(([name, prop]) => {
    const p = resolveSchema(doc, prop);
    const type = p?.type ?? (p?.properties ? 'object' : 'string');
    return depth < 1 && p?.properties ? { name, type: 'object', fields: fieldsOf(doc, p, depth + 1) } : { name, type };
  });
}

/** Every operation of the document: method, path template, parameters, whether it takes a body and the body's field names. */
export function operationsOf(doc: OpenApiDoc): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const declared = op.parameters ?? [];
      const fromTemplate = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const pathParams = [...new Set([...fromTemplate, ...declared.filter((p) => p.in === 'path').map((p) => p.name)])];
      const body = op.requestBody?.content?.['application/json']?.schema;
      ops.push({
        key: `${method.toUpperCase()} ${path}`,
        method,
        path,
        pathParams,
        queryParams: declared.filter((p) => p.in === 'query').map((p) => ({ name: p.name, type: resolveSchema(doc, p.schema)?.type ?? 'string' })),
        hasBody: op.requestBody !== undefined,
        bodyFields: body ? fieldsOf(doc, body, 0) : [],
        secured: (op.security ?? []).length > 0,
      });
    }
  }
  return ops;
}

// ---------------------------------------------------------------------------------------------
// Symbolic ids
// ---------------------------------------------------------------------------------------------

/** Ids known only at run time. `victim*` may be destroyed by a case (the spec re-creates them); the others are never targeted by writes. */
export type RefName =
  | 'ownSector' // a sector of the fuzzed tenant (not its default one)
  | 'rootSector' // the fuzzed tenant's default sector
  | 'otherSector' // a sector of the other tenant
  | 'victimUser' // a user of ownSector nobody signs in as
  | 'memberUser' // the member whose token is a credential (read-only targets)
  | 'adminUser' // the tenant admin (read-only targets)
  | 'otherUser' // a user of the other tenant
  | 'victimToken' // an API token of ownSector that is not a credential
  | 'otherToken' // an API token of the other tenant
  | 'victimRegistration' // an OTP registration of the victim
  | 'ownTenant'
  | 'otherTenant'
  | 'platformTenant'
  | 'knownUsername'; // the email of a user of ownSector (the member)

/** The tenant a routed id (transaction id, invitation token, API token body) points at. */
export type RoutedTenant = 'ownTenant' | 'otherTenant' | 'unknownTenant';

class Ref {
  constructor(readonly name: RefName) {}
  toString(): string {
    return `<${this.name}>`;
  }
}

/** A well-formed routed id (64 base64url chars: 32 random bytes and a tenant id) that names no transaction or token. */
class RoutedRef {
  constructor(
    readonly tenant: RoutedTenant,
    readonly random: Uint8Array,
    /** Prepended to the id (e.g. "iam_" for an API token). */
    readonly prefix = '',
  ) {}
  toString(): string {
    return `<routed ${this.prefix}${this.tenant}>`;
  }
}

export interface Resolver {
  ref(name: RefName): string;
  tenantId(tenant: RoutedTenant): string;
}

function routedId(r: RoutedRef, resolver: Resolver): string {
  const tenant = Buffer.from(resolver.tenantId(r.tenant).replace(/-/g, ''), 'hex');
  return r.prefix + Buffer.concat([Buffer.from(r.random), tenant]).toString('base64url');
}

/** A symbolic or literal value resolved to its wire string. */
function resolveString(v: string | Ref | RoutedRef, resolver: Resolver): string {
  if (v instanceof Ref) return resolver.ref(v.name);
  if (v instanceof RoutedRef) return routedId(v, resolver);
  return v;
}

// ---------------------------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------------------------

/**
 * Percent-encodes every UTF-16 code unit of a string for a URL: well-formed text
 * as UTF-8, a lone surrogate as its (invalid) 3-byte generalized UTF-8 form
 * (%ED%A0%80 for \ud800), since encodeURIComponent refuses it. A NUL is %00.
 */
function percentEncode(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const cu = s.charCodeAt(i);
    if (cu >= 0xd800 && cu <= 0xdbff && i + 1 < s.length) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += encodeURIComponent(s[i] + s[i + 1]);
        i++;
        continue;
      }
    }
    if (cu >= 0xd800 && cu <= 0xdfff) {
      out += [0xe0 | (cu >> 12), 0x80 | ((cu >> 6) & 0x3f), 0x80 | (cu & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
      continue;
    }
    // Also encode what encodeURIComponent leaves alone but URLs treat specially.
    out += encodeURIComponent(s[i]).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------

/** Strings that have broken services before. */
const NASTY_STRINGS: readonly string[] = [
  '',
  ' ',
  '   ',
  '\u0000',
  'a\u0000b',
  '\u0000'.repeat(16),
  '\ud800',
  '\udfff',
  'x\ud800y',
  '\udc00\ud800',
  '../',
  '../../../../etc/passwd',
  '..',
  '.',
  '..%2f..%2f',
  '%',
  '%00',
  '%zz',
  '%E0%A4%A',
  '\\',
  '/',
  '//',
  '?',
  '#',
  '&',
  '=',
  ';',
  'null',
  'undefined',
  'true',
  'false',
  '0',
  '-0',
  '-1',
  '1.5',
  '1e309',
  '-1e309',
  '9007199254740993',
  '99999999999999999999999999999999',
  '0x10',
  'NaN',
  'Infinity',
  '[]',
  '{}',
  '[object Object]',
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  "' OR '1'='1",
  '"; DROP TABLE users; --',
  "\\'; SELECT pg_sleep(0); --",
  '$1',
  '%s%s%s%n',
  '{{constructor.constructor}}',
  '{{#each this}}{{/each}}',
  '{{> partial}}',
  '<script>alert(1)</script>',
  '\u202e',
  '\ufeff',
  '\u200b',
  '\ufffd',
  '\uffff',
  'İ',
  'ﬀ',
  'ß',
  '𝒜',
  '👩‍👩‍👧‍👦',
  'ǅ',
  '\r\n',
  '\t',
  '\x7f',
  '${jndi:ldap://x}',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
  '00000000-0000-0000-0000-00000000000g',
  '{00000000-0000-0000-0000-000000000000}',
  '00000000000000000000000000000000',
  '00000000-0000-0000-0000-0000000000000',
  'a@b',
  '@',
  'user@',
  '+',
  '+0',
  '+1',
  '+999999999999999999',
  'iam_',
  'email',
  'sms',
  'totp',
  'eyJhbGciOiJub25lIn0.e30.',
];

/** Any UTF-16 code unit, lone surrogates included. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n));

/** Long runs of one character (ASCII or not) of at most `maxUnits` code units. */
function longRun(maxUnits: number): fc.Arbitrary<string> {
  return fc
    .tuple(fc.constantFrom('a', 'Z', '0', '-', '.', 'é', '\u0000', '🙂', '%', '\ud800'), fc.integer({ min: Math.min(200, Math.floor(maxUnits / 2)), max: maxUnits }))
    .map(([c, n]) => c.repeat(Math.max(1, Math.floor(n / c.length))));
}

/** Malformed text: nasty constants, random unicode (lone surrogates and NUL included), long runs. */
function malformedString(maxLongUnits = 3000): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...NASTY_STRINGS), weight: 6 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 2 },
    { arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }), weight: 2 },
    { arbitrary: fc.string({ unit: codeUnit, maxLength: 30 }), weight: 2 },
    { arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 30 }), weight: 1 },
    { arbitrary: fc.tuple(fc.constantFrom(...NASTY_STRINGS), fc.string({ maxLength: 10 })).map(([a, b]) => a + b), weight: 2 },
    { arbitrary: longRun(maxLongUnits), weight: 1 },
    { arbitrary: fc.uuid().map((u) => u.toUpperCase()), weight: 1 },
    { arbitrary: fc.uuid().map((u) => `${u} `), weight: 1 },
  );
}

const tenantOfRouted = fc.constantFrom<RoutedTenant>('ownTenant', 'otherTenant', 'unknownTenant');
const randomBytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 });
const routedRef = (prefix = ''): fc.Arbitrary<RoutedRef> => fc.tuple(tenantOfRouted, randomBytes32).map(([tn, r]) => new RoutedRef(tn, r, prefix));

/** A path parameter: a literal to percent-encode, a raw already-encoded segment, or a symbolic id. */
type PathValue = { kind: 'text'; value: string } | { kind: 'raw'; value: string } | { kind: 'id'; value: Ref | RoutedRef | string };

/** Raw (sent as is) path segments: escapes that do not decode, encoded NULs and slashes, dot segments. */
const RAW_SEGMENTS = ['%00', 'a%00b', '%', '%zz', '%E0%A4%A', '%ED%A0%80', '%C0%AE%C0%AE', '%2e%2e', '..', '.', '%2F', '..%2F..%2F', '%252e', '%uD800', '%FF%FE', '%F0%9F', '+', '%20', ';', '%3B', ':', '@', '~'];

/** Refs an operation may target with a valid credential: any for reads, only victims (and other tenants' ids) for writes. */
function targetRefs(method: Method, param: string): RefName[] {
  const readOnly = method === 'get';
  switch (param) {
    case 'sectorID':
      return ['ownSector', 'rootSector', 'otherSector'];
    case 'sub':
      return readOnly ? ['victimUser', 'memberUser', 'adminUser', 'otherUser'] : ['victimUser', 'otherUser'];
    case 'id':
      return ['victimToken', 'otherToken'];
    case 'registrationID':
      return ['victimRegistration'];
    case 'tenantID':
      return ['ownTenant', 'otherTenant', 'platformTenant'];
    default:
      return ['ownSector', 'victimUser', 'otherTenant'];
  }
}

function pathValue(method: Method, param: string): fc.Arbitrary<PathValue> {
  const refs = targetRefs(method, param);
  return fc.oneof(
    { arbitrary: malformedString(1500).map((value): PathValue => ({ kind: 'text', value })), weight: 8 },
    { arbitrary: fc.constantFrom(...RAW_SEGMENTS).map((value): PathValue => ({ kind: 'raw', value })), weight: 2 },
    { arbitrary: fc.uuid().map((value): PathValue => ({ kind: 'id', value })), weight: 2 },
    { arbitrary: fc.constantFrom(...refs).map((name): PathValue => ({ kind: 'id', value: new Ref(name) })), weight: 5 },
    { arbitrary: routedRef().map((value): PathValue => ({ kind: 'id', value })), weight: 1 },
  );
}

/** A query component: key and value, each either raw (sent as is) or text to percent-encode. */
type QueryPart = { key: string; rawKey?: boolean; value: string | Ref | RoutedRef; rawValue?: boolean };

const QUERY_VALUES = ['', '-1', '0', '1', '2', '1.5', '1e3', '1e309', '-1e309', '9007199254740993', '99999999999999999999999', '-9223372036854775809', 'NaN', 'Infinity', 'true', 'false', 'TRUE', 'yes', '1,2', 'null', '[]', '{}'];

function queryValue(name: string, type: string): fc.Arbitrary<Pick<QueryPart, 'value' | 'rawValue'>> {
  const typed =
    type === 'integer' || type === 'number'
      ? fc.oneof(fc.integer().map(String), fc.double().map(String), fc.bigInt().map(String), fc.constantFrom(...QUERY_VALUES))
      : type === 'boolean'
        ? fc.oneof(fc.constantFrom('true', 'false', '1', '0', 'TRUE', 'on', 'off', ''), fc.constantFrom(...QUERY_VALUES))
        : fc.constantFrom(...QUERY_VALUES);
  const ids = /transaction/i.test(name) ? [routedRef().map((value) => ({ value }))] : [];
  return fc.oneof(
    { arbitrary: typed.map((value) => ({ value })), weight: 3 },
    { arbitrary: malformedString(2000).map((value) => ({ value })), weight: 4 },
    { arbitrary: fc.constantFrom('%00', 'a%00b', '%ED%A0%80', '%uD800', '%', '%zz', '%E0%A4%A', '%FF').map((value) => ({ value, rawValue: true })), weight: 2 },
    ...ids.map((arbitrary) => ({ arbitrary, weight: 3 })),
  );
}

/** Query parameters: declared ones (malformed values, repeated, bracketed) and unknown ones. */
function queryParts(params: Operation['queryParams']): fc.Arbitrary<QueryPart[]> {
  const declared = params.map((p) =>
    fc.option(
      fc
        .tuple(fc.constantFrom('plain', 'plain', 'plain', 'repeat', 'brackets', 'index', 'nested'), queryValue(p.name, p.type), queryValue(p.name, p.type))
        .map(([form, a, b]): QueryPart[] => {
          switch (form) {
            case 'repeat':
              return [{ key: p.name, ...a }, { key: p.name, ...b }];
            case 'brackets':
              return [{ key: `${p.name}[]`, ...a }, { key: `${p.name}[]`, ...b }];
            case 'index':
              return [{ key: `${p.name}[0]`, ...a }, { key: `${p.name}[1]`, ...b }];
            case 'nested':
              return [{ key: `${p.name}[a][b]`, ...a }];
            default:
              return [{ key: p.name, ...a }];
          }
        }),
      { nil: [] as QueryPart[], freq: 3 },
    ),
  );
  const unknown = fc.array(
    fc.oneof(
      fc
        .tuple(fc.oneof(fc.constantFrom('__proto__', '__proto__[x]', 'constructor[prototype][x]', 'a[', ']', '[]', '&', 'x'.repeat(500)), malformedString(200)), malformedString(300))
        .map(([key, value]): QueryPart => ({ key, value })),
      // Keys sent as is: escapes that do not decode, NULs, lone surrogates.
      fc.tuple(fc.constantFrom('%00', '%', '%zz', '%ED%A0%80', 'a%00b', '%5B%5D'), malformedString(50)).map(([key, value]): QueryPart => ({ key, rawKey: true, value })),
    ),
    { maxLength: 2 },
  );
  return fc.tuple(fc.tuple(...declared), unknown).map(([d, u]) => [...d.flat(), ...u]);
}

// ---------------------------------------------------------------------------------------------
// Bodies
// ---------------------------------------------------------------------------------------------

/** A JSON object kept as its entries, so that duplicate and "__proto__" keys survive until it is written. */
class Entries {
  constructor(readonly entries: Array<[string, unknown]>) {}
}

/** Writes a generated value as JSON text, resolving symbolic ids. */
function toJsonText(v: unknown, resolver: Resolver): string {
  if (v instanceof Ref || v instanceof RoutedRef) return JSON.stringify(resolveString(v, resolver));
  if (v instanceof Entries) return `{${v.entries.map(([k, x]) => `${JSON.stringify(k)}:${toJsonText(x, resolver)}`).join(',')}}`;
  if (Array.isArray(v)) return `[${v.map((x) => toJsonText(x, resolver)).join(',')}]`;
  if (v !== null && typeof v === 'object') return toJsonText(new Entries(Object.entries(v)), resolver);
  if (typeof v === 'bigint') return v.toString();
  return JSON.stringify(v) ?? 'null';
}

const smallJson = fc.jsonValue({ maxDepth: 2, stringUnit: 'binary' });

/** Values that look right for some field (to get past the first checks), resolved at run time where they are ids. */
function plausible(field: BodyField): fc.Arbitrary<unknown> {
  const n = field.name.toLowerCase();
  const options: fc.Arbitrary<unknown>[] = [];
  if (n.includes('email') || n === 'username' || n === 'destination') options.push(fc.emailAddress(), fc.constantFrom('ADMIN@EXAMPLE.TEST', ' user@example.test '), fc.constant(new Ref('knownUsername')));
  if (n === 'destination') options.push(fc.constantFrom('+14155550100', '+1', '+123456789012345678'));
  if (n === 'sectorid') options.push(fc.constantFrom(new Ref('ownSector'), new Ref('rootSector'), new Ref('otherSector')));
  if (n === 'transactionid' || n === 'token') options.push(routedRef(), routedRef('iam_'));
  if (n === 'registrationid') options.push(fc.constant(new Ref('victimRegistration')), fc.uuid());
  if (n === 'code' || n === 'password' || n.endsWith('password')) options.push(fc.stringMatching(/^\d{6}$/), fc.string({ minLength: 8, maxLength: 80 }));
  if (n === 'type') options.push(fc.constantFrom('email', 'sms', 'totp', 'EMAIL', 'voice'));
  if (field.fields && field.fields.length > 0) {
    const sub = field.fields;
    options.push(fc.tuple(...sub.map(() => fc.option(fc.string({ maxLength: 30 }), { nil: undefined }))).map((vs) => new Entries(sub.flatMap((f, i): Array<[string, unknown]> => (vs[i] === undefined ? [] : [[f.name, vs[i]]])))));
  }
  if (field.type === 'boolean') options.push(fc.boolean());
  if (field.type === 'array') options.push(fc.array(fc.oneof(fc.webUrl(), malformedString(100)), { maxLength: 4 }));
  if (field.type === 'string') options.push(fc.string({ maxLength: 30 }), fc.integer({ min: -5, max: 100000 }).map(String));
  if (options.length === 0) options.push(fc.string({ maxLength: 10 }));
  return fc.oneof(...options);
}

/** Values of the wrong type, or of the right type but malformed. */
function wrongValue(field: BodyField): fc.Arbitrary<unknown> {
  const nested =
    field.fields && field.fields.length > 0
      ? [fc.tuple(...field.fields.map((f) => fc.option(fc.tuple(fc.constant(f.name), fc.oneof(malformedString(500), smallJson)), { nil: undefined }))).map((es) => new Entries(es.filter((e) => e !== undefined)))]
      : [];
  return fc.oneof(
    { arbitrary: malformedString(20000), weight: 5 },
    { arbitrary: plausible(field), weight: 6 },
    { arbitrary: fc.oneof(fc.integer(), fc.double(), fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, -0, 0, 1, -1, 4294967296, 1e21)), weight: 2 },
    { arbitrary: fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), weight: 1 },
    { arbitrary: fc.constantFrom(true, false, null), weight: 2 },
    { arbitrary: fc.array(smallJson, { maxLength: 4 }), weight: 1 },
    { arbitrary: fc.constantFrom({ $ne: null }, { $gt: '' }, [null], [[]], {}, { toString: 'x' }, { length: 1e9 }), weight: 1 },
    { arbitrary: smallJson, weight: 1 },
    { arbitrary: fc.jsonValue({ maxDepth: 40 }), weight: 1 },
    ...nested.map((arbitrary) => ({ arbitrary, weight: 2 })),
  );
}

/** An object with (some of) the operation's field names, each set to a malformed or wrong-typed value; extra keys at times. */
function fieldsObject(fields: BodyField[]): fc.Arbitrary<Entries> {
  const own = fields.map((f) => fc.option(fc.tuple(fc.constant(f.name), wrongValue(f)), { nil: undefined, freq: 5 }));
  const extra = fc.array(
    fc.tuple(fc.oneof(fc.constantFrom('__proto__', 'constructor', 'isAdmin', 'tenantID', 'sub', 'id', '', '\u0000', '\ud800'), fc.string({ maxLength: 8 })), smallJson),
    { maxLength: 2 },
  );
  return fc.tuple(fc.tuple(...own), extra).map(([o, e]) => new Entries([...o.filter((x): x is [string, unknown] => x !== undefined), ...e]));
}

/**
 * An object that could pass validation: every field plausible (or absent), but at
 * most one set to a malformed or wrong-typed value, so that the request gets past
 * the first check and the one fault reaches deeper code.
 */
function nearlyValidObject(fields: BodyField[]): fc.Arbitrary<Entries> {
  if (fields.length === 0) return fc.constant(new Entries([]));
  return fc
    .tuple(
      fc.tuple(...fields.map((f) => fc.tuple(fc.option(plausible(f), { nil: undefined, freq: 6 }), wrongValue(f)))),
      fc.option(fc.nat(fields.length - 1), { nil: undefined, freq: 4 }),
    )
    .map(
      ([values, bad]) =>
        new Entries(
          fields.flatMap((f, i): Array<[string, unknown]> => {
            const [good, wrongOne] = values[i];
            if (i === bad) return [[f.name, wrongOne]];
            return good === undefined ? [] : [[f.name, good]];
          }),
        ),
    );
}

export type BodySpec =
  | { kind: 'none' }
  /** A JSON value (an Entries object, an array, a scalar) sent as application/json. */
  | { kind: 'json'; value: unknown }
  /** Raw text with this content type (undefined: the client's default for a string, x-www-form-urlencoded). */
  | { kind: 'raw'; contentType: string; text: string; headers?: Record<string, string> }
  /** A JSON object over 1 MiB. */
  | { kind: 'oversize'; bytes: number }
  /** Objects (or arrays) nested `depth` levels deep. */
  | { kind: 'deep'; depth: number; arrays: boolean };

const NOT_JSON = [
  '{',
  '{"a":',
  '{"a":1,}',
  "{'a':1}",
  '{a:1}',
  'NaN',
  'undefined',
  'null',
  'true',
  '0',
  '""',
  '"\\ud800"',
  '\u0000',
  '{"a":"\u0000"}',
  '\ufeff{}',
  '{"a":1}garbage',
  '{"a":1}{"b":2}',
  '[1,2',
  '{"__proto__":{"isAdmin":true}}',
  '{"constructor":{"prototype":{"isAdmin":true}}}',
  '{"a":"\\u"}',
  '{"a":"\\x41"}',
  '{"a":01}',
  '{"a":1e999999}',
  '{"a":-}',
  '{"\\ud800":1}',
  '{"a":"\\udc00\\ud800"}',
  '<xml/>',
  'a=b',
];

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=XyZ',
  'multipart/form-data',
  'application/xml',
  'application/octet-stream',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json; charset=nope',
  'application/merge-patch+json',
  'application/vnd.api+json',
  'application/JSON',
  'application/json;;',
  '*/*',
  'x/y; a="',
];

const rawBody: fc.Arbitrary<BodySpec> = fc.oneof(
  // Non-JSON text declared as JSON.
  { arbitrary: fc.oneof(fc.constantFrom(...NOT_JSON), fc.string({ unit: codeUnit, maxLength: 60 }), fc.string({ maxLength: 60 })).map((text): BodySpec => ({ kind: 'raw', contentType: 'application/json', text })), weight: 4 },
  // Other content types, JSON or not.
  {
    arbitrary: fc
      .tuple(fc.constantFrom(...CONTENT_TYPES), fc.oneof(fc.constantFrom(...NOT_JSON, '{"name":"x"}', 'a=1&b[c]=2&__proto__[x]=1', '--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--XyZ--\r\n'), fc.string({ maxLength: 40 })))
      .map(([contentType, text]): BodySpec => ({ kind: 'raw', contentType, text })),
    weight: 3,
  },
  // Compressed (or said to be) bodies.
  {
    arbitrary: fc
      .tuple(fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-unknown', 'gzip, gzip'), fc.constantFrom('{"a":1}', '\u001f\u008b\u0008\u0000garbage', 'not compressed'))
      .map(([encoding, text]): BodySpec => ({ kind: 'raw', contentType: 'application/json', text, headers: { 'content-encoding': encoding } })),
    weight: 1,
  },
  // Empty bodies.
  { arbitrary: fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded').map((contentType): BodySpec => ({ kind: 'raw', contentType, text: '' })), weight: 1 },
);

/** A request body for an operation: random JSON, the operation's fields with malformed values, raw text, other content types, none, oversize. */
function bodySpec(op: Operation): fc.Arbitrary<BodySpec> {
  const b = op.hasBody ? 1 : 0;
  const choices: Array<{ arbitrary: fc.Arbitrary<BodySpec>; weight: number }> = [
    { arbitrary: fc.constant<BodySpec>({ kind: 'none' }), weight: 10 + 30 * (1 - b) },
    { arbitrary: fieldsObject(op.bodyFields).map((value): BodySpec => ({ kind: 'json', value })), weight: 5 + 20 * b },
    { arbitrary: nearlyValidObject(op.bodyFields).map((value): BodySpec => ({ kind: 'json', value })), weight: 40 * b },
    { arbitrary: fc.jsonValue({ maxDepth: 6, stringUnit: 'binary' }).map((value): BodySpec => ({ kind: 'json', value })), weight: 5 + 10 * b },
    { arbitrary: fc.array(fieldsObject(op.bodyFields), { minLength: 1, maxLength: 2 }).map((value): BodySpec => ({ kind: 'json', value })), weight: 5 * b },
    { arbitrary: rawBody, weight: 5 + 15 * b },
    { arbitrary: fc.tuple(fc.integer({ min: 20, max: 5000 }), fc.boolean()).map(([depth, arrays]): BodySpec => ({ kind: 'deep', depth, arrays })), weight: 4 },
    // Oversize bodies are slow to send: rarely.
    { arbitrary: fc.integer({ min: 1024 * 1024 - 64, max: 1024 * 1024 + 4096 }).map((bytes): BodySpec => ({ kind: 'oversize', bytes })), weight: 1 },
  ];
  return fc.oneof({ withCrossShrink: true }, ...choices.filter((c) => c.weight > 0));
}

/** The text of a body spec, with its content type and extra headers (undefined text: no body). */
export function bodyWire(spec: BodySpec, op: Operation, resolver: Resolver): { text?: string; contentType?: string; headers?: Record<string, string> } {
  switch (spec.kind) {
    case 'none':
      return {};
    case 'json':
      return { text: toJsonText(spec.value, resolver), contentType: 'application/json' };
    case 'raw':
      return { text: spec.text, contentType: spec.contentType, headers: spec.headers };
    case 'deep': {
      const [open, close] = spec.arrays ? ['[', ']'] : ['{"a":', '}'];
      return { text: open.repeat(spec.depth) + '1' + close.repeat(spec.depth), contentType: 'application/json' };
    }
    case 'oversize': {
      const name = op.bodyFields[0]?.name ?? 'name';
      const head = `{${JSON.stringify(name)}:"`;
      return { text: head + 'x'.repeat(Math.max(0, spec.bytes - head.length - 2)) + '"}', contentType: 'application/json' };
    }
  }
}

/** How a body spec reads in a report (long texts cut). */
export function describeBody(text: string | undefined): string {
  if (text === undefined) return '(none)';
  const shown = text.length > 600 ? `${text.slice(0, 300)}…(${text.length} chars)…${text.slice(-100)}` : text;
  return JSON.stringify(shown);
}

// ---------------------------------------------------------------------------------------------
// Headers
// ---------------------------------------------------------------------------------------------

export type Credential = 'platform' | 'admin' | 'member' | 'api';

type Damage = 'lowercase' | 'spaces' | 'noScheme' | 'truncate' | 'append' | 'twice' | 'flip';

export type AuthSpec =
  | { kind: 'none' }
  | { kind: 'valid'; who: Credential }
  /** A raw Authorization header value. */
  | { kind: 'raw'; value: string }
  /** A valid credential damaged: a scheme or spacing change, a truncated or extended token. */
  | { kind: 'damaged'; who: Credential; how: Damage }
  /** A JWT-shaped token with a chosen header and payload and a bogus signature. */
  | { kind: 'forged'; header: unknown; payload: unknown }
  /** An API-token-shaped credential that names a tenant but no token. */
  | { kind: 'apiShaped'; id: RoutedRef };

/** Header-safe text: what Node lets a client send in a header value (tab, printable ASCII, latin-1 bytes). */
const headerText = (maxLength: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constant(0x09)).map((c) => String.fromCharCode(c)), maxLength });

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v) ?? 'null', 'utf8').toString('base64url');

const RAW_AUTH = ['Bearer', 'Bearer ', 'Bearer  ', 'Bearer x.y.z', 'Bearer a.b', 'Bearer ...', 'Bearer iam_', 'Basic dXNlcjpwYXNz', 'Basic', 'Digest x', 'Token abc', 'bearer', 'BEARER x', ',', 'Bearer null', 'Bearer undefined'];

const authSpec: fc.Arbitrary<AuthSpec> = fc.oneof(
  { withCrossShrink: true },
  { arbitrary: fc.constant<AuthSpec>({ kind: 'none' }), weight: 3 },
  { arbitrary: fc.constantFrom<Credential>('platform', 'admin', 'member', 'api').map((who): AuthSpec => ({ kind: 'valid', who })), weight: 6 },
  {
    arbitrary: fc.oneof(
      fc.constantFrom(...RAW_AUTH),
      headerText(60).map((s) => `Bearer ${s}`),
      headerText(40),
      fc.integer({ min: 1000, max: 6000 }).map((n) => `Bearer ${'A'.repeat(n)}`),
      fc.integer({ min: 1000, max: 6000 }).map((n) => `Basic ${'x'.repeat(n)}`),
    ).map((value): AuthSpec => ({ kind: 'raw', value })),
    weight: 2,
  },
  {
    arbitrary: fc
      .tuple(fc.constantFrom<Credential>('platform', 'admin', 'member', 'api'), fc.constantFrom<Damage>('lowercase', 'spaces', 'noScheme', 'truncate', 'append', 'twice', 'flip'))
      .map(([who, how]): AuthSpec => ({ kind: 'damaged', who, how })),
    weight: 1,
  },
  {
    arbitrary: fc
      .tuple(
        fc.oneof(
          fc.record({ alg: fc.constantFrom('ES256', 'none', 'HS256', 'RS256', ''), kid: fc.oneof(malformedString(100), fc.constant(undefined)), typ: fc.constantFrom('JWT', undefined) }),
          smallJson,
        ),
        fc.oneof(
          fc.record({
            sub: fc.oneof(fc.uuid(), malformedString(60)),
            tenantID: fc.oneof(fc.uuid(), malformedString(60)),
            sectorID: fc.oneof(fc.uuid(), malformedString(60)),
            exp: fc.oneof(fc.integer(), fc.constantFrom(1e308, -1, '9999999999'), fc.constant(undefined)),
            jti: fc.oneof(fc.uuid(), malformedString(40)),
          }),
          smallJson,
        ),
      )
      .map(([header, payload]): AuthSpec => ({ kind: 'forged', header, payload })),
    weight: 1,
  },
  { arbitrary: routedRef('iam_').map((id): AuthSpec => ({ kind: 'apiShaped', id })), weight: 1 },
);

/** The Authorization header value of a spec (undefined: none), given the valid credentials. */
export function authHeader(spec: AuthSpec, credentials: Record<Credential, string>, resolver: Resolver): string | undefined {
  switch (spec.kind) {
    case 'none':
      return undefined;
    case 'valid':
      return `Bearer ${credentials[spec.who]}`;
    case 'raw':
      return spec.value;
    case 'forged': {
      // A JSON header without a kid stays without one (JSON.stringify drops undefined).
      return `Bearer ${b64(spec.header)}.${b64(spec.payload)}.${b64('not a signature')}`;
    }
    case 'apiShaped':
      return `Bearer ${routedId(spec.id, resolver)}`;
    case 'damaged': {
      const c = credentials[spec.who];
      switch (spec.how) {
        case 'lowercase':
          return `bearer ${c}`;
        case 'spaces':
          return `Bearer   ${c}   `;
        case 'noScheme':
          return c;
        case 'truncate':
          return `Bearer ${c.slice(0, -3)}`;
        case 'append':
          return `Bearer ${c}x`;
        case 'twice':
          return `Bearer ${c} Bearer ${c}`;
        case 'flip':
          return `Bearer ${c.slice(0, 12)}${c[12] === 'A' ? 'B' : 'A'}${c.slice(13)}`;
      }
    }
  }
}

const requestIdSpec: fc.Arbitrary<string | undefined> = fc.oneof(
  { withCrossShrink: true },
  { arbitrary: fc.constant(undefined), weight: 4 },
  { arbitrary: headerText(40), weight: 2 },
  { arbitrary: fc.constantFrom('', ' ', 'a', 'bad id <script>', '../../x', 'x'.repeat(129), 'x'.repeat(128), '12345678', '\u00ff\u00fe', '[x] injected\tline', '%00%00%00%00'), weight: 2 },
  { arbitrary: fc.integer({ min: 200, max: 2000 }).map((n) => 'r'.repeat(n)), weight: 1 },
);

// ---------------------------------------------------------------------------------------------
// A whole request
// ---------------------------------------------------------------------------------------------

export interface RequestSpec {
  path: Record<string, PathValue>;
  query: QueryPart[];
  body: BodySpec;
  auth: AuthSpec;
  requestId: string | undefined;
}

export function requestSpec(op: Operation): fc.Arbitrary<RequestSpec> {
  const path = fc.tuple(...op.pathParams.map((p) => pathValue(op.method, p))).map((values) => Object.fromEntries(op.pathParams.map((p, i) => [p, values[i]])));
  return fc.record({ path, query: queryParts(op.queryParams), body: bodySpec(op), auth: authSpec, requestId: requestIdSpec });
}

/**
 * Node answers a request whose request line and headers exceed 16 KiB with a bare
 * 431 before the app sees it; generated URLs stay under this many characters
 * (each value cut, then the query parts that do not fit dropped).
 */
const MAX_URL_CHARS = 7000;
const MAX_ENCODED_VALUE = 2500;

/** Cuts an encoded value to `max` characters without leaving half a %XX escape. */
function cutEncoded(encoded: string, max: number): string {
  if (encoded.length <= max) return encoded;
  return encoded.slice(0, max).replace(/%[0-9A-Fa-f]?$/, '');
}

/** The request URL (path and query) of a spec, percent-encoded, at most MAX_URL_CHARS long. */
export function requestUrl(op: Operation, spec: RequestSpec, resolver: Resolver): string {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const v = spec.path[name];
    if (!v) return 'missing';
    if (v.kind === 'raw') return v.value;
    if (v.kind === 'text') return cutEncoded(percentEncode(v.value), MAX_ENCODED_VALUE);
    return cutEncoded(percentEncode(resolveString(v.value, resolver)), MAX_ENCODED_VALUE);
  });
  let url = path;
  let sep = '?';
  for (const q of spec.query) {
    const key = cutEncoded(q.rawKey ? q.key : percentEncode(q.key), 600);
    const value = resolveString(q.value, resolver);
    const part = `${key}=${cutEncoded(q.rawValue ? value : percentEncode(value), MAX_ENCODED_VALUE)}`;
    if (url.length + 1 + part.length > MAX_URL_CHARS) continue;
    url += sep + part;
    sep = '&';
  }
  return url;
}
