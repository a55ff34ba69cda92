import { randomBytes } from 'node:crypto';
import { TransactionJanitor } from '../src/auth/engine/transaction-janitor';
import { AccessTokenService } from '../src/keys/access-token.service';
import { createSector, createUser, expectError, ProvisionedTenant, provisionTenant, tenantSql } from './support/factories';
import { startTestApp, TestApp } from './support/test-app';

/**
 * Sessions (docs/api.md, Sessions): every sign-in that issues a token starts a
 * session named by the token's `sid`; refresh tokens rotate on every use and a
 * replayed one revokes the session; logout and revocation stop the session's
 * access tokens at once, for bearer use and for introspection alike.
 */

type Res = { status: number; body: any; headers: Record<string, string> };

const JWT = /^[\w-]+\.[\w-]+\.[\w-]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PASSWORD = 'session-password-1';

const auth = (token: string) => ({ Authorization: `Bearer ${token}` });
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;

describe('sessions and refresh tokens', () => {
  let t: TestApp;
  let a: ProvisionedTenant;
  let sector: string;

  const signIn = async (email: string, password = PASSWORD): Promise<{ token: string; refreshToken: string; sid: string }> => {
    const res = await t.http().post('/api/v1/login/password').send({ username: email, password, sectorID: sector });
    expect({ status: res.status, result: res.body.status }).toEqual({ status: 200, result: 'SUCCESS' });
    return { token: res.body.token, refreshToken: res.body.refreshToken, sid: claimsOf(res.body.token).sid as string };
  };
  const refresh = (refreshToken: string): Promise<Res> => t.http().post('/api/v1/token/refresh').send({ refreshToken });
  const me = (sub: string, token: string): Promise<Res> => t.http().get(`/api/v1/users/${sub}`).set(auth(token));
  const introspect = (token: string): Promise<Res> => t.http().post('/api/v1/introspect').set(auth(a.adminToken)).send({ token });
  const sessionsOf = (sub: string, token: string): Promise<Res> => t.http().get(`/api/v1/users/${sub}/sessions`).set(auth(token));

  async function newUser(label: string): Promise<{ sub: string; email: string }> {
    const email = `${label}-${randomBytes(4).toString('hex')}@example.test`;
    return { sub: await createUser(t, a.adminToken, sector, { email, password: PASSWORD }), email };
  }

  /** The token is refused as a bearer and by introspection with SESSION_REVOKED. */
  async function expectRevoked(sub: string, token: string): Promise<void> {
    expectError(await me(sub, token), 401, 16, 'SESSION_REVOKED');
    expectError(await introspect(token), 401, 16, 'SESSION_REVOKED');
  }

  beforeAll(async () => {
    t = await startTestApp();
    a = await provisionTenant(t);
    sector = await createSector(t, a.adminToken);
  });
  afterAll(() => t.close());

  it('starts a session at sign-in: the token names it (sid) and the answer carries a refresh token', async () => {
    const { sub, email } = await newUser('start');
    const s = await signIn(email);
    expect(s.token).toMatch(JWT);
    expect(s.sid).toMatch(UUID);
    expect(typeof s.refreshToken).toBe('string');
    expect(s.refreshToken).not.toBe(s.token);
    const list = await t.http().get(`/api/v1/users/${sub}/sessions`).set(auth(s.token)).set('User-Agent', 'ignored-for-listing');
    expect(list.status).toBe(200);
    expect(list.body.sessions).toEqual([
      {
        id: s.sid,
        sectorID: sector,
        clientIP: expect.any(String),
        userAgent: expect.any(String),
        createdAt: expect.stringMatching(/^\d+$/),
        lastSeenAt: expect.stringMatching(/^\d+$/),
        expiresAt: expect.stringMatching(/^\d+$/),
        current: true,
      },
    ]);
    // Default lifetime: 30 days.
    const session = list.body.sessions[0];
    expect(Number(session.expiresAt) - Number(session.createdAt)).toBeGreaterThanOrEqual(30 * 86400 - 5);
    expect((await introspect(s.token)).status).toBe(200);
  });

  it('records the client User-Agent', async () => {
    const { sub, email } = await newUser('agent');
    const res = await t.http().post('/api/v1/login/password').set('User-Agent', 'SessionSpec/1.0').send({ username: email, password: PASSWORD, sectorID: sector });
    expect(res.status).toBe(200);
    expect((await sessionsOf(sub, res.body.token)).body.sessions[0].userAgent).toBe('SessionSpec/1.0');
  });

  it('rotates refresh tokens; a replayed one revokes the whole session', async () => {
    const { sub, email } = await newUser('rotate');
    const s = await signIn(email);
    const first = await refresh(s.refreshToken);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ token: expect.stringMatching(JWT), refreshToken: expect.any(String) });
    expect(first.body.refreshToken).not.toBe(s.refreshToken);
    expect(claimsOf(first.body.token).sid).toBe(s.sid);
    expect((await me(sub, first.body.token)).status).toBe(200);

    const second = await refresh(first.body.refreshToken);
    expect(second.status).toBe(200);

    // The used one again: a replay. The session dies, with every token of it.
    expectError(await refresh(first.body.refreshToken), 401, 16, 'REFRESH_TOKEN_REUSED');
    expectError(await refresh(second.body.refreshToken), 401, 16, 'SESSION_REVOKED');
    await expectRevoked(sub, second.body.token);
    await expectRevoked(sub, s.token);
  });

  it('lets exactly one of concurrent refreshes with one token win', async () => {
    const { email } = await newUser('race');
    const s = await signIn(email);
    const answers = await Promise.all(Array.from({ length: 8 }, () => refresh(s.refreshToken)));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of answers.filter((x) => x.status !== 200)) expect(r.status).toBe(401);
  });

  it('stops a revoked session on every instance at once', async () => {
    const other = await startTestApp({ databaseName: t.databaseName });
    try {
      const { sub, email } = await newUser('instances');
      const s = await signIn(email);
      expect((await other.http().get(`/api/v1/users/${sub}`).set(auth(s.token))).status).toBe(200);
      expect((await t.http().post('/api/v1/logout').set(auth(s.token))).status).toBe(200);
      expectError(await other.http().get(`/api/v1/users/${sub}`).set(auth(s.token)), 401, 16, 'SESSION_REVOKED');
      expectError(await other.http().post('/api/v1/introspect').set(auth(a.adminToken)).send({ token: s.token }), 401, 16, 'SESSION_REVOKED');
    } finally {
      await other.close();
    }
  });

  it('keeps API tokens away from sessions', async () => {
    const { sub, email } = await newUser('apitoken');
    await signIn(email);
    const minted = await t.http().post(`/api/v1/sectors/${sector}/tokens`).set(auth(a.adminToken)).send({ name: 'sessions' });
    expect(minted.status).toBe(200);
    const api = minted.body.token as string;
    expectError(await sessionsOf(sub, api), 403, 7, 'ROLE_REQUIRED');
    expectError(await t.http().post('/api/v1/logout').set(auth(api)), 403, 7, 'ROLE_REQUIRED');
  });

  it('refuses an unknown refresh token', async () => {
    expectError(await refresh('nope'), 401, 16, 'REFRESH_TOKEN_INVALID');
    expectError(await refresh(randomBytes(48).toString('base64url')), 401, 16, 'REFRESH_TOKEN_INVALID');
  });

  it('logout ends the caller session at once (bearer and introspection); other sessions go on', async () => {
    const { sub, email } = await newUser('logout');
    const one = await signIn(email);
    const two = await signIn(email);
    const out = await t.http().post('/api/v1/logout').set(auth(one.token));
    expect({ status: out.status, body: out.body }).toEqual({ status: 200, body: {} });
    await expectRevoked(sub, one.token);
    expectError(await refresh(one.refreshToken), 401, 16, 'SESSION_REVOKED');
    expect((await me(sub, two.token)).status).toBe(200);
    expect((await introspect(two.token)).status).toBe(200);
    expectError(await t.http().post('/api/v1/logout'), 401, 16, 'CREDENTIAL_MISSING');
  });

  it('lets users list and revoke their sessions, and admins those of their users', async () => {
    const { sub, email } = await newUser('manage');
    const one = await signIn(email);
    const two = await signIn(email);
    const three = await signIn(email);
    const listed = await sessionsOf(sub, one.token);
    expect(listed.body.sessions.map((s: { id: string }) => s.id).sort()).toEqual([one.sid, two.sid, three.sid].sort());
    expect(listed.body.sessions.filter((s: { current: boolean }) => s.current).map((s: { id: string }) => s.id)).toEqual([one.sid]);

    const revoked = await t.http().delete(`/api/v1/users/${sub}/sessions/${two.sid}`).set(auth(one.token));
    expect({ status: revoked.status, body: revoked.body }).toEqual({ status: 200, body: { id: two.sid } });
    await expectRevoked(sub, two.token);
    expectError(await t.http().delete(`/api/v1/users/${sub}/sessions/${two.sid}`).set(auth(one.token)), 404, 5, 'SESSION_NOT_FOUND');
    expectError(await t.http().delete(`/api/v1/users/${sub}/sessions/not-a-uuid`).set(auth(one.token)), 404, 5, 'SESSION_NOT_FOUND');

    // Another user may neither list nor revoke them.
    const other = await newUser('stranger');
    const otherSession = await signIn(other.email);
    expectError(await sessionsOf(sub, otherSession.token), 403, 7, 'ROLE_REQUIRED');
    expectError(await t.http().delete(`/api/v1/users/${sub}/sessions/${three.sid}`).set(auth(otherSession.token)), 403, 7, 'ROLE_REQUIRED');
    // A session of another user is not found through this user.
    expectError(await t.http().delete(`/api/v1/users/${other.sub}/sessions/${three.sid}`).set(auth(a.adminToken)), 404, 5, 'SESSION_NOT_FOUND');

    // The admin lists and revokes.
    expect((await sessionsOf(sub, a.adminToken)).body.sessions).toHaveLength(2);
    expect((await t.http().delete(`/api/v1/users/${sub}/sessions/${three.sid}`).set(auth(a.adminToken))).status).toBe(200);
    await expectRevoked(sub, three.token);
    expect((await me(sub, one.token)).status).toBe(200);
  });

  it('a self-service password change keeps the current session and ends the others; an admin change ends all', async () => {
    const { sub, email } = await newUser('change');
    const mine = await signIn(email);
    const other = await signIn(email);
    const changed = await t.http().post(`/api/v1/users/${sub}/password`).set(auth(mine.token)).send({ currentPassword: PASSWORD, newPassword: 'changed-password-2' });
    expect(changed.status).toBe(200);
    expect((await me(sub, mine.token)).status).toBe(200);
    await expectRevoked(sub, other.token);
    // The kept session refreshes on.
    const next = await refresh(mine.refreshToken);
    expect(next.status).toBe(200);
    expect((await me(sub, next.body.token)).status).toBe(200);

    expect((await t.http().post(`/api/v1/users/${sub}/password`).set(auth(a.adminToken)).send({ newPassword: 'admin-set-password-3' })).status).toBe(200);
    await expectRevoked(sub, next.body.token);
  });

  it('an expired session stops its tokens and refreshes', async () => {
    const { sub, email } = await newUser('expire');
    const s = await signIn(email);
    await tenantSql(t, a.tenantID, `UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = $1`, [s.sid]);
    await expectRevoked(sub, s.token);
    expectError(await refresh(s.refreshToken), 401, 16, 'SESSION_REVOKED');
  });

  it('an idle session cannot be refreshed', async () => {
    const { email } = await newUser('idle');
    const s = await signIn(email);
    await tenantSql(t, a.tenantID, `UPDATE sessions SET last_seen_at = now() - interval '8 days' WHERE id = $1`, [s.sid]);
    expectError(await refresh(s.refreshToken), 401, 16, 'SESSION_REVOKED');
  });

  it('takes lifetime and idle timeout from the sector settings', async () => {
    const res = await t.http().put(`/api/v1/sectors/${sector}/settings`).set(auth(a.adminToken)).send({ SessionLifetimeSeconds: '3600', SessionIdleTimeoutSeconds: '0' });
    expect(res.status).toBe(200);
    expect({ l: res.body.SessionLifetimeSeconds, i: res.body.SessionIdleTimeoutSeconds }).toEqual({ l: '3600', i: '604800' });
    try {
      const { sub, email } = await newUser('short');
      const s = await signIn(email);
      const [session] = (await sessionsOf(sub, s.token)).body.sessions;
      expect(Number(session.expiresAt) - Number(session.createdAt)).toBeLessThanOrEqual(3601);
    } finally {
      await t.http().put(`/api/v1/sectors/${sector}/settings`).set(auth(a.adminToken)).send({ SessionLifetimeSeconds: '0' });
    }
  });

  it('keeps tokens issued without a session valid until they expire', async () => {
    const { sub } = await newUser('legacy');
    const { token } = await t.app.get(AccessTokenService).issue({
      tenantId: a.tenantID,
      kid: a.kid,
      sectorId: sector,
      userId: sub,
      username: 'legacy',
      isAdmin: false,
      roles: [],
      permissions: [],
      credentialVersion: 0,
      ttlSeconds: 600,
    });
    expect(claimsOf(token).sid).toBeUndefined();
    expect((await me(sub, token)).status).toBe(200);
    expect((await introspect(token)).status).toBe(200);
  });

  it('purges ended sessions in the janitor sweep', async () => {
    const { email } = await newUser('purge');
    const s = await signIn(email);
    await tenantSql(t, a.tenantID, `UPDATE sessions SET revoked_at = now() - interval '2 days' WHERE id = $1`, [s.sid]);
    await t.app.get(TransactionJanitor).sweep();
    expect(await tenantSql(t, a.tenantID, 'SELECT id FROM sessions WHERE id = $1', [s.sid])).toEqual([]);
    expect(await tenantSql(t, a.tenantID, `SELECT 1 FROM refresh_tokens r JOIN sessions s ON s.id = r.session_id WHERE s.id = $1`, [s.sid])).toEqual([]);
  });
});
