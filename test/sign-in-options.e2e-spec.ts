/**
 * GET /api/v1/sign-in-options: what a sector's sign-in page offers, public — the
 * platform's default sector without a sectorID, a tenant's sector by id or by the
 * slugs of its pages' address (`/t/{tenant}/{sector}/`), with the providers that
 * are enabled (not the merely configured ones), and the contract's errors for
 * unknown or malformed sectors. The service serves the pages at those addresses.
 */
import { createSector, expectError, provisionTenant, ProvisionedTenant, uniqueSlug } from './support/factories';
import { unbranded } from './support/contract';
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
      sectorSlug: expect.any(String),
      isDefaultSector: true,
      tenantSlug: expect.any(String),
      selfSignUpAllowed: false,
      mfaRequired: false,
      magicLinkLoginEnabled: false,
      providers: [],
      branding: unbranded(res.body.sectorName),
      defaultLanguage: 'en',
      languages: ['en', 'de', 'fr'],
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
      sectorSlug: expect.any(String),
      isDefaultSector: true,
      tenantSlug: tenant.slug,
      selfSignUpAllowed: true,
      mfaRequired: true,
      magicLinkLoginEnabled: true,
      providers: ['github'],
      branding: unbranded(res.body.sectorName),
      defaultLanguage: 'en',
      languages: ['en', 'de', 'fr'],
    });
    expect(res.body.sectorName.length).toBeGreaterThan(0);
    expect(JSON.stringify(res.body)).not.toContain('client-secret');
  });

  it('answers NOT_FOUND for an unknown sector and INVALID_ARGUMENT for a malformed query', async () => {
    expectError(await t.http().get('/api/v1/sign-in-options').query({ sectorID: '00000000-0000-4000-8000-000000000000' }), 404, 5, 'SECTOR_NOT_FOUND');
    expectError(await t.http().get('/api/v1/sign-in-options').query({ sectorID: 'x'.repeat(65) }), 400, 3, 'VALIDATION_FAILED');
  });

  it("names a sector by its tenant's slug (the default sector) or by both slugs, as its pages' address does", async () => {
    const sectorSlug = uniqueSlug('s');
    const sectorID = await createSector(t, tenant.adminToken, sectorSlug);
    const byTenant = await t.http().get('/api/v1/sign-in-options').query({ tenant: tenant.slug }).expect(200);
    expect(byTenant.body).toMatchObject({ sectorID: tenant.rootSectorID, tenantSlug: tenant.slug, isDefaultSector: true });
    const bySlugs = await t.http().get('/api/v1/sign-in-options').query({ tenant: tenant.slug, sector: sectorSlug }).expect(200);
    expect(bySlugs.body).toMatchObject({ sectorID, sectorSlug, tenantSlug: tenant.slug, isDefaultSector: false });
    const byID = await t.http().get('/api/v1/sign-in-options').query({ sectorID }).expect(200);
    expect(byID.body).toEqual(bySlugs.body);
  });

  it('refuses unknown slugs and mixed or incomplete names with the contract errors', async () => {
    expectError(await t.http().get('/api/v1/sign-in-options').query({ tenant: 'no-such-tenant-here' }), 404, 5, 'TENANT_NOT_FOUND');
    expectError(await t.http().get('/api/v1/sign-in-options').query({ tenant: tenant.slug, sector: 'no-such-sector' }), 404, 5, 'SECTOR_NOT_FOUND');
    expectError(await t.http().get('/api/v1/sign-in-options').query({ sector: 'staff' }), 400, 3);
    expectError(await t.http().get('/api/v1/sign-in-options').query({ tenant: tenant.slug, sectorID: tenant.rootSectorID }), 400, 3);
    expectError(await t.http().get('/api/v1/sign-in-options').query({ tenant: 'Not A Slug' }), 400, 3, 'VALIDATION_FAILED');
  });

  it("serves the browser app's pages under a sector's address", async () => {
    for (const path of [`/t/${tenant.slug}/console`, `/t/${tenant.slug}/staff/account/sign-in`, `/t/${tenant.slug}/staff/reset-password?token=x&type=password-reset`]) {
      const res = await t.http().get(path);
      // The built app answers its page; an unbuilt checkout says so (404 ROUTE_NOT_FOUND naming the build).
      if (res.status === 200) expect(res.headers['content-type']).toContain('text/html');
      else expect(res.body.message ?? '').toContain('npm run build');
    }
  });
});
