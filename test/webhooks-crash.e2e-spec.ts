/**
 * Nothing lost (issue 28, "Webhooks"): the built service as a child process,
 * killed with SIGKILL between a user change and its delivery, then started again
 * on the same database; the event arrives once the service is back, under the
 * `webhook-id` it was given at the change.
 *
 * Two kills at once, in two tenants:
 *  - a retry pending: the receiver answered the first attempt with 500, the
 *    failure was recorded, the retry was not due yet;
 *  - right after the commit, before any attempt: the endpoint does not answer and
 *    already has as many deliveries in flight as one endpoint may
 *    (PER_ENDPOINT_IN_FLIGHT, each held for the sender's 10 s timeout), so the new
 *    delivery is committed but untried.
 *
 * Needs the build output (dist/src/main.js); `npm test` builds it in pretest.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { withDatabase } from '../src/database/data-source-options';
import { freePort } from './support/global-setup';
import { adminQuery, serverUrl, testDatabaseName } from './support/test-app';
import { PER_ENDPOINT_IN_FLIGHT } from '../src/webhook/webhook-queue';
import { eventually } from './support/wait';
import { verifyDelivery, WebhookReceiver } from './support/webhook-receiver';

jest.setTimeout(180_000);

const ROOT = join(__dirname, '..');
const MAIN = join(ROOT, 'dist/src/main.js');
const ADMIN_EMAIL = 'admin@crash.test';
const ADMIN_PASSWORD = 'crash-admin-password';
/** The first retry comes 3 s after a failed attempt: time enough to kill the service before it. */
const FIRST_RETRY_MS = 3_000;

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** One run of the built service on a database of the test server. */
class Service {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private out = '';

  constructor(
    readonly port: number,
    env: Record<string, string>,
  ) {
    this.child = spawn(process.execPath, [MAIN], { cwd: ROOT, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (d: Buffer) => (this.out += d.toString()));
    this.child.stderr!.on('data', (d: Buffer) => (this.out += d.toString()));
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  get output(): string {
    return this.out;
  }

  http() {
    return request(`http://127.0.0.1:${this.port}`);
  }

  async ready(): Promise<void> {
    let exit: unknown;
    void this.exited.then((e) => (exit = e));
    await eventually(
      async () => {
        if (exit) throw new Error(`the service exited (${JSON.stringify(exit)}) before it was ready:\n${this.out}`);
        try {
          return (await this.http().get('/readyz').timeout(2_000)).status === 200;
        } catch {
          return false;
        }
      },
      90_000,
      'the service ready',
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${this.out}`);
    });
  }

  async login(username: string, password: string, sectorID?: string): Promise<string> {
    const res = await this.http().post('/api/v1/login/password').send({ username, password, sectorID });
    if (res.status !== 200 || !res.body.token) throw new Error(`login of ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.token as string;
  }
}

describe('webhook deliveries survive kill -9 of the service', () => {
  const databaseName = testDatabaseName();
  const dataDir = mkdtempSync(join(tmpdir(), 'iam-hookcrash-'));
  const services: Service[] = [];
  const receivers: WebhookReceiver[] = [];

  async function start(): Promise<Service> {
    const port = await freePort();
    const service = new Service(port, {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: withDatabase(serverUrl(), databaseName),
      DATA_DIR: dataDir,
      MASTER_KEY: 'hookcrash-test-master-key-0123456789abcdef',
      BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL,
      BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
      BCRYPT_COST: '4',
      LOG_LEVEL: 'log',
      HTTP_ADAPTER: process.env.HTTP_ADAPTER ?? 'express',
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SCHEDULE: `${FIRST_RETRY_MS}ms,${FIRST_RETRY_MS}ms,${FIRST_RETRY_MS}ms`,
      MAIL_POLL_INTERVAL_MS: '100',
    });
    services.push(service);
    await service.ready();
    return service;
  }

  const receiver = async () => {
    const r = await WebhookReceiver.start();
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: build first (npm run build; npm test does it in pretest)`);
    await adminQuery(`CREATE DATABASE "${databaseName}"`);
  });

  afterAll(async () => {
    for (const s of services) {
      if (s.child.exitCode === null && s.child.signalCode === null) {
        s.child.kill('SIGKILL');
        await s.exited;
      }
    }
    await Promise.all(receivers.map((r) => r.close()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers, once the service is back, an event whose retry was pending and one not yet attempted, each under its webhook-id', async () => {
    const first = await start();
    const platform = await first.login(ADMIN_EMAIL, ADMIN_PASSWORD);

    async function tenant(slug: string) {
      const adminEmail = `admin@${slug}.test`;
      const adminPassword = `${slug}-admin-password`;
      const res = await first.http().post('/api/v1/tenants').set(bearer(platform)).send({ slug, name: slug, adminEmail, adminPassword });
      expect(res.status).toBe(200);
      const sectorID = res.body.sector.sectorID as string;
      return { sectorID, token: await first.login(adminEmail, adminPassword, sectorID) };
    }
    async function sector(token: string, slug: string): Promise<string> {
      const res = await first.http().post('/api/v1/sectors').set(bearer(token)).send({ name: slug, slug, domain: `${slug}.example.com` });
      expect(res.status).toBe(200);
      return res.body.sectorID as string;
    }
    /** An endpoint for user.created only (the admins' own sign-ins announce user.signed_in). */
    async function hook(token: string, sectorID: string, url: string): Promise<{ id: string; secret: string }> {
      const res = await first.http().post(`/api/v1/sectors/${sectorID}/webhooks`).set(bearer(token)).send({ url, events: ['user.created'], description: 'crash', enabled: true });
      expect(res.status).toBe(200);
      return res.body as { id: string; secret: string };
    }
    async function createUser(service: Service, token: string, sectorID: string, label: string): Promise<string> {
      const res = await service.http().post(`/api/v1/sectors/${sectorID}/users`).set(bearer(token)).send({ email: `${label}@example.test`, password: `${label}-password-1` });
      expect(res.status).toBe(200);
      return res.body.sub as string;
    }
    async function deliveries(service: Service, token: string, sectorID: string, id: string): Promise<Array<Record<string, any>>> {
      const res = await service.http().get(`/api/v1/sectors/${sectorID}/webhooks/${id}/deliveries`).set(bearer(token));
      expect(res.status).toBe(200);
      return res.body.deliveries as Array<Record<string, any>>;
    }

    // Tenant 1: a receiver that answers 500 for now.
    const t1 = await tenant('hookcrash-one');
    const failing = await receiver();
    failing.answerAlways({ status: 500 });
    const retried = await hook(t1.token, t1.sectorID, failing.url());

    // Tenant 2: an endpoint that does not answer, as busy as one endpoint may be.
    const t2 = await tenant('hookcrash-two');
    const held = await sector(t2.token, 'hookcrash-held');
    const silent = await receiver();
    silent.answerAlways({ hang: true });
    const untried = await hook(t2.token, held, silent.url());

    // Kill 2's setup: the endpoint's in-flight deliveries hang, then a change commits one more it cannot try yet.
    // Test events (cheap, and sent to this endpoint alone) fill its slots at once: the 10 s they hang is the window.
    await Promise.all(
      Array.from({ length: PER_ENDPOINT_IN_FLIGHT }, async () => {
        const res = await first.http().post(`/api/v1/sectors/${held}/webhooks/${untried.id}/test`).set(bearer(t2.token));
        expect(res.status).toBe(200);
      }),
    );
    const hanging = await silent.waitForCount(PER_ENDPOINT_IN_FLIGHT);
    const holding = hanging[0];
    const waitingUser = await createUser(first, t2.token, held, 'waiting-user');
    const [queued] = await deliveries(first, t2.token, held, untried.id);
    expect(queued).toMatchObject({ eventType: 'user.created', status: 'pending', attempts: 0 });

    // Kill 1's setup: the first attempt got a 500 and its failure is recorded; the retry is due 3 s later.
    const retriedUser = await createUser(first, t1.token, t1.sectorID, 'retried-user');
    const firstAttempt = await failing.waitForEvent('user.created', { userID: retriedUser });
    await eventually(
      async () => (await deliveries(first, t1.token, t1.sectorID, retried.id)).some((d) => d.eventID === firstAttempt.id && d.attempts === 1 && d.lastStatus === 500),
      FIRST_RETRY_MS,
      'the first failure recorded',
    );

    first.child.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const killedAt = Date.now();
    // Still inside the silent endpoint's 10 s: the waiting delivery was never tried, the retry never sent.
    expect(killedAt - holding.at).toBeLessThan(10_000);
    expect(silent.attemptsOf(queued.eventID as string)).toEqual([]);
    expect(failing.attemptsOf(firstAttempt.id)).toHaveLength(1);

    failing.answerAlways({ status: 200 });
    silent.answerAlways({ status: 200 });
    const second = await start();
    const backAt = Date.now();

    // The pending retry: the same event, the same webhook-id, after the restart.
    const [, retry] = await failing.waitForAttempts(firstAttempt.id, 2, 30_000);
    expect(retry.at).toBeGreaterThan(killedAt);
    expect(retry.body).toBe(firstAttempt.body);
    expect(verifyDelivery(retried.secret, retry)).toMatchObject({ type: 'user.created', data: { userID: retriedUser } });

    // The untried one: delivered under the id it was given at the change.
    const arrived = await silent.waitForEvent('user.created', { userID: waitingUser }, 30_000);
    expect(arrived.id).toBe(queued.eventID);
    expect(arrived.at).toBeGreaterThan(killedAt);
    expect(verifyDelivery(untried.secret, arrived)).toMatchObject({ type: 'user.created', data: { userID: waitingUser } });

    // The log of the restarted service agrees: delivered, each attempt counted once.
    const t1Token = await second.login('admin@hookcrash-one.test', 'hookcrash-one-admin-password', t1.sectorID);
    const t2Token = await second.login('admin@hookcrash-two.test', 'hookcrash-two-admin-password', t2.sectorID);
    await eventually(async () => {
      const [one] = (await deliveries(second, t1Token, t1.sectorID, retried.id)).filter((d) => d.eventID === firstAttempt.id);
      const [two] = (await deliveries(second, t2Token, held, untried.id)).filter((d) => d.eventID === queued.eventID);
      return one?.status === 'succeeded' && two?.status === 'succeeded' && { one, two };
    }, 10_000).then(({ one, two }) => {
      expect(one).toMatchObject({ attempts: 2, lastStatus: 200 });
      expect(two).toMatchObject({ attempts: 1, lastStatus: 200 });
    });
    expect(silent.attemptsOf(queued.eventID as string)).toHaveLength(1);
    expect(failing.attemptsOf(firstAttempt.id)).toHaveLength(2);
    expect(backAt).toBeGreaterThan(killedAt);

    second.child.kill('SIGTERM');
    await second.exited;
  });
});
