import { cpus } from 'node:os';
import { join, resolve } from 'node:path';

/** The scenarios `BENCH_SCENARIOS` may name (comma-separated); all run when it is unset. */
const SCENARIOS = ['introspection', 'roles', 'reads', 'login', 'mixed', 'scale-out', 'revocation', 'oidc', 'webhooks', 'extensions', 'tenants', 'user-list'] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** The tenancy modes (TENANCY_MODE of the service) the tenants scenario may run in (`BENCH_TENANT_MODES`, comma-separated). */
const TENANT_MODES = ['pooled', 'schema'] as const;
export type TenantMode = (typeof TENANT_MODES)[number];

/** The benchmark's knobs, read once from the environment. */
export interface BenchConfig {
  /** The checkout whose `dist/` is measured (this one). */
  root: string;
  seconds: number;
  connections: number;
  /** Rounds of the read scenario: each target is loaded once per round, the targets in turn, and its median round counts. */
  readRounds: number;
  users: number;
  tenants: number;
  /** Tenants whose admins sign in for the tenant-scale load (spread evenly over all of them). */
  tenantSample: number;
  /** Users seeded by SQL in every tenant of the tenants scenario (BENCH_TENANT_USERS), each signed in once. */
  tenantUsers: number;
  /** The tenancy modes the tenants scenario runs in, one fresh deployment each (BENCH_TENANT_MODES, default pooled,schema). */
  tenantModes: TenantMode[];
  /** Revocations measured on a second instance in the tenants scenario (BENCH_REVOCATION_REPS), half through the API, half in SQL. */
  revocationReps: number;
  bcryptCost: number;
  before?: string;
  output: string;
  databaseUrl?: string;
  scenarios: ReadonlySet<Scenario>;
  cores: number;
  /** BENCH_PROFILE=1: every service instance runs with --cpu-prof; the run prints where the main instance's time went. */
  profile: boolean;
  /** BENCH_PG_SETTINGS=name=value,…: settings of the embedded PostgreSQL (stock when unset). */
  pgSettings: Record<string, string>;
}

/**
 * The most database connections one instance opens:
 * DB_POOL_MAX + TENANT_CONNECTIONS_MAX × TENANT_POOL_MAX + 2 — its main pool, its
 * open tenant pools at their size, the change listener (the authorization cache's
 * LISTEN in the main database, every tenant on that one connection) and the
 * directory listener. The relay connections a tenant database's backends open to
 * the main database (dblink, application_name iam-auth-relay) are opened by
 * PostgreSQL, not by the service: they are not in it and are counted apart.
 */
export function connectionBudget(pools: { mainPoolMax: number; tenantConnectionsMax: number; tenantPoolMax: number }): number {
  return pools.mainPoolMax + pools.tenantConnectionsMax * pools.tenantPoolMax + 2;
}

function pgSettings(): Record<string, string> {
  const raw = process.env.BENCH_PG_SETTINGS?.trim();
  if (!raw) return {};
  return Object.fromEntries(
    raw.split(',').map((pair) => {
      const match = /^\s*([a-z_]+)\s*=\s*([A-Za-z0-9._]+)\s*$/.exec(pair);
      if (!match) throw new Error(`BENCH_PG_SETTINGS: expected name=value pairs separated by commas (got "${pair}")`);
      return [match[1], match[2]];
    }),
  );
}

function num(name: string, fallback: number, min = 0): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number ≥ ${min} (got ${raw})`);
  return value;
}

function scenarios(): ReadonlySet<Scenario> {
  const raw = process.env.BENCH_SCENARIOS?.trim();
  if (!raw) return new Set(SCENARIOS);
  const picked = raw.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = picked.filter((s) => !(SCENARIOS as readonly string[]).includes(s));
  if (unknown.length) throw new Error(`BENCH_SCENARIOS: unknown ${unknown.join(', ')} (known: ${SCENARIOS.join(', ')})`);
  return new Set(picked as Scenario[]);
}

function tenantModes(): TenantMode[] {
  const raw = process.env.BENCH_TENANT_MODES?.trim();
  if (!raw) return [...TENANT_MODES];
  const picked = [...new Set(raw.split(',').map((s) => s.trim()).filter(Boolean))];
  const unknown = picked.filter((s) => !(TENANT_MODES as readonly string[]).includes(s));
  if (unknown.length || !picked.length) throw new Error(`BENCH_TENANT_MODES: unknown ${unknown.join(', ') || '(none given)'} (known: ${TENANT_MODES.join(', ')})`);
  return picked as TenantMode[];
}

export function readConfig(): BenchConfig {
  const root = resolve(__dirname, '..', '..', '..');
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const tenants = num('BENCH_TENANTS', 1000);
  return {
    root,
    seconds: num('BENCH_SECONDS', 10, 1),
    connections: num('BENCH_CONNECTIONS', 50, 1),
    readRounds: num('BENCH_READ_ROUNDS', 3, 1),
    users: num('BENCH_USERS', 1_000_000),
    tenants,
    tenantSample: Math.min(tenants, num('BENCH_TENANT_SAMPLE', 250, 1)),
    tenantUsers: Math.floor(num('BENCH_TENANT_USERS', 10, 1)),
    tenantModes: tenantModes(),
    revocationReps: Math.floor(num('BENCH_REVOCATION_REPS', 10)),
    bcryptCost: num('BCRYPT_COST', 12, 4),
    before: process.env.BENCH_BEFORE ? resolve(process.env.BENCH_BEFORE) : undefined,
    output: process.env.BENCH_OUTPUT ? resolve(process.env.BENCH_OUTPUT) : join(root, 'bench', 'results', `bench-${stamp}.json`),
    databaseUrl: process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined,
    scenarios: scenarios(),
    cores: cpus().length,
    profile: process.env.BENCH_PROFILE === '1' || process.env.BENCH_PROFILE === 'true',
    pgSettings: pgSettings(),
  };
}
