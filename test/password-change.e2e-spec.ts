import { createUser, expectError, provisionTenant, ProvisionedTenant } from './support/factories';
import { startTestApp, TestApp } from './support/test-app';

describe('POST /api/v1/users/{sub}/password', () => {
  let t: TestApp;
  let tenant: ProvisionedTenant;
  let userId: string;
  let userToken: string;
  const email = 'changer@example.test';

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await provisionTenant(t);
    userId = await createUser(t, tenant.adminToken, tenant.rootSectorID, { email, password: 'first-password' });
    userToken = await t.login(email, 'first-password', tenant.rootSectorID);
  });
  afterAll(() => t.close());

  const change = (token: string, body: Record<string, unknown>, sub = userId) =>
    t.http().post(`/api/v1/users/${sub}/password`).set('Authorization', `Bearer ${token}`).send(body);

  it('lets users change their own password with the current one', async () => {
    const res = await change(userToken, { currentPassword: 'first-password', newPassword: 'second-password' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ sub: userId });
    await expect(t.login(email, 'first-password', tenant.rootSectorID)).rejects.toThrow();
    await t.login(email, 'second-password', tenant.rootSectorID);
  });

  it('refuses a wrong or missing current password from the user', async () => {
    expectError(await change(userToken, { currentPassword: 'nope-nope', newPassword: 'third-password' }), 401, 16, 'INVALID_CREDENTIALS');
    expectError(await change(userToken, { newPassword: 'third-password' }), 401, 16, 'INVALID_CREDENTIALS');
  });

  it('applies the password policy', async () => {
    for (const newPassword of ['short', email, 'x'.repeat(73)]) {
      const res = await change(tenant.adminToken, { newPassword });
      const body = expectError(res, 400, 3, 'VALIDATION_FAILED');
      expect(body.details).toContainEqual(expect.objectContaining({ fieldViolations: [expect.objectContaining({ field: 'newPassword' })] }));
    }
  });

  it('lets an admin set a password without the current one', async () => {
    expect((await change(tenant.adminToken, { newPassword: 'admin-set-password' })).status).toBe(200);
    await t.login(email, 'admin-set-password', tenant.rootSectorID);
  });

  it("refuses other users' passwords to non-admins", async () => {
    const other = await t
      .http()
      .post(`/api/v1/sectors/${tenant.rootSectorID}/users`)
      .set('Authorization', `Bearer ${tenant.adminToken}`)
      .send({ email: 'other@example.test', password: 'other-password' });
    const token = await t.login(email, 'admin-set-password', tenant.rootSectorID);
    expectError(await change(token, { currentPassword: 'admin-set-password', newPassword: 'hijacked-pass' }, other.body.sub), 403, 7, 'ROLE_REQUIRED');
  });

  it('asks an admin changing their own password for the current one too (a stolen token alone cannot take the account)', async () => {
    const adminSub = JSON.parse(Buffer.from(tenant.adminToken.split('.')[1], 'base64url').toString()).sub as string;
    expectError(await change(tenant.adminToken, { newPassword: 'taken-over-pass' }, adminSub), 401, 16, 'INVALID_CREDENTIALS');
    await t.login(tenant.adminEmail, tenant.adminPassword, tenant.rootSectorID);
  });
});
