/**
 * The built service as a real child process on its embedded PostgreSQL
 * (docs/adr/0027-running-and-deploying.md): first start (initdb, bootstrap admin, ready line), data kept
 * across restarts, a clean stop on SIGTERM that stops the embedded database, a
 * restart after kill -9 that adopts the still-running database, the generated
 * bootstrap password printed once, and configuration errors that stop the start.
 *
 * Needs the build output (dist/src/main.js); `npm test` builds it in pretest.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './support/global-setup';
import { sleep } from './support/wait';

jest.setTimeout(180_000);

const ROOT = join(__dirname, '..');
const MAIN = join(ROOT, 'dist/src/main.js');
const BOOT_PASSWORD = 'process-test-admin-pw';
const READY_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 30_000;

/** Variables of the test run that must not leak into the service under test. */
const SCRUBBED = [
  'DATABASE_URL',
  'TEST_DATABASE_URL',
  'IAM_TEST_PG_URL',
  'MASTER_KEY',
  'PUBLIC_URL',
  'PORT',
  'HOST',
  'EMBEDDED_PG_PORT',
  'TENANCY_MODE',
  'BOOTSTRAP_ADMIN_EMAIL',
  'BOOTSTRAP_ADMIN_PASSWORD',
  'SMTP_URL',
  'SMS_WEBHOOK_URL',
];

/** Resolves with undefined after `ms`, without keeping the test process alive. */
const deadline = (ms: number) => new Promise<undefined>((r) => setTimeout(() => r(undefined), ms).unref());

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function postmasterPid(dataDir: string): number | undefined {
  const file = join(dataDir, 'pg', 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await sleep(100);
  }
  return check();
}

function newDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'iam-process-'));
  chmodSync(dir, 0o755); // PostgreSQL runs as the postgres user, which must reach it
  return dir;
}

/** One run of `node dist/src/main.js`. */
class ServiceProcess {
  readonly child: ChildProcess;
  private out = '';
  private stdoutOnly = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  constructor(
    readonly port: number,
    env: Record<string, string | undefined>,
  ) {
    const base: NodeJS.ProcessEnv = { ...process.env };
    for (const name of SCRUBBED) delete base[name];
    const merged: NodeJS.ProcessEnv = { ...base };
    for (const [k, v] of Object.entries(env)) {
      if (v === undefined) delete merged[k];
      else merged[k] = v;
    }
    this.child = spawn(process.execPath, [MAIN], { cwd: ROOT, env: merged, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (d: Buffer) => {
      this.out += d.toString();
      this.stdoutOnly += d.toString();
    });
    this.child.stderr!.on('data', (d: Buffer) => (this.out += d.toString()));
    this.exited = new Promise((resolve) =>
      this.child.on('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      }),
    );
    running.add(this);
    void this.exited.then(() => running.delete(this));
  }

  /** stdout and stderr, interleaved as received. */
  get output(): string {
    return this.out;
  }

  get stdout(): string {
    return this.stdoutOnly;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Polls GET /readyz until 200; fails early when the process exits. */
  async waitReady(timeoutMs = READY_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.exit) throw new Error(`the service exited (${JSON.stringify(this.exit)}) before it was ready:\n${this.out}`);
      try {
        const res = await fetch(`${this.url}/readyz`, { signal: AbortSignal.timeout(2000) });
        if (res.status === 200) return;
      } catch {
        // not listening yet
      }
      await sleep(250);
    }
    throw new Error(`the service was not ready within ${timeoutMs} ms:\n${this.out}`);
  }

  /** Resolves once `text` appears in the output (log lines may trail the readiness of the port). */
  async waitForOutput(text: string | RegExp, timeoutMs = 10_000): Promise<void> {
    const has = () => (typeof text === 'string' ? this.out.includes(text) : text.test(this.out));
    if (!(await waitFor(has, timeoutMs))) throw new Error(`"${String(text)}" did not appear in the output:\n${this.out}`);
  }

  /** Sends a signal and waits for the exit (undefined when it did not exit in time). */
  async stop(signal: NodeJS.Signals, timeoutMs = STOP_TIMEOUT_MS) {
    this.child.kill(signal);
    return Promise.race([this.exited, deadline(timeoutMs)]);
  }

  async post(path: string, body: unknown, token?: string): Promise<{ status: number; body: Record<string, any> }> {
    const res = await fetch(`${this.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  async login(username: string, password: string, sectorID?: string): Promise<string> {
    const res = await this.post('/api/v1/login/password', { username, password, sectorID });
    if (res.status !== 200 || typeof res.body.token !== 'string') {
      throw new Error(`login of ${username} failed: ${res.status} ${JSON.stringify(res.body)}\n${this.out}`);
    }
    return res.body.token;
  }
}

const running = new Set<ServiceProcess>();
const dataDirs: string[] = [];

function serviceEnv(dataDir: string, port: number, pgPort: number, extra: Record<string, string | undefined> = {}) {
  return {
    DATA_DIR: dataDir,
    PORT: String(port),
    EMBEDDED_PG_PORT: String(pgPort),
    BOOTSTRAP_ADMIN_PASSWORD: BOOT_PASSWORD,
    BCRYPT_COST: '4',
    LOG_LEVEL: 'log',
    ...extra,
  };
}

async function start(dataDir: string, pgPort: number, extra: Record<string, string | undefined> = {}): Promise<ServiceProcess> {
  const port = await freePort();
  const service = new ServiceProcess(port, serviceEnv(dataDir, port, pgPort, extra));
  await service.waitReady();
  return service;
}

/** SIGTERM: exit code 0 in time, and the embedded PostgreSQL stopped with it. */
async function stopCleanly(service: ServiceProcess, dataDir: string): Promise<void> {
  const pgPid = postmasterPid(dataDir);
  expect(pgPid).toBeDefined();
  const exit = await service.stop('SIGTERM');
  if (!exit) throw new Error(`no exit within ${STOP_TIMEOUT_MS} ms after SIGTERM:\n${service.output}`);
  expect(exit).toEqual({ code: 0, signal: null });
  expect(existsSync(join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
  expect(await waitFor(() => !isAlive(pgPid!), 5_000)).toBe(true);
}

afterAll(async () => {
  for (const service of running) {
    service.child.kill('SIGKILL');
    await Promise.race([service.exited, deadline(5_000)]);
  }
  for (const dir of dataDirs) {
    const pid = postmasterPid(dir);
    if (pid !== undefined && isAlive(pid)) {
      process.kill(pid, 'SIGINT'); // fast shutdown
      if (!(await waitFor(() => !isAlive(pid), 15_000))) process.kill(pid, 'SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('the service as a process (embedded PostgreSQL)', () => {
  beforeAll(() => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: build first (npm run build; npm test does it in pretest)`);
  });

  describe('lifecycle on one DATA_DIR', () => {
    const dataDir = newDataDir();
    dataDirs.push(dataDir);
    let pgPort: number;
    const tenant = { slug: 'proc-tenant', adminEmail: 'admin@proc-tenant.test', adminPassword: 'proc-tenant-admin-pw', sectorID: '' };

    beforeAll(async () => {
      pgPort = await freePort();
    });

    it('starts on a fresh DATA_DIR, serves, and stops cleanly on SIGTERM', async () => {
      const service = await start(dataDir, pgPort);
      await service.waitForOutput(`ready on http://localhost:${service.port}`);
      expect(service.stdout).toMatch(new RegExp(`ready on http://localhost:${service.port}\\b`));
      expect(existsSync(join(dataDir, 'pg', 'PG_VERSION'))).toBe(true);
      // The configured bootstrap password is never printed.
      expect(service.output).not.toContain(BOOT_PASSWORD);
      expect(existsSync(join(dataDir, 'initial-admin.txt'))).toBe(false);

      const health = await fetch(`${service.url}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });

      const token = await service.login('admin@localhost', BOOT_PASSWORD);
      const provisioned = await service.post(
        '/api/v1/tenants',
        { slug: tenant.slug, name: 'Process tenant', adminEmail: tenant.adminEmail, adminPassword: tenant.adminPassword },
        token,
      );
      expect(provisioned.status).toBe(200);
      expect(provisioned.body).toMatchObject({ slug: tenant.slug, tenantID: expect.any(String), kid: expect.any(String) });
      tenant.sectorID = provisioned.body.sector.sectorID;
      const tenantToken = await service.login(tenant.adminEmail, tenant.adminPassword, tenant.sectorID);
      const introspected = await service.post('/api/v1/introspect', { token: tenantToken }, tenantToken);
      expect(introspected.status).toBe(200);
      expect(introspected.body.tenantID).toBe(provisioned.body.tenantID);

      await stopCleanly(service, dataDir);
    });

    it('keeps its data across restarts, survives kill -9 by adopting the running database, and stops cleanly', async () => {
      expect(tenant.sectorID).not.toBe(''); // the previous test provisioned it

      const second = await start(dataDir, pgPort);
      await service_login_works(second);
      // The bootstrap admin is not created twice.
      expect(second.output).not.toContain('Bootstrap platform admin created');

      const pgPid = postmasterPid(dataDir);
      expect(pgPid).toBeDefined();
      const killed = await second.stop('SIGKILL');
      expect(killed).toEqual({ code: null, signal: 'SIGKILL' });
      // The embedded PostgreSQL outlives the killed process.
      expect(isAlive(pgPid!)).toBe(true);
      expect(postmasterPid(dataDir)).toBe(pgPid);

      const third = await start(dataDir, pgPort);
      expect(third.output).toMatch(/adopt/i);
      expect(postmasterPid(dataDir)).toBe(pgPid); // the same cluster, not a second one
      await service_login_works(third);
      await stopCleanly(third, dataDir);
      expect(isAlive(pgPid!)).toBe(false);
    });

    async function service_login_works(service: ServiceProcess): Promise<void> {
      const token = await service.login(tenant.adminEmail, tenant.adminPassword, tenant.sectorID);
      const res = await service.post('/api/v1/introspect', { token }, token);
      expect(res.status).toBe(200);
      expect(res.body.username).toBe(tenant.adminEmail);
      await service.login('admin@localhost', BOOT_PASSWORD);
    }
  });

  it('prints a generated bootstrap password once and writes it to DATA_DIR/initial-admin.txt', async () => {
    const dataDir = newDataDir();
    dataDirs.push(dataDir);
    const pgPort = await freePort();

    const first = await start(dataDir, pgPort, { BOOTSTRAP_ADMIN_PASSWORD: undefined });
    await first.waitForOutput(/ready on/);
    const file = join(dataDir, 'initial-admin.txt');
    expect(existsSync(file)).toBe(true);
    const content = readFileSync(file, 'utf8');
    expect(content).toMatch(/admin@localhost/);
    const password = /password:\s*(\S+)/.exec(content)?.[1];
    expect(password).toBeDefined();
    expect(password!.length).toBeGreaterThanOrEqual(16);
    // Printed exactly once.
    expect(first.output.split(password!).length - 1).toBe(1);
    expect(first.output).toContain(file);
    await first.login('admin@localhost', password!);
    await stopCleanly(first, dataDir);

    const second = await start(dataDir, pgPort, { BOOTSTRAP_ADMIN_PASSWORD: undefined });
    await second.waitForOutput(/ready on/);
    expect(second.output).not.toContain(password!);
    expect(second.output).not.toContain('Bootstrap platform admin created');
    await second.login('admin@localhost', password!);
    await stopCleanly(second, dataDir);
  });

  describe('a bad configuration value', () => {
    it.each([
      ['PORT', 'abc'],
      ['PORT', '70000'],
      ['TENANCY_MODE', 'bogus'],
      ['BCRYPT_COST', 'many'],
      ['DATABASE_URL', 'mysql://localhost/x'],
      ['BOOTSTRAP_ADMIN_PASSWORD', 'short'],
    ])('%s=%s stops the start with a message naming the variable', async (name, value) => {
      const dataDir = newDataDir();
      dataDirs.push(dataDir);
      const port = await freePort();
      const service = new ServiceProcess(port, { ...serviceEnv(dataDir, port, await freePort()), [name]: value });
      const exit = await Promise.race([service.exited, deadline(30_000)]);
      if (!exit) throw new Error(`still running 30 s after a bad ${name}:\n${service.output}`);
      expect(exit.code).not.toBe(0);
      expect(exit.code).not.toBeNull();
      expect(service.output).toContain(name);
      expect(service.output).not.toMatch(/ready on/);
      // Nothing was started: no database cluster, nothing listening.
      expect(readdirSync(dataDir).filter((f) => f === 'pg')).toEqual([]);
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    });
  });
});
