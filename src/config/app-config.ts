import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/** How long a request waits for a pooled database connection unless DB_CONNECTION_TIMEOUT_MS says otherwise (also the internal pools' wait). */
export const DB_CONNECTION_TIMEOUT_DEFAULT_MS = 5000;

type TenancyMode = 'pooled' | 'schema';

/** The typed, validated configuration. Built once, at boot, from the environment. */
/** A PostgreSQL server that holds tenant databases: its name (kept in the directory) and a URL on it. */
interface TenantDatabaseServer {
  name: string;
  url: string;
  /** The server itself when `url` is a pooler in transaction mode: for what needs a session. */
  directUrl?: string;
}

/** The name of the main database's server among the tenant database servers. */
export const MAIN_SERVER = 'main';

export interface AppConfig {
  nodeEnv: string;
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  embeddedPgPort: number;
  tenancyMode: TenancyMode;
  /**
   * Further PostgreSQL servers that hold tenant databases (pooled mode), by name, beside
   * the main database's server (always named `main`); from TENANT_DATABASE_SERVERS.
   */
  tenantDatabaseServers: TenantDatabaseServer[];
  publicUrl: string;
  /** The newest master key (= masterKeys[0]): what secrets are sealed and codes MACed under. */
  masterKey: string;
  /** Every configured master key, newest first; older ones only open what they sealed (until `npm run secrets:reseal`). */
  masterKeys: string[];
  masterKeySource: 'env' | 'generated' | 'file';
  smtpUrl: string | undefined;
  mailFrom: string;
  smsWebhookUrl: string | undefined;
  /** Scrapers of `/metrics` on the service's port present this bearer token; unset: no `/metrics` there. */
  metricsToken: string | undefined;
  /** A separate listener for `/metrics` alone (no token), e.g. for a sidecar; unset: none. */
  metricsPort: number | undefined;
  metricsHost: string;
  /** Sent as the `Authorization` header of every SMS webhook call (a secret the gateway checks), when set. */
  smsWebhookAuthorization: string | undefined;
  /** Social-login provider endpoints (overridable for tests and proxies): GitHub's web and API bases, Apple's base, Google's issuer. */
  oauthGithubBaseUrl: string;
  oauthGithubApiBaseUrl: string;
  oauthAppleBaseUrl: string;
  oauthGoogleIssuer: string;
  /**
   * Hosts an OpenID provider's discovered endpoints (authorization, token, user
   * info, keys) may sit on besides the issuer's own host (lowercase host names).
   */
  oauthEndpointHosts: string[];
  /**
   * OUTBOUND_ALLOW_PRIVATE_NETWORKS: calls to URLs that clients or admins
   * registered (back-channel logout) may use plain http and reach private,
   * loopback and link-local addresses. For development and tests only.
   */
  outboundAllowPrivateNetworks: boolean;
  bootstrapAdminEmail: string;
  bootstrapAdminPassword: string | undefined;
  bcryptCost: number;
  /** Threads that hash passwords (each one core's worth of bcrypt). */
  bcryptWorkers: number;
  /** Niceness of those threads (0–19; Linux): above 0 the event loop and the database win the CPU over hashing. */
  bcryptNice: number;
  mainPoolMax: number;
  tenantPoolMax: number;
  tenantConnectionsMax: number;
  tenantIdleMs: number;
  /** How long a request waits for a connection of the main pool or a tenant pool before it answers 503 DATABASE_UNAVAILABLE. */
  dbConnectionTimeoutMs: number;
  /**
   * Authorization-state cache: at most this many entries (users', sessions' and API
   * tokens' state, of any tenant) are cached; 0 turns the cache off (every request
   * reads the database).
   */
  authCacheEntries: number;
  /** The main database as the tenant databases' servers reach it, for their change relay (AUTH_RELAY_URL; default: DATABASE_URL). */
  authRelayUrl: string | undefined;
  /** How long a cached authorization state is trusted at most, notifications aside. */
  authCacheTtlMs: number;
  /**
   * How often each live listener sends itself a heartbeat notification; one that
   * hears nothing for two intervals is treated as failed (its cache dropped).
   */
  authCacheHeartbeatMs: number;
  /**
   * `strict`: a cached state is served only once this instance has heard every
   * change committed before the request arrived (one NOTIFY round trip on its
   * listener, shared by every request waiting); `bounded`: served at once, and a
   * change made on another instance applies here as soon as its notification arrives.
   */
  authCacheConsistency: 'strict' | 'bounded';
  transactionTtlSeconds: number;
  shutdownTimeoutMs: number;
  /**
   * EXTENSION_MODULES: the extension modules loaded at start (comma-separated package
   * names or paths, resolved from the working directory); one that fails to load stops
   * the start (docs/extending.md).
   */
  extensionModules: string[];
  /** EXTENSION_HOOK_TIMEOUT_MS: how long an extension's hook may take before the step it guards is refused (UNAVAILABLE). */
  extensionHookTimeoutMs: number;
  /** Migrate every database at start (true), or leave it to `iam-migrate` and refuse to serve a schema that is behind (false). */
  migrateOnStart: boolean;
  logLevel: 'error' | 'warn' | 'log' | 'debug' | 'verbose';
  /** `text` (Nest's console format) or `json` (one object per line, with request id, tenant and sector, and an access-log line per request). */
  logFormat: 'text' | 'json';
  /** The HTTP server under Nest: Express (the default) or Fastify; both behave the same on the wire. */
  httpAdapter: 'express' | 'fastify';
  /**
   * Which proxies' X-Forwarded-For hops to believe (Express's `trust proxy`):
   * false (none), a hop count, or addresses/CIDRs/names of the proxies; true
   * believes every hop, which lets a client pick its own address.
   */
  trustProxy: boolean | number | string[];
  /** How often the outbox worker looks for due mail. */
  mailPollIntervalMs: number;
  /** First retry delay of a failed delivery; doubles per attempt up to mailRetryMaxMs. */
  mailRetryBaseMs: number;
  mailRetryMaxMs: number;
  /** How often every tenant's outbox is swept (besides the tenants known to have mail). */
  mailSweepIntervalMs: number;
  /**
   * WEBHOOK_RETRY_SCHEDULE: the waits before each retry of a webhook delivery
   * (comma-separated durations: `500ms`, `5s`, `5m`, `2h`); after the last the
   * delivery is marked failed. Each wait is jittered by ±10 %.
   */
  webhookRetryScheduleMs: number[];
  /** WEBHOOK_DISABLE_AFTER_SECONDS: an endpoint whose deliveries all failed this long is disabled (default 5 days). */
  webhookDisableAfterSeconds: number;
  /** One-time codes sent by mail or SMS: lifetime, wrong tries allowed, resend cooldown. */
  otpCodeTtlSeconds: number;
  otpMaxAttempts: number;
  otpResendCooldownSeconds: number;
  /** Codes a factor receives per hour from sign-ins that have no factor yet (unanswered ones; a used code gives its send back). */
  otpAnonymousSendsPerHour: number;
  /** Unverified email/SMS registrations a user may hold at once, and how long one lives unverified. */
  otpPendingRegistrationsMax: number;
  otpPendingRegistrationTtlSeconds: number;
  /** Password/code guesses: allowance per account and per address, then doubling delays up to the cap; attempts count for the window. */
  throttleAccountFreeAttempts: number;
  throttleAddressFreeAttempts: number;
  throttleBaseDelaySeconds: number;
  throttleMaxDelaySeconds: number;
  throttleWindowSeconds: number;
  /** Rate limits (same delays and window): sign-in flows started without a factor, signups, codes sent to new factor registrations. */
  throttleFlowAddressFree: number;
  throttleSignupAddressFree: number;
  throttleSendUserFree: number;
  throttleSendAddressFree: number;
}

/** A configuration value that cannot be used; the message names the variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function str(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function int(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === undefined) return def;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

function bool(env: Env, name: string, def: boolean): boolean {
  const raw = str(env, name);
  if (raw === undefined) return def;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be a valid URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use one of ${protocols.join(', ')}`);
  }
  return raw;
}

const SERVER_NAME = /^[a-z][a-z0-9-]{0,31}$/;

/**
 * TENANT_DATABASE_SERVERS: `name=postgres://…` entries separated by commas or
 * whitespace; TENANT_DATABASE_SERVERS_DIRECT: the same for servers reached through a
 * connection pooler in transaction mode (PgBouncer), naming the server itself for
 * what needs a session (LISTEN, advisory locks, creating databases). Errors name the
 * entry by position or name, never its URL (it may carry a password).
 */
function tenantDatabaseServers(env: Env): TenantDatabaseServer[] {
  const servers = namedUrls(env, 'TENANT_DATABASE_SERVERS');
  for (const { name, url } of namedUrls(env, 'TENANT_DATABASE_SERVERS_DIRECT')) {
    const server = servers.find((s) => s.name === name);
    if (!server) throw new ConfigError('TENANT_DATABASE_SERVERS_DIRECT', `"${name}" is not one of TENANT_DATABASE_SERVERS`);
    server.directUrl = url;
  }
  return servers;
}

function namedUrls(env: Env, variable: string): TenantDatabaseServer[] {
  const raw = str(env, variable);
  if (raw === undefined) return [];
  const servers: TenantDatabaseServer[] = [];
  for (const [i, entry] of raw.split(/[\s,]+/).filter((e) => e !== '').entries()) {
    const at = entry.indexOf('=');
    const name = at > 0 ? entry.slice(0, at) : '';
    if (!SERVER_NAME.test(name)) throw new ConfigError(variable, `entry ${i + 1} must be name=postgres://… with a name of lowercase letters, digits and dashes`);
    if (name === MAIN_SERVER) throw new ConfigError(variable, `"${MAIN_SERVER}" is the main database's server and is always there; give the others other names`);
    if (servers.some((s) => s.name === name)) throw new ConfigError(variable, `"${name}" is named twice`);
    const value = entry.slice(at + 1);
    let parsed: URL | undefined;
    try {
      parsed = new URL(value);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !['postgres:', 'postgresql:'].includes(parsed.protocol)) throw new ConfigError(variable, `the URL of "${name}" must be a postgres:// URL`);
    servers.push({ name, url: value });
  }
  return servers;
}

/**
 * The default wait before each retry of a webhook delivery: Standard Webhooks'
 * reference schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h) and one more 10 h, so a
 * delivery is tried for over 24 hours (about 27.6 h) before it is marked failed.
 */
const DEFAULT_WEBHOOK_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';
const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A comma-separated list of durations (`500ms`, `5s`, `5m`, `2h`), 1 to 50 of them, each up to 7 days. */
function durations(env: Env, name: string, def: string): number[] {
  const raw = str(env, name) ?? def;
  const parts = raw.split(',').map((p) => p.trim());
  const out = parts.map((part) => {
    const m = /^(\d{1,9})(ms|s|m|h)$/.exec(part);
    const ms = m ? Number(m[1]) * DURATION_UNITS[m[2]] : NaN;
    if (!(ms >= 1 && ms <= 7 * 86_400_000)) throw new ConfigError(name, 'must be comma-separated durations such as 5s,5m,30m,2h (each up to 7 days)');
    return ms;
  });
  if (out.length > 50) throw new ConfigError(name, 'must list at most 50 durations');
  return out;
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], def: T): T {
  const raw = str(env, name);
  if (raw === undefined) return def;
  if (!(values as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${values.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** A value for an HTTP header: one line of visible characters. */
function headerValue(env: Env, name: string): string | undefined {
  const raw = str(env, name);
  if (raw !== undefined && !/^[\x20-\x7e]+$/.test(raw)) throw new ConfigError(name, 'must be one line of printable ASCII characters');
  return raw;
}

/**
 * The master keys, newest first; each must carry at least 256 bits (32+
 * characters). Either MASTER_KEYS (comma-separated, newest first) or MASTER_KEY
 * (one key, commas included) with the optional MASTER_KEY_PREVIOUS
 * (comma-separated). In development, when none is set, one is generated into
 * DATA_DIR/master.key so that restarts can still decrypt what was stored; in
 * production it is required. Messages never contain a key.
 */
function masterKeys(env: Env, dataDir: string, production: boolean): Pick<AppConfig, 'masterKey' | 'masterKeys' | 'masterKeySource'> {
  const list = str(env, 'MASTER_KEYS');
  const single = str(env, 'MASTER_KEY');
  const previous = str(env, 'MASTER_KEY_PREVIOUS');
  if (list !== undefined && single !== undefined) {
    throw new ConfigError('MASTER_KEYS', 'and MASTER_KEY cannot both be set: list every key, newest first, in MASTER_KEYS, or use MASTER_KEY (+ MASTER_KEY_PREVIOUS)');
  }
  if (list !== undefined && previous !== undefined) {
    throw new ConfigError('MASTER_KEYS', 'and MASTER_KEY_PREVIOUS cannot both be set: list the previous keys in MASTER_KEYS, after the newest');
  }
  if (previous !== undefined && single === undefined) {
    throw new ConfigError('MASTER_KEY_PREVIOUS', 'needs MASTER_KEY (the newest key) to be set');
  }
  let keys: string[] | undefined;
  if (list !== undefined) keys = splitKeys(list, 'MASTER_KEYS');
  else if (single !== undefined) keys = [single, ...(previous === undefined ? [] : splitKeys(previous, 'MASTER_KEY_PREVIOUS'))];
  if (keys !== undefined) {
    keys.forEach((key, i) => {
      if (key.length >= 32) return;
      if (list !== undefined) throw new ConfigError('MASTER_KEYS', `key ${i + 1} must be at least 32 characters`);
      if (i === 0) throw new ConfigError('MASTER_KEY', 'must be at least 32 characters');
      throw new ConfigError('MASTER_KEY_PREVIOUS', `key ${i} must be at least 32 characters`);
    });
    if (new Set(keys).size !== keys.length) {
      throw new ConfigError(list !== undefined ? 'MASTER_KEYS' : 'MASTER_KEY_PREVIOUS', 'repeats a key (each key may be listed once)');
    }
    return { masterKey: keys[0], masterKeys: keys, masterKeySource: 'env' };
  }
  if (production) throw new ConfigError('MASTER_KEY', 'is required when NODE_ENV=production (or MASTER_KEYS)');
  const file = join(dataDir, 'master.key');
  if (existsSync(file)) {
    const key = readFileSync(file, 'utf8').trim();
    return { masterKey: key, masterKeys: [key], masterKeySource: 'file' };
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32).toString('base64url');
  writeFileSync(file, key + '\n', { mode: 0o600 });
  return { masterKey: key, masterKeys: [key], masterKeySource: 'generated' };
}

/** The comma-separated keys of `variable` (each trimmed; an empty entry is refused). */
function splitKeys(raw: string, variable: string): string[] {
  const keys = raw.split(',').map((k) => k.trim());
  if (keys.some((k) => k === '')) throw new ConfigError(variable, 'has an empty entry (keys are comma-separated, newest first)');
  return keys;
}

/** METRICS_TOKEN: a bearer token for scrapers, long enough not to be guessed. */
function metricsToken(env: Env): string | undefined {
  const token = headerValue(env, 'METRICS_TOKEN');
  if (token !== undefined && (token.length < 16 || /\s/.test(token))) throw new ConfigError('METRICS_TOKEN', 'must be at least 16 characters without spaces');
  return token;
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** OAUTH_ENDPOINT_HOSTS: comma-separated host names (no scheme, port or path), lowercased. */
function hostNames(env: Env, name: string): string[] {
  const raw = str(env, name);
  if (raw === undefined) return [];
  const hosts = raw.split(',').map((h) => h.trim().toLowerCase()).filter((h) => h !== '');
  for (const host of hosts) {
    if (!HOST_NAME.test(host) || isIP(host) !== 0) throw new ConfigError(name, `must be comma-separated host names (no scheme, port or path), got "${host}"`);
  }
  return [...new Set(hosts)];
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** TRUST_PROXY: false/true, a hop count, or a comma-separated list of proxy addresses, CIDRs or names (loopback, linklocal, uniquelocal). */
function trustProxy(env: Env): AppConfig['trustProxy'] {
  const raw = str(env, 'TRUST_PROXY');
  if (raw === undefined) return false;
  if (/^\d+$/.test(raw)) return int(env, 'TRUST_PROXY', 0, 0, 100);
  if (/^(true|false|yes|no|on|off)$/i.test(raw)) return bool(env, 'TRUST_PROXY', false);
  const entries = raw.split(',').map((e) => e.trim()).filter((e) => e !== '');
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address);
    const bitsOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (!PROXY_NAMES.has(entry) && (extra !== undefined || family === 0 || !bitsOk)) {
      throw new ConfigError('TRUST_PROXY', `must be false, true, a hop count, or proxy addresses/CIDRs (loopback, linklocal, uniquelocal allowed), got "${entry}"`);
    }
  }
  return entries;
}

/** Attempt throttling (src/throttle); the delay cap may not be below the base delay. */
function throttle(env: Env): Pick<AppConfig, Extract<keyof AppConfig, `throttle${string}`>> {
  const base = int(env, 'THROTTLE_BASE_DELAY_SECONDS', 1, 1, 3600);
  const max = int(env, 'THROTTLE_MAX_DELAY_SECONDS', 900, 1, 86_400);
  if (max < base) throw new ConfigError('THROTTLE_MAX_DELAY_SECONDS', `must be at least THROTTLE_BASE_DELAY_SECONDS (${base}), got ${max}`);
  return {
    throttleAccountFreeAttempts: int(env, 'THROTTLE_ACCOUNT_FREE_ATTEMPTS', 5, 1, 1000),
    throttleAddressFreeAttempts: int(env, 'THROTTLE_ADDRESS_FREE_ATTEMPTS', 50, 1, 1_000_000),
    throttleBaseDelaySeconds: base,
    throttleMaxDelaySeconds: max,
    throttleWindowSeconds: int(env, 'THROTTLE_WINDOW_SECONDS', 900, 1, 86_400),
    throttleFlowAddressFree: int(env, 'THROTTLE_FLOW_ADDRESS_FREE', 100, 1, 1_000_000),
    throttleSignupAddressFree: int(env, 'THROTTLE_SIGNUP_ADDRESS_FREE', 20, 1, 1_000_000),
    throttleSendUserFree: int(env, 'THROTTLE_SEND_USER_FREE', 10, 1, 1_000_000),
    throttleSendAddressFree: int(env, 'THROTTLE_SEND_ADDRESS_FREE', 30, 1, 1_000_000),
  };
}

/** Reads and validates the whole configuration; throws ConfigError on the first bad value. */
export function loadConfig(env: Env = process.env): AppConfig {
  const nodeEnv = str(env, 'NODE_ENV') ?? 'development';
  const production = nodeEnv === 'production';
  const port = int(env, 'PORT', 3000, 0, 65535);
  const dataDirRaw = str(env, 'DATA_DIR') ?? './data';
  const dataDir = isAbsolute(dataDirRaw) ? dataDirRaw : resolve(process.cwd(), dataDirRaw);
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const publicUrl = (url(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const mailFrom = str(env, 'MAIL_FROM') ?? 'no-reply@localhost';
  if (!EMAIL.test(mailFrom) && !/<[^\s@]+@[^\s@]+>$/.test(mailFrom)) {
    throw new ConfigError('MAIL_FROM', 'must be an email address');
  }
  const bootstrapAdminEmail = (str(env, 'BOOTSTRAP_ADMIN_EMAIL') ?? 'admin@localhost').toLowerCase();
  if (!EMAIL.test(bootstrapAdminEmail)) throw new ConfigError('BOOTSTRAP_ADMIN_EMAIL', 'must be an email address');
  const bootstrapAdminPassword = str(env, 'BOOTSTRAP_ADMIN_PASSWORD');
  if (bootstrapAdminPassword !== undefined && bootstrapAdminPassword.length < 8) {
    throw new ConfigError('BOOTSTRAP_ADMIN_PASSWORD', 'must be at least 8 characters');
  }
  if (bootstrapAdminPassword !== undefined && Buffer.byteLength(bootstrapAdminPassword) > 72) {
    throw new ConfigError('BOOTSTRAP_ADMIN_PASSWORD', 'must be at most 72 bytes');
  }
  return {
    nodeEnv,
    port,
    host: str(env, 'HOST') ?? '0.0.0.0',
    databaseUrl,
    dataDir,
    embeddedPgPort: int(env, 'EMBEDDED_PG_PORT', 54329, 1, 65535),
    tenancyMode: oneOf(env, 'TENANCY_MODE', ['pooled', 'schema'] as const, 'pooled'),
    tenantDatabaseServers: tenantDatabaseServers(env),
    publicUrl,
    ...masterKeys(env, dataDir, production),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom,
    smsWebhookUrl: url(env, 'SMS_WEBHOOK_URL', ['http:', 'https:']),
    metricsToken: metricsToken(env),
    metricsPort: str(env, 'METRICS_PORT') === undefined ? undefined : int(env, 'METRICS_PORT', 0, 1, 65535),
    metricsHost: str(env, 'METRICS_HOST') ?? '127.0.0.1',
    smsWebhookAuthorization: headerValue(env, 'SMS_WEBHOOK_AUTHORIZATION'),
    oauthGithubBaseUrl: (url(env, 'OAUTH_GITHUB_BASE_URL', ['http:', 'https:']) ?? 'https://github.com').replace(/\/+$/, ''),
    oauthGithubApiBaseUrl: (url(env, 'OAUTH_GITHUB_API_BASE_URL', ['http:', 'https:']) ?? 'https://api.github.com').replace(/\/+$/, ''),
    oauthAppleBaseUrl: (url(env, 'OAUTH_APPLE_BASE_URL', ['http:', 'https:']) ?? 'https://appleid.apple.com').replace(/\/+$/, ''),
    oauthGoogleIssuer: (url(env, 'OAUTH_GOOGLE_ISSUER', ['http:', 'https:']) ?? 'https://accounts.google.com').replace(/\/+$/, ''),
    oauthEndpointHosts: hostNames(env, 'OAUTH_ENDPOINT_HOSTS'),
    outboundAllowPrivateNetworks: bool(env, 'OUTBOUND_ALLOW_PRIVATE_NETWORKS', false),
    bootstrapAdminEmail,
    bootstrapAdminPassword,
    bcryptCost: int(env, 'BCRYPT_COST', 12, 4, 15),
    bcryptWorkers: int(env, 'BCRYPT_WORKERS', availableParallelism(), 1, 256),
    bcryptNice: int(env, 'BCRYPT_NICE', 10, 0, 19),
    mainPoolMax: int(env, 'DB_POOL_MAX', 20, 2, 500),
    tenantPoolMax: int(env, 'TENANT_POOL_MAX', 5, 1, 100),
    tenantConnectionsMax: int(env, 'TENANT_CONNECTIONS_MAX', 50, 1, 10000),
    tenantIdleMs: int(env, 'TENANT_IDLE_TIMEOUT_MS', 60_000, 1000, 86_400_000),
    dbConnectionTimeoutMs: int(env, 'DB_CONNECTION_TIMEOUT_MS', DB_CONNECTION_TIMEOUT_DEFAULT_MS, 100, 600_000),
    authCacheEntries: int(env, 'AUTH_CACHE_ENTRIES', 200_000, 0, 10_000_000),
    authRelayUrl: url(env, 'AUTH_RELAY_URL', ['postgres:', 'postgresql:']),
    authCacheTtlMs: int(env, 'AUTH_CACHE_TTL_MS', 600_000, 100, 3_600_000),
    authCacheHeartbeatMs: int(env, 'AUTH_CACHE_HEARTBEAT_MS', 5_000, 50, 600_000),
    authCacheConsistency: oneOf(env, 'AUTH_CACHE_CONSISTENCY', ['strict', 'bounded'] as const, 'strict'),
    transactionTtlSeconds: int(env, 'AUTH_TRANSACTION_TTL_SECONDS', 600, 10, 86_400),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    extensionModules: [...new Set((str(env, 'EXTENSION_MODULES') ?? '').split(',').map((m) => m.trim()).filter((m) => m !== ''))],
    extensionHookTimeoutMs: int(env, 'EXTENSION_HOOK_TIMEOUT_MS', 2000, 1, 60_000),
    migrateOnStart: bool(env, 'MIGRATE_ON_START', true),
    logLevel: oneOf(env, 'LOG_LEVEL', ['error', 'warn', 'log', 'debug', 'verbose'] as const, 'log'),
    logFormat: oneOf(env, 'LOG_FORMAT', ['text', 'json'] as const, 'text'),
    httpAdapter: oneOf(env, 'HTTP_ADAPTER', ['express', 'fastify'] as const, 'express'),
    trustProxy: trustProxy(env),
    mailPollIntervalMs: int(env, 'MAIL_POLL_INTERVAL_MS', 1000, 50, 3_600_000),
    mailRetryBaseMs: int(env, 'MAIL_RETRY_BASE_MS', 5000, 10, 3_600_000),
    mailRetryMaxMs: int(env, 'MAIL_RETRY_MAX_MS', 300_000, 10, 86_400_000),
    mailSweepIntervalMs: int(env, 'MAIL_SWEEP_INTERVAL_MS', 3_600_000, 100, 86_400_000),
    webhookRetryScheduleMs: durations(env, 'WEBHOOK_RETRY_SCHEDULE', DEFAULT_WEBHOOK_RETRY_SCHEDULE),
    webhookDisableAfterSeconds: int(env, 'WEBHOOK_DISABLE_AFTER_SECONDS', 5 * 86_400, 1, 365 * 86_400),
    otpCodeTtlSeconds: int(env, 'OTP_CODE_TTL_SECONDS', 600, 1, 86_400),
    otpMaxAttempts: int(env, 'OTP_MAX_ATTEMPTS', 5, 1, 100),
    otpResendCooldownSeconds: int(env, 'OTP_RESEND_COOLDOWN_SECONDS', 30, 0, 3600),
    otpAnonymousSendsPerHour: int(env, 'OTP_ANONYMOUS_SENDS_PER_HOUR', 5, 0, 10_000),
    otpPendingRegistrationsMax: int(env, 'OTP_PENDING_REGISTRATIONS_MAX', 3, 1, 100),
    otpPendingRegistrationTtlSeconds: int(env, 'OTP_PENDING_REGISTRATION_TTL_SECONDS', 86_400, 60, 30 * 86_400),
    ...throttle(env),
  };
}

/** loadConfig for a process entry point: a bad value is logged (naming the variable) and the process exits 1. */
export function loadConfigOrExit(log: (message: string) => void): AppConfig {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      log(err.message);
      process.exit(1);
    }
    throw err;
  }
}

/** Injection token for the AppConfig object. */
export const APP_CONFIG = Symbol('APP_CONFIG');
