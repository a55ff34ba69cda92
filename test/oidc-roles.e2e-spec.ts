import request from 'supertest';
import { createSector, createUser, ProvisionedTenant, provisionTenant, uniqueSlug } from './support/factories';
import { freePort } from './support/global-setup';
import { followToApp as followRedirectsToApp, startAuthorization } from './support/oidc-flow';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';

/**
 * The OpenID Provider's `roles` scope: a sector's roles (made and assigned through
 * the roles API) released to a first-party app as the claims `roles` and
 * `permissions` in the ID token and at userinfo, and carried by an access token
 * issued with the scope, as of issuance, in the provider's introspection answer
 * (the app's backend asking as the confidential client). Without the scope, neither
 * claim is released. The relying party is `openid-client`; the browser a supertest
 * agent (test/support/oidc-flow.ts).
 */

const dynamicImport = (name: string): Promise<any> => import(name);
const REDIRECT_URI = 'https://app.example.com/cb';
const PASSWORD = 'correct horse battery staple';

/** The sector's roles as the tenant admin defines them. */
const ROLES = {
  billing: { description: 'Runs billing', permissions: ['invoices:write', 'invoices:read'] },
  support: { description: 'Answers tickets', permissions: ['tickets:read', 'invoices:read'] },
  auditor: { description: 'Reads the books', permissions: ['ledger:read'] },
};
/** What the user holds once assigned billing and support: role names sorted, the union of their permissions sorted. */
const HELD = { roles: ['billing', 'support'], permissions: ['invoices:read', 'invoices:write', 'tickets:read'] };

describe('OpenID Provider: the roles scope', () => {
  let t: TestApp;
  let oc: any;
  let a: ProvisionedTenant;
  let sector: string;
  let issuer: string;
  /** The first-party app, a confidential client (client_secret_basic). */
  let appConfig: any;
  let appClientId: string;
  let user: { sub: string; username: string };

  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const followToApp = (agent: request.Agent, next: string) => followRedirectsToApp(agent, t.baseUrl, REDIRECT_URI, next);

  /** Sets the user's roles through the roles API as the tenant admin; answers what the API answered. */
  async function assignRoles(sub: string, roles: string[]) {
    const res = await t.http().put(`/api/v1/users/${sub}/roles`).set(bearer(a.adminToken)).send({ roles });
    expect(res.status).toBe(200);
    return res.body;
  }

  /** A whole authorization code flow of the user to the app, in a new browser, with `scope`; answers the token response. */
  async function signIn(scope: string) {
    const agent = request.agent(t.baseUrl);
    const started = await startAuthorization(oc, agent, appConfig, REDIRECT_URI, { scope });
    const done = await agent
      .post(`/api/v1/oidc/interactions/${started.interaction}/complete`)
      .set(bearer(await t.login(user.username, PASSWORD, sector)))
      .send({});
    if (done.status !== 200) throw new Error(`complete: ${done.status} ${JSON.stringify(done.body)}`);
    const callback = await followToApp(agent, done.body.redirectTo);
    return oc.authorizationCodeGrant(appConfig, callback, { pkceCodeVerifier: started.codeVerifier, expectedState: started.state, expectedNonce: started.nonce });
  }

  /** The provider's introspection of `token`, asked by the app at the discovery document's introspection_endpoint with its client secret. */
  const introspect = (token: string) => oc.tokenIntrospection(appConfig, token);

  beforeAll(async () => {
    oc = await dynamicImport('openid-client');
    const port = await freePort();
    t = await startTestApp({ port, env: { PUBLIC_URL: `http://127.0.0.1:${port}`, ...NO_THROTTLE } });
    a = await provisionTenant(t);
    const slug = uniqueSlug('s');
    sector = await createSector(t, a.adminToken, slug);
    issuer = `${t.baseUrl}/oidc/${a.slug}/${slug}`;

    // The sector's roles, through the roles API as the tenant admin.
    for (const [name, body] of Object.entries(ROLES)) {
      const res = await t.http().put(`/api/v1/sectors/${sector}/roles/${name}`).set(bearer(a.adminToken)).send(body);
      if (res.status !== 200) throw new Error(`creating role ${name} failed: ${res.status} ${JSON.stringify(res.body)}`);
    }
    const username = `rita-${uniqueSlug('u')}`;
    user = { sub: await createUser(t, a.adminToken, sector, { username, email: `${username}@example.com`, password: PASSWORD, profile: { emailVerified: true } }), username };

    // A first-party app, made through the admin API.
    const made = await t
      .http()
      .post(`/api/v1/sectors/${sector}/oidc/clients`)
      .set(bearer(a.adminToken))
      .send({ clientName: 'Billing portal', redirectURIs: [REDIRECT_URI], grantTypes: ['authorization_code', 'refresh_token'] });
    if (made.status !== 201 && made.status !== 200) throw new Error(`app creation failed: ${made.status} ${JSON.stringify(made.body)}`);
    expect(made.body.client.firstParty).toBe(true);
    appClientId = made.body.client.clientID;
    appConfig = await oc.discovery(new URL(issuer), appClientId, made.body.clientSecret, undefined, { execute: [oc.allowInsecureRequests] });
  });

  beforeEach(async () => {
    // Every test starts from the user holding billing and support.
    expect(await assignRoles(user.sub, ['support', 'billing'])).toEqual(HELD);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('lists the roles scope, and the roles and permissions claims, in the discovery document', async () => {
    const res = await t.http().get(`${new URL(issuer).pathname}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    expect(res.body.issuer).toBe(issuer);
    expect(res.body.scopes_supported).toEqual(expect.arrayContaining(['openid', 'roles']));
    expect(res.body.claims_supported).toEqual(expect.arrayContaining(['sub', 'roles', 'permissions']));
    expect(String(res.body.introspection_endpoint).startsWith(`${issuer}/`)).toBe(true);
    // What the app's openid-client discovered is the same document.
    expect(appConfig.serverMetadata().introspection_endpoint).toBe(res.body.introspection_endpoint);
  });

  it('with scope roles: the ID token, userinfo and the provider’s introspection of the access token carry the user’s roles and permissions', async () => {
    const tokens = await signIn('openid roles');

    const claims = tokens.claims();
    expect(claims).toMatchObject({ iss: issuer, sub: user.sub, aud: appClientId });
    expect({ roles: claims.roles, permissions: claims.permissions }).toEqual(HELD);

    const userinfo = await oc.fetchUserInfo(appConfig, tokens.access_token, user.sub);
    expect(userinfo.sub).toBe(user.sub);
    expect({ roles: userinfo.roles, permissions: userinfo.permissions }).toEqual(HELD);

    const introspection = await introspect(tokens.access_token);
    expect(introspection).toMatchObject({ active: true, sub: user.sub, client_id: appClientId, iss: issuer });
    expect(String(introspection.scope).split(' ').sort()).toEqual(['openid', 'roles']);
    expect({ roles: introspection.roles, permissions: introspection.permissions }).toEqual(HELD);
  });

  it('the access token keeps the roles and permissions it was issued with; a new one carries the new ones', async () => {
    const before = await signIn('openid roles');
    expect(await assignRoles(user.sub, ['auditor'])).toEqual({ roles: ['auditor'], permissions: ['ledger:read'] });

    const kept = await introspect(before.access_token);
    expect(kept.active).toBe(true);
    expect({ roles: kept.roles, permissions: kept.permissions }).toEqual(HELD);

    const after = await signIn('openid roles');
    expect({ roles: after.claims().roles, permissions: after.claims().permissions }).toEqual({ roles: ['auditor'], permissions: ['ledger:read'] });
    const fresh = await introspect(after.access_token);
    expect({ roles: fresh.roles, permissions: fresh.permissions }).toEqual({ roles: ['auditor'], permissions: ['ledger:read'] });
  });

  it('without scope roles: neither the ID token nor userinfo (nor introspection) carries roles or permissions', async () => {
    // The same user, holding roles, and the same app, which the user has already granted roles: this request asks for openid and email only.
    expect((await signIn('openid roles')).claims().roles).toEqual(HELD.roles);
    const tokens = await signIn('openid email');

    const claims = tokens.claims();
    expect(claims).toMatchObject({ iss: issuer, sub: user.sub, aud: appClientId, email: `${user.username}@example.com` });
    expect(claims).not.toHaveProperty('roles');
    expect(claims).not.toHaveProperty('permissions');

    const userinfo = await oc.fetchUserInfo(appConfig, tokens.access_token, user.sub);
    expect(userinfo).toMatchObject({ sub: user.sub, email: `${user.username}@example.com` });
    expect(userinfo).not.toHaveProperty('roles');
    expect(userinfo).not.toHaveProperty('permissions');

    const introspection = await introspect(tokens.access_token);
    expect(introspection).toMatchObject({ active: true, sub: user.sub, client_id: appClientId });
    expect(String(introspection.scope).split(' ').sort()).toEqual(['email', 'openid']);
    expect(introspection).not.toHaveProperty('roles');
    expect(introspection).not.toHaveProperty('permissions');
  });
});
