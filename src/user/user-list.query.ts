import { likeEscape, Paging } from '../common/wire/paging';
import type { UserSort } from './dto/user.dto';

/**
 * The SQL of operation 6 (list a sector's users), as pure functions so the
 * benchmark can time exactly what the service runs (docs/adr/0033-listing-at-scale.md).
 *
 * - The count of an unsearched list (all users, or `filterVerified` alone) is one
 *   row of `user_list_counts`, kept exact by triggers.
 * - Any other count, and every search, reads `user_search_docs` (narrow rows with
 *   the lowercased search document and its trigram index, keyed by the sector's
 *   `list_key`) or the users' indexes.
 * - The page selects ids only, from the `(sector_id, key, id)` index of the sort;
 *   past the middle of a list whose total is known first, it walks that index from
 *   the other end (a page at 80 % skips 20 % of the entries, not 80 %).
 */

export interface UserFilter {
  searchTerm?: string;
  filterEmail?: string;
  filterVerified?: boolean;
  /** Disabled users only (true) or enabled users only (false). */
  filterDisabled?: boolean;
  /** Users holding the role of this name only. */
  filterRole?: string;
}

export interface UserListSpec {
  sectorId: string;
  filter: UserFilter;
  sort: UserSort;
  desc: boolean;
  paging: Paging;
}

export interface Sql {
  sql: string;
  params: unknown[];
}

/** A page query: `reversed` when its ids come in the opposite order and must be turned around. */
export interface PageSql extends Sql {
  reversed: boolean;
}

/** From this offset on, an unsearched list's count is read before its page, so the page can be read from the nearer end. */
export const REVERSE_FROM_OFFSET = 1000;

const SORT_EXPRESSIONS: Record<UserSort, string> = {
  name: 'lower(u.name)',
  email: 'lower(u.email)',
  created_at: 'u.created_at',
  updated_at: 'u.updated_at',
};

/** Whether the count is one row of `user_list_counts` (no search, no email, state or role filter). */
export function countFromCounters(filter: UserFilter): boolean {
  return !filter.searchTerm && !filter.filterEmail && filter.filterDisabled === undefined && filter.filterRole === undefined;
}

function searchPattern(term: string): string {
  return `%${likeEscape(term.toLowerCase())}%`;
}

/** The documents of the sector in $1 (they carry the sector's `list_key`, not its id). */
const SECTOR_DOCS = `user_search_docs d WHERE d.sector_key = (SELECT c.list_key FROM user_list_counts c WHERE c.sector_id = $1)`;

/** The WHERE clause over `users u` and its parameters ($1 is the sector). */
function where(spec: UserListSpec): Sql {
  const params: unknown[] = [spec.sectorId];
  const parts = ['u.sector_id = $1'];
  const { searchTerm, filterEmail, filterVerified, filterDisabled, filterRole } = spec.filter;
  if (searchTerm) {
    params.push(searchPattern(searchTerm));
    parts.push(`u.id IN (SELECT d.user_id FROM ${SECTOR_DOCS} AND d.doc LIKE $${params.length} ESCAPE '\\')`);
  }
  if (filterEmail) {
    params.push(filterEmail);
    parts.push(`u.email <> '' AND lower(u.email) = lower($${params.length})`);
  }
  if (filterVerified !== undefined) {
    params.push(filterVerified);
    parts.push(`u.email_verified = $${params.length}`);
  }
  if (filterDisabled !== undefined) parts.push(filterDisabled ? 'u.disabled_at IS NOT NULL' : 'u.disabled_at IS NULL');
  if (filterRole !== undefined) {
    params.push(filterRole);
    parts.push(`u.id IN (SELECT ur.user_id FROM roles r JOIN user_roles ur ON ur.role_id = r.id WHERE r.sector_id = $1 AND r.name = $${params.length})`);
  }
  return { sql: parts.join(' AND '), params };
}

/** The count kept in `user_list_counts` for an unsearched list, as an SQL expression ($1 is the sector). */
function counterExpression(filter: UserFilter): string {
  const column = filter.filterVerified === undefined ? 'users' : filter.filterVerified ? 'verified' : 'users - verified';
  return `COALESCE((SELECT ${column} FROM user_list_counts WHERE sector_id = $1), 0)::int`;
}

/** The exact number of users the list matches, as column `n`. */
export function userCountSql(spec: UserListSpec): Sql {
  const { searchTerm, filterEmail, filterVerified } = spec.filter;
  if (countFromCounters(spec.filter)) return { sql: `SELECT ${counterExpression(spec.filter)} AS n`, params: [spec.sectorId] };
  if (searchTerm && !filterEmail && filterVerified === undefined && spec.filter.filterDisabled === undefined && spec.filter.filterRole === undefined) {
    // A search alone is counted on the narrow documents without touching users.
    return {
      sql: `SELECT count(*)::int AS n FROM ${SECTOR_DOCS} AND d.doc LIKE $2 ESCAPE '\\'`,
      params: [spec.sectorId, searchPattern(searchTerm)],
    };
  }
  const w = where(spec);
  return { sql: `SELECT count(*)::int AS n FROM users u WHERE ${w.sql}`, params: w.params };
}

/** What a list item shows of a user, as the page query answers it. */
export interface UserListRow {
  id: string;
  email: string;
  name: string;
  emailVerified: boolean;
  phoneNumberVerified: boolean;
  createdAt: Date;
  updatedAt: Date;
  isAdmin: boolean;
  disabled: boolean;
  inviteExpiresAt: Date | null;
  inviteAcceptedAt: Date | null;
}

const ROW_COLUMNS = `u.id, u.email, u.name, u.email_verified AS "emailVerified", u.phone_number_verified AS "phoneNumberVerified",
  u.created_at AS "createdAt", u.updated_at AS "updatedAt", u.is_admin AS "isAdmin", u.disabled_at IS NOT NULL AS disabled,
  u.invite_expires_at AS "inviteExpiresAt", u.invite_accepted_at AS "inviteAcceptedAt"`;

export interface PageOptions {
  /** The exact total, known from the same counters: a page past the middle is then read from the other end. */
  total?: number;
  /** Answer the counters' total beside the rows (column `total`, on a row of its own when the page is empty), in the page's snapshot. */
  withCount?: boolean;
  /** Read one row more than the page, to tell whether another page follows (a list whose count is skipped). */
  lookAhead?: boolean;
}

/**
 * The rows of the requested page, in list order (column `ord` gives it). Only the
 * page's ids come from the sort index (an index-only scan, however deep the
 * offset); those rows alone are then read in full.
 */
export function userPageSql(spec: UserListSpec, options: PageOptions = {}): PageSql {
  const { offset, pageSize } = spec.paging;
  let reversed = false;
  let skip = offset;
  let take = pageSize;
  const { total } = options;
  if (total !== undefined && offset < total) {
    // Only a reversed page depends on the total (the caller checks it against the statement's own count).
    const rest = Math.min(pageSize, total - offset);
    const fromEnd = total - offset - rest;
    if (fromEnd < offset) {
      reversed = true;
      skip = fromEnd;
      take = rest;
    }
  }
  const direction = spec.desc !== reversed ? 'DESC' : 'ASC';
  const w = where(spec);
  const limit = options.lookAhead ? take + 1 : take;
  const ids = `SELECT u.id FROM users u WHERE ${w.sql} ORDER BY ${SORT_EXPRESSIONS[spec.sort]} ${direction}, u.id ${direction} OFFSET ${skip} LIMIT ${limit}`;
  const rows = `SELECT ${reversed ? '-' : ''}p.ord AS ord, ${ROW_COLUMNS}
    FROM (SELECT s.id, row_number() OVER () AS ord FROM (${ids}) s) p JOIN users u ON u.id = p.id`;
  const sql = options.withCount
    ? `SELECT c.n AS total, x.* FROM (SELECT ${counterExpression(spec.filter)} AS n) c LEFT JOIN (${rows}) x ON true ORDER BY x.ord`
    : `${rows} ORDER BY ord`;
  return { sql, params: w.params, reversed };
}
