import { randomUUID } from 'node:crypto';
import { claimsOf, expectWireError } from './support/contract';
import { createSector, provisionTenant, ProvisionedTenant, seedUser, tenantSql } from './support/factories';
import { startTestApp, TestApp } from './support/test-app';
import { untilNotified } from './support/wait';

/** Every SectorSettings field with its default (docs/api.md, Limits and defaults); a response carries every field. */
function defaults(sectorID: string) {
  return {
    sectorID,
    MFARequired: false,
    SelfSignUpAllowed: false,
    AllowUserCreationForNonAdmins: false,
    AllowUserReadForNonAdmins: false,
    OTPEmailSubject: '',
    OTPEmailBodyTemplate: '',
    OTPEmailBodyHTMLTemplate: '',
    OTPSMSTemplate: '',
    InviteEmailSubject: '',
    InviteEmailBodyTemplate: '',
    InviteEmailBodyHTMLTemplate: '',
    InviteExpirationHours: '168',
    AccessTokenDuration: '3600',
    PasswordResetEmailSubject: '',
    PasswordResetEmailBodyTemplate: '',
    PasswordResetEmailBodyHTMLTemplate: '',
    PasswordResetTimeoutMinutes: '15',
    WebAuthnRPID: '',
    WebAuthnRPDisplayName: '',
    WebAuthnRPOrigins: [],
    MagicLinkURL: '',
    WebAuthnDebug: false,
    MagicLinkLoginEnabled: false,
    SessionLifetimeSeconds: '2592000',
    SessionIdleTimeoutSeconds: '604800',
    AuditRetentionDays: '365',
    SCIMSendInvitations: false,
    BrandDisplayName: '',
    BrandPrimaryColor: '',
    BrandBackgroundColor: '',
    BrandPrimaryColorDark: '',
    BrandBackgroundColorDark: '',
    TermsURL: '',
    PrivacyURL: '',
    SupportEmail: '',
    DefaultLanguage: 'en',
    LocalizedTemplates: {},
    BrandLogoURL: '',
    BrandFaviconURL: '',
  };
}

const jwtPayload = (token: string) => claimsOf(token) as { iat: number; exp: number; sectorID: string };

describe('sector settings (operations 1 and 2)', () => {
  let t: TestApp;
  let a: ProvisionedTenant;
  let b: ProvisionedTenant;

  beforeAll(async () => {
    t = await startTestApp();
    [a, b] = await Promise.all([provisionTenant(t), provisionTenant(t)]);
  });
  afterAll(() => t.close());

  const get = (sectorID: string, token: string) => t.http().get(`/api/v1/sectors/${sectorID}/settings`).set('Authorization', `Bearer ${token}`);
  const put = (sectorID: string, token: string, body: unknown) =>
    t.http().put(`/api/v1/sectors/${sectorID}/settings`).set('Authorization', `Bearer ${token}`).send(body as object);

  describe('reading and writing', () => {
    let sectorID: string;
    beforeAll(async () => {
      sectorID = await createSector(t, a.adminToken);
    });

    it('a new sector has every field, with the defaults', async () => {
      const res = await get(sectorID, a.adminToken);
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: defaults(sectorID) });
    });

    it('the default sector has the defaults too', async () => {
      const res = await get(a.rootSectorID, a.adminToken);
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: defaults(a.rootSectorID) });
    });

    it('the published query parameters are accepted and do not filter', async () => {
      const res = await t
        .http()
        .get(`/api/v1/sectors/${sectorID}/settings`)
        .query({ name: 'x', domain: 'y.example.com', isDefault: 'true', slug: 'z' })
        .set('Authorization', `Bearer ${a.adminToken}`);
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: defaults(sectorID) });
    });

    it('PUT merges: absent fields keep their stored values', async () => {
      const first = await put(sectorID, a.adminToken, { MFARequired: true, OTPEmailSubject: 'Your code' });
      expect({ status: first.status, body: first.body }).toEqual({
        status: 200,
        body: { ...defaults(sectorID), MFARequired: true, OTPEmailSubject: 'Your code' },
      });
      const second = await put(sectorID, a.adminToken, { SelfSignUpAllowed: true });
      const expected = { ...defaults(sectorID), MFARequired: true, OTPEmailSubject: 'Your code', SelfSignUpAllowed: true };
      expect({ status: second.status, body: second.body }).toEqual({ status: 200, body: expected });
      const read = await get(sectorID, a.adminToken);
      expect({ status: read.status, body: read.body }).toEqual({ status: 200, body: expected });
      // A field can be set back to its zero value.
      const off = await put(sectorID, a.adminToken, { MFARequired: false, OTPEmailSubject: '' });
      expect(off.body).toEqual({ ...defaults(sectorID), SelfSignUpAllowed: true });
      // An empty body changes nothing.
      const empty = await put(sectorID, a.adminToken, {});
      expect({ status: empty.status, body: empty.body }).toEqual({ status: 200, body: { ...defaults(sectorID), SelfSignUpAllowed: true } });
    });

    it('int64 fields accept a string or a number and are emitted as strings', async () => {
      const res = await put(sectorID, a.adminToken, { InviteExpirationHours: 48, PasswordResetTimeoutMinutes: '30', AccessTokenDuration: 7200 });
      expect(res.status).toBe(200);
      expect({ i: res.body.InviteExpirationHours, p: res.body.PasswordResetTimeoutMinutes, a: res.body.AccessTokenDuration }).toEqual({
        i: '48',
        p: '30',
        a: '7200',
      });
      const read = await get(sectorID, a.adminToken);
      expect({ i: read.body.InviteExpirationHours, p: read.body.PasswordResetTimeoutMinutes, a: read.body.AccessTokenDuration }).toEqual({
        i: '48',
        p: '30',
        a: '7200',
      });
    });

    it('AccessTokenDuration "0" (or 0) means the default 3600; the bounds 1 and 31536000 are accepted', async () => {
      for (const [value, stored] of [
        ['0', '3600'],
        [1, '1'],
        [0, '3600'],
        ['31536000', '31536000'],
        [31536000, '31536000'],
      ] as const) {
        const res = await put(sectorID, a.adminToken, { AccessTokenDuration: value });
        expect({ value, status: res.status, stored: res.body.AccessTokenDuration }).toEqual({ value, status: 200, stored });
      }
    });

    it('an out-of-range or non-integer AccessTokenDuration is 400 VALIDATION_FAILED naming it, and nothing changes', async () => {
      await put(sectorID, a.adminToken, { AccessTokenDuration: '900' });
      for (const value of [31536001, '31536001', -1, '-1', 'abc', 1.5, '', true, [60], { s: 60 }]) {
        const res = await put(sectorID, a.adminToken, { AccessTokenDuration: value, WebAuthnDebug: true });
        expectWireError(res, 400, 3, 'VALIDATION_FAILED', { fields: ['AccessTokenDuration'] });
      }
      const read = await get(sectorID, a.adminToken);
      expect({ a: read.body.AccessTokenDuration, d: read.body.WebAuthnDebug }).toEqual({ a: '900', d: false });
    });

    it('null is "unset", like an absent field: the stored values stay', async () => {
      const before = (await get(sectorID, a.adminToken)).body;
      const res = await put(sectorID, a.adminToken, {
        AccessTokenDuration: null,
        MFARequired: null,
        OTPEmailSubject: null,
        WebAuthnRPOrigins: null,
        MagicLinkURL: null,
        WebAuthnRPDisplayName: 'after null',
      });
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { ...before, WebAuthnRPDisplayName: 'after null' } });
    });

    it('other int64 settings are range-checked too', async () => {
      expectWireError(await put(sectorID, a.adminToken, { InviteExpirationHours: -5 }), 400, 3, 'VALIDATION_FAILED', { fields: ['InviteExpirationHours'] });
      expectWireError(await put(sectorID, a.adminToken, { PasswordResetTimeoutMinutes: 'soon' }), 400, 3, 'VALIDATION_FAILED', {
        fields: ['PasswordResetTimeoutMinutes'],
      });
    });

    it('WebAuthnRPOrigins must be origins (no path); valid ones round-trip', async () => {
      expectWireError(await put(sectorID, a.adminToken, { WebAuthnRPOrigins: ['https://x.com/path'] }), 400, 3, 'VALIDATION_FAILED', {
        fields: ['WebAuthnRPOrigins'],
      });
      expectWireError(await put(sectorID, a.adminToken, { WebAuthnRPOrigins: ['https://ok.example.com', 'not a url'] }), 400, 3, 'VALIDATION_FAILED', {
        fields: ['WebAuthnRPOrigins'],
      });
      expectWireError(await put(sectorID, a.adminToken, { WebAuthnRPOrigins: 'https://x.com' }), 400, 3, 'VALIDATION_FAILED', { fields: ['WebAuthnRPOrigins'] });
      // Valid origins must also suit the relying party ID (their hosts are it or its subdomains).
      const ok = await put(sectorID, a.adminToken, { WebAuthnRPID: 'example.com', WebAuthnRPOrigins: ['https://app.example.com', 'https://www.example.com:8443'] });
      expect({ status: ok.status, origins: ok.body.WebAuthnRPOrigins }).toEqual({
        status: 200,
        origins: ['https://app.example.com', 'https://www.example.com:8443'],
      });
      const cleared = await put(sectorID, a.adminToken, { WebAuthnRPID: '', WebAuthnRPOrigins: [] });
      expect(cleared.body.WebAuthnRPOrigins).toEqual([]);
    });

    it('an invalid Handlebars template is 400 naming the field; a template with or without placeholders is fine', async () => {
      expectWireError(await put(sectorID, a.adminToken, { OTPEmailBodyTemplate: '{{#if}}' }), 400, 3, 'VALIDATION_FAILED', { fields: ['OTPEmailBodyTemplate'] });
      expectWireError(
        await put(sectorID, a.adminToken, { InviteEmailBodyHTMLTemplate: '<p>{{#each}}</p>', OTPSMSTemplate: 'code {{code' }),
        400,
        3,
        'VALIDATION_FAILED',
        { fields: ['InviteEmailBodyHTMLTemplate', 'OTPSMSTemplate'] },
      );
      const plain = await put(sectorID, a.adminToken, { OTPEmailBodyTemplate: 'Hello, there is no placeholder here.' });
      expect({ status: plain.status, v: plain.body.OTPEmailBodyTemplate }).toEqual({ status: 200, v: 'Hello, there is no placeholder here.' });
      const html = '<p>Hi {{username}}, your code is <b>{{code}}</b>; it expires in {{expiresInMinutes}} minutes.</p>';
      const withVars = await put(sectorID, a.adminToken, { OTPEmailBodyHTMLTemplate: html, PasswordResetEmailSubject: 'Reset for {{sectorName}}' });
      expect({ status: withVars.status, h: withVars.body.OTPEmailBodyHTMLTemplate, s: withVars.body.PasswordResetEmailSubject }).toEqual({
        status: 200,
        h: html,
        s: 'Reset for {{sectorName}}',
      });
    });

    it('MagicLinkURL must be an http(s) URL or empty', async () => {
      for (const bad of ['ftp://files.example.com', 'javascript:alert(1)', 'not a url', '/relative/path']) {
        expectWireError(await put(sectorID, a.adminToken, { MagicLinkURL: bad }), 400, 3, 'VALIDATION_FAILED', { fields: ['MagicLinkURL'] });
      }
      // On one of the sector's allowed origins (test/security-outbound.e2e-spec.ts has the origin rules).
      const own = await createSector(t, a.adminToken, undefined, { allowedOrigins: ['https://app.example.com', 'http://localhost:8080'] });
      for (const good of ['https://app.example.com/magic', 'http://localhost:8080', '']) {
        const res = await put(own, a.adminToken, { MagicLinkURL: good });
        expect({ status: res.status, v: res.body.MagicLinkURL }).toEqual({ status: 200, v: good });
      }
    });

    it('unknown fields are ignored, sectorID in the body included', async () => {
      const before = (await get(sectorID, a.adminToken)).body;
      const res = await put(sectorID, a.adminToken, { Bogus: 1, sectorID: randomUUID(), mfaRequired: true, WebAuthnRPDisplayName: 'Acme' });
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { ...before, WebAuthnRPDisplayName: 'Acme' } });
    });

    it('several bad fields are all named in one answer', async () => {
      const res = await put(sectorID, a.adminToken, { MFARequired: 'yes', AccessTokenDuration: -1, MagicLinkURL: 'ftp://x', WebAuthnRPID: 'Not A Host' });
      expectWireError(res, 400, 3, 'VALIDATION_FAILED', { fields: ['MFARequired', 'AccessTokenDuration', 'MagicLinkURL', 'WebAuthnRPID'] });
    });
  });

  describe('a changed setting changes behaviour', () => {
    it('AccessTokenDuration=120 makes tokens of that sector live 120 seconds; other sectors keep 3600', async () => {
      const sectorID = await createSector(t, a.adminToken);
      await seedUser(t, a.tenantID, sectorID, { email: 'short@settings.test', password: 'short-lived-pw' });
      const res = await put(sectorID, a.adminToken, { AccessTokenDuration: 120 });
      expect({ status: res.status, v: res.body.AccessTokenDuration }).toEqual({ status: 200, v: '120' });

      const short = jwtPayload(await t.login('short@settings.test', 'short-lived-pw', sectorID));
      expect({ ttl: short.exp - short.iat, sectorID: short.sectorID }).toEqual({ ttl: 120, sectorID });

      const root = jwtPayload(await t.login(a.adminEmail, a.adminPassword, a.rootSectorID));
      expect(root.exp - root.iat).toBe(3600);

      // "0" restores the default.
      await put(sectorID, a.adminToken, { AccessTokenDuration: '0' });
      const back = jwtPayload(await t.login('short@settings.test', 'short-lived-pw', sectorID));
      expect(back.exp - back.iat).toBe(3600);
    });
  });

  describe('access', () => {
    let s1: string;
    let s2: string;
    let s1Admin: string;
    let s1User: string;
    let s2Admin: string;
    let rootUser: string;

    beforeAll(async () => {
      [s1, s2] = await Promise.all([createSector(t, a.adminToken), createSector(t, a.adminToken)]);
      await Promise.all([
        seedUser(t, a.tenantID, s1, { email: 'admin@s1.test', password: 'admin-s1-pw', isAdmin: true }),
        seedUser(t, a.tenantID, s1, { email: 'user@s1.test', password: 'user-s1-pw' }),
        seedUser(t, a.tenantID, s2, { email: 'admin@s2.test', password: 'admin-s2-pw', isAdmin: true }),
        seedUser(t, a.tenantID, a.rootSectorID, { email: 'user@root.test', password: 'user-root-pw' }),
      ]);
      [s1Admin, s1User, s2Admin, rootUser] = await Promise.all([
        t.login('admin@s1.test', 'admin-s1-pw', s1),
        t.login('user@s1.test', 'user-s1-pw', s1),
        t.login('admin@s2.test', 'admin-s2-pw', s2),
        t.login('user@root.test', 'user-root-pw', a.rootSectorID),
      ]);
    });

    it("the sector's admin may read and write", async () => {
      const w = await put(s1, s1Admin, { WebAuthnRPDisplayName: 'S1 by its admin' });
      expect({ status: w.status, body: w.body }).toEqual({ status: 200, body: { ...defaults(s1), WebAuthnRPDisplayName: 'S1 by its admin' } });
      const r = await get(s1, s1Admin);
      expect({ status: r.status, body: r.body }).toEqual({ status: 200, body: { ...defaults(s1), WebAuthnRPDisplayName: 'S1 by its admin' } });
    });

    it('the default-sector admin may read and write any sector of the tenant', async () => {
      const w = await put(s1, a.adminToken, { WebAuthnDebug: true });
      expect({ status: w.status, body: w.body }).toEqual({
        status: 200,
        body: { ...defaults(s1), WebAuthnRPDisplayName: 'S1 by its admin', WebAuthnDebug: true },
      });
      const r = await get(s1, a.adminToken);
      expect(r.status).toBe(200);
      expect(r.body.WebAuthnDebug).toBe(true);
    });

    it('a non-admin user of the sector gets 403 ROLE_REQUIRED and changes nothing', async () => {
      expectWireError(await get(s1, s1User), 403, 7, 'ROLE_REQUIRED');
      expectWireError(await put(s1, s1User, { MFARequired: true }), 403, 7, 'ROLE_REQUIRED');
      expect((await get(s1, a.adminToken)).body.MFARequired).toBe(false);
    });

    it('a non-admin of the default sector gets 403', async () => {
      expectWireError(await get(s1, rootUser), 403, 7, 'ROLE_REQUIRED');
      expectWireError(await get(a.rootSectorID, rootUser), 403, 7, 'ROLE_REQUIRED');
    });

    it('an admin of another sector of the same tenant gets 403', async () => {
      expectWireError(await get(s1, s2Admin), 403, 7, 'ROLE_REQUIRED');
      expectWireError(await put(s1, s2Admin, { MFARequired: true }), 403, 7, 'ROLE_REQUIRED');
      // A sub-sector admin is not an admin of the default sector.
      expectWireError(await get(a.rootSectorID, s1Admin), 403, 7, 'ROLE_REQUIRED');
      expectWireError(await put(a.rootSectorID, s1Admin, { MFARequired: true }), 403, 7, 'ROLE_REQUIRED');
      expect((await get(s1, a.adminToken)).body.MFARequired).toBe(false);
      expect((await get(a.rootSectorID, a.adminToken)).body.MFARequired).toBe(false);
    });

    it("the admin of another tenant gets 404 SECTOR_NOT_FOUND, like for a missing sector", async () => {
      expectWireError(await get(s1, b.adminToken), 404, 5, 'SECTOR_NOT_FOUND');
      expectWireError(await put(s1, b.adminToken, { MFARequired: true }), 404, 5, 'SECTOR_NOT_FOUND');
      expectWireError(await get(a.rootSectorID, b.adminToken), 404, 5, 'SECTOR_NOT_FOUND');
      expect((await get(s1, a.adminToken)).body.MFARequired).toBe(false);
      // And the other way round.
      expectWireError(await get(b.rootSectorID, a.adminToken), 404, 5, 'SECTOR_NOT_FOUND');
    });

    it("the platform admin gets 404 on a tenant's sector", async () => {
      const platform = await t.platformToken();
      expectWireError(await get(s1, platform), 404, 5, 'SECTOR_NOT_FOUND');
      expectWireError(await put(a.rootSectorID, platform, { MFARequired: true }), 404, 5, 'SECTOR_NOT_FOUND');
      expect((await get(a.rootSectorID, a.adminToken)).body.MFARequired).toBe(false);
    });

    it('an unknown sector id is 404 SECTOR_NOT_FOUND; a malformed one is 400 INVALID_ARGUMENT', async () => {
      expectWireError(await get(randomUUID(), a.adminToken), 404, 5, 'SECTOR_NOT_FOUND');
      expectWireError(await put(randomUUID(), a.adminToken, { MFARequired: true }), 404, 5, 'SECTOR_NOT_FOUND');
      expectWireError(await get('not-a-uuid', a.adminToken), 400, 3, 'VALIDATION_FAILED', { fields: ['sectorID'] });
      expectWireError(await put('12345', a.adminToken, { MFARequired: true }), 400, 3, 'VALIDATION_FAILED', { fields: ['sectorID'] });
    });

    it('without a bearer it is 401', async () => {
      const res = await t.http().get(`/api/v1/sectors/${s1}/settings`);
      expectWireError(res, 401, 16, 'CREDENTIAL_MISSING');
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expectWireError(await t.http().put(`/api/v1/sectors/${s1}/settings`).send({ MFARequired: true }), 401, 16, 'CREDENTIAL_MISSING');
    });

    it('a demoted admin loses access as soon as the change is heard, whatever the token says', async () => {
      const sector = await createSector(t, a.adminToken);
      const id = await seedUser(t, a.tenantID, sector, { email: 'demoted@s.test', password: 'demoted-pw', isAdmin: true });
      const token = await t.login('demoted@s.test', 'demoted-pw', sector);
      expect((await get(sector, token)).status).toBe(200);
      await tenantSql(t, a.tenantID, 'UPDATE users SET is_admin = false WHERE id = $1', [id]);
      await untilNotified(async () => (await get(sector, token)).status === 403);
      expectWireError(await get(sector, token), 403, 7, 'ROLE_REQUIRED');
    });
  });
});
