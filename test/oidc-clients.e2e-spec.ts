import { expectError } from './support/contract';
import { createSector, createUser, ProvisionedTenant, provisionTenant, tenantSql, uniqueSlug } from './support/factories';
import { startTestApp, TestApp } from './support/test-app';

/**
 * The admin API of a sector's OpenID Provider apps (`/api/v1/sectors/{sectorID}/oidc/clients`):
 * create (secret once, sealed at rest), list and read (never the secret), replace,
 * rotate the secret, delete (its tokens go with it), the provider's own client rules
 * as field errors, audit events for these and for RFC 7591 registration, and who
 * may do it.
 */

const INVALID_ARGUMENT = 3;
const PERMISSION_DENIED = 7;
const NOT_FOUND = 5;
const FAILED_PRECONDITION = 9;

describe('OpenID Provider apps: the admin API', () => {
  let t: TestApp;
  let a: ProvisionedTenant;
  let b: ProvisionedTenant;
  let sector: { id: string; slug: string };
  let issuerPath: string;
  const auth = (token: string) => ({ Authorization: `Bearer ${token}` });
  const base = () => `/api/v1/sectors/${sector.id}/oidc/clients`;

  const tokenWith = (clientId: string, secret: string) =>
    t.http().post(`${issuerPath}/token`).auth(clientId, secret).type('form').send({ grant_type: 'client_credentials' });

  beforeAll(async () => {
    t = await startTestApp();
    a = await provisionTenant(t);
    b = await provisionTenant(t);
    const slug = uniqueSlug('s');
    sector = { id: await createSector(t, a.adminToken, slug), slug };
    issuerPath = `/oidc/${a.slug}/${slug}`;
  });

  afterAll(async () => {
    await t?.close();
  });

  it('creates a first-party app with its secret shown once, lists and reads it without, and the secret works', async () => {
    const res = await t
      .http()
      .post(base())
      .set(auth(a.adminToken))
      .send({ clientName: 'Reports', redirectURIs: ['https://reports.example.com/cb'], grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'] });
    expect(res.status).toBe(200);
    const { client, clientSecret } = res.body;
    expect(client).toEqual({
      clientID: expect.any(String),
      clientName: 'Reports',
      redirectURIs: ['https://reports.example.com/cb'],
      postLogoutRedirectURIs: [],
      grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'],
      tokenEndpointAuthMethod: 'client_secret_basic',
      firstParty: true,
      registrationClientURI: `${t.config.publicUrl}${issuerPath}/reg/${client.clientID}`,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(clientSecret).toMatch(/^[A-Za-z0-9_-]{64}$/);
    const [row] = await tenantSql(t, a.tenantID, 'SELECT metadata, client_secret_sealed FROM oidc_clients WHERE client_id = $1', [client.clientID]);
    expect(JSON.stringify(row)).not.toContain(clientSecret);

    const list = await t.http().get(base()).set(auth(a.adminToken));
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ issuer: `${t.config.publicUrl}${issuerPath}`, clients: [client] });
    expect(JSON.stringify(list.body)).not.toContain(clientSecret);
    expect((await t.http().get(`${base()}/${client.clientID}`).set(auth(a.adminToken))).body).toEqual(client);

    const token = await tokenWith(client.clientID, clientSecret);
    expect(token.status).toBe(200);
    expect(token.body.access_token).toEqual(expect.any(String));
  });

  it('replaces an app’s settings, rotates its secret (the old one stops at once) and deletes it with its tokens', async () => {
    const created = (await t.http().post(base()).set(auth(a.adminToken)).send({ clientName: 'Worker', grantTypes: ['client_credentials'] })).body;
    const id = created.client.clientID;
    expect(created.client.redirectURIs).toEqual([]);

    const put = await t.http().put(`${base()}/${id}`).set(auth(a.adminToken)).send({ clientName: 'Worker 2', grantTypes: ['client_credentials'], tokenEndpointAuthMethod: 'client_secret_post' });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ clientID: id, clientName: 'Worker 2', tokenEndpointAuthMethod: 'client_secret_post' });
    // The secret survives a change of settings.
    const post = await t.http().post(`${issuerPath}/token`).type('form').send({ grant_type: 'client_credentials', client_id: id, client_secret: created.clientSecret });
    expect(post.status).toBe(200);

    const rotated = await t.http().post(`${base()}/${id}/rotate-secret`).set(auth(a.adminToken));
    expect(rotated.status).toBe(200);
    expect(rotated.body.clientSecret).not.toBe(created.clientSecret);
    const old = await t.http().post(`${issuerPath}/token`).type('form').send({ grant_type: 'client_credentials', client_id: id, client_secret: created.clientSecret });
    expect(old.status).toBe(401);
    expect(old.body.error).toBe('invalid_client');
    const fresh = await t.http().post(`${issuerPath}/token`).type('form').send({ grant_type: 'client_credentials', client_id: id, client_secret: rotated.body.clientSecret });
    expect(fresh.status).toBe(200);

    const del = await t.http().delete(`${base()}/${id}`).set(auth(a.adminToken));
    expect(del.status).toBe(200);
    expect(del.body).toEqual({});
    expectError(await t.http().get(`${base()}/${id}`).set(auth(a.adminToken)), 404, NOT_FOUND, 'OIDC_CLIENT_NOT_FOUND');
    expectError(await t.http().delete(`${base()}/${id}`).set(auth(a.adminToken)), 404, NOT_FOUND, 'OIDC_CLIENT_NOT_FOUND');
    const [left] = await tenantSql(t, a.tenantID, `SELECT count(*)::int AS n FROM oidc_payloads WHERE payload->>'clientId' = $1`, [id]);
    expect(left.n).toBe(0);

    const types = (await tenantSql(t, a.tenantID, `SELECT type, details FROM audit_events WHERE target_id = $1 ORDER BY id`, [id])) as Array<{ type: string; details: Record<string, unknown> }>;
    expect(types.map((e) => e.type)).toEqual(['oidc_client.created', 'oidc_client.updated', 'oidc_client.secret_rotated', 'oidc_client.deleted']);
    expect(types[1].details).toEqual({ fields: ['client_name', 'token_endpoint_auth_method'] });
  });

  it('answers public apps without a secret and refuses to rotate one; applies the provider’s client rules as field errors', async () => {
    const pub = await t.http().post(base()).set(auth(a.adminToken)).send({ clientName: 'SPA', redirectURIs: ['https://spa.example.com/cb'], tokenEndpointAuthMethod: 'none' });
    expect(pub.status).toBe(200);
    expect(pub.body.clientSecret).toBeUndefined();
    expectError(await t.http().post(`${base()}/${pub.body.client.clientID}/rotate-secret`).set(auth(a.adminToken)), 400, FAILED_PRECONDITION, 'OIDC_CLIENT_HAS_NO_SECRET');

    const noRedirect = await t.http().post(base()).set(auth(a.adminToken)).send({ clientName: 'Web', grantTypes: ['authorization_code'] });
    expect(JSON.stringify(expectError(noRedirect, 400, INVALID_ARGUMENT).details)).toContain('"field":"redirectURIs"');
    const badUrl = await t.http().post(base()).set(auth(a.adminToken)).send({ clientName: 'Web', redirectURIs: ['ftp://x.example.com/cb'] });
    expectError(badUrl, 400, INVALID_ARGUMENT);
    const badGrant = await t.http().post(base()).set(auth(a.adminToken)).send({ clientName: 'Web', grantTypes: ['password'] });
    expectError(badGrant, 400, INVALID_ARGUMENT);
  });

  it('keeps a third-party app’s links and consent setting through a replace, and refuses http links', async () => {
    const links = { logoURI: 'https://partner.example.com/logo.png', clientURI: 'https://partner.example.com', policyURI: 'https://partner.example.com/privacy', tosURI: 'https://partner.example.com/terms' };
    const created = await t.http().post(base()).set(auth(a.adminToken)).send({ clientName: 'Partner', redirectURIs: ['https://partner.example.com/cb'], firstParty: false, ...links });
    expect(created.status).toBe(200);
    expect(created.body.client).toMatchObject({ firstParty: false, ...links });
    const id = created.body.client.clientID;
    const replaced = await t.http().put(`${base()}/${id}`).set(auth(a.adminToken)).send({ clientName: 'Partner', redirectURIs: ['https://partner.example.com/cb'], logoURI: links.logoURI });
    expect(replaced.body).toMatchObject({ firstParty: false, logoURI: links.logoURI });
    expect(replaced.body.clientURI).toBeUndefined();
    const madeOwn = await t.http().put(`${base()}/${id}`).set(auth(a.adminToken)).send({ clientName: 'Partner', redirectURIs: ['https://partner.example.com/cb'], firstParty: true });
    expect(madeOwn.body.firstParty).toBe(true);
    const audit = await t.http().get(`/api/v1/sectors/${sector.id}/audit-events`).query({ type: 'oidc_client.updated', target: id }).set(auth(a.adminToken));
    expect(audit.body.events.map((e: any) => e.details.fields)).toContainEqual(['first_party']);
    expectError(await t.http().post(base()).set(auth(a.adminToken)).send({ clientName: 'Bad', logoURI: 'http://partner.example.com/logo.png' }), 400, INVALID_ARGUMENT);
  });

  it('lets the sector’s admins and API tokens in, and nobody else', async () => {
    await createUser(t, a.adminToken, sector.id, { username: 'member', email: 'member@a.test', password: 'member-password-1' });
    const member = await t.login('member', 'member-password-1', sector.id);
    expectError(await t.http().get(base()).set(auth(member)), 403, PERMISSION_DENIED);
    expectError(await t.http().post(base()).set(auth(member)).send({ clientName: 'x', grantTypes: ['client_credentials'] }), 403, PERMISSION_DENIED);
    const other = await t.http().get(base()).set(auth(b.adminToken));
    expect([403, 404]).toContain(other.status);
    const apiToken = (await t.http().post(`/api/v1/sectors/${sector.id}/tokens`).set(auth(a.adminToken)).send({ name: 'ci' })).body.token;
    const byToken = await t.http().post(base()).set(auth(apiToken)).send({ clientName: 'From CI', grantTypes: ['client_credentials'] });
    expect(byToken.status).toBe(200);
    const [row] = await tenantSql(t, a.tenantID, 'SELECT created_by FROM oidc_clients WHERE client_id = $1', [byToken.body.client.clientID]);
    expect(String(row.created_by)).toMatch(/^apiToken:/);
  });

  it('records an RFC 7591 registration in the audit trail too', async () => {
    const reg = await t
      .http()
      .post(`${issuerPath}/reg`)
      .set(auth(a.adminToken))
      .send({ client_name: 'Registered', redirect_uris: ['https://r.example.com/cb'] });
    expect(reg.status).toBe(201);
    const events = await tenantSql(t, a.tenantID, `SELECT type, actor_kind, details FROM audit_events WHERE target_id = $1`, [reg.body.client_id]);
    expect(events).toEqual([{ type: 'oidc_client.created', actor_kind: 'user', details: { clientName: 'Registered', firstParty: true } }]);
  });
});
