import { likeEscape } from '../common/wire/paging';
import { AttrPath, CompareOp, Filter, ScimFilterError, Test } from './scim-filter';

/**
 * A SCIM filter over users as SQL over `users u` (a WHERE clause and its
 * parameters), by an explicit table of the attributes that can be filtered on;
 * anything else is `invalidFilter`. Strings compare as RFC 7643 says of each
 * attribute: case-insensitively unless it is case-exact (`id`, `externalId`).
 * Multi-valued attributes (`emails`, `phoneNumbers`, `groups`) are tested element
 * by element: `emails.value co "x"` is any email containing "x", and
 * `emails[type eq "work"].value co "x"` a work email containing "x".
 */

export const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';

type Kind = 'string' | 'exact' | 'boolean' | 'datetime';

interface Column {
  sql: string;
  kind: Kind;
}

/** Single-valued attributes: `attr` or `attr.sub` (lower-cased) → SQL over `users u`. */
const CORE: Record<string, Column> = {
  id: { sql: 'u.id::text', kind: 'exact' },
  externalid: { sql: 'u.external_id', kind: 'exact' },
  username: { sql: 'u.username', kind: 'string' },
  displayname: { sql: 'u.name', kind: 'string' },
  nickname: { sql: 'u.nickname', kind: 'string' },
  'name.givenname': { sql: 'u.given_name', kind: 'string' },
  'name.familyname': { sql: 'u.family_name', kind: 'string' },
  'name.middlename': { sql: 'u.middle_name', kind: 'string' },
  'name.formatted': { sql: `(u.scim->'name'->>'formatted')`, kind: 'string' },
  locale: { sql: 'u.locale', kind: 'string' },
  timezone: { sql: 'u.zoneinfo', kind: 'string' },
  profileurl: { sql: 'u.profile', kind: 'string' },
  title: { sql: `(u.scim->>'title')`, kind: 'string' },
  usertype: { sql: `(u.scim->>'userType')`, kind: 'string' },
  preferredlanguage: { sql: `(u.scim->>'preferredLanguage')`, kind: 'string' },
  active: { sql: '(u.disabled_at IS NULL)', kind: 'boolean' },
  // To the millisecond, as meta shows them: `gt` the time a user shows is not that user.
  'meta.created': { sql: `date_trunc('milliseconds', u.created_at)`, kind: 'datetime' },
  'meta.lastmodified': { sql: `date_trunc('milliseconds', u.updated_at)`, kind: 'datetime' },
};

/** The enterprise extension's attributes (schema-qualified, or bare where the core schema has no such name). */
const ENTERPRISE: Record<string, Column> = {
  employeenumber: { sql: `(u.scim->'enterprise'->>'employeeNumber')`, kind: 'string' },
  costcenter: { sql: `(u.scim->'enterprise'->>'costCenter')`, kind: 'string' },
  organization: { sql: `(u.scim->'enterprise'->>'organization')`, kind: 'string' },
  division: { sql: `(u.scim->'enterprise'->>'division')`, kind: 'string' },
  department: { sql: `(u.scim->'enterprise'->>'department')`, kind: 'string' },
  'manager.value': { sql: `(u.scim->'enterprise'->'manager'->>'value')`, kind: 'exact' },
};

/**
 * The elements of a user's multi-valued attributes as JSON arrays: the stored SCIM
 * list when the directory sent one, else the user's own email or phone number as a
 * primary element; a user's groups are the roles they hold.
 */
const EMAILS_SQL = `(CASE WHEN jsonb_typeof(u.scim->'emails') = 'array' THEN u.scim->'emails'
  WHEN u.email <> '' THEN jsonb_build_array(jsonb_build_object('value', u.email, 'primary', true)) ELSE '[]'::jsonb END)`;
const PHONES_SQL = `(CASE WHEN jsonb_typeof(u.scim->'phoneNumbers') = 'array' THEN u.scim->'phoneNumbers'
  WHEN u.phone_number <> '' THEN jsonb_build_array(jsonb_build_object('value', u.phone_number, 'primary', true)) ELSE '[]'::jsonb END)`;
const GROUPS_SQL = `(SELECT coalesce(jsonb_agg(jsonb_build_object('value', r.id::text, 'display', r.name)), '[]'::jsonb)
  FROM user_roles ur JOIN roles r ON r.id = ur.role_id WHERE ur.user_id = u.id)`;

/** Multi-valued attributes: their element array, and the sub-attributes an element is filtered on. */
const MULTI: Record<string, { array: string; subs: Record<string, Kind> }> = {
  emails: { array: EMAILS_SQL, subs: { value: 'string', type: 'string', primary: 'boolean', display: 'string' } },
  phonenumbers: { array: PHONES_SQL, subs: { value: 'string', type: 'string', primary: 'boolean', display: 'string' } },
  groups: { array: GROUPS_SQL, subs: { value: 'exact', display: 'string' } },
};

/** What a resource type can be filtered on: its schema, single-valued attributes and multi-valued ones. */
interface Table {
  schema: string;
  columnOf: (path: AttrPath) => Column;
  multi: Record<string, { array: string; subs: Record<string, Kind> }>;
}

const USERS: Table = { schema: USER_SCHEMA, columnOf, multi: MULTI };

export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

/** Groups are roles (`roles r`): `displayName` is the name the directory gave (or the role's name), `members` the holders. */
const GROUPS: Table = {
  schema: GROUP_SCHEMA,
  columnOf: (path) => {
    const key = path.sub === undefined ? path.attr : `${path.attr}.${path.sub}`;
    const column = path.uri === undefined || path.uri.toLowerCase() === GROUP_SCHEMA.toLowerCase() ? GROUP_COLUMNS[key] : undefined;
    if (!column) throw new ScimFilterError(`"${name(path)}" cannot be filtered on`);
    return column;
  },
  multi: {
    members: {
      array: `(SELECT coalesce(jsonb_agg(jsonb_build_object('value', ur.user_id::text)), '[]'::jsonb) FROM user_roles ur WHERE ur.role_id = r.id)`,
      subs: { value: 'exact' },
    },
  },
};

const GROUP_COLUMNS: Record<string, Column> = {
  id: { sql: 'r.id::text', kind: 'exact' },
  externalid: { sql: 'r.external_id', kind: 'exact' },
  displayname: { sql: `coalesce(nullif(r.display_name, ''), r.name)`, kind: 'string' },
  'meta.created': { sql: `date_trunc('milliseconds', r.created_at)`, kind: 'datetime' },
  'meta.lastmodified': { sql: `date_trunc('milliseconds', r.updated_at)`, kind: 'datetime' },
};

/** The WHERE clause over `users u` for `filter`, its parameters numbered after `params` (which it extends). */
export function userFilterSql(filter: Filter, params: unknown[]): string {
  return new Translator(params, USERS).filter(filter);
}

/** The WHERE clause over `roles r` (a sector's groups) for `filter`. */
export function groupFilterSql(filter: Filter, params: unknown[]): string {
  return new Translator(params, GROUPS).filter(filter);
}

class Translator {
  constructor(
    private readonly params: unknown[],
    private readonly table: Table,
  ) {}

  filter(f: Filter): string {
    switch (f.kind) {
      case 'and':
      case 'or':
        return `(${this.filter(f.left)} ${f.kind.toUpperCase()} ${this.filter(f.right)})`;
      case 'not':
        // A missing attribute is false for every comparison (RFC 7644), so NOT of it is true: NULLs count as false.
        return `(NOT coalesce(${this.filter(f.filter)}, false))`;
      case 'attr':
        return this.attr(f.path, f.test);
      case 'valuePath':
        return this.valuePath(f.path, f.filter, f.then);
    }
  }

  private attr(path: AttrPath, test: Test): string {
    const multi = path.uri === undefined || path.uri.toLowerCase() === this.table.schema.toLowerCase() ? this.table.multi[path.attr] : undefined;
    if (multi) {
      // `emails.value eq "x"` (an element whose value is "x"); `emails eq "x"` tests the elements' value; `emails pr`, any element.
      if (path.sub === undefined && test.op === 'pr') return `(jsonb_array_length(${multi.array}) > 0)`;
      const sub = path.sub ?? 'value';
      return `EXISTS (SELECT 1 FROM jsonb_array_elements(${multi.array}) e WHERE ${this.elementTest(path, multi.subs, sub, test)})`;
    }
    const column = this.table.columnOf(path);
    return compare(column.sql, column.kind, test, this.params, path);
  }

  private valuePath(path: AttrPath, inner: Filter, then: { sub: string; test: Test } | undefined): string {
    const multi = path.uri === undefined || path.uri.toLowerCase() === this.table.schema.toLowerCase() ? this.table.multi[path.attr] : undefined;
    if (!multi || path.sub !== undefined) throw new ScimFilterError(`"${name(path)}" is not a multi-valued attribute`);
    const conditions = [this.element(path, multi.subs, inner)];
    if (then) conditions.push(this.elementTest(path, multi.subs, then.sub, then.test));
    return `EXISTS (SELECT 1 FROM jsonb_array_elements(${multi.array}) e WHERE ${conditions.join(' AND ')})`;
  }

  /** A filter inside brackets: its paths name the element's sub-attributes. */
  private element(path: AttrPath, subs: Record<string, Kind>, f: Filter): string {
    switch (f.kind) {
      case 'and':
      case 'or':
        return `(${this.element(path, subs, f.left)} ${f.kind.toUpperCase()} ${this.element(path, subs, f.right)})`;
      case 'not':
        return `(NOT coalesce(${this.element(path, subs, f.filter)}, false))`;
      case 'attr':
        if (f.path.uri !== undefined || f.path.sub !== undefined) throw new ScimFilterError(`"${name(f.path)}" is not a sub-attribute of ${path.attr}`);
        return this.elementTest(path, subs, f.path.attr, f.test);
      case 'valuePath':
        throw new ScimFilterError('a value filter cannot hold another');
    }
  }

  private elementTest(path: AttrPath, subs: Record<string, Kind>, sub: string, test: Test): string {
    const kind = subs[sub];
    if (kind === undefined) throw new ScimFilterError(`"${path.attr}.${sub}" cannot be filtered on`);
    const key = { value: 'value', type: 'type', primary: 'primary', display: 'display' }[sub] ?? sub;
    const sql = kind === 'boolean' ? `(e->>'${key}')::boolean` : `(e->>'${key}')`;
    return compare(sql, kind, test, this.params, { attr: path.attr, sub });
  }
}

function name(path: AttrPath): string {
  return `${path.uri ? `${path.uri}:` : ''}${path.attr}${path.sub ? `.${path.sub}` : ''}`;
}

function columnOf(path: AttrPath): Column {
  const key = path.sub === undefined ? path.attr : `${path.attr}.${path.sub}`;
  const uri = path.uri?.toLowerCase();
  const column =
    uri === ENTERPRISE_SCHEMA.toLowerCase() ? ENTERPRISE[key] : uri === undefined ? (CORE[key] ?? ENTERPRISE[key]) : uri === USER_SCHEMA.toLowerCase() ? CORE[key] : undefined;
  if (!column) throw new ScimFilterError(`"${name(path)}" cannot be filtered on`);
  return column;
}

/** One comparison of `sql` (of `kind`) as RFC 7644 defines it; a value of the wrong type for the attribute is invalidFilter. */
function compare(sql: string, kind: Kind, test: Test, params: unknown[], path: AttrPath): string {
  if (test.op === 'pr') return kind === 'string' || kind === 'exact' ? `(${sql} IS NOT NULL AND ${sql} <> '')` : `(${sql} IS NOT NULL)`;
  const { op, value } = test;
  if (value === null) {
    if (op === 'eq') return kind === 'string' || kind === 'exact' ? `(${sql} IS NULL OR ${sql} = '')` : `(${sql} IS NULL)`;
    if (op === 'ne') return kind === 'string' || kind === 'exact' ? `(${sql} IS NOT NULL AND ${sql} <> '')` : `(${sql} IS NOT NULL)`;
    throw new ScimFilterError(`"${op}" cannot compare with null`);
  }
  const param = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  switch (kind) {
    case 'boolean':
      if (typeof value !== 'boolean' || (op !== 'eq' && op !== 'ne')) throw new ScimFilterError(`${name(path)} is a boolean: only eq, ne and pr apply, with true or false`);
      return op === 'eq' ? `(${sql} = ${param(value)}::boolean)` : `(${sql} IS DISTINCT FROM ${param(value)}::boolean)`;
    case 'datetime': {
      if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) throw new ScimFilterError(`${name(path)} is a date and time: compare it with an RFC 3339 string`);
      if (op === 'co' || op === 'sw' || op === 'ew') throw new ScimFilterError(`"${op}" does not apply to ${name(path)}`);
      return `(${sql} ${SQL_OPS[op]} ${param(new Date(value).toISOString())}::timestamptz)`;
    }
    default: {
      if (typeof value !== 'string') throw new ScimFilterError(`${name(path)} is a string: compare it with a string`);
      const exact = kind === 'exact';
      const left = exact ? sql : `lower(${sql})`;
      const right = (v: string) => (exact ? `${param(v)}::text` : `lower(${param(v)}::text)`);
      switch (op) {
        case 'co':
          return `(${left} LIKE ${right(`%${likeEscape(value)}%`)} ESCAPE '\\')`;
        case 'sw':
          return `(${left} LIKE ${right(`${likeEscape(value)}%`)} ESCAPE '\\')`;
        case 'ew':
          return `(${left} LIKE ${right(`%${likeEscape(value)}`)} ESCAPE '\\')`;
        case 'ne':
          return `(${left} IS DISTINCT FROM ${right(value)})`;
        case 'eq':
          return `(${left} = ${right(value)})`;
        default:
          // Ordering compares code points, the same on every server.
          return `(${left} COLLATE "C" ${SQL_OPS[op]} ${right(value)})`;
      }
    }
  }
}

const SQL_OPS: Record<Exclude<CompareOp, 'co' | 'sw' | 'ew'>, string> = { eq: '=', ne: '<>', gt: '>', lt: '<', ge: '>=', le: '<=' };
