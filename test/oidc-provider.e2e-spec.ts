import { ProvisionedTenant, provisionTenant, createSector, createUser, tenantSql, uniqueSlug } from './support/factories';
import { freePort } from './support/global-setup';
import { startTestApp, TestApp } from './support/test-app';
import { KeyService } from '../src/keys/key.service';
import { TenantDirectory } from '../src/tenancy/tenant-directory';

/**
 * Every sector is an OpenID Provider (src/oidc; docs/api.md, "Integrate an app"):
 * its issuer and discovery document, its own tenant's keys (RS256 and ES256),
 * dynamic client registration behind an admin credential (RFC 7591) and its
 * management (RFC 7592), client credentials, RFC 7662 introspection and RFC 7009
 * revocation through `openid-client` as the relying party, isolation between
 * sectors and tenants, and a second instance carrying on what the first began.
 */

const dynamicImport = (name: string): Promise<any> => import(name);

describe('OpenID Provider: issuers, registration, client credentials, introspection', () => {
  let t: TestApp;
  let oc: any;
  let a: ProvisionedTenant;
  let b: ProvisionedTenant;
  let s1: { id: string; slug: string };
  let s2: { id: string; slug: string };
  let issuer1: string;

  const issuerOf = (tenant: ProvisionedTenant, sectorSlug: string) => `${t.baseUrl}/oidc/${tenant.slug}/${sectorSlug}`;
  const pathOf = (url: string) => url.slice(t.baseUrl.length);

  async function register(issuer: string, token: string | undefined, metadata: Record<string, unknown>) {
    const req = t.http().post(`${pathOf(issuer)}/reg`).send(metadata);
    return token ? req.set('Authorization', `Bearer ${token}`) : req;
  }

  async function clientConfig(issuer: string, clientId: string, clientSecret: string) {
    return oc.discovery(new URL(issuer), clientId, clientSecret, undefined, { execute: [oc.allowInsecureRequests] });
  }

  beforeAll(async () => {
    oc = await dynamicImport('openid-client');
    const port = await freePort();
    t = await startTestApp({ port, env: { PUBLIC_URL: `http://127.0.0.1:${port}` } });
    a = await provisionTenant(t);
    b = await provisionTenant(t);
    const slug1 = uniqueSlug('s');
    const slug2 = uniqueSlug('s');
    s1 = { id: await createSector(t, a.adminToken, slug1), slug: slug1 };
    s2 = { id: await createSector(t, a.adminToken, slug2), slug: slug2 };
    issuer1 = issuerOf(a, s1.slug);
  });

  afterAll(async () => {
    await t?.close();
  });

  describe('discovery', () => {
    it('answers the contract’s metadata, every endpoint under the issuer', async () => {
      const res = await t.http().get(`${pathOf(issuer1)}/.well-known/openid-configuration`);
      expect(res.status).toBe(200);
      const d = res.body;
      expect(d.issuer).toBe(issuer1);
      for (const name of [
        'authorization_endpoint',
        'token_endpoint',
        'userinfo_endpoint',
        'jwks_uri',
        'registration_endpoint',
        'introspection_endpoint',
        'revocation_endpoint',
        'end_session_endpoint',
        'device_authorization_endpoint',
      ]) {
        expect(typeof d[name]).toBe('string');
        expect(d[name].startsWith(`${issuer1}/`)).toBe(true);
      }
      expect(d.scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile', 'email', 'phone', 'address', 'offline_access']));
      expect(d.response_types_supported).toEqual(['code']);
      expect(d.grant_types_supported).toEqual(
        expect.arrayContaining(['authorization_code', 'refresh_token', 'client_credentials', 'urn:ietf:params:oauth:grant-type:device_code']),
      );
      expect(d.code_challenge_methods_supported).toEqual(['S256']);
      expect(d.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt']));
      expect(d.id_token_signing_alg_values_supported).toEqual(expect.arrayContaining(['RS256', 'ES256']));
      expect(d.backchannel_logout_supported).toBe(true);
      expect(d.authorization_response_iss_parameter_supported).toBe(true);
      expect(d.claims_supported).toEqual(expect.arrayContaining(['sub', 'email', 'email_verified', 'name', 'phone_number', 'address', 'updated_at']));
    });

    it('publishes that tenant’s keys only, an RSA key beside its EC key', async () => {
      const d = (await t.http().get(`${pathOf(issuer1)}/.well-known/openid-configuration`)).body;
      const res = await t.http().get(pathOf(d.jwks_uri));
      expect(res.status).toBe(200);
      const keys: Array<Record<string, unknown>> = res.body.keys;
      expect(keys.map((k) => k.kid)).toContain(a.kid);
      expect(keys.some((k) => k.kty === 'RSA' && k.alg === 'RS256' && k.use === 'sig')).toBe(true);
      expect(keys.map((k) => k.kid)).not.toContain(b.kid);
      for (const key of keys) expect(key).not.toHaveProperty('d');
      // The service-wide JWK Set publishes the RSA key too (tokens it signs are verifiable there as well).
      const all = (await t.http().get('/.well-known/jwks.json')).body.keys as Array<Record<string, unknown>>;
      const rsa = keys.find((k) => k.kty === 'RSA');
      expect(all.map((k) => k.kid)).toContain(rsa?.kid);
    });

    it('gives every sector its own issuer, and answers an unknown one 404 in OAuth’s error format', async () => {
      const other = await t.http().get(`/oidc/${a.slug}/${s2.slug}/.well-known/openid-configuration`);
      expect(other.status).toBe(200);
      expect(other.body.issuer).toBe(issuerOf(a, s2.slug));
      for (const path of [`/oidc/${a.slug}/no-such-sector/.well-known/openid-configuration`, `/oidc/no-such-tenant/admin/.well-known/openid-configuration`, `/oidc/${b.slug}/${s1.slug}/token`, '/oidc/', '/oidc/%41%42/x/y']) {
        const res = await t.http().get(path);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: 'invalid_request', error_description: 'No such OpenID Provider.' });
      }
    });
  });

  describe('dynamic registration (RFC 7591, 7592)', () => {
    const metadata = { client_name: 'Billing', redirect_uris: ['https://billing.example.com/cb'], grant_types: ['authorization_code', 'client_credentials'], response_types: ['code'] };

    it('needs an initial access token with admin rights over the sector', async () => {
      const none = await register(issuer1, undefined, metadata);
      expect(none.status).toBe(401);
      expect(none.body.error).toBe('invalid_token');
      expect(none.headers['www-authenticate']).toContain('invalid_token');
      const forged = await register(issuer1, 'not-a-credential', metadata);
      expect(forged.status).toBe(401);
      // A plain user of the sector, another tenant's admin: valid credentials without the right.
      await createUser(t, a.adminToken, s1.id, { username: 'plain-user', email: 'plain@a.test', password: 'plain-user-password' });
      const plain = await t.login('plain-user', 'plain-user-password', s1.id);
      for (const token of [plain, b.adminToken]) {
        const res = await register(issuer1, token, metadata);
        expect(res.status).toBe(403);
        expect(res.body.error).toBe('insufficient_scope');
      }
      expect(await tenantSql(t, a.tenantID, 'SELECT client_id FROM oidc_clients')).toEqual([]);
    });

    it('registers a first-party client for an admin, its secret shown once and stored sealed; the registration is managed with its own token', async () => {
      const res = await register(issuer1, a.adminToken, metadata);
      expect(res.status).toBe(201);
      const c = res.body;
      expect(c).toMatchObject({ client_name: 'Billing', redirect_uris: metadata.redirect_uris, grant_types: metadata.grant_types });
      expect(typeof c.client_id).toBe('string');
      expect(typeof c.client_secret).toBe('string');
      expect(typeof c.registration_access_token).toBe('string');
      expect(c.registration_client_uri).toBe(`${issuer1}/reg/${c.client_id}`);
      const [row] = await tenantSql(t, a.tenantID, 'SELECT sector_id, metadata, client_secret_sealed, first_party, created_by FROM oidc_clients WHERE client_id = $1', [c.client_id]);
      expect(row.sector_id).toBe(s1.id);
      expect(row.first_party).toBe(true);
      expect(String(row.created_by)).toMatch(/^user:/);
      expect(row.metadata).not.toHaveProperty('client_secret');
      expect(String(row.client_secret_sealed)).toMatch(/^v2\./);
      expect(JSON.stringify(row)).not.toContain(c.client_secret);

      // RFC 7592: read, update, delete with the registration access token.
      const read = await t.http().get(pathOf(c.registration_client_uri)).set('Authorization', `Bearer ${c.registration_access_token}`);
      expect(read.status).toBe(200);
      expect(read.body.client_id).toBe(c.client_id);
      const wrong = await t.http().get(pathOf(c.registration_client_uri)).set('Authorization', `Bearer ${a.adminToken}`);
      expect(wrong.status).toBe(401);
      const update = await t
        .http()
        .put(pathOf(c.registration_client_uri))
        .set('Authorization', `Bearer ${c.registration_access_token}`)
        .send({ ...metadata, client_id: c.client_id, client_secret: c.client_secret, client_name: 'Billing 2' });
      expect(update.status).toBe(200);
      expect(update.body.client_name).toBe('Billing 2');
      const [updated] = await tenantSql(t, a.tenantID, 'SELECT metadata, first_party FROM oidc_clients WHERE client_id = $1', [c.client_id]);
      expect((updated.metadata as Record<string, unknown>).client_name).toBe('Billing 2');
      expect(updated.first_party).toBe(true);
      const rotated = update.body.registration_access_token as string;
      const del = await t.http().delete(pathOf(c.registration_client_uri)).set('Authorization', `Bearer ${rotated}`);
      expect(del.status).toBe(204);
      expect(await tenantSql(t, a.tenantID, 'SELECT 1 FROM oidc_clients WHERE client_id = $1', [c.client_id])).toEqual([]);
    });

    it('accepts an API token of the sector (and of no other sector) as the initial access token', async () => {
      const mint = async (sectorID: string) =>
        (await t.http().post(`/api/v1/sectors/${sectorID}/tokens`).set('Authorization', `Bearer ${a.adminToken}`).send({ name: 'registrar' })).body.token as string;
      const own = await mint(s1.id);
      const res = await register(issuer1, own, metadata);
      expect(res.status).toBe(201);
      const [row] = await tenantSql(t, a.tenantID, 'SELECT first_party, created_by FROM oidc_clients WHERE client_id = $1', [res.body.client_id]);
      expect(row.first_party).toBe(true);
      expect(String(row.created_by)).toMatch(/^apiToken:/);
      const foreign = await register(issuer1, await mint(s2.id), metadata);
      expect(foreign.status).toBe(403);
    });

    it('refuses metadata the contract excludes, in RFC 7591’s error format', async () => {
      const implicit = await register(issuer1, a.adminToken, { ...metadata, response_types: ['id_token'], grant_types: ['implicit'] });
      expect(implicit.status).toBe(400);
      expect(implicit.body.error).toBe('invalid_client_metadata');
      const noRedirect = await register(issuer1, a.adminToken, { client_name: 'x', redirect_uris: ['not a url'] });
      expect(noRedirect.status).toBe(400);
      expect(noRedirect.body.error).toBe('invalid_redirect_uri');
    });
  });

  describe('client credentials, introspection and revocation through openid-client', () => {
    let clientId: string;
    let clientSecret: string;

    beforeAll(async () => {
      const res = await register(issuer1, a.adminToken, { client_name: 'Worker', redirect_uris: ['https://worker.example.com/cb'], grant_types: ['client_credentials'], response_types: [] });
      expect(res.status).toBe(201);
      ({ client_id: clientId, client_secret: clientSecret } = res.body);
    });

    it('issues an opaque access token that introspects active until revoked, and is no credential for /api/v1', async () => {
      const config = await clientConfig(issuer1, clientId, clientSecret);
      const tokens = await oc.clientCredentialsGrant(config);
      expect(tokens.token_type.toLowerCase()).toBe('bearer');
      expect(tokens.access_token.split('.')).toHaveLength(1);
      expect(tokens.expires_in).toBeGreaterThan(0);

      const live = await oc.tokenIntrospection(config, tokens.access_token);
      expect(live).toMatchObject({ active: true, client_id: clientId, iss: issuer1, token_type: 'Bearer' });
      expect(typeof live.exp).toBe('number');
      expect(typeof live.iat).toBe('number');

      const api = await t.http().get(`/api/v1/sectors/${s1.id}/users`).set('Authorization', `Bearer ${tokens.access_token}`);
      expect(api.status).toBe(401);
      const op20 = await t.http().post('/api/v1/introspect').set('Authorization', `Bearer ${tokens.access_token}`).send({ token: tokens.access_token });
      expect(op20.status).toBe(401);

      await oc.tokenRevocation(config, tokens.access_token);
      expect(await oc.tokenIntrospection(config, tokens.access_token)).toEqual({ active: false });
      const [row] = await tenantSql(t, a.tenantID, `SELECT count(*)::int AS n FROM oidc_payloads WHERE model = 'ClientCredentials'`);
      expect(row.n).toBe(0);
    });

    it('answers a wrong secret invalid_client, and garbage introspects inactive', async () => {
      const bad = await clientConfig(issuer1, clientId, 'not-the-secret');
      await expect(oc.clientCredentialsGrant(bad)).rejects.toMatchObject({ error: 'invalid_client' });
      const config = await clientConfig(issuer1, clientId, clientSecret);
      expect(await oc.tokenIntrospection(config, 'no-such-token')).toEqual({ active: false });
    });

    it('keeps a sector’s clients and tokens unknown to every other issuer', async () => {
      const issuer2 = issuerOf(a, s2.slug);
      const elsewhere = await clientConfig(issuer2, clientId, clientSecret);
      await expect(oc.clientCredentialsGrant(elsewhere)).rejects.toMatchObject({ error: 'invalid_client' });

      const token = (await oc.clientCredentialsGrant(await clientConfig(issuer1, clientId, clientSecret))).access_token;
      const res = await register(issuer2, a.adminToken, { client_name: 'S2', redirect_uris: ['https://s2.example.com/cb'], grant_types: ['client_credentials'], response_types: [] });
      const s2Config = await clientConfig(issuer2, res.body.client_id, res.body.client_secret);
      expect(await oc.tokenIntrospection(s2Config, token)).toEqual({ active: false });
    });

    it('lets a second instance on the same database carry on: the client and its tokens are in PostgreSQL', async () => {
      const config = await clientConfig(issuer1, clientId, clientSecret);
      const token = (await oc.clientCredentialsGrant(config)).access_token;
      const second = await startTestApp({ databaseName: t.databaseName, env: { PUBLIC_URL: t.config.publicUrl } });
      try {
        const res = await second
          .http()
          .post(`${pathOf(issuer1)}/token/introspection`)
          .auth(clientId, clientSecret)
          .type('form')
          .send({ token });
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ active: true, client_id: clientId });
      } finally {
        await second.close();
      }
    });
  });

  describe('signing keys', () => {
    it('rotates the RSA key with the EC key; the retired keys stay published for verification, never signing', async () => {
      const before = (await t.http().get(`${pathOf(issuer1)}/jwks`)).body.keys as Array<Record<string, unknown>>;
      const oldRsa = before.find((k) => k.kty === 'RSA')?.kid as string;
      const rotated = await t.app.get(KeyService).rotate(a.tenantID);
      expect(rotated.oldRsaKid).toBe(oldRsa);
      expect(rotated.newRsaKid).toEqual(expect.any(String));
      const after = (await t.http().get(`${pathOf(issuer1)}/jwks`)).body.keys as Array<Record<string, unknown>>;
      const kids = after.map((k) => k.kid);
      expect(kids).toEqual(expect.arrayContaining([rotated.newKid, rotated.newRsaKid, rotated.oldKid, oldRsa]));
      expect(after.find((k) => k.kid === oldRsa)?.key_ops).toEqual(['verify']);
      expect(after.find((k) => k.kid === rotated.newRsaKid)).not.toHaveProperty('key_ops');
    });

    it('gives a tenant its RSA key once, however many callers race to make it', async () => {
      const c = await provisionTenant(t);
      const tenant = await t.app.get(TenantDirectory).requireTenant(c.tenantID);
      expect(tenant.rsaKid).toBeNull();
      const kids = await Promise.all(Array.from({ length: 5 }, () => t.app.get(KeyService).ensureRsaKey(tenant)));
      expect(new Set(kids).size).toBe(1);
      const rows = await t.sql<{ kid: string }>(`SELECT kid FROM signing_keys WHERE tenant_id = $1 AND alg = 'RS256'`, [c.tenantID]);
      expect(rows.map((r) => r.kid)).toEqual([kids[0]]);
      const jwks = await t.http().get(`/oidc/${c.slug}/admin/jwks`);
      expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).toEqual(expect.arrayContaining([c.kid, kids[0]]));
    });
  });
});
