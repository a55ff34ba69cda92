import { randomBytes } from 'node:crypto';
import { TransactionJanitor } from '../src/auth/engine/transaction-janitor';
import { KeyService } from '../src/keys/key.service';
import { TenantDirectory } from '../src/tenancy/tenant-directory';
import { claimsOf } from './support/contract';
import { createUser, expectError, ProvisionedTenant, provisionTenant, tenantSql } from './support/factories';
import { FAST_WORKER, MAIL_FROM, ReceivedMail, startSmtpServer, TestSmtpServer } from './support/smtp';
import { startTestApp, TestApp } from './support/test-app';
import { sleep } from './support/wait';

/**
 * The audit trail end to end (docs/api.md, Audit events): every security-relevant
 * action done through the API appends its event — in order, with its actor,
 * target and outcome — to its own tenant and sector; the listing filters and
 * pages by cursor; only signed-in admins read it (an API token gets 403, another
 * tenant's admin NOT_FOUND); and no event carries a password, code or token.
 */

type Res = { status: number; body: any; headers: Record<string, string> };
type Event = {
  id: string;
  occurredAt: string;
  type: string;
  outcome: string;
  reason: string;
  actor: { kind: string; id: string };
  target: { kind: string; id: string };
  sectorID: string;
  clientAddress: string;
  requestId: string;
  details: Record<string, unknown>;
};

const LINK = /https?:\/\/[^\s"'<>]*[?&]token=[A-Za-z0-9_%-]+[^\s"'<>]*/;
const auth = (token: string) => ({ Authorization: `Bearer ${token}` });
const uniqueEmail = (label: string) => `${label}-${randomBytes(4).toString('hex')}@example.test`;

describe('audit trail', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  let a: ProvisionedTenant;
  let b: ProvisionedTenant;
  let platformSector: string;
  let platformToken: string;
  let otplib: typeof import('otplib', { with: { 'resolution-mode': 'import' } });
  /** Every password, code and token the test used: none may appear in any event. */
  const secrets: string[] = [];

  const list = (sectorID: string, token: string, query: Record<string, string | number> = {}): Promise<Res> =>
    t.http().get(`/api/v1/sectors/${sectorID}/audit-events`).query(query).set(auth(token));

  /** Every event of a sector, oldest first (paging through the newest-first listing). */
  async function allEvents(sectorID: string, token: string, query: Record<string, string> = {}): Promise<Event[]> {
    const out: Event[] = [];
    let cursor = '';
    for (let i = 0; i < 50; i++) {
      const res = await list(sectorID, token, { ...query, pageSize: 200, ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      out.push(...(res.body.events as Event[]));
      cursor = res.body.nextCursor;
      if (!cursor) break;
    }
    return out.reverse();
  }

  function expectNoSecrets(body: unknown): void {
    const json = JSON.stringify(body);
    for (const s of secrets) expect({ leaked: json.includes(s) ? s : '' }).toEqual({ leaked: '' });
  }

  beforeAll(async () => {
    otplib = await import('otplib');
    smtp = await startSmtpServer();
    t = await startTestApp({ env: { SMTP_URL: smtp.url, MAIL_FROM, ...FAST_WORKER } });
    platformToken = await t.platformToken();
    platformSector = (claimsOf(platformToken) as { sectorID: string }).sectorID;
    a = await provisionTenant(t);
    b = await provisionTenant(t);
    secrets.push(a.adminPassword, a.adminToken, b.adminPassword, b.adminToken, platformToken);
  });

  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  it('records each action in order, with actor, target and outcome, and never a secret', async () => {
    const S = a.rootSectorID;
    const adminSub = (claimsOf(a.adminToken) as { sub: string }).sub;
    const start = await allEvents(S, a.adminToken);
    // Provisioning signed the admin in.
    expect(start.map((e) => [e.type, e.outcome])).toEqual([['sign_in', 'success']]);
    expect(start[0]).toMatchObject({ actor: { kind: 'user', id: adminSub }, target: { kind: 'user', id: adminSub }, details: { factor: 'PASSWORD', status: 'SUCCESS' }, sectorID: S });

    // A wrong password, then the right one.
    const wrongPassword = 'definitely-not-it-9';
    secrets.push(wrongPassword);
    expectError(await t.http().post('/api/v1/login/password').send({ username: a.adminEmail, password: wrongPassword, sectorID: S }), 401, 16, 'INVALID_CREDENTIALS');
    const adminToken = await t.login(a.adminEmail, a.adminPassword, S);
    secrets.push(adminToken);

    // Settings.
    expect((await t.http().put(`/api/v1/sectors/${S}/settings`).set(auth(adminToken)).send({ MFARequired: false, AuditRetentionDays: '30' })).status).toBe(200);

    // A user with a password: created, updated; then their password changed by themselves.
    const alicePassword = 'alice-first-password-1';
    const aliceEmail = uniqueEmail('alice');
    secrets.push(alicePassword);
    const alice = await createUser(t, adminToken, S, { email: aliceEmail, password: alicePassword });
    expect((await t.http().put(`/api/v1/users/${alice}`).set(auth(adminToken)).send({ profile: { givenName: 'Alice' } })).status).toBe(200);
    const aliceToken = await t.login(aliceEmail, alicePassword, S);
    secrets.push(aliceToken);
    const aliceSecond = 'alice-second-password-2';
    secrets.push(aliceSecond);
    expect((await t.http().post(`/api/v1/users/${alice}/password`).set(auth(aliceToken)).send({ currentPassword: alicePassword, newPassword: aliceSecond })).status).toBe(200);

    // An invited user (no password), then deleted.
    const bob = await createUser(t, adminToken, S, { email: uniqueEmail('bob') });
    expect((await t.http().delete(`/api/v1/users/${bob}`).set(auth(adminToken))).status).toBe(200);

    // An API token minted and revoked (it may not read the audit trail meanwhile).
    const minted = await t.http().post(`/api/v1/sectors/${S}/tokens`).set(auth(adminToken)).send({ name: 'ci-bot' });
    expect(minted.status).toBe(200);
    const apiToken = minted.body.token as string;
    const tokenId = minted.body.apiToken.id as string;
    secrets.push(apiToken);
    expectError(await list(S, apiToken), 403, 7, 'ROLE_REQUIRED');
    // What a token changes is recorded with the token (by id) as the actor.
    expect((await t.http().put(`/api/v1/sectors/${S}/settings`).set(auth(apiToken)).send({ SelfSignUpAllowed: false })).status).toBe(200);
    expect((await t.http().delete(`/api/v1/sectors/${S}/tokens/${tokenId}`).set(auth(adminToken))).status).toBe(200);

    // A TOTP factor enrolled and removed by Alice.
    const aliceToken2 = await t.login(aliceEmail, aliceSecond, S);
    secrets.push(aliceToken2);
    const reg = await t.http().post(`/api/v1/users/${alice}/otp-registrations`).set(auth(aliceToken2)).send({ type: 'totp' });
    expect(reg.status).toBe(200);
    const totpSecret = reg.body.secret as string;
    secrets.push(totpSecret);
    if (30 - ((Date.now() / 1000) % 30) < 5) await sleep(6000);
    const code = await otplib.generate({ secret: totpSecret });
    secrets.push(code);
    expect((await t.http().post(`/api/v1/users/${alice}/otp-registrations/${reg.body.registrationID}/verify`).set(auth(aliceToken2)).send({ code })).status).toBe(200);
    expect((await t.http().delete(`/api/v1/users/${alice}/otp-registrations/${reg.body.registrationID}`).set(auth(aliceToken2))).status).toBe(200);

    // A password reset from the mailed link.
    const seen = new Set(smtp.find((m) => m.to.includes(aliceEmail)).map((m) => m.messageId));
    expect((await t.http().post('/api/v1/password/forgot').send({ sectorID: S, email: aliceEmail })).status).toBe(200);
    // The reset link (not the notice of the factor Alice added above, which may arrive meanwhile).
    const mail: ReceivedMail = await smtp.waitForMail((m) => m.to.includes(aliceEmail) && !seen.has(m.messageId) && !m.subject.startsWith('A new sign-in method was added'), 15_000);
    const resetToken = new URL(LINK.exec(mail.text)![0]).searchParams.get('token')!;
    const aliceThird = 'alice-third-password-3';
    secrets.push(resetToken, aliceThird);
    const reset = await t.http().post('/api/v1/password/reset').send({ token: resetToken, newPassword: aliceThird });
    expect(reset.status).toBe(200);
    secrets.push(reset.body.token, reset.body.refreshToken);

    // Social-login providers.
    const clientSecret = `oidc-client-secret-${randomBytes(6).toString('hex')}`;
    secrets.push(clientSecret);
    const providers = await t
      .http()
      .put(`/api/v1/sectors/${S}/oauth/providers`)
      .set(auth(adminToken))
      .send({ providers: { oidc: { enabled: true, clientID: 'audit-client', clientSecret, issuerURL: 'https://idp.example.test', redirectURI: `${t.baseUrl}/api/v1/oauth/oidc/callback` } } });
    expect(providers.status).toBe(200);

    const events = await allEvents(S, adminToken);
    expectNoSecrets(events);
    const tail = events.slice(start.length);
    const admin = { kind: 'user', id: adminSub };
    const anonymous = { kind: 'anonymous', id: '' };
    const asAlice = { kind: 'user', id: alice };
    expect(tail.map((e) => ({ type: e.type, outcome: e.outcome, reason: e.reason, actor: e.actor, target: e.target, details: e.details }))).toEqual([
      { type: 'sign_in', outcome: 'failure', reason: 'INVALID_CREDENTIALS', actor: anonymous, target: admin, details: { factor: 'PASSWORD' } },
      { type: 'sign_in', outcome: 'success', reason: '', actor: admin, target: admin, details: { factor: 'PASSWORD', status: 'SUCCESS' } },
      { type: 'settings.updated', outcome: 'success', reason: '', actor: admin, target: { kind: 'sector', id: S }, details: { fields: ['AuditRetentionDays', 'MFARequired'] } },
      { type: 'user.created', outcome: 'success', reason: '', actor: admin, target: asAlice, details: { isAdmin: false, invited: false } },
      { type: 'user.updated', outcome: 'success', reason: '', actor: admin, target: asAlice, details: { fields: ['givenName'] } },
      { type: 'sign_in', outcome: 'success', reason: '', actor: asAlice, target: asAlice, details: { factor: 'PASSWORD', status: 'SUCCESS' } },
      { type: 'password.changed', outcome: 'success', reason: '', actor: asAlice, target: asAlice, details: { self: true } },
      { type: 'user.created', outcome: 'success', reason: '', actor: admin, target: { kind: 'user', id: bob }, details: { isAdmin: false, invited: true } },
      { type: 'user.invited', outcome: 'success', reason: '', actor: admin, target: { kind: 'user', id: bob }, details: {} },
      { type: 'user.deleted', outcome: 'success', reason: '', actor: admin, target: { kind: 'user', id: bob }, details: {} },
      { type: 'api_token.created', outcome: 'success', reason: '', actor: admin, target: { kind: 'apiToken', id: tokenId }, details: { name: 'ci-bot', prefix: apiToken.slice(0, 8) } },
      { type: 'settings.updated', outcome: 'success', reason: '', actor: { kind: 'apiToken', id: tokenId }, target: { kind: 'sector', id: S }, details: { fields: ['SelfSignUpAllowed'] } },
      { type: 'api_token.revoked', outcome: 'success', reason: '', actor: admin, target: { kind: 'apiToken', id: tokenId }, details: {} },
      { type: 'sign_in', outcome: 'success', reason: '', actor: asAlice, target: asAlice, details: { factor: 'PASSWORD', status: 'SUCCESS' } },
      { type: 'mfa.enrolled', outcome: 'success', reason: '', actor: asAlice, target: asAlice, details: { factor: 'totp', registrationID: reg.body.registrationID } },
      { type: 'mfa.removed', outcome: 'success', reason: '', actor: asAlice, target: asAlice, details: { factor: 'totp', registrationID: reg.body.registrationID, verified: true } },
      { type: 'password.reset', outcome: 'success', reason: '', actor: asAlice, target: asAlice, details: { removedRecentPasskeys: 0, removedRecentOtpFactors: 0 } },
      // The reset signs the user in (its PASSWORD step goes through the engine like any other).
      { type: 'sign_in', outcome: 'success', reason: '', actor: asAlice, target: asAlice, details: { factor: 'PASSWORD', status: 'SUCCESS' } },
      { type: 'oauth_providers.updated', outcome: 'success', reason: '', actor: admin, target: { kind: 'sector', id: S }, details: { providers: { oidc: ['clientID', 'clientSecret', 'enabled', 'issuerURL', 'redirectURI'] } } },
    ]);
    // Ids grow, times do not go back, every event names its sector, request and client.
    for (let i = 1; i < events.length; i++) {
      expect(BigInt(events[i].id) > BigInt(events[i - 1].id)).toBe(true);
      expect(Number(events[i].occurredAt) >= Number(events[i - 1].occurredAt)).toBe(true);
    }
    for (const e of tail) {
      expect(e.sectorID).toBe(S);
      expect(e.requestId).toMatch(/\S{8,}/);
      expect(e.clientAddress).not.toBe('');
      expect(e.occurredAt).toMatch(/^\d+$/);
    }
    // A request's id is the one the response echoed.
    const traced = await t.http().post('/api/v1/login/password').set('X-Request-Id', 'audit-trace-0001').send({ username: a.adminEmail, password: wrongPassword, sectorID: S });
    expect(traced.status).toBe(401);
    const [last] = (await list(S, adminToken, { pageSize: 1 })).body.events as Event[];
    expect(last).toMatchObject({ type: 'sign_in', outcome: 'failure', requestId: 'audit-trace-0001' });

    // Filters: type, actor, target, time range.
    const byType = await allEvents(S, adminToken, { type: 'user.created' });
    expect(byType.map((e) => e.target.id)).toEqual([alice, bob]);
    const byActor = await allEvents(S, adminToken, { actor: alice });
    expect(byActor.map((e) => e.type)).toEqual(['sign_in', 'password.changed', 'sign_in', 'mfa.enrolled', 'mfa.removed', 'password.reset', 'sign_in']);
    const byTarget = await allEvents(S, adminToken, { target: tokenId });
    expect(byTarget.map((e) => e.type)).toEqual(['api_token.created', 'api_token.revoked']);
    expect((await allEvents(S, adminToken, { actor: tokenId })).map((e) => e.type)).toEqual(['settings.updated']);
    const future = String(Math.floor(Date.now() / 1000) + 3600);
    expect((await list(S, adminToken, { from: future })).body).toEqual({ events: [], nextCursor: '' });
    expect((await allEvents(S, adminToken, { to: future })).length).toBe(events.length + 1);

    // Cursor paging: pages of 5 newest first cover everything once.
    const paged: Event[] = [];
    let cursor = '';
    do {
      const res = await list(S, adminToken, { pageSize: 5, ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      expect(res.body.events.length).toBeLessThanOrEqual(5);
      paged.push(...res.body.events);
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(paged.map((e) => e.id)).toEqual([...events.map((e) => e.id), last.id].reverse());
    expectError(await list(S, adminToken, { cursor: 'garbage!' }), 400, 3, 'VALIDATION_FAILED');
    expectError(await list(S, adminToken, { pageSize: 201 }), 400, 3, 'VALIDATION_FAILED');
    expectError(await list(S, adminToken, { type: 'no.such.type' }), 400, 3, 'VALIDATION_FAILED');

    // Scoped to the tenant: another tenant's admin sees nothing (NOT_FOUND), and its own trail has none of these.
    expectError(await list(S, b.adminToken), 404, 5, 'SECTOR_NOT_FOUND');
    const theirs = await allEvents(b.rootSectorID, b.adminToken);
    expect(theirs.map((e) => e.type)).toEqual(['sign_in']);
    // A non-admin user may not read it either.
    expectError(await list(S, reset.body.token), 403, 7, 'ROLE_REQUIRED');
  });

  it('records tenant provisioning and key rotation in the platform tenant, never in the tenant', async () => {
    const rotated = await t.app.get(KeyService).rotate(a.tenantID);
    const platform = await allEvents(platformSector, platformToken);
    expectNoSecrets(platform);
    const mine = platform.filter((e) => e.target.id === a.tenantID);
    const platformAdmin = (claimsOf(platformToken) as { sub: string }).sub;
    expect(mine.map((e) => ({ type: e.type, actor: e.actor, target: e.target, details: e.details, sectorID: e.sectorID }))).toEqual([
      { type: 'tenant.provisioned', actor: { kind: 'user', id: platformAdmin }, target: { kind: 'tenant', id: a.tenantID }, details: { slug: a.slug, storage: expect.any(String), withAdmin: true }, sectorID: platformSector },
      { type: 'signing_key.rotated', actor: { kind: 'system', id: '' }, target: { kind: 'tenant', id: a.tenantID }, details: { oldKid: rotated.oldKid, newKid: rotated.newKid }, sectorID: platformSector },
    ]);
    const tenantTypes = (await allEvents(a.rootSectorID, await t.login(a.adminEmail, a.adminPassword, a.rootSectorID))).map((e) => e.type);
    expect(tenantTypes).not.toContain('tenant.provisioned');
    expect(tenantTypes).not.toContain('signing_key.rotated');
    // A tenant admin cannot read the platform's trail.
    expectError(await list(platformSector, b.adminToken), 404, 5, 'SECTOR_NOT_FOUND');
  });

  it('purges events older than the sector retention', async () => {
    const S = b.rootSectorID;
    expect((await t.http().put(`/api/v1/sectors/${S}/settings`).set(auth(b.adminToken)).send({ AuditRetentionDays: '2' })).body.AuditRetentionDays).toBe('2');
    expectError(await t.http().put(`/api/v1/sectors/${S}/settings`).set(auth(b.adminToken)).send({ AuditRetentionDays: '3651' }), 400, 3, 'VALIDATION_FAILED');
    await tenantSql(t, b.tenantID, `UPDATE audit_events SET occurred_at = now() - interval '3 days' WHERE type = 'sign_in'`);
    const janitor = t.app.get(TransactionJanitor);
    janitor.noteActivity(await t.app.get(TenantDirectory).requireTenant(b.tenantID));
    await janitor.sweep();
    const left = await tenantSql(t, b.tenantID, `SELECT type FROM audit_events WHERE sector_id = $1 ORDER BY id`, [S]);
    expect(left.map((r) => r.type)).toEqual(['settings.updated']);
  });
});
