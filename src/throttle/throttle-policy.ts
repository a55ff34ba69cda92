import { isIPv4, isIPv6 } from 'node:net';

/**
 * What is counted. Guesses (passwords, one-time codes) are reserved before they
 * are checked and released when right; the others are events counted as they
 * happen: new sign-in flows without a factor, signups, codes sent to new
 * factor registrations, and account links requested (password reset, magic-link
 * sign-in, email verification).
 */
export type ThrottleKind = 'password' | 'code' | 'flow' | 'signup' | 'send' | 'link';
export type GuessKind = Extract<ThrottleKind, 'password' | 'code'>;

/** The limits of one kind of key (an account or a client address). */
export interface DelayPolicy {
  /** Attempts counted back to back within the window; the last of them starts the first delay (at least 1). */
  freeAttempts: number;
  /** The first delay is twice this; each further failure doubles it. */
  baseDelaySeconds: number;
  maxDelaySeconds: number;
}

/**
 * How long a key is blocked by its `failures`-th counted attempt: nothing before
 * the allowance, then base·2^(failures − allowance + 1) seconds, capped. So with
 * an allowance of N, N attempts may be made back to back and the N-th starts the
 * first delay; a burst of parallel attempts reaches the check N times at most.
 */
export function blockSeconds(failures: number, policy: DelayPolicy): number {
  const excess = failures - Math.max(1, policy.freeAttempts) + 1;
  if (excess <= 0) return 0;
  // 2^excess overflows to Infinity long before it matters; min() still caps it.
  return Math.min(policy.maxDelaySeconds, policy.baseDelaySeconds * 2 ** Math.min(excess, 1024));
}

/**
 * The delays started by attempts allowance, allowance+1, … up to and including
 * the first capped one; every later attempt uses the last entry. It does not
 * depend on the allowance. The counter's single SQL statement indexes it by
 * `failures − allowance + 1`, so the arithmetic lives here only.
 */
export function delaySchedule(delays: Omit<DelayPolicy, 'freeAttempts'>): number[] {
  const policy = { ...delays, freeAttempts: 1 };
  const schedule: number[] = [];
  for (let excess = 1; ; excess++) {
    const seconds = blockSeconds(excess, policy);
    schedule.push(seconds);
    if (seconds >= policy.maxDelaySeconds) return schedule;
  }
}

/**
 * The account a guess is counted against: the user's id when the login names an
 * existing user (so the username and the email share one bucket), the
 * normalised login when it names nobody (so unknown users are throttled exactly
 * like real ones).
 */
export function accountRef(userId: string | null | undefined, login: string): string {
  return userId ? `id:${userId}` : `login:${login.trim().toLowerCase()}`;
}

/** Account key: one counter per kind, tenant, sector and account (see accountRef). */
export function accountKey(kind: ThrottleKind, tenantId: string, sectorId: string, account: string): string {
  return `${kind}:acct:${tenantId}:${sectorId}:${account}`;
}

/**
 * Address key: one counter per kind and client address. An IPv4-mapped IPv6
 * address counts as its IPv4 address; other IPv6 addresses count by their /64
 * prefix, since one client is usually handed a whole /64. Undefined for an
 * empty address (nothing to count by).
 */
export function addressKey(kind: ThrottleKind, clientIp: string): string | undefined {
  const ip = clientIp.trim();
  if (ip === '') return undefined;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped && isIPv4(mapped[1])) return `${kind}:ip:${mapped[1]}`;
  if (isIPv6(ip)) return `${kind}:ip:${ipv6Prefix64(ip)}::/64`;
  return `${kind}:ip:${ip.toLowerCase()}`;
}

/** The first four hextets of an IPv6 address, without leading zeros ("2001:db8:0:1"). */
function ipv6Prefix64(ip: string): string {
  const withoutZone = ip.split('%')[0].toLowerCase();
  const [head, tail] = withoutZone.includes('::') ? withoutZone.split('::') : [withoutZone, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  // An embedded IPv4 tail stands for two hextets; it never reaches the first four.
  const tailLength = tailGroups.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array<string>(8 - headGroups.length - tailLength).fill('0'), ...tailGroups];
  return groups
    .slice(0, 4)
    .map((g) => (g.includes('.') ? '0' : (parseInt(g, 16) || 0).toString(16)))
    .join(':');
}
