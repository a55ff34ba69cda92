import { claimsOf, expectWireError } from './support/contract';
import { createSector, createUser, ProvisionedTenant, provisionTenant, tenantSql } from './support/factories';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';

/**
 * Roles and permissions (`/api/v1/sectors/{sectorID}/roles`, `/api/v1/users/{sub}/roles`):
 * a sector's roles with whole-body assertions, their bounds, assigning them, who may,
 * and what reaches tokens (as of issuance) and introspection (as of now, on every
 * instance).
 */

const PASSWORD = 'correct horse battery staple';
const INVALID_ARGUMENT = 3;
const NOT_FOUND = 5;
const PERMISSION_DENIED = 7;
const RESOURCE_EXHAUSTED = 8;
const UNIX_SECONDS = expect.stringMatching(/^\d{10}$/);

describe('roles and permissions', () => {
  let t: TestApp;
  let a: ProvisionedTenant;
  let sector: string;
  let otherSector: string;
  let apiToken: string;
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const rolesUrl = (s = sector) => `/api/v1/sectors/${s}/roles`;
  const putRole = (name: string, body: Record<string, unknown>, token = a.adminToken, s = sector) => t.http().put(`${rolesUrl(s)}/${name}`).set(bearer(token)).send(body);
  const deleteRole = (name: string, token = a.adminToken, s = sector) => t.http().delete(`${rolesUrl(s)}/${name}`).set(bearer(token));
  const listRoles = (token = a.adminToken, s = sector) => t.http().get(rolesUrl(s)).set(bearer(token));
  const userRoles = (sub: string, token = a.adminToken) => t.http().get(`/api/v1/users/${sub}/roles`).set(bearer(token));
  const setUserRoles = (sub: string, roles: unknown, token = a.adminToken) => t.http().put(`/api/v1/users/${sub}/roles`).set(bearer(token)).send({ roles });
  const introspect = (token: string, app: TestApp = t) => app.http().post('/api/v1/introspect').set(bearer(a.adminToken)).send({ token });
  const signIn = async (username: string): Promise<string> => {
    const res = await t.http().post('/api/v1/login/password').send({ username, password: PASSWORD, sectorID: sector });
    expect(res.body.status).toBe('SUCCESS');
    return res.body.token as string;
  };

  async function newUser(name: string, extra: Record<string, unknown> = {}, s = sector): Promise<{ sub: string; username: string }> {
    const username = `${name}-${Math.random().toString(36).slice(2, 8)}`;
    const sub = await createUser(t, a.adminToken, s, { username, email: `${username}@example.com`, password: PASSWORD, ...extra });
    return { sub, username };
  }

  async function auditOf(target: string, type: string): Promise<Array<{ type: string; details: Record<string, unknown>; actor: unknown }>> {
    const res = await t.http().get(`/api/v1/sectors/${sector}/audit-events`).query({ target, type }).set(bearer(a.adminToken));
    expect(res.status).toBe(200);
    return res.body.events;
  }

  beforeAll(async () => {
    t = await startTestApp({ env: NO_THROTTLE });
    a = await provisionTenant(t);
    sector = await createSector(t, a.adminToken);
    otherSector = await createSector(t, a.adminToken);
    apiToken = (await t.http().post(`/api/v1/sectors/${sector}/tokens`).set(bearer(a.adminToken)).send({ name: 'provisioning' })).body.token;
  });

  afterAll(async () => {
    await t?.close();
  });

  describe('a sector’s roles', () => {
    it('creates, lists, replaces and deletes a role, answering the whole role each time', async () => {
      const created = await putRole('billing.manager', { description: 'Runs billing', permissions: ['invoices:read', 'invoices:write', 'invoices:read'] });
      expect(created.status).toBe(200);
      expect(created.body).toEqual({
        name: 'billing.manager',
        description: 'Runs billing',
        permissions: ['invoices:read', 'invoices:write'],
        createdAt: UNIX_SECONDS,
        updatedAt: UNIX_SECONDS,
      });

      const other = await putRole('auditor', {});
      expect(other.body).toEqual({ name: 'auditor', description: '', permissions: [], createdAt: UNIX_SECONDS, updatedAt: UNIX_SECONDS });

      const listed = await listRoles();
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual({ roles: [other.body, created.body] });

      const replaced = await putRole('billing.manager', { permissions: ['invoices:read', 'refunds:issue'] });
      expect(replaced.body).toEqual({ ...created.body, description: '', permissions: ['invoices:read', 'refunds:issue'], updatedAt: UNIX_SECONDS });
      // The sector's API tokens read roles too.
      expect((await listRoles(apiToken)).body).toEqual({ roles: [other.body, replaced.body] });

      expect((await deleteRole('billing.manager')).body).toEqual({ name: 'billing.manager' });
      expect((await deleteRole('auditor')).body).toEqual({ name: 'auditor' });
      expect((await listRoles()).body).toEqual({ roles: [] });
      expectWireError(await deleteRole('auditor'), 404, NOT_FOUND, 'ROLE_NOT_FOUND');

      const changes = await auditOf('billing.manager', 'role.changed');
      expect(changes.map((e) => e.details.change)).toEqual(['deleted', 'updated', 'created']);
      expect(changes[1].details).toEqual({ change: 'updated', permissions: ['invoices:read', 'refunds:issue'], previousPermissions: ['invoices:read', 'invoices:write'] });
    });

    it('refuses a bad name, too many or bad permissions and a long description, with field violations', async () => {
      for (const name of ['Upper', '1st', 'with%20space', 'x'.repeat(64)]) {
        expectWireError(await putRole(name, {}), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', { fields: ['name'] });
      }
      const tooMany = Array.from({ length: 101 }, (_, i) => `p${i}`);
      expectWireError(await putRole('ok', { permissions: tooMany }), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', { fields: ['permissions'] });
      for (const bad of ['', ' padded', 'tab\there', 'x'.repeat(129)]) {
        expectWireError(await putRole('ok', { permissions: ['fine', bad] }), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', { fields: ['permissions'] });
      }
      expectWireError(await putRole('ok', { permissions: 'invoices:read' }), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', { fields: ['permissions'] });
      expectWireError(await putRole('ok', { description: 'd'.repeat(1001) }), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', { fields: ['description'] });
      // 128 printable characters, Unicode included, are fine.
      const longest = `${'é'.repeat(127)}x`;
      expect((await putRole('ok', { permissions: [longest] })).body.permissions).toEqual([longest]);
      await deleteRole('ok');
    });

    it('holds at most 1,000 roles a sector; replacing one at the bound still works', async () => {
      const bounded = await createSector(t, a.adminToken);
      await tenantSql(
        t,
        a.tenantID,
        `INSERT INTO roles (id, sector_id, name) SELECT gen_random_uuid(), $1, 'r' || i FROM generate_series(1, 999) i`,
        [bounded],
      );
      expect((await putRole('last', {}, a.adminToken, bounded)).status).toBe(200);
      expectWireError(await putRole('one-too-many', {}, a.adminToken, bounded), 429, RESOURCE_EXHAUSTED, 'ROLE_LIMIT_REACHED', { metadata: { limit: '1000' } });
      expect((await putRole('r1', { permissions: ['still:editable'] }, a.adminToken, bounded)).status).toBe(200);
      expect((await listRoles(a.adminToken, bounded)).body.roles).toHaveLength(1000);
    });

    it('is managed by signed-in admins only: the sector’s API tokens and other users are refused', async () => {
      const user = await newUser('plain');
      const userToken = await signIn(user.username);
      expectWireError(await putRole('tok', {}, apiToken), 403, PERMISSION_DENIED, 'ROLE_REQUIRED');
      expectWireError(await putRole('usr', {}, userToken), 403, PERMISSION_DENIED, 'ROLE_REQUIRED');
      expectWireError(await listRoles(userToken), 403, PERMISSION_DENIED, 'ROLE_REQUIRED');
      expect((await putRole('kept', {})).status).toBe(200);
      expectWireError(await deleteRole('kept', apiToken), 403, PERMISSION_DENIED, 'ROLE_REQUIRED');
      expectWireError(await deleteRole('kept', userToken), 403, PERMISSION_DENIED, 'ROLE_REQUIRED');
      // Another sector's API token sees nothing of this one.
      const otherToken = (await t.http().post(`/api/v1/sectors/${otherSector}/tokens`).set(bearer(a.adminToken)).send({ name: 'other' })).body.token;
      expectWireError(await listRoles(otherToken), 403, PERMISSION_DENIED, 'ROLE_REQUIRED');
      expect((await listRoles()).body.roles.map((r: { name: string }) => r.name)).toEqual(['kept']);
      await deleteRole('kept');
    });
  });

  describe('assigning roles', () => {
    beforeAll(async () => {
      await putRole('support', { description: 'Support agent', permissions: ['tickets:read', 'tickets:write'] });
      await putRole('viewer', { permissions: ['tickets:read', 'reports:read'] });
    });

    it('sets a user’s roles and answers them with the union of their permissions, sorted', async () => {
      const user = await newUser('sam');
      expect((await userRoles(user.sub)).body).toEqual({ roles: [], permissions: [] });
      const set = await setUserRoles(user.sub, ['viewer', 'support', 'viewer']);
      expect(set.status).toBe(200);
      const expected = { roles: ['support', 'viewer'], permissions: ['reports:read', 'tickets:read', 'tickets:write'] };
      expect(set.body).toEqual(expected);
      expect((await userRoles(user.sub)).body).toEqual(expected);
      // The user reads their own.
      expect((await userRoles(user.sub, await signIn(user.username))).body).toEqual(expected);

      expect((await setUserRoles(user.sub, ['viewer'])).body).toEqual({ roles: ['viewer'], permissions: ['reports:read', 'tickets:read'] });
      const [changed] = await auditOf(user.sub, 'user.roles_changed');
      expect(changed.details).toEqual({ added: [], removed: ['support'] });

      // The list filters by role.
      const holders = await t.http().get(`/api/v1/sectors/${sector}/users`).query({ filterRole: 'viewer' }).set(bearer(a.adminToken));
      expect(holders.body.users.map((u: { sub: string }) => u.sub)).toEqual([user.sub]);
      expect(holders.body.totalCount).toBe(1);
      const none = await t.http().get(`/api/v1/sectors/${sector}/users`).query({ filterRole: 'support' }).set(bearer(a.adminToken));
      expect(none.body).toMatchObject({ users: [], totalCount: 0 });
      expect((await setUserRoles(user.sub, [])).body).toEqual({ roles: [], permissions: [] });
    });

    it('refuses unknown names (and another sector’s roles) with a violation on each, changing nothing', async () => {
      const user = await newUser('una');
      await setUserRoles(user.sub, ['support']);
      await putRole('elsewhere', {}, a.adminToken, otherSector);
      const refused = expectWireError(await setUserRoles(user.sub, ['support', 'ghost', 'elsewhere']), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', {
        fields: ['roles[1]', 'roles[2]'],
      });
      expect(refused.message).toContain('ghost');
      expectWireError(await setUserRoles(user.sub, 'support'), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', { fields: ['roles'] });
      expectWireError(await setUserRoles(user.sub, [7]), 400, INVALID_ARGUMENT, 'VALIDATION_FAILED', { fields: ['roles'] });
      expect((await userRoles(user.sub)).body.roles).toEqual(['support']);
    });

    it('lets admins and the sector’s API tokens (for users who are not admins) assign; never the user themselves', async () => {
      const user = await newUser('tia');
      const own = await signIn(user.username);
      expectWireError(await setUserRoles(user.sub, ['support'], own), 403, PERMISSION_DENIED, 'ROLE_REQUIRED');
      expect((await setUserRoles(user.sub, ['support'], apiToken)).body.roles).toEqual(['support']);
      expect((await userRoles(user.sub, apiToken)).body.roles).toEqual(['support']);

      const admin = await newUser('ada', { isAdmin: true });
      expectWireError(await setUserRoles(admin.sub, ['support'], apiToken), 403, PERMISSION_DENIED, 'ROLE_REQUIRED');
      expect((await setUserRoles(admin.sub, ['support'])).body.roles).toEqual(['support']);
      // An admin never assigns their own roles either.
      const adminToken = await signIn(admin.username);
      expectWireError(await setUserRoles(admin.sub, [], adminToken), 403, PERMISSION_DENIED, 'ROLE_REQUIRED');
      // Another user of the sector reads nobody else's roles.
      const peer = await newUser('peer');
      expectWireError(await userRoles(user.sub, await signIn(peer.username)), 403, PERMISSION_DENIED, 'ROLE_REQUIRED');
      // Another sector's admin neither.
      const otherAdmin = await newUser('oth', { isAdmin: true }, otherSector);
      const otherToken = (await t.http().post('/api/v1/login/password').send({ username: otherAdmin.username, password: PASSWORD, sectorID: otherSector })).body.token;
      expectWireError(await userRoles(user.sub, otherToken), 403, PERMISSION_DENIED, 'ROLE_REQUIRED');
      expectWireError(await setUserRoles(user.sub, [], otherToken), 403, PERMISSION_DENIED, 'ROLE_REQUIRED');
    });
  });

  describe('in tokens and introspection', () => {
    it('puts roles and permissions in a fresh token as of issuance, and introspection answers them as of now', async () => {
      await putRole('editor', { permissions: ['docs:write', 'docs:read'] });
      await putRole('reader', { permissions: ['docs:read'] });
      const user = await newUser('ivy');
      await setUserRoles(user.sub, ['reader', 'editor']);
      const token = await signIn(user.username);
      expect(claimsOf(token)).toMatchObject({ roles: ['editor', 'reader'], permissions: ['docs:read', 'docs:write'] });
      const now = () => introspect(token).then((r) => ({ status: r.status, roles: r.body.roles, permissions: r.body.permissions }));
      expect(await now()).toEqual({ status: 200, roles: ['editor', 'reader'], permissions: ['docs:read', 'docs:write'] });

      // A role taken away.
      await setUserRoles(user.sub, ['editor']);
      expect(await now()).toEqual({ status: 200, roles: ['editor'], permissions: ['docs:read', 'docs:write'] });
      // A role's permissions edited.
      await putRole('editor', { permissions: ['docs:write', 'docs:publish'] });
      expect(await now()).toEqual({ status: 200, roles: ['editor'], permissions: ['docs:publish', 'docs:write'] });
      // A role deleted.
      await deleteRole('editor');
      expect(await now()).toEqual({ status: 200, roles: [], permissions: [] });
      // A change made by hand in SQL is announced like any other.
      await setUserRoles(user.sub, ['reader']);
      expect(await now()).toEqual({ status: 200, roles: ['reader'], permissions: ['docs:read'] });
      await tenantSql(t, a.tenantID, `UPDATE roles SET permissions = '{docs:read,docs:comment}' WHERE sector_id = $1 AND name = 'reader'`, [sector]);
      expect(await now()).toEqual({ status: 200, roles: ['reader'], permissions: ['docs:comment', 'docs:read'] });

      // The token itself keeps what it was issued with; a new one carries the new state.
      expect(claimsOf(token)).toMatchObject({ roles: ['editor', 'reader'] });
      expect(claimsOf(await signIn(user.username))).toMatchObject({ roles: ['reader'], permissions: ['docs:comment', 'docs:read'] });
      await deleteRole('reader');
    });

    it('a role edit is seen at once by a second instance that had the state cached', async () => {
      await putRole('ops', { permissions: ['deploy'] });
      const user = await newUser('otto');
      await setUserRoles(user.sub, ['ops']);
      const token = await signIn(user.username);
      const second = await startTestApp({ databaseName: t.databaseName, env: NO_THROTTLE });
      try {
        const there = () => introspect(token, second).then((r) => r.body.permissions);
        expect(await there()).toEqual(['deploy']);
        expect(await there()).toEqual(['deploy']); // now cached there
        await putRole('ops', { permissions: ['deploy', 'rollback'] });
        expect(await there()).toEqual(['deploy', 'rollback']);
        await setUserRoles(user.sub, []);
        expect(await there()).toEqual([]);
        await setUserRoles(user.sub, ['ops']);
        expect(await there()).toEqual(['deploy', 'rollback']);
        await deleteRole('ops');
        expect(await there()).toEqual([]);
      } finally {
        await second.close();
      }
    });

    it('deleting a user or a sector takes their holdings with them', async () => {
      const scratch = await createSector(t, a.adminToken);
      await putRole('temp', {}, a.adminToken, scratch);
      const user = await newUser('del', {}, scratch);
      await setUserRoles(user.sub, ['temp']);
      expect((await t.http().delete(`/api/v1/users/${user.sub}`).set(bearer(a.adminToken))).status).toBe(200);
      expect(await tenantSql(t, a.tenantID, 'SELECT count(*)::int AS n FROM user_roles WHERE user_id = $1', [user.sub])).toEqual([{ n: 0 }]);
    });
  });
});
