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
