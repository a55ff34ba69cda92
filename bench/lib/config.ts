import { cpus } from 'node:os';
import { join, resolve } from 'node:path';

/** The scenarios `BENCH_SCENARIOS` may name (comma-separated); all run when it is unset. */
const SCENARIOS = ['introspection', 'reads', 'login', 'mixed', 'scale-out', 'revocation', 'tenants', 'user-list'] as const;
export type Scenario = (typeof SCENARIOS)[number];

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
