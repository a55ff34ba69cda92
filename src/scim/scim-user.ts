import { isEmail } from 'class-validator';
import type { UserEntity } from '../user/user.entity';
import { ScimError } from './scim-error';
import { versionOf } from './scim-resources';
import { ENTERPRISE_SCHEMA, USER_SCHEMA } from './scim-user-query';

/**
 * The SCIM User resource (RFC 7643 §4.1, with the enterprise extension §4.3) and
 * how it maps onto a user: `userName` is the username, `displayName` the name,
 * `name.givenName`/`familyName`/`middleName`, `nickName`, `profileUrl`, `locale`
 * and `timezone` (zoneinfo) are profile columns, the primary email and phone
 * number are the user's `email` and `phone_number` (a phone number only when it is
 * E.164), `active` is the disabled state; the rest is kept as sent in
 * `users.scim` (see migration Scim).
 */

const MAX_TEXT = 500;
const MAX_VALUES = 20;
const E164 = /^\+[1-9]\d{1,14}$/;
const LOCALE = /^[A-Za-z]{2,8}([-_][A-Za-z0-9]{1,8})*$/;
const ENTERPRISE_FIELDS = ['employeeNumber', 'costCenter', 'organization', 'division', 'department'] as const;
const NAME_FIELDS = ['formatted', 'familyName', 'givenName', 'middleName', 'honorificPrefix', 'honorificSuffix'] as const;

interface MultiValue {
  value: string;
  type?: string;
  primary?: boolean;
  display?: string;
}

interface Enterprise {
  employeeNumber?: string;
  costCenter?: string;
  organization?: string;
  division?: string;
  department?: string;
  manager?: { value?: string; displayName?: string };
}

/** What a SCIM User says, validated: the attributes the service stores. */
export interface ScimUserInput {
  userName: string;
  externalId: string | null;
  name: Partial<Record<(typeof NAME_FIELDS)[number], string>>;
  displayName: string;
  nickName: string;
  profileUrl: string;
  title: string;
  userType: string;
  preferredLanguage: string;
  locale: string;
  timezone: string;
  active: boolean;
  emails: MultiValue[];
  phoneNumbers: MultiValue[];
  enterprise: Enterprise | undefined;
}

/** What `users.scim` holds. */
interface StoredScim {
  name?: Partial<Record<'formatted' | 'honorificPrefix' | 'honorificSuffix', string>>;
  title?: string;
  userType?: string;
  preferredLanguage?: string;
  emails?: MultiValue[];
  phoneNumbers?: MultiValue[];
  enterprise?: Enterprise;
}

/** A user row, its SCIM attributes read as stored. */
export type ScimUserRow = Omit<UserEntity, 'scim'> & { scim: StoredScim };

const invalid = (detail: string) => new ScimError(400, detail, 'invalidValue');

function text(value: unknown, field: string, max = MAX_TEXT): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw invalid(`${field} must be a string`);
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (value.length > max || /[\u0000-\u001f\u007f]/.test(value)) throw invalid(`${field} must be at most ${max} characters, without control characters`);
  return value;
}

/** `true`/`false`, and the strings `"True"`/`"False"` Entra ID sends. */
function bool(value: unknown, field: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw invalid(`${field} must be true or false`);
}

function multi(value: unknown, field: string, check: (v: string) => boolean, what: string): MultiValue[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid(`${field} must be an array`);
  if (value.length > MAX_VALUES) throw invalid(`${field} holds at most ${MAX_VALUES} values`);
  const out = value.map((item: unknown, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw invalid(`${field}[${i}] must be an object`);
    const o = item as Record<string, unknown>;
    const v = text(o.value, `${field}[${i}].value`, 320);
    if (!check(v)) throw invalid(`${field}[${i}].value must be ${what}`);
    const entry: MultiValue = { value: v };
    if (o.type !== undefined && o.type !== null) entry.type = text(o.type, `${field}[${i}].type`, 64);
    if (o.primary !== undefined && o.primary !== null) entry.primary = bool(o.primary, `${field}[${i}].primary`);
    if (o.display !== undefined && o.display !== null) entry.display = text(o.display, `${field}[${i}].display`);
    return entry;
  });
  if (out.filter((e) => e.primary).length > 1) throw invalid(`${field}: at most one value is primary`);
  return out;
}

/** The primary value of a multi-valued attribute: the one marked primary, else the first. */
function primaryOf(values: MultiValue[]): string {
  return (values.find((v) => v.primary) ?? values[0])?.value ?? '';
}

/** Validates a SCIM User (a POST or PUT body, or a PATCH's result); `invalidValue` / `invalidSyntax` otherwise. */
export function scimUserInput(body: unknown): ScimUserInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ScimError(400, 'The body must be a SCIM User object.', 'invalidSyntax');
  const b = body as Record<string, unknown>;
  const schemas = b.schemas;
  if (!Array.isArray(schemas) || !schemas.some((s) => typeof s === 'string' && s.toLowerCase() === USER_SCHEMA.toLowerCase())) {
    throw new ScimError(400, `schemas must include ${USER_SCHEMA}.`, 'invalidSyntax');
  }
  const userName = text(b.userName, 'userName', 320).trim();
  if (userName === '' || /\s/.test(userName)) throw invalid('userName is required: 1 to 320 characters without spaces');
  const nameIn = b.name ?? {};
  if (typeof nameIn !== 'object' || nameIn === null || Array.isArray(nameIn)) throw invalid('name must be an object');
  const name: ScimUserInput['name'] = {};
  for (const f of NAME_FIELDS) {
    const v = text((nameIn as Record<string, unknown>)[f], `name.${f}`);
    if (v) name[f] = v;
  }
  const locale = text(b.locale, 'locale', 35);
  if (locale && !LOCALE.test(locale)) throw invalid('locale must be a BCP 47 language tag');
  const emails = multi(b.emails, 'emails', (v) => isEmail(v), 'an email address');
  const phoneNumbers = multi(b.phoneNumbers, 'phoneNumbers', (v) => v.length > 0, 'a phone number');
  const externalId = b.externalId === undefined || b.externalId === null ? null : text(b.externalId, 'externalId', 255);
  const ext = b[ENTERPRISE_SCHEMA] ?? b[Object.keys(b).find((k) => k.toLowerCase() === ENTERPRISE_SCHEMA.toLowerCase()) ?? ''];
  return {
    userName,
    externalId: externalId === '' ? null : externalId,
    name,
    displayName: text(b.displayName, 'displayName'),
    nickName: text(b.nickName, 'nickName'),
    profileUrl: text(b.profileUrl, 'profileUrl'),
    title: text(b.title, 'title'),
    userType: text(b.userType, 'userType'),
    preferredLanguage: text(b.preferredLanguage, 'preferredLanguage', 35),
    locale: locale.replace(/_/g, '-'),
    timezone: text(b.timezone, 'timezone', 64),
    active: b.active === undefined || b.active === null ? true : bool(b.active, 'active'),
    emails,
    phoneNumbers,
    enterprise: ext === undefined || ext === null ? undefined : enterpriseOf(ext),
  };
}

function enterpriseOf(value: unknown): Enterprise {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(`${ENTERPRISE_SCHEMA} must be an object`);
  const v = value as Record<string, unknown>;
  const out: Enterprise = {};
  for (const f of ENTERPRISE_FIELDS) {
    const t = text(v[f], f);
    if (t) out[f] = t;
  }
  if (v.manager !== undefined && v.manager !== null) {
    // Entra ID sends the manager's id as a string; the schema says an object with `value`.
    const m = typeof v.manager === 'string' ? { value: v.manager } : v.manager;
    if (typeof m !== 'object' || m === null || Array.isArray(m)) throw invalid('manager must be an object');
    const value = text((m as Record<string, unknown>).value, 'manager.value', 255);
    const displayName = text((m as Record<string, unknown>).displayName, 'manager.displayName');
    if (value || displayName) out.manager = { ...(value ? { value } : {}), ...(displayName ? { displayName } : {}) };
  }
  return out;
}

/** The columns a SCIM User sets on a user row. */
export function userColumns(input: ScimUserInput): Partial<ScimUserRow> {
  const phone = primaryOf(input.phoneNumbers);
  const scim: StoredScim = {};
  const nameExtra = { formatted: input.name.formatted, honorificPrefix: input.name.honorificPrefix, honorificSuffix: input.name.honorificSuffix };
  if (Object.values(nameExtra).some(Boolean)) scim.name = JSON.parse(JSON.stringify(nameExtra)) as StoredScim['name'];
  if (input.title) scim.title = input.title;
  if (input.userType) scim.userType = input.userType;
  if (input.preferredLanguage) scim.preferredLanguage = input.preferredLanguage;
  if (input.emails.length > 0) scim.emails = input.emails;
  if (input.phoneNumbers.length > 0) scim.phoneNumbers = input.phoneNumbers;
  if (input.enterprise && Object.keys(input.enterprise).length > 0) scim.enterprise = input.enterprise;
  return {
    username: input.userName,
    externalId: input.externalId,
    name: input.displayName,
    givenName: input.name.givenName ?? '',
    familyName: input.name.familyName ?? '',
    middleName: input.name.middleName ?? '',
    nickname: input.nickName,
    profile: input.profileUrl,
    locale: input.locale,
    zoneinfo: input.timezone,
    email: primaryOf(input.emails),
    phoneNumber: E164.test(phone) ? phone : '',
    scim,
  };
}

/** A group a user belongs to, as the User resource lists it. */
export interface GroupRef {
  id: string;
  name: string;
}

const compact = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== '' && v !== null)) as T;

/** The SCIM User of a user row. */
export function toScimUser(row: ScimUserRow, groups: GroupRef[], base: string): Record<string, unknown> {
  const scim = row.scim ?? {};
  const emails = scim.emails ?? (row.email ? [{ value: row.email, primary: true }] : []);
  const phones = scim.phoneNumbers ?? (row.phoneNumber ? [{ value: row.phoneNumber, primary: true }] : []);
  const name = compact({
    formatted: scim.name?.formatted,
    familyName: row.familyName,
    givenName: row.givenName,
    middleName: row.middleName,
    honorificPrefix: scim.name?.honorificPrefix,
    honorificSuffix: scim.name?.honorificSuffix,
  });
  return compact({
    schemas: scim.enterprise ? [USER_SCHEMA, ENTERPRISE_SCHEMA] : [USER_SCHEMA],
    id: row.id,
    externalId: row.externalId ?? undefined,
    userName: row.username,
    name: Object.keys(name).length > 0 ? name : undefined,
    displayName: row.name,
    nickName: row.nickname,
    profileUrl: row.profile,
    title: scim.title,
    userType: scim.userType,
    preferredLanguage: scim.preferredLanguage,
    locale: row.locale,
    timezone: row.zoneinfo,
    active: row.disabledAt === null,
    emails: emails.length > 0 ? emails : undefined,
    phoneNumbers: phones.length > 0 ? phones : undefined,
    groups: groups.length > 0 ? groups.map((g) => ({ value: g.id, display: g.name, $ref: `${base}/Groups/${g.id}` })) : undefined,
    [ENTERPRISE_SCHEMA]: scim.enterprise,
    meta: {
      resourceType: 'User',
      created: row.createdAt.toISOString(),
      lastModified: row.updatedAt.toISOString(),
      location: `${base}/Users/${row.id}`,
      version: versionOf(row),
    },
  });
}
