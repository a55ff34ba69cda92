import { randomBytes } from 'node:crypto';
import { claimsOf, expectError, expectWireError } from './support/contract';
import { createSector, createUser, ProvisionedTenant, provisionTenant, tenantSql } from './support/factories';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';

/**
 * A sector's dashboard figures (docs/api.md, Sector statistics): users and live
 * sessions now, and per UTC day the completed sign-ins, refused sign-in steps and
 * self sign-ups the audit trail holds, every day of the period present; `days` is
 * validated; only who may read the audit trail may read them.
 */

type Res = { status: number; body: any; headers: Record<string, string> };
type Day = { day: string; signIns: number; signInFailures: number; signUps: number };

const auth = (token: string) => ({ Authorization: `Bearer ${token}` });
const uniqueEmail = (label: string) => `${label}-${randomBytes(4).toString('hex')}@example.test`;
const DAY_MS = 86_400_000;
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe('sector statistics', () => {
  let t: TestApp;
  let a: ProvisionedTenant;
  let b: ProvisionedTenant;
  let S: string;
  let sectorAdminToken: string;
  let alice: string;
  let aliceEmail: string;
  let aliceToken: string;
  const PASSWORD = 'stats-spec-password-1';

  const stats = (sectorID: string, token: string | undefined, query: Record<string, string | number> = {}): Promise<Res> => {
    const req = t.http().get(`/api/v1/sectors/${sectorID}/stats`).query(query);
    return token === undefined ? req : req.set(auth(token));
  };
  const signIn = (username: string, password: string) => t.http().post('/api/v1/login/password').send({ username, password, sectorID: S });

  beforeAll(async () => {
    t = await startTestApp({ env: { ...NO_THROTTLE } });
    a = await provisionTenant(t);
    b = await provisionTenant(t);
    S = await createSector(t, a.adminToken);
    expect((await t.http().put(`/api/v1/sectors/${S}/settings`).set(auth(a.adminToken)).send({ SelfSignUpAllowed: true })).status).toBe(200);
  });

  afterAll(async () => {
    await t?.close();
  });

  it("counts today's sign-ins, failures and sign-ups, the users and the live sessions", async () => {
    // An empty sector: every figure zero, every day present.
    const empty = await stats(S, a.adminToken);
    expect(empty.status).toBe(200);
    expect(empty.body.users).toBe(0);
    expect(empty.body.activeSessions).toBe(0);
    expect(empty.body.days).toHaveLength(30);
    expect((empty.body.days as Day[]).every((d) => d.signIns === 0 && d.signInFailures === 0 && d.signUps === 0)).toBe(true);

    // Users created by an admin are not sign-ups; their sign-ins and refusals are counted.
    const adminEmail = uniqueEmail('sector-admin');
    await createUser(t, a.adminToken, S, { email: adminEmail, password: PASSWORD, isAdmin: true });
    aliceEmail = uniqueEmail('alice');
    alice = await createUser(t, a.adminToken, S, { email: aliceEmail, password: PASSWORD });
    sectorAdminToken = await t.login(adminEmail, PASSWORD, S);
    aliceToken = await t.login(aliceEmail, PASSWORD, S);
    await t.login(aliceEmail, PASSWORD, S);
    expectError(await signIn(aliceEmail, 'not-the-password-1'), 401, 16, 'INVALID_CREDENTIALS');
    expectError(await signIn(aliceEmail, 'not-the-password-2'), 401, 16, 'INVALID_CREDENTIALS');
    expectError(await signIn(uniqueEmail('nobody'), 'not-the-password-3'), 401, 16, 'INVALID_CREDENTIALS');

    // A self sign-up: a sign-up, and (no MFA here) a completed sign-in with its session.
    const signup = await t.http().post('/api/v1/signup').send({ sectorID: S, email: uniqueEmail('bob'), password: PASSWORD });
    expect(signup.status).toBe(200);
    expect(signup.body.status).toBe('SUCCESS');

    const res = await stats(S, sectorAdminToken);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['activeSessions', 'days', 'users']);
    const days = res.body.days as Day[];
    const today = utcDay(Date.now());
    expect(days).toHaveLength(30);
    expect(days[0].day).toBe(utcDay(Date.now() - 29 * DAY_MS));
    expect(days[29]).toEqual({ day: today, signIns: 4, signInFailures: 3, signUps: 1 });
    // Oldest first, one entry per day, zeros elsewhere.
    for (let i = 1; i < days.length; i++) expect(Date.parse(days[i].day) - Date.parse(days[i - 1].day)).toBe(DAY_MS);
    expect(days.slice(0, 29).every((d) => d.signIns === 0 && d.signInFailures === 0 && d.signUps === 0)).toBe(true);
    expect(res.body.users).toBe(3);
    expect(res.body.activeSessions).toBe(4);
  });

  it('lowers activeSessions when a session is revoked, and counts only live sessions', async () => {
    const before = (await stats(S, sectorAdminToken)).body.activeSessions as number;
    const { sid } = claimsOf(aliceToken) as { sid: string };
    expect((await t.http().delete(`/api/v1/users/${alice}/sessions/${sid}`).set(auth(sectorAdminToken))).status).toBe(200);
    expect((await stats(S, sectorAdminToken)).body.activeSessions).toBe(before - 1);
    // A session past its lifetime is not live either.
    await tenantSql(t, a.tenantID, `UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = (SELECT id FROM sessions WHERE sector_id = $1 AND revoked_at IS NULL AND user_id = $2 LIMIT 1)`, [S, alice]);
    expect((await stats(S, sectorAdminToken)).body.activeSessions).toBe(before - 2);
  });

  it('counts each UTC day of the period, its first day included and the day before it not', async () => {
    const first = utcDay(Date.now() - 6 * DAY_MS);
    const insert = (at: string, type: string, outcome: string, actorKind: string, details: Record<string, unknown>) =>
      tenantSql(t, a.tenantID, `INSERT INTO audit_events (occurred_at, sector_id, type, outcome, actor_kind, details) VALUES ($1, $2, $3, $4, $5, $6::jsonb)`, [
        at,
        S,
        type,
        outcome,
        actorKind,
        JSON.stringify(details),
      ]);
    await insert(`${first}T00:00:00Z`, 'sign_in', 'success', 'user', { factor: 'PASSWORD', status: 'SUCCESS' });
    await insert(`${first}T23:59:59Z`, 'sign_in', 'failure', 'anonymous', { factor: 'PASSWORD' });
    await insert(`${first}T12:00:00Z`, 'user.created', 'success', 'anonymous', {});
    // Not counted: a first step that asked for a second factor, a user an admin created, and the day before the period.
    await insert(`${first}T12:00:00Z`, 'sign_in', 'success', 'user', { factor: 'PASSWORD', status: 'MFA_REQUIRED' });
    await insert(`${first}T12:00:00Z`, 'user.created', 'success', 'user', {});
    const dayBefore = new Date(Date.parse(`${first}T00:00:00Z`) - 1000).toISOString();
    await insert(dayBefore, 'sign_in', 'success', 'user', { factor: 'PASSWORD', status: 'SUCCESS' });

    const week = await stats(S, a.adminToken, { days: 7 });
    expect(week.status).toBe(200);
    const days = week.body.days as Day[];
    expect(days.map((d) => d.day)).toEqual(Array.from({ length: 7 }, (_, i) => utcDay(Date.parse(`${first}T00:00:00Z`) + i * DAY_MS)));
    expect(days[0]).toEqual({ day: first, signIns: 1, signInFailures: 1, signUps: 1 });
    expect(days.slice(1, 6).every((d) => d.signIns === 0 && d.signInFailures === 0 && d.signUps === 0)).toBe(true);

    const eight = (await stats(S, a.adminToken, { days: 8 })).body.days as Day[];
    expect(eight[0]).toEqual({ day: utcDay(Date.parse(dayBefore)), signIns: 1, signInFailures: 0, signUps: 0 });
    expect(((await stats(S, a.adminToken, { days: 90 })).body.days as Day[]).length).toBe(90);
    expect(((await stats(S, a.adminToken, { days: '1' })).body.days as Day[]).length).toBe(1);
  });

  it.each([['0'], ['91'], ['x'], ['1.5'], ['-3']])('refuses days=%s with a field violation', async (days) => {
    expectWireError(await stats(S, a.adminToken, { days }), 400, 3, 'VALIDATION_FAILED', { fields: ['days'] });
  });

  it('answers only who may read the audit trail', async () => {
    // An ordinary user of the sector.
    expectWireError(await stats(S, await t.login(aliceEmail, PASSWORD, S)), 403, 7, 'ROLE_REQUIRED');
    // An API token of the sector (a bounded admin, never a reader of the trail).
    const minted = await t.http().post(`/api/v1/sectors/${S}/tokens`).set(auth(sectorAdminToken)).send({ name: 'stats' });
    expect(minted.status).toBe(200);
    expectWireError(await stats(S, minted.body.token as string), 403, 7, 'ROLE_REQUIRED');
    // Another tenant's admin: the sector does not exist for them.
    expectWireError(await stats(S, b.adminToken), 404, 5, 'SECTOR_NOT_FOUND');
    // No credential.
    expectWireError(await stats(S, undefined), 401, 16, 'CREDENTIAL_MISSING');
  });
});
