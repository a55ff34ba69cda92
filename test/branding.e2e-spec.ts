/**
 * A sector's look and language over HTTP, on a real PostgreSQL: the branding and language
 * settings (merge, contrast, per-language templates, refusals), the logo and favicon
 * (uploaded as base64, checked by their bytes, served publicly at an address that changes
 * with the image), and what the public sign-in options tell the pages.
 */
import { createUser, provisionTenant, ProvisionedTenant, tenantSql } from './support/factories';
import { expectWireError, fieldViolations, unbranded } from './support/contract';
import { ico, png } from './support/images';
import { startTestApp, TestApp } from './support/test-app';

describe('branding and languages of a sector', () => {
  let t: TestApp;
  let a: ProvisionedTenant;
  let b: ProvisionedTenant;
  let userToken: string;

  beforeAll(async () => {
    t = await startTestApp();
    [a, b] = await Promise.all([provisionTenant(t), provisionTenant(t)]);
    await createUser(t, a.adminToken, a.rootSectorID, { email: 'plain@a.test', password: 'plain-password-1' });
    userToken = await t.login('plain@a.test', 'plain-password-1', a.rootSectorID);
  });
  afterAll(() => t.close());

  const S = () => a.rootSectorID;
  const auth = (token: string) => ({ Authorization: `Bearer ${token}` });
  const put = (body: object, token = a.adminToken) => t.http().put(`/api/v1/sectors/${S()}/settings`).set(auth(token)).send(body);
  const upload = (asset: string, bytes: Buffer | string, token = a.adminToken, sectorID = S()) =>
    t
      .http()
      .put(`/api/v1/sectors/${sectorID}/branding/${asset}`)
      .set(auth(token))
      .send({ data: typeof bytes === 'string' ? bytes : bytes.toString('base64') });
  /** GET of an absolute URL the service handed out, through the test server (its body as bytes with `image`). */
  const fetchUrl = (url: string) => t.http().get(new URL(url).pathname);
  const fetchImage = (url: string) => fetchUrl(url).buffer(true).parse(binary as never);

  describe('settings', () => {
    it('stores the branding and the default language, colours lower-cased, and keeps what a request leaves out', async () => {
      const res = await put({
        BrandDisplayName: 'Acme Shop',
        BrandPrimaryColor: '#0B6E4F',
        BrandBackgroundColor: '#FFFFFF',
        TermsURL: 'https://acme.example/terms',
        PrivacyURL: 'https://acme.example/privacy',
        SupportEmail: 'help@acme.example',
        DefaultLanguage: 'de',
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        BrandDisplayName: 'Acme Shop',
        BrandPrimaryColor: '#0b6e4f',
        BrandBackgroundColor: '#ffffff',
        BrandPrimaryColorDark: '',
        BrandBackgroundColorDark: '',
        TermsURL: 'https://acme.example/terms',
        PrivacyURL: 'https://acme.example/privacy',
        SupportEmail: 'help@acme.example',
        DefaultLanguage: 'de',
        LocalizedTemplates: {},
      });
      const again = await put({ BrandPrimaryColorDark: '#A8E6CF' });
      expect(again.body).toMatchObject({ BrandDisplayName: 'Acme Shop', BrandPrimaryColor: '#0b6e4f', BrandPrimaryColorDark: '#a8e6cf', DefaultLanguage: 'de' });
      // Back to English for the cases below; an empty value returns to the theme's own colour.
      expect((await put({ DefaultLanguage: 'en', BrandPrimaryColorDark: '' })).body).toMatchObject({ DefaultLanguage: 'en', BrandPrimaryColorDark: '' });
    });

    it('ignores the images’ addresses when sent (they are output only), so a body read can be written back whole', async () => {
      const before = (await t.http().get(`/api/v1/sectors/${S()}/settings`).set(auth(a.adminToken))).body;
      const res = await put({ ...before, BrandLogoURL: 'https://evil.example/logo.png', BrandFaviconURL: 'https://evil.example/icon.ico' });
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: before });
    });

    it('merges LocalizedTemplates per language: a language replaces its own, {} removes it, others stay', async () => {
      const de = { PasswordResetEmailSubject: 'Ihr Passwort zurücksetzen', PasswordResetEmailBodyTemplate: 'Hallo {{email}}, {{link}}' };
      const fr = { OTPEmailSubject: 'Votre code' };
      expect((await put({ LocalizedTemplates: { de, fr } })).body.LocalizedTemplates).toEqual({ de, fr });
      const de2 = { OTPEmailSubject: 'Ihr Code' };
      expect((await put({ LocalizedTemplates: { de: de2 } })).body.LocalizedTemplates).toEqual({ de: de2, fr });
      expect((await put({ LocalizedTemplates: { fr: {} } })).body.LocalizedTemplates).toEqual({ de: de2 });
      expect((await put({ MFARequired: false })).body.LocalizedTemplates).toEqual({ de: de2 });
      const read = await t.http().get(`/api/v1/sectors/${S()}/settings`).set(auth(a.adminToken));
      expect(read.body.LocalizedTemplates).toEqual({ de: de2 });
    });

    it.each([
      ['a colour that is not #rrggbb', { BrandPrimaryColor: 'green' }, 'BrandPrimaryColor', 'must be a colour as #rrggbb, or empty'],
      ['a language not shipped', { DefaultLanguage: 'ja' }, 'DefaultLanguage', 'must be one of en, de, fr'],
      ['a support address that is not one', { SupportEmail: 'help' }, 'SupportEmail', 'must be an email address, or empty'],
      ['a terms link that is not http(s)', { TermsURL: 'javascript:alert(1)' }, 'TermsURL', 'must be an http or https URL, or empty'],
      ['templates for a language not shipped', { LocalizedTemplates: { ja: { OTPEmailSubject: 'x' } } }, 'LocalizedTemplates', 'has the language "ja"; the languages are en, de, fr'],
      ['a template that is not a template setting', { LocalizedTemplates: { de: { Footer: 'x' } } }, 'LocalizedTemplates', expect.stringMatching(/^de has "Footer", which is not a template setting/)],
      ['a broken template', { LocalizedTemplates: { de: { OTPEmailSubject: 'Ihr {{#if}} Code' } } }, 'LocalizedTemplates', expect.stringMatching(/^de\.OTPEmailSubject must be a valid Handlebars template/)],
    ])('refuses %s with a field violation, changing nothing', async (_label, body, field, description) => {
      const before = (await t.http().get(`/api/v1/sectors/${S()}/settings`).set(auth(a.adminToken))).body;
      const res = await put(body);
      expectWireError(res, 400, 3, 'VALIDATION_FAILED', { fields: [field] });
      expect(fieldViolations(res.body)).toEqual([{ field, description }]);
      expect((await t.http().get(`/api/v1/sectors/${S()}/settings`).set(auth(a.adminToken))).body).toEqual(before);
    });

    it('refuses colours that would miss WCAG AA contrast, naming the colour set and the ratio', async () => {
      const yellow = await put({ BrandPrimaryColor: '#ffd60a' });
      expectWireError(yellow, 400, 3, 'VALIDATION_FAILED', { fields: ['BrandPrimaryColor'] });
      expect(fieldViolations(yellow.body)).toEqual([
        { field: 'BrandPrimaryColor', description: 'contrast with the background is 1.4:1; at least 4.5:1 is needed (WCAG AA)' },
      ]);
      // (against the stored #ffffff background.) The stored primary (#0b6e4f) on a dark background: the background is what this request set.
      const dark = await put({ BrandBackgroundColor: '#202020' });
      expect(fieldViolations(dark.body)).toEqual([{ field: 'BrandBackgroundColor', description: expect.stringMatching(/^contrast with the text colour #1b1f24 is 1\.\d:1; at least 4\.5:1/) }]);
      // Dark mode is checked on its own colours: a dark primary on the dark theme fails.
      const darkMode = await put({ BrandPrimaryColorDark: '#1f3a5f' });
      expect(fieldViolations(darkMode.body)).toEqual([{ field: 'BrandPrimaryColorDark', description: expect.stringMatching(/^contrast with the background is 1\.\d:1/) }]);
      const settings = (await t.http().get(`/api/v1/sectors/${S()}/settings`).set(auth(a.adminToken))).body;
      expect(settings).toMatchObject({ BrandPrimaryColor: '#0b6e4f', BrandBackgroundColor: '#ffffff', BrandPrimaryColorDark: '' });
      // A dark palette that passes.
      expect((await put({ BrandPrimaryColorDark: '#a8e6cf', BrandBackgroundColorDark: '#0d1b16' })).status).toBe(200);
    });

    it('lets only the sector’s admins change them', async () => {
      expectWireError(await put({ BrandDisplayName: 'Mine' }, userToken), 403, 7, 'ROLE_REQUIRED');
      expectWireError(await put({ BrandDisplayName: 'Mine' }, b.adminToken), 404, 5, 'SECTOR_NOT_FOUND');
    });
  });

  describe('logo and favicon', () => {
    const logo = png(120, 40);

    it('stores a PNG logo, serves it at an address that changes with it, for good, to anyone', async () => {
      const res = await upload('logo', logo);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        sectorID: S(),
        asset: 'logo',
        contentType: 'image/png',
        bytes: String(logo.length),
        width: 120,
        height: 40,
        url: expect.stringMatching(new RegExp(`^http://iam\\.test/api/v1/branding/${S()}/logo/[\\w-]{16}$`)),
      });
      const settings = await t.http().get(`/api/v1/sectors/${S()}/settings`).set(auth(a.adminToken));
      expect(settings.body.BrandLogoURL).toBe(res.body.url);

      const served = await fetchImage(res.body.url);
      expect(served.status).toBe(200);
      expect(Buffer.compare(served.body as Buffer, logo)).toBe(0);
      expect(served.headers).toMatchObject({
        'content-type': 'image/png',
        'cache-control': 'public, max-age=31536000, immutable',
        'content-security-policy': "default-src 'none'",
        'x-content-type-options': 'nosniff',
      });

      // A new image gets a new address; the old one is gone.
      const next = await upload('logo', png(120, 40, '#1f5fbf'));
      expect(next.body.url).not.toBe(res.body.url);
      expectWireError(await fetchUrl(res.body.url), 404, 5, 'BRAND_ASSET_NOT_FOUND');
      expect((await fetchImage(next.body.url)).status).toBe(200);
    });

    it('records each change in the audit trail, in the same transaction', async () => {
      const rows = await tenantSql(t, a.tenantID, `SELECT details FROM audit_events WHERE sector_id = $1 AND type = 'settings.updated' AND details->'fields' ? 'BrandLogoURL'`, [S()]);
      expect(rows.length).toBeGreaterThanOrEqual(2);
    });

    it('takes an ICO favicon', async () => {
      const res = await upload('favicon', ico(32));
      expect(res.body).toMatchObject({ asset: 'favicon', contentType: 'image/x-icon', width: 32, height: 32 });
      expect((await fetchImage(res.body.url)).headers['content-type']).toBe('image/x-icon');
    });

    it.each([
      ['an SVG (it may carry script)', 'logo', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><script>alert(1)</script></svg>'), 'must be a PNG, JPEG, WebP or GIF image; this is an SVG image (it may carry script)'],
      ['text named like an image', 'logo', Buffer.from('not an image at all, whatever its name says'), 'must be a PNG, JPEG, WebP or GIF image; these bytes are not an image of those types'],
      ['a logo over 256 KiB', 'logo', Buffer.concat([png(10, 10), Buffer.alloc(257 * 1024)]), 'must be at most 256 KiB; it is 258 KiB'],
      ['a logo of too many pixels', 'logo', png(2049, 1), 'must be at most 2048×2048 pixels; it is 2049×1'],
      ['a favicon over 64 KiB', 'favicon', Buffer.concat([png(16, 16), Buffer.alloc(65 * 1024)]), expect.stringMatching(/^must be at most 64 KiB; it is 6\d KiB$/)],
      ['data that is not base64', 'logo', 'this is not base64!', 'must be the image in base64'],
    ])('refuses %s with a violation on data', async (_label, asset, bytes, description) => {
      const res = await upload(asset, bytes);
      expectWireError(res, 400, 3, 'VALIDATION_FAILED', { fields: ['data'] });
      expect(fieldViolations(res.body)).toEqual([{ field: 'data', description }]);
    });

    it('lets only the sector’s admins upload', async () => {
      expectWireError(await upload('logo', logo, userToken), 403, 7, 'ROLE_REQUIRED');
      expectWireError(await upload('logo', logo, b.adminToken), 404, 5, 'SECTOR_NOT_FOUND');
      expectWireError(await upload('banner', logo), 404, 5, 'ROUTE_NOT_FOUND');
    });

    it('answers an unknown sector, image or version alike, with no credentials needed', async () => {
      const url = (await t.http().get(`/api/v1/sectors/${S()}/settings`).set(auth(a.adminToken))).body.BrandLogoURL as string;
      const version = url.split('/').pop();
      expectWireError(await t.http().get(`/api/v1/branding/${b.rootSectorID}/logo/${version}`), 404, 5, 'BRAND_ASSET_NOT_FOUND');
      expectWireError(await t.http().get(`/api/v1/branding/00000000-0000-4000-8000-000000000000/logo/${version}`), 404, 5, 'BRAND_ASSET_NOT_FOUND');
      expectWireError(await t.http().get(`/api/v1/branding/not-a-uuid/logo/${version}`), 404, 5, 'BRAND_ASSET_NOT_FOUND');
      expectWireError(await t.http().get(`/api/v1/branding/${S()}/favicon/${version}`), 404, 5, 'BRAND_ASSET_NOT_FOUND');
    });

    it('removes an image: its address is gone and the settings show none; removing it again is 404', async () => {
      const url = (await t.http().get(`/api/v1/sectors/${S()}/settings`).set(auth(a.adminToken))).body.BrandFaviconURL as string;
      const res = await t.http().delete(`/api/v1/sectors/${S()}/branding/favicon`).set(auth(a.adminToken));
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: {} });
      expect((await t.http().get(`/api/v1/sectors/${S()}/settings`).set(auth(a.adminToken))).body.BrandFaviconURL).toBe('');
      expectWireError(await fetchUrl(url), 404, 5, 'BRAND_ASSET_NOT_FOUND');
      expectWireError(await t.http().delete(`/api/v1/sectors/${S()}/branding/favicon`).set(auth(a.adminToken)), 404, 5, 'BRAND_ASSET_NOT_FOUND');
    });
  });

  it('the public sign-in options tell the pages the branding and the languages', async () => {
    const settings = (await t.http().get(`/api/v1/sectors/${S()}/settings`).set(auth(a.adminToken))).body;
    const res = await t.http().get('/api/v1/sign-in-options').query({ tenant: a.slug });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      branding: {
        displayName: 'Acme Shop',
        logoURL: settings.BrandLogoURL,
        faviconURL: '',
        primaryColor: '#0b6e4f',
        primaryTextColor: '#ffffff',
        backgroundColor: '#ffffff',
        primaryColorDark: '#a8e6cf',
        primaryTextColorDark: '#111111',
        backgroundColorDark: '#0d1b16',
        termsURL: 'https://acme.example/terms',
        privacyURL: 'https://acme.example/privacy',
        supportEmail: 'help@acme.example',
      },
      defaultLanguage: 'en',
      languages: ['en', 'de', 'fr'],
    });
    // A sector with no branding: its own name, the theme's look.
    const other = await t.http().get('/api/v1/sign-in-options').query({ tenant: b.slug });
    expect(other.body.branding).toEqual(unbranded(other.body.sectorName));
  });
});

/** Collects a response body as bytes (supertest's parser for anything not text or JSON). */
function binary(res: NodeJS.ReadableStream, done: (err: Error | null, body: Buffer) => void): void {
  const parts: Buffer[] = [];
  res.on('data', (c: Buffer) => parts.push(c));
  res.on('end', () => done(null, Buffer.concat(parts)));
}
