/**
 * Step-up, end to end: access tokens carry the time of the sign-in behind them
 * (`auth_time`, kept across refreshes), and `POST /users/{sub}/reauthenticate`
 * trades the current password for a token of the same session with a fresh one.
 * The changes that need a recent authentication have their own specs
 * (security-account, security-factors, security-social).
 */
import { randomBytes } from 'node:crypto';
import { claimsOf, expectWireError, JWT } from './support/contract';
import { agedSession, createUser, provisionTenant, ProvisionedTenant } from './support/factories';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(120_000);

const PASSWORD = 'correct horse battery staple';
const auth = (token: string) => ({ Authorization: `Bearer ${token}` });
const tag = randomBytes(3).toString('hex');

describe('step-up: auth_time and re-authentication', () => {
  let t: TestApp;
  let tenant: ProvisionedTenant;
  let sub: string;
  const email = `stepper-${tag}@example.test`;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await provisionTenant(t);
    sub = await createUser(t, tenant.adminToken, tenant.rootSectorID, { email, password: PASSWORD });
  });

  afterAll(async () => {
    await t?.close();
  });

  /** Signs in, then makes the session look ten minutes old and refreshes: a token whose auth_time is that old. */
  async function agedSignIn(): Promise<{ token: string; refreshToken: string; signedInAt: number }> {
    const res = await t.http().post('/api/v1/login/password').send({ username: email, password: PASSWORD, sectorID: tenant.rootSectorID });
    expect({ status: res.status, result: res.body.status }).toEqual({ status: 200, result: 'SUCCESS' });
    const fresh = claimsOf(res.body.token);
    expect(typeof fresh.auth_time).toBe('number');
    expect(Math.abs((fresh.auth_time as number) - (fresh.iat as number))).toBeLessThanOrEqual(1);
    const refreshed = await agedSession(t, tenant.tenantID, res.body);
    const claims = claimsOf(refreshed.token);
    expect(claims.sid).toBe(fresh.sid);
    return { ...refreshed, signedInAt: claims.auth_time as number };
  }

  it('a refresh keeps the time of the sign-in, not of the refresh', async () => {
    const { token, signedInAt } = await agedSignIn();
    const claims = claimsOf(token);
    expect((claims.iat as number) - signedInAt).toBeGreaterThanOrEqual(595);
  });

  it('re-authentication with the current password gives a token of the same session with a fresh auth_time', async () => {
    const { token } = await agedSignIn();
    const before = claimsOf(token);
    const res = await t.http().post(`/api/v1/users/${sub}/reauthenticate`).set(auth(token)).send({ currentPassword: PASSWORD });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['token']);
    expect(res.body.token).toMatch(JWT);
    const after = claimsOf(res.body.token);
    expect(after.sid).toBe(before.sid);
    expect(after.sub).toBe(sub);
    expect((after.auth_time as number) - (before.auth_time as number)).toBeGreaterThanOrEqual(595);
    expect(Math.abs((after.auth_time as number) - Date.now() / 1000)).toBeLessThan(30);
    // Both tokens stay tokens of the session: step-up does not end anything.
    expect((await t.http().get(`/api/v1/users/${sub}`).set(auth(token))).status).toBe(200);
    expect((await t.http().get(`/api/v1/users/${sub}`).set(auth(res.body.token))).status).toBe(200);
  });

  it('a wrong password is INVALID_CREDENTIALS; a missing one is refused by validation', async () => {
    const { token } = await agedSignIn();
    expectWireError(await t.http().post(`/api/v1/users/${sub}/reauthenticate`).set(auth(token)).send({ currentPassword: 'not the password' }), 401, 16, 'INVALID_CREDENTIALS');
    const missing = await t.http().post(`/api/v1/users/${sub}/reauthenticate`).set(auth(token)).send({});
    expect(missing.status).toBe(400);
  });

  it('nobody re-authenticates for someone else: not an admin, not an API token, not a transaction proof', async () => {
    const asAdmin = await t.http().post(`/api/v1/users/${sub}/reauthenticate`).set(auth(tenant.adminToken)).send({ currentPassword: PASSWORD });
    expectWireError(asAdmin, 403, 7, 'ROLE_REQUIRED');
    const apiToken = await t.http().post(`/api/v1/sectors/${tenant.rootSectorID}/tokens`).set(auth(tenant.adminToken)).send({ name: `step-up-${tag}` });
    expect(apiToken.status).toBe(200);
    const byToken = await t.http().post(`/api/v1/users/${sub}/reauthenticate`).set(auth(apiToken.body.token)).send({ currentPassword: PASSWORD });
    expect(byToken.status).toBe(403);
    const signIn = await t.http().post('/api/v1/login/password').send({ username: email, password: PASSWORD, sectorID: tenant.rootSectorID });
    const byProof = await t.http().post(`/api/v1/users/${sub}/reauthenticate`).query({ transactionID: signIn.body.transactionID }).send({ currentPassword: PASSWORD });
    expectWireError(byProof, 401, 16, 'CREDENTIAL_MISSING');
  });
});
