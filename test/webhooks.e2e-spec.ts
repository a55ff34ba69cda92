import { randomBytes } from 'node:crypto';
import { WEBHOOK_TIMEOUT_MS } from '../src/webhook/webhook-sender';
import { claimsOf, expectError, UUID } from './support/contract';
import { createSector, createUser, ProvisionedTenant, provisionTenant, tenantSql } from './support/factories';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';
import { eventually, sleep } from './support/wait';
import { ReceivedRequest, verifyDelivery, WebhookReceiver } from './support/webhook-receiver';

/**
 * Webhook delivery end to end (issue 28, "Webhooks"): a real receiver on
 * 127.0.0.1 (OUTBOUND_ALLOW_PRIVATE_NETWORKS=true lets the service reach it over
 * http) gets Standard Webhooks deliveries that the `standardwebhooks` package
 * verifies; each change announces its event; failed attempts are retried on
 * WEBHOOK_RETRY_SCHEDULE with the same `webhook-id`, then the delivery is failed;
 * redirects are not followed; a change that does not commit sends nothing; a
 * rotated secret signs beside the old one; the test endpoint sends
 * `webhook.test`; an endpoint failing past WEBHOOK_DISABLE_AFTER_SECONDS is
 * disabled with a `webhook.disabled` audit event.
 *
 * Timing: spacing is asserted from below only (≥ 0.9 × the scheduled wait, the
 * jitter's floor), never from above: CI machines are slow.
 */

jest.setTimeout(120_000);

/** WEBHOOK_RETRY_SCHEDULE of these apps, in ms: 4 attempts in all, over about 1.4 s. */
const SCHEDULE = [200, 400, 800];
const WORKER_ENV = {
  ...NO_THROTTLE,
  OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_SCHEDULE: SCHEDULE.map((ms) => `${ms}ms`).join(','),
  MAIL_POLL_INTERVAL_MS: '50',
  MAIL_RETRY_BASE_MS: '100',
  MAIL_RETRY_MAX_MS: '500',
};
/** Milliseconds of slack for comparing the database's clock (µs) with Date.now() (ms) on one machine. */
const CLOCK_SLACK_MS = 2;
const MSG_ID = /^msg_[A-Za-z0-9_-]{22}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const WHSEC = /^whsec_[A-Za-z0-9+/]+={0,2}$/;
/** A Unix time on the wire (never "0"). */
const UNIX = /^[1-9]\d*$/;
const PASSWORD = 'hook-user-password-1';

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

interface CreatedWebhook {
  id: string;
  url: string;
  events: string[];
  description: string;
  enabled: boolean;
  createdAt: string;
  secret: string;
}

interface Delivery {
  id: string;
  eventID: string;
  eventType: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  /** 0 before the first attempt, or when the last got no HTTP answer (docs/api.md, Webhooks). */
  lastStatus: number;
  lastError: string;
  /** Unix seconds; "0" unless pending. */
  nextAttemptAt: string;
  createdAt: string;
  /** Unix seconds; "0" while pending. */
  finishedAt: string;
}

/** The webhook admin API of one app, as a tenant's default-sector admin. */
function webhookApi(t: TestApp, token: () => string) {
  const base = (sectorID: string) => `/api/v1/sectors/${sectorID}/webhooks`;
  return {
    async create(sectorID: string, url: string, events: string[] = ['*'], description = 'e2e receiver'): Promise<CreatedWebhook> {
      const res = await t.http().post(base(sectorID)).set(bearer(token())).send({ url, events, description, enabled: true });
      if (res.status !== 200) throw new Error(`creating a webhook failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as CreatedWebhook;
    },
    async list(sectorID: string): Promise<Array<Record<string, unknown>>> {
      const res = await t.http().get(base(sectorID)).set(bearer(token()));
      if (res.status !== 200) throw new Error(`listing webhooks failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.webhooks as Array<Record<string, unknown>>;
    },
    async get(sectorID: string, id: string): Promise<Record<string, unknown>> {
      const found = (await this.list(sectorID)).find((w) => w.id === id);
      if (!found) throw new Error(`webhook ${id} is not listed`);
      return found;
    },
    put: (sectorID: string, id: string, body: Record<string, unknown>) => t.http().put(`${base(sectorID)}/${id}`).set(bearer(token())).send(body),
    remove: (sectorID: string, id: string) => t.http().delete(`${base(sectorID)}/${id}`).set(bearer(token())),
    rotate: (sectorID: string, id: string) => t.http().post(`${base(sectorID)}/${id}/rotate-secret`).set(bearer(token())).send({}),
    test: (sectorID: string, id: string) => t.http().post(`${base(sectorID)}/${id}/test`).set(bearer(token())).send({}),
    async deliveries(sectorID: string, id: string): Promise<Delivery[]> {
      const res = await t.http().get(`${base(sectorID)}/${id}/deliveries`).set(bearer(token()));
      if (res.status !== 200) throw new Error(`listing deliveries failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.deliveries as Delivery[];
    },
    /** Waits until the delivery of `eventID` satisfies `done` (e.g. it ended); answers it. */
    async delivery(sectorID: string, id: string, eventID: string, done: (d: Delivery) => boolean = () => true, timeoutMs = 15_000): Promise<Delivery> {
      let last: Delivery | undefined;
      return eventually(
        async () => {
          last = (await this.deliveries(sectorID, id)).find((d) => d.eventID === eventID);
          return last !== undefined && done(last) && last;
        },
        timeoutMs,
        `the delivery of ${eventID} (last seen: ${JSON.stringify(last)})`,
      );
    },
  };
}

/** Gaps between consecutive arrivals, in ms. */
const gaps = (attempts: ReceivedRequest[]) => attempts.slice(1).map((r, i) => r.at - attempts[i].at);

describe('webhook delivery (receiver on 127.0.0.1, fast retry schedule)', () => {
  let t: TestApp;
  let a: ProvisionedTenant;
  let api: ReturnType<typeof webhookApi>;
  const receivers: WebhookReceiver[] = [];

  const receiver = async () => {
    const r = await WebhookReceiver.start();
    receivers.push(r);
    return r;
  };
  const newSector = () => createSector(t, a.adminToken);
  const email = (label: string) => `${label}-${randomBytes(4).toString('hex')}@example.test`;

  beforeAll(async () => {
    t = await startTestApp({ env: WORKER_ENV });
    a = await provisionTenant(t);
    api = webhookApi(t, () => a.adminToken);
  });

  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await t?.close();
  });

  it('POSTs {type, timestamp, data} signed per Standard Webhooks: verified by the standardwebhooks package with the shown secret', async () => {
    const r = await receiver();
    const sector = await newSector();
    const hook = await api.create(sector, r.url(), ['*'], 'signature check');
    expect(hook).toEqual({
      id: expect.stringMatching(UUID),
      url: r.url(),
      events: ['*'],
      description: 'signature check',
      enabled: true,
      createdAt: expect.any(String),
      secret: expect.stringMatching(WHSEC),
    });
    expect(Buffer.from(hook.secret.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(24);
    // The secret is shown once: never in the listing.
    expect(JSON.stringify(await api.list(sector))).not.toContain(hook.secret.slice('whsec_'.length));

    const before = Date.now();
    const sub = await createUser(t, a.adminToken, sector, { email: email('signed'), password: PASSWORD });
    const got = await r.waitForEvent('user.created', { userID: sub });

    expect(got.method).toBe('POST');
    expect(got.path).toBe('/hook');
    expect(got.headers['content-type']).toMatch(/^application\/json/);
    expect(got.id).toMatch(MSG_ID);
    expect(got.headers['webhook-timestamp']).toMatch(/^\d+$/);
    const sentAt = Number(got.headers['webhook-timestamp']) * 1000;
    expect(sentAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(sentAt).toBeLessThanOrEqual(Date.now());
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);

    // The reference implementation verifies it and gives back the body.
    const verified = verifyDelivery(hook.secret, got);
    expect(verified).toEqual({
      type: 'user.created',
      timestamp: expect.stringMatching(RFC3339),
      data: { tenantID: a.tenantID, sectorID: sector, userID: sub, isAdmin: false, invited: false },
    });
    expect(Object.keys(JSON.parse(got.body) as object)).toEqual(['type', 'timestamp', 'data']);
    const stamped = Date.parse((verified as { timestamp: string }).timestamp);
    expect(stamped).toBeGreaterThanOrEqual(before - 1000);
    expect(stamped).toBeLessThanOrEqual(Date.now());

    // A changed body, another secret or a changed id do not verify.
    expect(() => verifyDelivery(hook.secret, { ...got, body: got.body.replace(sub, randomBytes(16).toString('hex')) })).toThrow();
    expect(() => verifyDelivery(`whsec_${randomBytes(32).toString('base64')}`, got)).toThrow();
    expect(() => verifyDelivery(hook.secret, { ...got, headers: { ...got.headers, 'webhook-id': 'msg_other' } })).toThrow();

    // The delivery log shows it delivered on the first attempt.
    const logged = await api.delivery(sector, hook.id, got.id, (d) => d.status === 'succeeded');
    expect(logged).toEqual({
      id: expect.stringMatching(/^\d+$/),
      eventID: got.id,
      eventType: 'user.created',
      status: 'succeeded',
      attempts: 1,
      lastStatus: 200,
      lastError: '',
      nextAttemptAt: '0',
      createdAt: expect.stringMatching(UNIX),
      finishedAt: expect.stringMatching(UNIX),
    });
    expect(r.requests).toHaveLength(1);
  });

  describe('what each change announces', () => {
    let sector: string;
    let all: WebhookReceiver;
    let createdOnly: WebhookReceiver;
    let allHook: CreatedWebhook;
    let createdHook: CreatedWebhook;
    /** Everything secret the changes below handle: none of it may appear in a delivery. */
    const secrets: Record<string, string> = {};
    const sub = { id: '' };
    let signInTransactionID = '';

    beforeAll(async () => {
      sector = await newSector();
      all = await receiver();
      createdOnly = await receiver();
      allHook = await api.create(sector, all.url(), ['*'], 'everything');
      createdHook = await api.create(sector, createdOnly.url(), ['user.created'], 'creations only');
      secrets.adminPassword = a.adminPassword;
      secrets.adminToken = a.adminToken;
    });

    /** Waits for the event on the all-events receiver, verifies it with that endpoint's secret and answers its data. */
    async function announced(type: string, data: Record<string, unknown>): Promise<Record<string, unknown>> {
      const got = await all.waitForEvent(type, data);
      const body = verifyDelivery(allHook.secret, got) as { type: string; timestamp: string; data: Record<string, unknown> };
      expect(body.timestamp).toMatch(RFC3339);
      expect(body.data).toMatchObject({ tenantID: a.tenantID, sectorID: sector });
      return body.data;
    }

    it('user.created, user.updated (the changed field names), user.disabled, user.enabled', async () => {
      secrets.password1 = PASSWORD;
      const address = email('events');
      sub.id = await createUser(t, a.adminToken, sector, { email: address, password: secrets.password1 });
      expect(await announced('user.created', { userID: sub.id })).toEqual({ tenantID: a.tenantID, sectorID: sector, userID: sub.id, isAdmin: false, invited: false });

      const updated = await t.http().put(`/api/v1/users/${sub.id}`).set(bearer(a.adminToken)).send({ profile: { name: 'Hook Person', givenName: 'Hook' } });
      expect(updated.status).toBe(200);
      expect(await announced('user.updated', { userID: sub.id })).toEqual({ tenantID: a.tenantID, sectorID: sector, userID: sub.id, fields: ['givenName', 'name'] });

      expect((await t.http().put(`/api/v1/users/${sub.id}`).set(bearer(a.adminToken)).send({ disabled: true })).status).toBe(200);
      expect(await announced('user.disabled', { userID: sub.id })).toEqual({ tenantID: a.tenantID, sectorID: sector, userID: sub.id });
      expect((await t.http().put(`/api/v1/users/${sub.id}`).set(bearer(a.adminToken)).send({ disabled: false })).status).toBe(200);
      expect(await announced('user.enabled', { userID: sub.id })).toEqual({ tenantID: a.tenantID, sectorID: sector, userID: sub.id });
    });

    it('user.password_changed and user.roles_changed', async () => {
      secrets.password2 = 'hook-user-password-2';
      const changed = await t.http().post(`/api/v1/users/${sub.id}/password`).set(bearer(a.adminToken)).send({ newPassword: secrets.password2 });
      expect(changed.status).toBe(200);
      expect(await announced('user.password_changed', { userID: sub.id })).toEqual({ tenantID: a.tenantID, sectorID: sector, userID: sub.id, reset: false, self: false });

      expect((await t.http().put(`/api/v1/sectors/${sector}/roles/auditor`).set(bearer(a.adminToken)).send({ permissions: ['audit:read'] })).status).toBe(200);
      expect((await t.http().put(`/api/v1/users/${sub.id}/roles`).set(bearer(a.adminToken)).send({ roles: ['auditor'] })).status).toBe(200);
      expect(await announced('user.roles_changed', { userID: sub.id })).toEqual({ tenantID: a.tenantID, sectorID: sector, userID: sub.id, added: ['auditor'], removed: [] });
    });

    it('user.signed_in (factors and client address) for a password sign-in through the API, and session.revoked', async () => {
      const user = await t.http().get(`/api/v1/users/${sub.id}`).set(bearer(a.adminToken));
      const login = await t.http().post('/api/v1/login/password').send({ username: user.body.email, password: secrets.password2, sectorID: sector });
      expect({ status: login.status, result: login.body.status }).toEqual({ status: 200, result: 'SUCCESS' });
      secrets.userToken = login.body.token;
      secrets.refreshToken = login.body.refreshToken;
      signInTransactionID = login.body.transactionID;
      const sid = claimsOf(login.body.token).sid as string;

      const signedIn = await announced('user.signed_in', { userID: sub.id });
      expect(signedIn).toMatchObject({ tenantID: a.tenantID, sectorID: sector, userID: sub.id, sessionID: sid, factors: ['PASSWORD'], amr: ['pwd'] });
      expect(signedIn.clientIP).toMatch(/^(::ffff:)?127\.0\.0\.1$/);

      const revoked = await t.http().delete(`/api/v1/users/${sub.id}/sessions/${sid}`).set(bearer(a.adminToken));
      expect(revoked.status).toBe(200);
      expect(await announced('session.revoked', { sessionID: sid })).toEqual({ tenantID: a.tenantID, sectorID: sector, userID: sub.id, sessionID: sid, reason: 'revoked' });
    });

    it('api_token.created and api_token.revoked', async () => {
      const created = await t.http().post(`/api/v1/sectors/${sector}/tokens`).set(bearer(a.adminToken)).send({ name: 'hook token' });
      expect(created.status).toBe(200);
      secrets.apiToken = created.body.token;
      const tokenID = created.body.apiToken.id as string;
      expect(await announced('api_token.created', { tokenID })).toEqual({
        tenantID: a.tenantID,
        sectorID: sector,
        tokenID,
        name: 'hook token',
        prefix: created.body.apiToken.prefix,
      });
      expect((await t.http().delete(`/api/v1/sectors/${sector}/tokens/${tokenID}`).set(bearer(a.adminToken))).status).toBe(200);
      expect(await announced('api_token.revoked', { tokenID })).toEqual({ tenantID: a.tenantID, sectorID: sector, tokenID });
    });

    it('user.deleted', async () => {
      expect((await t.http().delete(`/api/v1/users/${sub.id}`).set(bearer(a.adminToken))).status).toBe(200);
      expect(await announced('user.deleted', { userID: sub.id })).toEqual({ tenantID: a.tenantID, sectorID: sector, userID: sub.id });
    });

    it('["*"] got every event, in order, each once; ["user.created"] got only the creation', async () => {
      expect(all.bodies.map((b) => b.type)).toEqual([
        'user.created',
        'user.updated',
        'user.disabled',
        'user.enabled',
        'user.password_changed',
        'user.roles_changed',
        'user.signed_in',
        'session.revoked',
        'api_token.created',
        'api_token.revoked',
        'user.deleted',
      ]);
      expect(new Set(all.requests.map((r) => r.id)).size).toBe(all.requests.length);
      // The other endpoint had as long as the whole sequence to get anything else.
      await sleep(300);
      expect(createdOnly.bodies).toEqual([{ type: 'user.created', timestamp: expect.stringMatching(RFC3339), data: expect.objectContaining({ userID: sub.id }) }]);
      expect(verifyDelivery(createdHook.secret, createdOnly.requests[0])).toBeTruthy();
      // The same event reaches both endpoints under one webhook-id.
      expect(createdOnly.requests[0].id).toBe(all.find((b) => b.type === 'user.created')[0].id);
    });

    it('puts no secret in any delivery: passwords, access, refresh and API tokens, signing secrets', async () => {
      const sent = [...all.requests, ...createdOnly.requests].map((r) => `${JSON.stringify(r.headers)}\n${r.body}`).join('\n');
      const values = { ...secrets, allSecret: allHook.secret.slice('whsec_'.length), createdSecret: createdHook.secret.slice('whsec_'.length) };
      for (const [name, value] of Object.entries(values)) {
        expect(value.length).toBeGreaterThan(8);
        expect({ name, leaked: sent.includes(value) }).toEqual({ name, leaked: false });
      }
    });

    it("keeps the sign-in's transactionID (a 15-minute credential for the user's profile) out of user.signed_in", async () => {
      expect(signInTransactionID).not.toBe('');
      const signedIn = all.find((b) => b.type === 'user.signed_in')[0];
      // GET /api/v1/users/{sub}?transactionID= accepts it in place of a bearer token (src/access/principal.ts, TransactionPrincipal).
      expect(signedIn.body).not.toContain(signInTransactionID);
    });
  });

  it('retries after 500s with the same webhook-id, spaced per the schedule, and after the schedule marks the delivery failed', async () => {
    const r = await receiver();
    r.answerAlways({ status: 500 });
    const sector = await newSector();
    const hook = await api.create(sector, r.url(), ['user.created']);
    const sub = await createUser(t, a.adminToken, sector, { email: email('retry'), password: PASSWORD });
    const first = await r.waitForEvent('user.created', { userID: sub });
    const attempts = await r.waitForAttempts(first.id, SCHEDULE.length + 1);

    // One event: the same id and body every time, each attempt signed afresh (its own timestamp).
    for (const attempt of attempts) {
      expect(attempt.body).toBe(first.body);
      expect(verifyDelivery(hook.secret, attempt)).toBeTruthy();
    }
    const stamps = attempts.map((x) => Number(x.headers['webhook-timestamp']));
    expect([...stamps].sort((x, y) => x - y)).toEqual(stamps);
    // In order, each retry no earlier than its scheduled wait (less the jitter's 10 %).
    gaps(attempts).forEach((gap, i) => expect({ retry: i + 1, gap, atLeast: gap >= 0.9 * SCHEDULE[i] - CLOCK_SLACK_MS }).toEqual({ retry: i + 1, gap, atLeast: true }));

    const failed = await api.delivery(sector, hook.id, first.id, (d) => d.status === 'failed');
    expect(failed).toMatchObject({ eventID: first.id, eventType: 'user.created', status: 'failed', attempts: SCHEDULE.length + 1, lastStatus: 500, lastError: 'HTTP 500', nextAttemptAt: '0' });
    expect(failed.finishedAt).toMatch(UNIX);
    // Given up: nothing more comes.
    await sleep(SCHEDULE[SCHEDULE.length - 1] + 400);
    expect(r.attemptsOf(first.id)).toHaveLength(SCHEDULE.length + 1);
    expect(r.requests).toHaveLength(SCHEDULE.length + 1);
  });

  it(`retries an attempt that got no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s, then a 500, and delivers on the third attempt under the same webhook-id`, async () => {
    const r = await receiver();
    // 1: no answer (the sender gives up after WEBHOOK_TIMEOUT_MS); 2: a slow 500 (while it runs, the log shows attempt 1's error); 3: 200.
    r.answerNext({ hang: true }, { status: 500, delayMs: 2_000 });
    const sector = await newSector();
    const hook = await api.create(sector, r.url(), ['user.created']);
    const sub = await createUser(t, a.adminToken, sector, { email: email('timeout'), password: PASSWORD });
    const first = await r.waitForEvent('user.created', { userID: sub });

    const [, second] = await r.waitForAttempts(first.id, 2, WEBHOOK_TIMEOUT_MS + 15_000);
    const during = (await api.deliveries(sector, hook.id)).find((d) => d.eventID === first.id);
    // No HTTP answer: lastStatus 0 (docs/api.md).
    expect(during).toMatchObject({ status: 'pending', attempts: 2, lastStatus: 0, finishedAt: '0' });
    expect(during?.nextAttemptAt).toMatch(UNIX);
    expect(during?.lastError).toMatch(/no answer within 10 s/i);

    const attempts = await r.waitForAttempts(first.id, 3);
    expect(attempts[1]).toBe(second);
    for (const attempt of attempts) {
      expect(attempt.body).toBe(first.body);
      expect(verifyDelivery(hook.secret, attempt)).toBeTruthy();
    }
    const [afterTimeout, after500] = gaps(attempts);
    expect(afterTimeout).toBeGreaterThanOrEqual(WEBHOOK_TIMEOUT_MS);
    expect(after500).toBeGreaterThanOrEqual(2_000 + 0.9 * SCHEDULE[1] - CLOCK_SLACK_MS);

    const done = await api.delivery(sector, hook.id, first.id, (d) => d.status === 'succeeded');
    expect(done).toMatchObject({ status: 'succeeded', attempts: 3, lastStatus: 200, lastError: '' });
    expect(r.attemptsOf(first.id)).toHaveLength(3);
  });

  it('does not follow a redirect: the target gets nothing and each attempt counts as failed', async () => {
    const target = await receiver();
    const r = await receiver();
    r.answerAlways({ redirectTo: target.url('elsewhere') });
    const sector = await newSector();
    const hook = await api.create(sector, r.url(), ['user.created']);
    const sub = await createUser(t, a.adminToken, sector, { email: email('redirect'), password: PASSWORD });
    const first = await r.waitForEvent('user.created', { userID: sub });

    const failed = await api.delivery(sector, hook.id, first.id, (d) => d.status === 'failed');
    // The 302 is not taken as an answer: lastStatus 0, as for no answer (docs/api.md).
    expect(failed).toMatchObject({ status: 'failed', attempts: SCHEDULE.length + 1, lastStatus: 0 });
    expect(failed.lastError).toMatch(/redirect \(302\)/);
    // The service does not leak the Location into the log either.
    expect(failed.lastError).not.toContain(String(target.port));
    expect(r.attemptsOf(first.id)).toHaveLength(SCHEDULE.length + 1);
    expect({ requests: target.requests.length, connections: target.connections }).toEqual({ requests: 0, connections: 0 });
  });

  it('sends nothing for a change that did not commit: a duplicate user (409), and a creation rolled back at its commit', async () => {
    const r = await receiver();
    const sector = await newSector();
    const hook = await api.create(sector, r.url(), ['*']);
    const taken = email('taken');
    const original = await createUser(t, a.adminToken, sector, { email: taken, password: PASSWORD });
    const originalEvent = await r.waitForEvent('user.created', { userID: original });

    // 1. Refused: the address is taken.
    const duplicate = await t.http().post(`/api/v1/sectors/${sector}/users`).set(bearer(a.adminToken)).send({ email: taken, password: PASSWORD });
    expectError(duplicate, 409, 6);

    // 2. Everything written (the user, its audit event, its delivery), then the commit fails:
    //    a deferred constraint trigger in the tenant's database refuses the row at COMMIT.
    const doomed = `doomed-${randomBytes(4).toString('hex')}@example.test`;
    await tenantSql(
      t,
      a.tenantID,
      `CREATE OR REPLACE FUNCTION e2e_refuse_doomed() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN IF NEW.email LIKE 'doomed-%' THEN RAISE EXCEPTION 'e2e: refused at commit'; END IF; RETURN NEW; END $$`,
    );
    await tenantSql(
      t,
      a.tenantID,
      `CREATE CONSTRAINT TRIGGER e2e_refuse_doomed AFTER INSERT ON users DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION e2e_refuse_doomed()`,
    );
    try {
      const rolledBack = await t.http().post(`/api/v1/sectors/${sector}/users`).set(bearer(a.adminToken)).send({ email: doomed, password: PASSWORD });
      // An internal error to the caller (and an expected ERROR line in the test output).
      expect(rolledBack.status).toBe(500);
    } finally {
      await tenantSql(t, a.tenantID, `DROP TRIGGER IF EXISTS e2e_refuse_doomed ON users`);
      await tenantSql(t, a.tenantID, `DROP FUNCTION IF EXISTS e2e_refuse_doomed()`);
    }
    expect(await tenantSql(t, a.tenantID, `SELECT id FROM users WHERE email = $1`, [doomed])).toEqual([]);

    // A later change goes through: had the others queued anything, it would have gone out by now.
    const later = await createUser(t, a.adminToken, sector, { email: email('later'), password: PASSWORD });
    await r.waitForEvent('user.created', { userID: later });
    await sleep(500);
    expect(r.bodies.map((b) => [b.type, b.data.userID])).toEqual([
      ['user.created', original],
      ['user.created', later],
    ]);
    const logged = await api.deliveries(sector, hook.id);
    expect(logged.map((d) => d.eventType).sort()).toEqual(['user.created', 'user.created']);
    expect(logged.map((d) => d.eventID)).toContain(originalEvent.id);
    // Nor is anything left queued in the tenant's outbox.
    const rows = await tenantSql(t, a.tenantID, `SELECT payload FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY id`, [hook.id]);
    expect(rows.map((row) => (JSON.parse(String(row.payload)) as { data: { userID: string } }).data.userID)).toEqual([original, later]);
  });

  it('signs with the new and the old secret after rotate-secret: two v1 signatures, each verifying', async () => {
    const r = await receiver();
    const sector = await newSector();
    const hook = await api.create(sector, r.url(), ['user.created']);
    const rotated = await api.rotate(sector, hook.id);
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.secret as string;
    expect(newSecret).toMatch(WHSEC);
    expect(newSecret).not.toBe(hook.secret);
    expect(JSON.stringify(await api.list(sector))).not.toContain(newSecret.slice('whsec_'.length));

    const sub = await createUser(t, a.adminToken, sector, { email: email('rotated'), password: PASSWORD });
    const got = await r.waitForEvent('user.created', { userID: sub });
    const signatures = String(got.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    for (const s of signatures) expect(s).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);
    expect(verifyDelivery(newSecret, got)).toMatchObject({ type: 'user.created', data: { userID: sub } });
    expect(verifyDelivery(hook.secret, got)).toMatchObject({ type: 'user.created', data: { userID: sub } });
    expect(() => verifyDelivery(`whsec_${randomBytes(32).toString('base64')}`, got)).toThrow();
    // Each secret signs one of the two: verifying against either signature alone.
    const only = (i: number) => ({ ...got, headers: { ...got.headers, 'webhook-signature': signatures[i] } });
    const verifiesWith = (secret: string, i: number) => {
      try {
        verifyDelivery(secret, only(i));
        return true;
      } catch {
        return false;
      }
    };
    expect([0, 1].map((i) => [verifiesWith(newSecret, i), verifiesWith(hook.secret, i)]).sort()).toEqual([
      [false, true],
      [true, false],
    ]);
  });

  it('sends webhook.test from the test endpoint, whatever the endpoint subscribes to', async () => {
    const r = await receiver();
    const sector = await newSector();
    const hook = await api.create(sector, r.url(), ['user.deleted']);
    const res = await api.test(sector, hook.id);
    expect(res.status).toBe(200);
    const got = await r.waitForEvent('webhook.test');
    expect(verifyDelivery(hook.secret, got)).toEqual({
      type: 'webhook.test',
      timestamp: expect.stringMatching(RFC3339),
      data: expect.objectContaining({ tenantID: a.tenantID, sectorID: sector, webhookID: hook.id }),
    });
    expect(got.id).toMatch(MSG_ID);
    expect(got.id).toBe(res.body.eventID);
    const logged = await api.delivery(sector, hook.id, got.id, (d) => d.status === 'succeeded');
    expect(logged).toMatchObject({ eventType: 'webhook.test', attempts: 1, lastStatus: 200 });
  });

  it('sends nothing more to a deleted endpoint', async () => {
    const r = await receiver();
    const sector = await newSector();
    const hook = await api.create(sector, r.url(), ['user.created']);
    const kept = await receiver();
    await api.create(sector, kept.url(), ['user.created']);
    const removed = await api.remove(sector, hook.id);
    expect(removed.status).toBe(200);
    expect((await api.list(sector)).map((w) => w.id)).not.toContain(hook.id);
    const sub = await createUser(t, a.adminToken, sector, { email: email('after-delete'), password: PASSWORD });
    await kept.waitForEvent('user.created', { userID: sub });
    await sleep(300);
    expect(r.requests).toEqual([]);
  });
});

describe('an endpoint failing for longer than WEBHOOK_DISABLE_AFTER_SECONDS', () => {
  let t: TestApp;
  let a: ProvisionedTenant;
  let api: ReturnType<typeof webhookApi>;
  let r: WebhookReceiver;

  beforeAll(async () => {
    t = await startTestApp({ env: { ...WORKER_ENV, WEBHOOK_DISABLE_AFTER_SECONDS: '1' } });
    a = await provisionTenant(t);
    api = webhookApi(t, () => a.adminToken);
    r = await WebhookReceiver.start();
  });

  afterAll(async () => {
    await r?.close();
    await t?.close();
  });

  it('is disabled with a reason and a webhook.disabled audit event, and gets no new events until enabled again', async () => {
    r.answerAlways({ status: 500 });
    const sector = await createSector(t, a.adminToken);
    const hook = await api.create(sector, r.url(), ['user.created']);
    const sub = await createUser(t, a.adminToken, sector, { email: `disabled-${randomBytes(4).toString('hex')}@example.test`, password: PASSWORD });
    const first = await r.waitForEvent('user.created', { userID: sub });
    // Failures at about 0, 0.2, 0.6 and 1.4 s: the last one finds the run of failures older than 1 s.
    await r.waitForAttempts(first.id, SCHEDULE.length + 1);
    const shown = await eventually(
      async () => {
        const w = await api.get(sector, hook.id);
        return w.enabled === false && w;
      },
      15_000,
      'the endpoint disabled',
    );
    expect(shown).toMatchObject({ id: hook.id, url: r.url(), enabled: false, disabledReason: expect.stringMatching(/\S/), failingSince: expect.stringMatching(UNIX) });
    expect(JSON.stringify(shown)).not.toContain(hook.secret.slice('whsec_'.length));
    const attempts = r.attemptsOf(first.id);
    expect(attempts[attempts.length - 1].at - attempts[0].at).toBeGreaterThanOrEqual(1_000 - CLOCK_SLACK_MS);

    // Audit: read as the signed-in admin (API tokens cannot read the audit trail).
    const audit = await eventually(async () => {
      const res = await t.http().get(`/api/v1/sectors/${sector}/audit-events`).query({ type: 'webhook.disabled' }).set(bearer(a.adminToken));
      expect(res.status).toBe(200);
      return (res.body.events as unknown[]).length > 0 && (res.body.events as Array<Record<string, unknown>>);
    });
    expect(audit).toEqual([
      expect.objectContaining({ type: 'webhook.disabled', outcome: 'success', actor: { kind: 'system', id: '' }, target: { kind: 'webhook', id: hook.id }, sectorID: sector }),
    ]);

    // Disabled: a new event is not queued for it.
    r.answerAlways({ status: 200 });
    const quiet = await createUser(t, a.adminToken, sector, { email: `quiet-${randomBytes(4).toString('hex')}@example.test`, password: PASSWORD });
    await sleep(600);
    expect(r.find((b) => b.data.userID === quiet)).toEqual([]);
    expect((await api.deliveries(sector, hook.id)).map((d) => d.eventID)).toEqual([first.id]);

    // Enabled again (with a receiver that answers): deliveries resume and the reason is gone.
    const enabled = await api.put(sector, hook.id, { url: r.url(), events: ['user.created'], description: 'e2e receiver', enabled: true });
    expect(enabled.status).toBe(200);
    expect(await api.get(sector, hook.id)).toMatchObject({ enabled: true, disabledReason: '', failingSince: '0' });
    const again = await createUser(t, a.adminToken, sector, { email: `again-${randomBytes(4).toString('hex')}@example.test`, password: PASSWORD });
    const resumed = await r.waitForEvent('user.created', { userID: again });
    expect(await api.delivery(sector, hook.id, resumed.id, (d) => d.status === 'succeeded')).toMatchObject({ attempts: 1, lastStatus: 200 });
  });
});
