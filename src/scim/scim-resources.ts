import { ScimError } from './scim-error';

/** A resource's version (its ETag): weak, from the row's last change. */
export function versionOf(row: { updatedAt: Date }): string {
  return `W/"${row.updatedAt.getTime().toString(36)}"`;
}

/** `If-Match` (RFC 7644 §3.14): a version other than the resource's is 412; `*` matches any. */
export function checkVersion(row: { updatedAt: Date }, ifMatch: string | undefined): void {
  if (ifMatch === undefined || ifMatch.trim() === '*') return;
  if (!ifMatch.split(',').map((v) => v.trim()).includes(versionOf(row))) throw new ScimError(412, 'The resource has changed since that version (If-Match).');
}

/** The query parameters of SCIM reads (RFC 7644 §3.4.2, §3.9). */
export interface ScimListQuery {
  filter?: string;
  startIndex?: string;
  count?: string;
  attributes?: string;
  excludedAttributes?: string;
}

/** Resources a list answers at most per page. */
export const MAX_RESULTS = 200;
const DEFAULT_COUNT = 100;

/** `startIndex` (1-based; below 1 means 1) and `count` (0 to 200; default 100). */
export function listWindow(query: ScimListQuery): { startIndex: number; count: number } {
  const int = (raw: string | undefined, name: string, fallback: number) => {
    if (raw === undefined || raw === '') return fallback;
    if (!/^-?\d{1,9}$/.test(raw)) throw new ScimError(400, `${name} must be an integer.`, 'invalidValue');
    return Number(raw);
  };
  return { startIndex: Math.max(1, int(query.startIndex, 'startIndex', 1)), count: Math.min(MAX_RESULTS, Math.max(0, int(query.count, 'count', DEFAULT_COUNT))) };
}

/** Attributes every answer carries whatever `attributes` or `excludedAttributes` say (returned "always"). */
const ALWAYS = new Set(['schemas', 'id']);

/**
 * A resource with only the `attributes` asked for (and those always returned), or
 * without the `excludedAttributes`: top-level names or `name.sub`, case-insensitive,
 * optionally schema-qualified.
 */
export function project(resource: Record<string, unknown>, query: ScimListQuery): Record<string, unknown> {
  const list = (raw: string | undefined) =>
    (raw ?? '')
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean)
      .map(pathOf);
  const only = list(query.attributes);
  const except = list(query.excludedAttributes);
  if (only.length === 0 && except.length === 0) return resource;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(resource)) {
    const k = key.toLowerCase();
    if (ALWAYS.has(k)) {
      out[key] = value;
      continue;
    }
    const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
    if (only.length > 0) {
      if (only.some((p) => p.attr === k && p.sub === undefined)) out[key] = value;
      else if (isObject) {
        const subs = only.filter((p) => p.attr === k && p.sub !== undefined).map((p) => p.sub!);
        const picked = Object.fromEntries(Object.entries(value).filter(([s]) => subs.includes(s.toLowerCase())));
        if (Object.keys(picked).length > 0) out[key] = picked;
      }
      continue;
    }
    if (except.some((p) => p.attr === k && p.sub === undefined)) continue;
    const subs = except.filter((p) => p.attr === k && p.sub !== undefined).map((p) => p.sub!);
    out[key] = isObject && subs.length > 0 ? Object.fromEntries(Object.entries(value).filter(([s]) => !subs.includes(s.toLowerCase()))) : value;
  }
  return out;
}

/** `[urn:…:]attr[.sub]` lower-cased; an extension's attribute is looked up under its URI (`urn:…:User` + `.employeeNumber`). */
function pathOf(text: string): { attr: string; sub?: string } {
  const lower = text.toLowerCase();
  const colon = lower.lastIndexOf(':');
  if (colon >= 0) {
    const uri = lower.slice(0, colon);
    const rest = lower.slice(colon + 1);
    // The core schema's qualifier is dropped; an extension's names its object.
    if (uri.endsWith(':core:2.0:user') || uri.endsWith(':core:2.0:group')) return pathOf(rest);
    return { attr: uri, sub: rest };
  }
  const [attr, sub] = lower.split('.', 2);
  return sub === undefined ? { attr } : { attr, sub };
}
