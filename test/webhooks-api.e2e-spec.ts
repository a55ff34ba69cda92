import { claimsOf, expectWireError, UUID } from './support/contract';
import { createSector, createUser, ProvisionedTenant, provisionTenant, tenantSql } from './support/factories';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';

/**
 * The webhooks admin API (`/api/v1/sectors/{sectorID}/webhooks…`, docs/api.md,
 * Webhooks): whole bodies of every operation, the secret shown once and sealed at
 * rest, the URL and event rules, the per-sector bound, who may, and the audit
 * trail. The app runs WITHOUT OUTBOUND_ALLOW_PRIVATE_NETWORKS, so http and private
 * addresses are refused as in production; endpoints use literal public addresses
 * (no DNS needed). Deliveries themselves are test/webhooks.e2e-spec.ts's.
 */

const INVALID_ARGUMENT = 3;
const NOT_FOUND = 5;
const PERMISSION_DENIED = 7;
const RESOURCE_EXHAUSTED = 8;
const UNIX_SECONDS = expect.stringMatching(/^\d{10}$/);
const WHSEC = /^whsec_[A-Za-z0-9+/]{43}=$/;
const MSG_ID = /^msg_[A-Za-z0-9_-]{22}$/;
const PUBLIC_URL = 'https://93.184.215.14/hook';
const OTHER_PUBLIC_URL = 'https://1.1.1.1/events?tag=b';
const PASSWORD = 'webhook-admin-password';

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

interface AuditEvent {
  type: string;
  actor: { kind: string; id: string };
  target: { kind: string; id: string };
  details: Record<string, unknown>;
}

describe('webhooks admin API', () => {
  let t: TestApp;
  let a: ProvisionedTenant;
  let sector: string;
  let adminSub: string;

  const base = (s = sector) => `/api/v1/sectors/${s}/webhooks`;
  const create = (body: Record<string, unknown>, token = a.adminToken, s = sector) => t.http().post(base(s)).set(bearer(token)).send(body);
  const list = (token = a.adminToken, s = sector) => t.http().get(base(s)).set(bearer(token));
  const put = (id: string, body: Record<string, unknown>, token = a.adminToken, s = sector) => t.http().put(`${base(s)}/${id}`).set(bearer(token)).send(body);
  const remove = (id: string, token = a.adminToken, s = sector) => t.http().delete(`${base(s)}/${id}`).set(bearer(token));
  const rotate = (id: string, token = a.adminToken, s = sector) => t.http().post(`${base(s)}/${id}/rotate-secret`).set(bearer(token)).send({});
  const sendTest = (id: string, token = a.adminToken, s = sector) => t.http().post(`${base(s)}/${id}/test`).set(bearer(token)).send({});
  const deliveries = (id: string, query: Record<string, string | number> = {}, token = a.adminToken, s = sector) =>
    t.http().get(`${base(s)}/${id}/deliveries`).query(query).set(bearer(token));

  async function created(body: Record<string, unknown> = {}, s = sector): Promise<{ id: string; secret: string }> {
    const res = await create({ url: PUBLIC_URL, events: ['user.created'], ...body }, a.adminToken, s);
    expect(res.status).toBe(200);
    return res.body;
  }

  async function auditOf(target: string, s = sector): Promise<AuditEvent[]> {
    const res = await t.http().get(`/api/v1/sectors/${s}/audit-events`).query({ target }).set(bearer(a.adminToken));
    expect(res.status).toBe(200);
    return (res.body.events as AuditEvent[]).reverse();
  }

  beforeAll(async () => {
    t = await startTestApp({ env: { ...NO_THROTTLE, OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'false' } });
    a = await provisionTenant(t);
    sector = await createSector(t, a.adminToken);
    adminSub = String(claimsOf(a.adminToken).sub);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('creates, lists, changes and deletes a webhook, answering whole bodies; the secret is shown once and sealed at rest', async () => {
    const res = await create({ url: PUBLIC_URL, events: ['user.created', 'user.deleted', 'user.created'], description: 'CRM sync', enabled: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      url: PUBLIC_URL,
      events: ['user.created', 'user.deleted'],
      description: 'CRM sync',
      enabled: true,
      createdAt: UNIX_SECONDS,
      secret: expect.stringMatching(WHSEC),
    });
    const { id, secret, createdAt } = res.body;
    const secretBytes = secret.slice('whsec_'.length);

    const listed = await list();
    expect(listed.status).toBe(200);
    const shown = { id, url: PUBLIC_URL, events: ['user.created', 'user.deleted'], description: 'CRM sync', enabled: true, disabledReason: '', failingSince: '0', createdAt, updatedAt: UNIX_SECONDS };
    expect(listed.body).toEqual({ webhooks: [shown] });
    expect(JSON.stringify(listed.body)).not.toContain(secretBytes);

    // Sealed at rest: neither the secret nor its bytes are stored in the clear.
    const [stored] = await tenantSql(t, a.tenantID, 'SELECT secret_sealed, previous_secret_sealed FROM webhooks WHERE id = $1', [id]);
    expect(stored.previous_secret_sealed).toBeNull();
    expect(String(stored.secret_sealed)).toMatch(/^v2\./);
    expect(String(stored.secret_sealed)).not.toContain(secretBytes);

    // Defaults: no description, enabled.
    const second = await create({ url: OTHER_PUBLIC_URL, events: ['*'] });
    expect(second.body).toEqual({ id: expect.stringMatching(UUID), url: OTHER_PUBLIC_URL, events: ['*'], description: '', enabled: true, createdAt: UNIX_SECONDS, secret: expect.stringMatching(WHSEC) });
    expect(second.body.secret).not.toBe(secret);
    expect((await list()).body.webhooks.map((w: { id: string }) => w.id)).toEqual([id, second.body.id]);

    // PUT merges: what is sent is set, the rest kept.
    const changed = await put(id, { events: ['session.revoked'], enabled: false });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ ...shown, events: ['session.revoked'], enabled: false, updatedAt: UNIX_SECONDS });
    const replaced = await put(id, { url: OTHER_PUBLIC_URL, events: ['*'], description: '', enabled: true });
    expect(replaced.body).toEqual({ ...shown, url: OTHER_PUBLIC_URL, events: ['*'], description: '', updatedAt: UNIX_SECONDS });
    expect(JSON.stringify(replaced.body)).not.toContain(secretBytes);
    expect((await list()).body.webhooks[0]).toEqual(replaced.body);

    const deleted = await remove(id);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id });
    expect((await list()).body.webhooks.map((w: { id: string }) => w.id)).toEqual([second.body.id]);
    expectWireError(await remove(id), 404, NOT_FOUND, 'WEBHOOK_NOT_FOUND');
    expectWireError(await put(id, { enabled: true }), 404, NOT_FOUND, 'WEBHOOK_NOT_FOUND');
    await remove(second.body.id);

    // Audited in the change's transaction, by the admin, with the endpoint's origin only (a path or query may hold the receiver's token).
    const admin = { kind: 'user', id: adminSub };
    const target = { kind: 'webhook', id };
    expect((await auditOf(id)).map((e) => ({ type: e.type, actor: e.actor, target: e.target, details: e.details }))).toEqual([
      { type: 'webhook.created', actor: admin, target, details: { origin: 'https://93.184.215.14', events: ['user.created', 'user.deleted'], enabled: true } },
      { type: 'webhook.updated', actor: admin, target, details: { fields: ['events', 'enabled'], enabled: false } },
      { type: 'webhook.updated', actor: admin, target, details: { fields: ['url', 'events', 'description', 'enabled'], origin: 'https://1.1.1.1', enabled: true } },
      { type: 'webhook.deleted', actor: admin, target, details: { origin: 'https://1.1.1.1' } },
    ]);
    const [auditSecret] = await tenantSql(t, a.tenantID, `SELECT count(*)::int AS n FROM audit_events WHERE details::text LIKE '%' || $1 || '%'`, [secretBytes]);
    expect(auditSecret.n).toBe(0);
  });

  it('refuses http, private, loopback, link-local and unresolvable URLs with a violation on url, creating nothing', async () => {
    for (const url of [
      'http://93.184.215.14/hook',
      'https://10.0.0.1/x',
      'https://127.0.0.1/x',
      'https://localhost/x',
      'https://[::1]/x',
      'https://169.254.169.254/latest/meta-data',
      'https://192.168.1.10/x',
      'https://user:pw@93.184.215.14/x',
      'https://93.184.215.14/x#frag',
      'https://nowhere.invalid/x',
      'not a url',
      `https://93.184.215.14/${'x'.repeat(2048)}`,
    ]) {
      const refused = expectWireError(await create({ url, events: ['*'] }), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', { fields: ['url'] });
      expect({ url, message: refused.message }).toEqual({ url, message: expect.stringMatching(/url: \S/) });
    }
    expectWireError(await create({ url: 'http://10.0.0.1/x', events: ['*'] }), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', { fields: ['url'] });
    expectWireError(await create({ events: ['*'] }), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', { fields: ['url'] });
    expect((await list()).body).toEqual({ webhooks: [] });
  });

  it('refuses unknown, empty or mixed event lists and a long description, naming what is wrong', async () => {
    const unknown = expectWireError(await create({ url: PUBLIC_URL, events: ['user.created', 'user.exploded'] }), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', {
      fields: ['events[1]'],
    });
    expect(unknown.message).toContain('user.exploded');
    // An audit-only type is not an event.
    expectWireError(await create({ url: PUBLIC_URL, events: ['sign_in'] }), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', { fields: ['events[0]'] });
    expectWireError(await create({ url: PUBLIC_URL, events: [] }), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', { fields: ['events'] });
    expectWireError(await create({ url: PUBLIC_URL }), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', { fields: ['events'] });
    expectWireError(await create({ url: PUBLIC_URL, events: 'user.created' }), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', { fields: ['events'] });
    expectWireError(await create({ url: PUBLIC_URL, events: ['*', 'user.created'] }), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', { fields: ['events'] });
    expectWireError(await create({ url: PUBLIC_URL, events: ['*'], description: 'd'.repeat(501) }), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', { fields: ['description'] });
    expectWireError(await create({ url: PUBLIC_URL, events: ['*'], enabled: 'yes' }), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', { fields: ['enabled'] });
    expect((await list()).body).toEqual({ webhooks: [] });

    // The same rules on a change, which then changes nothing.
    const { id } = await created({ description: 'kept' });
    const before = (await list()).body.webhooks[0];
    expectWireError(await put(id, { url: 'https://10.0.0.1/x' }), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', { fields: ['url'] });
    expectWireError(await put(id, { url: 'http://93.184.215.14/x' }), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', { fields: ['url'] });
    expectWireError(await put(id, { events: [] }), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', { fields: ['events'] });
    expectWireError(await put(id, { events: ['nope'] }), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', { fields: ['events[0]'] });
    expect((await list()).body.webhooks).toEqual([before]);
    await remove(id);
  });

  it('enabling an endpoint the service disabled clears its reason and its run of failures', async () => {
    const { id } = await created();
    await tenantSql(t, a.tenantID, `UPDATE webhooks SET enabled = false, disabled_reason = 'Every delivery failed for 5 days.', failing_since = now() - interval '6 days' WHERE id = $1`, [id]);
    const [disabled] = (await list()).body.webhooks;
    expect(disabled).toMatchObject({ id, enabled: false, disabledReason: 'Every delivery failed for 5 days.', failingSince: UNIX_SECONDS });
    // A change that leaves it disabled keeps the reason.
    expect((await put(id, { description: 'still off' })).body).toMatchObject({ enabled: false, disabledReason: 'Every delivery failed for 5 days.', failingSince: UNIX_SECONDS });
    expect((await put(id, { enabled: true })).body).toMatchObject({ enabled: true, disabledReason: '', failingSince: '0', description: 'still off' });

    // A new URL starts a new run of failures too.
    await tenantSql(t, a.tenantID, `UPDATE webhooks SET failing_since = now() - interval '1 day' WHERE id = $1`, [id]);
    expect((await put(id, { url: OTHER_PUBLIC_URL })).body).toMatchObject({ enabled: true, failingSince: '0' });
    await remove(id);
  });

  it('rotates the secret: a new one shown once, the old one kept signing for 24 hours, a second rotation dropping the first', async () => {
    const { id, secret } = await created();
    const [first] = await tenantSql(t, a.tenantID, 'SELECT secret_sealed FROM webhooks WHERE id = $1', [id]);

    const res = await rotate(id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id, secret: expect.stringMatching(WHSEC) });
    const rotated = res.body.secret as string;
    expect(rotated).not.toBe(secret);
    expect(JSON.stringify((await list()).body)).not.toContain(rotated.slice('whsec_'.length));
    const [afterOne] = await tenantSql(
      t,
      a.tenantID,
      `SELECT secret_sealed, previous_secret_sealed, extract(epoch FROM previous_secret_expires_at - now())::int AS left FROM webhooks WHERE id = $1`,
      [id],
    );
    expect(afterOne.previous_secret_sealed).toBe(first.secret_sealed);
    expect(afterOne.secret_sealed).not.toBe(first.secret_sealed);
    expect(Number(afterOne.left)).toBeGreaterThan(24 * 3600 - 60);
    expect(Number(afterOne.left)).toBeLessThanOrEqual(24 * 3600);

    await rotate(id);
    const [afterTwo] = await tenantSql(t, a.tenantID, 'SELECT previous_secret_sealed FROM webhooks WHERE id = $1', [id]);
    expect(afterTwo.previous_secret_sealed).toBe(afterOne.secret_sealed);

    expectWireError(await rotate('00000000-0000-4000-8000-000000000000'), 404, NOT_FOUND, 'WEBHOOK_NOT_FOUND');
    const audit = await auditOf(id);
    expect(audit.map((e) => [e.type, e.details])).toEqual([
      ['webhook.created', expect.any(Object)],
      ['webhook.secret_rotated', { previousSecretHours: 24 }],
      ['webhook.secret_rotated', { previousSecretHours: 24 }],
    ]);
    await remove(id);
  });

  it('queues a webhook.test event for the endpoint alone and lists it in the delivery log', async () => {
    const { id } = await created({ events: ['user.deleted'], enabled: false });
    // Nothing leaves the machine: the endpoint is pointed at an address the sender refuses when connecting.
    await tenantSql(t, a.tenantID, `UPDATE webhooks SET url = 'https://127.0.0.1:9/refused' WHERE id = $1`, [id]);
    const res = await sendTest(id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ eventID: expect.stringMatching(MSG_ID) });

    const log = await deliveries(id);
    expect(log.status).toBe(200);
    expect(log.body).toEqual({ deliveries: [expect.any(Object)], nextCursor: '' });
    const [d] = log.body.deliveries;
    expect(d).toEqual({
      id: expect.stringMatching(/^\d+$/),
      eventID: res.body.eventID,
      eventType: 'webhook.test',
      status: expect.stringMatching(/^(pending|failed)$/),
      attempts: expect.any(Number),
      lastStatus: 0,
      lastError: expect.any(String),
      nextAttemptAt: d.status === 'pending' ? UNIX_SECONDS : '0',
      createdAt: UNIX_SECONDS,
      finishedAt: d.status === 'pending' ? '0' : UNIX_SECONDS,
    });
    const [row] = await tenantSql(t, a.tenantID, 'SELECT payload FROM webhook_deliveries WHERE webhook_id = $1', [id]);
    expect(JSON.parse(String(row.payload))).toEqual({
      type: 'webhook.test',
      timestamp: expect.any(String),
      data: { tenantID: a.tenantID, sectorID: sector, webhookID: id },
    });
    expectWireError(await sendTest('00000000-0000-4000-8000-000000000000'), 404, NOT_FOUND, 'WEBHOOK_NOT_FOUND');

    // Deleting the endpoint takes its deliveries with it.
    await remove(id);
    expect(await tenantSql(t, a.tenantID, 'SELECT id FROM webhook_deliveries WHERE webhook_id = $1', [id])).toEqual([]);
  });

  it('pages the delivery log newest first by cursor, filters by status, and refuses a cursor it did not issue', async () => {
    const { id } = await created();
    // Seven deliveries in the log: pending ones due tomorrow (so the worker leaves them), ended ones as the worker leaves them.
    await tenantSql(
      t,
      a.tenantID,
      `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, payload, status, attempts, next_attempt_at, last_status, last_error, finished_at)
       SELECT $1, 'msg_seeded' || i, 'user.created', '{}',
              CASE WHEN i % 3 = 0 THEN 'failed' WHEN i % 3 = 1 THEN 'succeeded' ELSE 'pending' END,
              CASE WHEN i % 3 = 2 THEN 1 ELSE 8 END,
              now() + interval '1 day',
              CASE WHEN i % 3 = 1 THEN 204 WHEN i % 3 = 0 THEN 500 ELSE NULL END,
              CASE WHEN i % 3 = 1 THEN '' WHEN i % 3 = 0 THEN 'HTTP 500' ELSE 'timed out after 10 s' END,
              CASE WHEN i % 3 = 2 THEN NULL ELSE now() END
         FROM generate_series(1, 7) i ORDER BY i`,
      [id],
    );
    const seen: Array<Record<string, unknown>> = [];
    let cursor = '';
    const pages: number[] = [];
    do {
      const res = await deliveries(id, { pageSize: 3, ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      pages.push(res.body.deliveries.length);
      seen.push(...res.body.deliveries);
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(pages).toEqual([3, 3, 1]);
    expect(seen.map((d) => d.eventID)).toEqual([7, 6, 5, 4, 3, 2, 1].map((i) => `msg_seeded${i}`));
    expect(seen[0]).toEqual({
      id: expect.stringMatching(/^\d+$/),
      eventID: 'msg_seeded7',
      eventType: 'user.created',
      status: 'succeeded',
      attempts: 8,
      lastStatus: 204,
      lastError: '',
      nextAttemptAt: '0',
      createdAt: UNIX_SECONDS,
      finishedAt: UNIX_SECONDS,
    });
    expect(seen[2]).toMatchObject({ eventID: 'msg_seeded5', status: 'pending', attempts: 1, lastStatus: 0, lastError: 'timed out after 10 s', nextAttemptAt: UNIX_SECONDS, finishedAt: '0' });
    expect(Number(seen[2].nextAttemptAt)).toBeGreaterThan(Date.now() / 1000 + 23 * 3600);
    expect(seen[1]).toMatchObject({ eventID: 'msg_seeded6', status: 'failed', lastStatus: 500, lastError: 'HTTP 500', nextAttemptAt: '0' });

    const failed = await deliveries(id, { status: 'failed' });
    expect(failed.body.deliveries.map((d: { eventID: string }) => d.eventID)).toEqual(['msg_seeded6', 'msg_seeded3']);
    expect(failed.body.nextCursor).toBe('');
    // Page sizes beyond the bounds are clamped (20 by default, at most 100), as elsewhere.
    expect((await deliveries(id, { pageSize: 0 })).body.deliveries).toHaveLength(7);
    expect((await deliveries(id, { pageSize: 1000 })).body.deliveries).toHaveLength(7);

    expectWireError(await deliveries(id, { cursor: 'bogus!' }), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', { fields: ['cursor'] });
    expectWireError(await deliveries(id, { cursor: Buffer.from('a:5').toString('base64url') }), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', { fields: ['cursor'] });
    expectWireError(await deliveries(id, { status: 'lost' }), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', { fields: ['status'] });
    expectWireError(await deliveries('00000000-0000-4000-8000-000000000000'), 404, NOT_FOUND, 'WEBHOOK_NOT_FOUND');
    expectWireError(await deliveries('not-a-uuid'), 404, NOT_FOUND, 'WEBHOOK_NOT_FOUND');
    await remove(id);
  });

  it('holds at most 50 webhooks a sector', async () => {
    const bounded = await createSector(t, a.adminToken);
    await tenantSql(
      t,
      a.tenantID,
      `INSERT INTO webhooks (id, sector_id, url, events, secret_sealed) SELECT gen_random_uuid(), $1, 'https://93.184.215.14/' || i, ARRAY['*'], 'sealed' FROM generate_series(1, 49) i`,
      [bounded],
    );
    expect((await create({ url: PUBLIC_URL, events: ['*'] }, a.adminToken, bounded)).status).toBe(200);
    expectWireError(await create({ url: PUBLIC_URL, events: ['*'] }, a.adminToken, bounded), 429, RESOURCE_EXHAUSTED, 'WEBHOOK_LIMIT_REACHED', { metadata: { limit: '50' } });
    expect((await list(a.adminToken, bounded)).body.webhooks).toHaveLength(50);
  });

  it('is for signed-in admins of the sector or the default sector only; another sector’s webhook answers as missing', async () => {
    // Subscribed to an event nothing here causes (users are created below): nothing is sent.
    const { id } = await created({ events: ['user.deleted'] });
    const other = await createSector(t, a.adminToken);
    const otherHook = await created({ events: ['user.deleted'] }, other);

    // An admin of the sector itself manages it.
    await createUser(t, a.adminToken, sector, { email: 'hooks-admin@example.test', password: PASSWORD, isAdmin: true });
    const sectorAdmin = await t.login('hooks-admin@example.test', PASSWORD, sector);
    expect((await list(sectorAdmin)).body.webhooks.map((w: { id: string }) => w.id)).toEqual([id]);
    expect((await put(id, { description: 'by the sector admin' }, sectorAdmin)).status).toBe(200);

    // Refused: a member, the sector's API token, another sector's admin.
    await createUser(t, a.adminToken, sector, { email: 'hooks-member@example.test', password: PASSWORD });
    const member = await t.login('hooks-member@example.test', PASSWORD, sector);
    const apiToken = (await t.http().post(`/api/v1/sectors/${sector}/tokens`).set(bearer(a.adminToken)).send({ name: 'automation' })).body.token as string;
    await createUser(t, a.adminToken, other, { email: 'other-admin@example.test', password: PASSWORD, isAdmin: true });
    const otherAdmin = await t.login('other-admin@example.test', PASSWORD, other);
    for (const token of [member, apiToken, otherAdmin]) {
      expectWireError(await list(token), 403, PERMISSION_DENIED, 'ROLE_REQUIRED');
      expectWireError(await create({ url: PUBLIC_URL, events: ['*'] }, token), 403, PERMISSION_DENIED, 'ROLE_REQUIRED');
      expectWireError(await put(id, { enabled: false }, token), 403, PERMISSION_DENIED, 'ROLE_REQUIRED');
      expectWireError(await remove(id, token), 403, PERMISSION_DENIED, 'ROLE_REQUIRED');
      expectWireError(await rotate(id, token), 403, PERMISSION_DENIED, 'ROLE_REQUIRED');
      expectWireError(await sendTest(id, token), 403, PERMISSION_DENIED, 'ROLE_REQUIRED');
      expectWireError(await deliveries(id, {}, token), 403, PERMISSION_DENIED, 'ROLE_REQUIRED');
    }

    // Another sector's webhook through this sector's path, for an admin of both: not found, unchanged.
    expectWireError(await put(otherHook.id, { enabled: false }), 404, NOT_FOUND, 'WEBHOOK_NOT_FOUND');
    expectWireError(await remove(otherHook.id), 404, NOT_FOUND, 'WEBHOOK_NOT_FOUND');
    expectWireError(await rotate(otherHook.id), 404, NOT_FOUND, 'WEBHOOK_NOT_FOUND');
    expectWireError(await sendTest(otherHook.id), 404, NOT_FOUND, 'WEBHOOK_NOT_FOUND');
    expectWireError(await deliveries(otherHook.id), 404, NOT_FOUND, 'WEBHOOK_NOT_FOUND');
    expectWireError(await remove('not-a-uuid'), 404, NOT_FOUND, 'WEBHOOK_NOT_FOUND');
    expect((await list(a.adminToken, other)).body.webhooks).toEqual([expect.objectContaining({ id: otherHook.id, enabled: true })]);

    // Another tenant's admin does not even find the sector.
    const b = await provisionTenant(t);
    expectWireError(await list(b.adminToken), 404, NOT_FOUND, 'SECTOR_NOT_FOUND');
    expectWireError(await remove(id, b.adminToken), 404, NOT_FOUND, 'SECTOR_NOT_FOUND');
    expect((await list()).body.webhooks.map((w: { id: string }) => w.id)).toEqual([id]);
    await remove(id);
  });
});
