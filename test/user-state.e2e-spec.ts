import { createSector, createUser, expectError, ProvisionedTenant, provisionTenant } from './support/factories';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';

/**
 * Switching a user off without deleting them (`PUT /api/v1/users/{sub}` with
 * `disabled`): who may, what the profile and the list show, and what a disabled
 * user loses at once (sign-in by any factor, only after a correct first factor;
 * sessions, refresh and access tokens; recovery links) and gets back when enabled
 * again (sign-in, not the old sessions).
 */

const PASSWORD = 'correct horse battery staple';
const PERMISSION_DENIED = 7;
const UNAUTHENTICATED = 16;

describe('user state: disabling and enabling a user', () => {
  let t: TestApp;
  let a: ProvisionedTenant;
  let sector: string;
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const put = (sub: string, token: string, body: Record<string, unknown>) => t.http().put(`/api/v1/users/${sub}`).set(bearer(token)).send(body);
  const signIn = (username: string, password = PASSWORD) => t.http().post('/api/v1/login/password').send({ username, password, sectorID: sector });

  async function newUser(name: string, extra: Record<string, unknown> = {}): Promise<{ sub: string; username: string }> {
    const username = `${name}-${Math.random().toString(36).slice(2, 8)}`;
    const sub = await createUser(t, a.adminToken, sector, { username, email: `${username}@example.com`, password: PASSWORD, ...extra });
    return { sub, username };
  }

  beforeAll(async () => {
    t = await startTestApp({ env: NO_THROTTLE });
    a = await provisionTenant(t);
    sector = await createSector(t, a.adminToken);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('disables a user: no sign-in after a correct password, every token and session ends, the profile and the list say so; enabling restores sign-in only', async () => {
    const user = await newUser('dora');
    const first = await signIn(user.username);
    expect(first.body.status).toBe('SUCCESS');
    const { token, refreshToken } = first.body;

    const disabled = await put(user.sub, a.adminToken, { disabled: true });
    expect(disabled.status).toBe(200);
    expect((await t.http().get(`/api/v1/users/${user.sub}`).set(bearer(a.adminToken))).body).toMatchObject({ sub: user.sub, disabled: true });

    // Their tokens stop at once: their own calls, introspection, the refresh token.
    expectError(await t.http().get(`/api/v1/users/${user.sub}`).set(bearer(token)), 401, UNAUTHENTICATED, 'TOKEN_INVALID');
    expectError(await t.http().post('/api/v1/introspect').set(bearer(a.adminToken)).send({ token }), 401, UNAUTHENTICATED, 'TOKEN_INVALID');
    expectError(await t.http().post('/api/v1/token/refresh').send({ refreshToken }), 401, UNAUTHENTICATED);

    // A stranger learns nothing: a wrong password is refused as ever; the right one is refused as disabled.
    expectError(await signIn(user.username, 'wrong password entirely'), 401, UNAUTHENTICATED, 'INVALID_CREDENTIALS');
    expectError(await signIn(user.username), 403, PERMISSION_DENIED, 'USER_DISABLED');
    // Recovery links are not sent (the answer does not tell).
    expect((await t.http().post('/api/v1/password/forgot').send({ email: `${user.username}@example.com`, sectorID: sector })).body).toEqual({ status: 'SENT' });

    const list = (filter: string) => t.http().get(`/api/v1/sectors/${sector}/users`).query({ filterDisabled: filter }).set(bearer(a.adminToken));
    const disabledOnes = await list('true');
    expect(disabledOnes.body.users.map((u: { sub: string }) => u.sub)).toEqual([user.sub]);
    expect(disabledOnes.body.users[0]).toMatchObject({ sub: user.sub, disabled: true });
    expect((await list('false')).body.users.map((u: { sub: string }) => u.sub)).not.toContain(user.sub);

    const enabled = await put(user.sub, a.adminToken, { disabled: false });
    expect(enabled.status).toBe(200);
    expect((await t.http().get(`/api/v1/users/${user.sub}`).set(bearer(a.adminToken))).body.disabled).toBe(false);
    expect((await signIn(user.username)).body.status).toBe('SUCCESS');
    // The old session stays ended.
    expectError(await t.http().post('/api/v1/token/refresh').send({ refreshToken }), 401, UNAUTHENTICATED);

    const audit = await t.http().get(`/api/v1/sectors/${sector}/audit-events`).query({ target: user.sub }).set(bearer(a.adminToken));
    const types = audit.body.events.map((e: { type: string }) => e.type);
    expect(types).toEqual(expect.arrayContaining(['user.disabled', 'user.enabled']));
    expect(types).not.toContain('user.updated');
  });

  it('lets admins and the sector’s API tokens (for users who are not admins) do it; never the user themselves', async () => {
    const user = await newUser('erik');
    const own = (await signIn(user.username)).body.token;
    expectError(await put(user.sub, own, { disabled: true }), 403, PERMISSION_DENIED, 'FIELD_NOT_WRITABLE');

    const apiToken = (await t.http().post(`/api/v1/sectors/${sector}/tokens`).set(bearer(a.adminToken)).send({ name: 'provisioning' })).body.token;
    expect((await put(user.sub, apiToken, { disabled: true })).status).toBe(200);
    expect((await put(user.sub, apiToken, { disabled: false })).status).toBe(200);

    const admin = await newUser('fran', { isAdmin: true });
    const refused = await put(admin.sub, apiToken, { disabled: true });
    expect([403, 404]).toContain(refused.status);
    expect((await t.http().get(`/api/v1/users/${admin.sub}`).set(bearer(a.adminToken))).body.disabled).toBe(false);

    // A disabled admin is no admin: their token no longer works either.
    const adminToken = (await signIn(admin.username)).body.token;
    expect((await put(admin.sub, a.adminToken, { disabled: true })).status).toBe(200);
    expectError(await t.http().get(`/api/v1/sectors/${sector}/users`).set(bearer(adminToken)), 401, UNAUTHENTICATED, 'TOKEN_INVALID');
  });

  it('is seen at once by a second instance that had the user’s token cached', async () => {
    const user = await newUser('hana');
    const { token } = (await signIn(user.username)).body;
    const second = await startTestApp({ databaseName: t.databaseName, env: NO_THROTTLE });
    try {
      const introspect = () => second.http().post('/api/v1/introspect').set(bearer(a.adminToken)).send({ token });
      expect((await introspect()).body).toMatchObject({ sub: user.sub });
      expect((await put(user.sub, a.adminToken, { disabled: true })).status).toBe(200);
      expectError(await introspect(), 401, UNAUTHENTICATED, 'TOKEN_INVALID');
      expect((await put(user.sub, a.adminToken, { disabled: false })).status).toBe(200);
      const fresh = (await signIn(user.username)).body.token;
      expect((await second.http().post('/api/v1/introspect').set(bearer(a.adminToken)).send({ token: fresh })).body).toMatchObject({ sub: user.sub });
    } finally {
      await second.close();
    }
  });
});
