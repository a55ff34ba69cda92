/**
 * GET /api/v1/sign-in-options: what a sector's sign-in page offers, public — the
 * platform's default sector without a sectorID, a tenant's sector by id, with the
 * providers that are enabled (not the merely configured ones), and the contract's
 * errors for unknown or malformed sectors.
 */
import { expectError, provisionTenant, ProvisionedTenant } from './support/factories';
import { startTestApp, TestApp } from './support/test-app';

describe('sign-in options', () => {
  let t: TestApp;
  let tenant: ProvisionedTenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await provisionTenant(t);
  });
  afterAll(async () => t?.close());

  it("answers the platform's default sector without a sectorID, without credentials", async () => {
    const res = await t.http().get('/api/v1/sign-in-options').expect(200);
    expect(res.body).toEqual({
      sectorID: expect.any(String),
      sectorName: expect.any(String),
      selfSignUpAllowed: false,
      mfaRequired: false,
      magicLinkLoginEnabled: false,
      providers: [],
    });
  });

  it("follows the sector's settings and lists only enabled providers", async () => {
    const admin = `Bearer ${tenant.adminToken}`;
    await t
      .http()
      .put(`/api/v1/sectors/${tenant.rootSectorID}/settings`)
      .set('Authorization', admin)
      .send({ SelfSignUpAllowed: true, MagicLinkLoginEnabled: true, MFARequired: true })
      .expect(200);
    const provider = (enabled: boolean) => ({ enabled, clientID: 'client-id', clientSecret: 'client-secret', redirectURI: 'https://app.example.com/oauth/callback' });
    await t
      .http()
      .put(`/api/v1/sectors/${tenant.rootSectorID}/oauth/providers`)
      .set('Authorization', admin)
      .send({ providers: { github: provider(true), google: provider(false) } })
      .expect(200);
    const res = await t.http().get('/api/v1/sign-in-options').query({ sectorID: tenant.rootSectorID }).expect(200);
    expect(res.body).toEqual({
      sectorID: tenant.rootSectorID,
      sectorName: expect.any(String),
      selfSignUpAllowed: true,
      mfaRequired: true,
      magicLinkLoginEnabled: true,
      providers: ['github'],
    });
    expect(res.body.sectorName.length).toBeGreaterThan(0);
    expect(JSON.stringify(res.body)).not.toContain('client-secret');
  });

  it('answers NOT_FOUND for an unknown sector and INVALID_ARGUMENT for a malformed query', async () => {
    expectError(await t.http().get('/api/v1/sign-in-options').query({ sectorID: '00000000-0000-4000-8000-000000000000' }), 404, 5, 'SECTOR_NOT_FOUND');
    expectError(await t.http().get('/api/v1/sign-in-options').query({ sectorID: 'x'.repeat(65) }), 400, 3, 'VALIDATION_FAILED');
  });
});
