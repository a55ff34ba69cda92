/** Paging rules (docs/api.md, Limits and defaults). */
const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;

export interface Paging {
  pageSize: number;
  page: number;
  offset: number;
}

export function paging(pageSize?: number, page?: number): Paging {
  const size = pageSize === undefined || pageSize < 1 ? DEFAULT_PAGE_SIZE : Math.min(pageSize, MAX_PAGE_SIZE);
  const p = page === undefined || page < 1 ? 1 : page;
  return { pageSize: size, page: p, offset: (p - 1) * size };
}

export function pageInfo(totalCount: number, p: Paging): { totalCount: number; totalPages: number; currentPage: number } {
  return { totalCount, totalPages: Math.ceil(totalCount / p.pageSize), currentPage: p.page };
}

/** Escapes LIKE wildcards so a search term matches literally. */
export function likeEscape(term: string): string {
  return term.replace(/[\\%_]/g, (c) => '\\' + c);
}

/** The largest bigserial id (int8). */
const MAX_BIGINT_ID = 9_223_372_036_854_775_807n;

/**
 * The cursor of a keyset listing over a bigserial id (newest first: the next page
 * holds the ids below it): opaque to clients, base64url of `<tag>:<id>`. The tag
 * tells one listing's cursors from another's.
 */
export function encodeIdCursor(tag: string, id: string): string {
  return Buffer.from(`${tag}:${id}`, 'utf8').toString('base64url');
}

/** The id a cursor of `encodeIdCursor(tag, …)` names; undefined for a cursor this listing did not issue. */
export function decodeIdCursor(tag: string, cursor: string): string | undefined {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const prefix = `${tag}:`;
  if (!text.startsWith(prefix)) return undefined;
  const id = text.slice(prefix.length);
  // A bigserial id: beyond int8 is no id a listing issued.
  return /^[1-9][0-9]{0,18}$/.test(id) && BigInt(id) <= MAX_BIGINT_ID ? id : undefined;
}
