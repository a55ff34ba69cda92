import { provisionTenant } from './support/factories';
import { startTestApp, TestApp } from './support/test-app';

describe('smoke', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('boots, logs in the platform admin and provisions a tenant', async () => {
    const tenant = await provisionTenant(t);
    expect(tenant.adminToken).toMatch(/^ey/);
    const res = await t.http().post('/api/v1/introspect').set('Authorization', `Bearer ${tenant.adminToken}`).send({ token: tenant.adminToken });
    expect(res.status).toBe(200);
    expect(res.body.tenantID).toBe(tenant.tenantID);
  });
});
