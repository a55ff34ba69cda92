import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { freePort } from './ports';
import { profileArgs } from './profile';

export const PLATFORM_ADMIN = 'bench-admin@platform.test';
export const PLATFORM_PASSWORD = 'bench-admin-password';

/** One deployment: a main database and the secrets every instance on it shares. */
export interface Deployment {
  /** The build whose src/main.js runs: a snapshot of this checkout's dist/, or BENCH_BEFORE's dist/. */
  build: string;
  databaseUrl: string;
  /** The main database's name: the prefix of every database of the deployment. */
  databaseName: string;
  masterKey: string;
  bcryptCost: number;
  /** PUBLIC_URL (the tokens' issuer) of every instance: the first instance's address, as instances behind one balancer share it. */
  publicUrl?: string;
}

export function deployment(build: string, db: { url: string; name: string }, bcryptCost: number): Deployment {
  return { build, databaseUrl: db.url, databaseName: db.name, masterKey: randomBytes(36).toString('base64url'), bcryptCost };
}

/** A running instance of the service (a child process whose output goes to a log file). */
export class ServiceInstance {
  constructor(
    readonly name: string,
    readonly base: string,
    readonly child: ChildProcess,
    readonly logFile: string,
  ) {}

  get pid(): number {
    return this.child.pid ?? -1;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  }
}

/** The first error line of a log (colours stripped), to name why a start failed. */
function firstError(file: string): string {
  try {
    // eslint-disable-next-line no-control-regex -- strips ANSI colour codes
    const lines = readFileSync(file, 'utf8').replace(/\u001b\[[0-9;]*m/g, '').split('\n');
    return (lines.find((l) => /error/i.test(l)) ?? lines.filter(Boolean).pop() ?? '').trim().slice(0, 200);
  } catch {
    return '';
  }
}

function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Whether a build knows HTTP_ADAPTER (the switch is read by its configuration). */
export function supportsAdapterSwitch(build: string): boolean {
  const file = join(build, 'src', 'config', 'app-config.js');
  return existsSync(file) && readFileSync(file, 'utf8').includes('HTTP_ADAPTER');
}

/**
 * Copies this checkout's dist/ to bench/results/.dist-<pid> (inside the checkout, so
 * that node_modules resolve) and answers the copy: instances started later in the
 * run use the same build even if dist/ is rebuilt meanwhile. Remove it with rmSync.
 */
export function snapshotBuild(root: string): string {
  const target = join(root, 'bench', 'results', `.dist-${process.pid}`);
  cpSync(join(root, 'dist'), target, { recursive: true });
  return target;
}

/**
 * Starts src/main.js of the deployment's checkout on a free port and waits for
 * /readyz. stdout/stderr go to `<runDir>/<name>.log`; when the start fails, the
 * log's tail is part of the error.
 */
export async function startService(
  dep: Deployment,
  runDir: string,
  name: string,
  extraEnv: Record<string, string> = {},
): Promise<ServiceInstance> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const logFile = join(runDir, `${name}.log`);
  dep.publicUrl ??= base;
  const out = openSync(logFile, 'a');
  const env: Record<string, string | undefined> = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('BENCH_') || key === 'HTTP_ADAPTER' || key === 'MASTER_KEYS') delete env[key];
  const profiles = process.env.BENCH_PROFILE === '1' || process.env.BENCH_PROFILE === 'true' ? join(runDir, 'profiles', name) : undefined;
  const child = spawn(process.execPath, [...profileArgs(profiles), ...startFlags(), join(dep.build, 'src', 'main.js')], {
    cwd: dirname(dep.build),
    env: {
      ...env,
      DATABASE_URL: dep.databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: mkdtempSync(join(runDir, `${name}-data-`)),
      PUBLIC_URL: dep.publicUrl,
      MASTER_KEY: dep.masterKey,
      BCRYPT_COST: String(dep.bcryptCost),
      BOOTSTRAP_ADMIN_EMAIL: PLATFORM_ADMIN,
      BOOTSTRAP_ADMIN_PASSWORD: PLATFORM_PASSWORD,
      LOG_LEVEL: 'warn',
      NODE_ENV: 'development',
      // Webhook endpoints of the bench sit on 127.0.0.1; every instance of a deployment shares their deliveries.
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
      ...extraEnv,
    },
    stdio: ['ignore', out, out],
  });
  const instance = new ServiceInstance(name, base, child, logFile);
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}) during start: ${firstError(logFile)} (log: ${logFile})\n${tail(logFile)}`);
    }
    try {
      if ((await fetch(`${base}/readyz`)).ok) return instance;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await instance.stop();
  throw new Error(`${name} not ready within 180 s; ${logFile}:\n${tail(logFile)}`);
}

/** Node's flags in `npm start` (the heap limit): the service is measured as it is started. */
function startFlags(): string[] {
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { scripts: { start: string } };
  return pkg.scripts.start.split(/\s+/).filter((word) => word.startsWith('--'));
}
