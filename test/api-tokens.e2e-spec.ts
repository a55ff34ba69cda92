import { randomBytes, randomUUID } from 'node:crypto';
import { fieldViolations, UNIX, UUID } from './support/contract';
import { createSector, createUser, expectError, ProvisionedTenant, provisionTenant, tenantSql, uniqueSlug } from './support/factories';
import { startTestApp, TestApp } from './support/test-app';
import { eventually } from './support/wait';

/**
 * Sector API tokens (operation 10, ApiToken, operation 20; docs/api.md,
 * Credentials, Roles and Endpoints): minting, the plaintext shown once and stored hashed,
 * authentication as an admin of the token's own sector and of nothing else,
 * introspection with an API token as the caller, revocation, `lastUsedAt`, and
 * who may manage tokens.
 */

const API_TOKEN = /^iam_[A-Za-z0-9_-]{64}$/;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A token that looks like ours (`iam_` + 32 random bytes + a tenant's 16 UUID bytes, base64url) but was never issued. */
function forgedToken(tenantID: string): string {
  return 'iam_' + Buffer.concat([randomBytes(32), Buffer.from(tenantID.replace(/-/g, ''), 'hex')]).toString('base64url');
}

describe('sector API tokens', () => {
  let t: TestApp;
  /** Tenant A: default sector, sectors S1 and S2. */
  let a: ProvisionedTenant;
  /** Tenant B: another customer. */
  let b: ProvisionedTenant;
  let s1: string;
  let s2: string;
  let s1AdminToken: string;
  let s1UserToken: string;
  let s1UserSub: string;
  let s2AdminToken: string;

  const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

  async function mint(callerToken: string, sectorID: string, name = `token ${randomUUID().slice(0, 8)}`): Promise<{ token: string; apiToken: any }> {
    const res = await t.http().post(`/api/v1/sectors/${sectorID}/tokens`).set(auth(callerToken)).send({ name });
    if (res.status !== 200) throw new Error(`minting a token in ${sectorID} failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  async function listTokens(callerToken: string, sectorID: string): Promise<any[]> {
    const res = await t.http().get(`/api/v1/sectors/${sectorID}/tokens`).set(auth(callerToken));
    expect(res.status).toBe(200);
    return res.body.apiTokens;
  }

  async function listed(sectorID: string, id: string): Promise<any> {
    return (await listTokens(a.adminToken, sectorID)).find((x) => x.id === id);
  }

  beforeAll(async () => {
    t = await startTestApp();
    a = await provisionTenant(t);
    b = await provisionTenant(t);
    s1 = await createSector(t, a.adminToken);
    s2 = await createSector(t, a.adminToken);
    await createUser(t, a.adminToken, s1, { email: 's1-admin@a.test', password: 's1-admin-password', isAdmin: true });
    s1UserSub = await createUser(t, a.adminToken, s1, { email: 's1-user@a.test', password: 's1-user-password' });
    await createUser(t, a.adminToken, s2, { email: 's2-admin@a.test', password: 's2-admin-password', isAdmin: true });
    s1AdminToken = await t.login('s1-admin@a.test', 's1-admin-password', s1);
    s1UserToken = await t.login('s1-user@a.test', 's1-user-password', s1);
    s2AdminToken = await t.login('s2-admin@a.test', 's2-admin-password', s2);
  });

  afterAll(async () => {
    await t?.close();
  });

  describe('minting (operation 10)', () => {
    it('answers 200 with the plaintext token and its metadata; prefix is its first 8 characters; lastUsedAt "0"', async () => {
      const before = nowSeconds();
      const res = await t.http().post(`/api/v1/sectors/${s1}/tokens`).set(auth(s1AdminToken)).send({ name: 'CI deploy' });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['apiToken', 'token']);
      const { token, apiToken } = res.body;
      expect(token).toMatch(API_TOKEN);
      expect(apiToken).toEqual({
        id: expect.stringMatching(UUID),
        name: 'CI deploy',
        sectorID: s1,
        prefix: token.slice(0, 8),
        createdAt: expect.stringMatching(UNIX),
        lastUsedAt: '0',
      });
      expect(Number(apiToken.createdAt)).toBeGreaterThanOrEqual(before - 5);
      expect(Number(apiToken.createdAt)).toBeLessThanOrEqual(nowSeconds() + 5);
    });

    it('shows the plaintext only once: the list has metadata only and the database only a hash', async () => {
      const { token, apiToken } = await mint(s1AdminToken, s1, 'shown once');
      const res = await t.http().get(`/api/v1/sectors/${s1}/tokens`).set(auth(s1AdminToken));
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['apiTokens']);
      const item = res.body.apiTokens.find((x: any) => x.id === apiToken.id);
      expect(item).toEqual(apiToken);
      for (const x of res.body.apiTokens) expect(Object.keys(x).sort()).toEqual(['createdAt', 'id', 'lastUsedAt', 'name', 'prefix', 'sectorID']);
      const randomPart = token.slice('iam_'.length);
      expect(JSON.stringify(res.body)).not.toContain(randomPart);

      const rows = await tenantSql(t, a.tenantID, 'select * from api_tokens');
      const row = rows.find((r) => r.id === apiToken.id);
      expect(row).toBeDefined();
      expect(row!.prefix).toBe(token.slice(0, 8));
      expect(typeof row!.token_hash).toBe('string');
      expect(row!.token_hash).not.toBe(token);
      const dump = JSON.stringify(rows);
      expect(dump).not.toContain(token);
      expect(dump).not.toContain(randomPart);
      // Nor any stretch of the secret beyond the stored 8-character prefix.
      expect(dump).not.toContain(token.slice(8, 24));
    });

    it.each([
      ['missing', {}],
      ['empty', { name: '' }],
      ['too long (201 characters)', { name: 'x'.repeat(201) }],
      ['not a string', { name: 42 }],
    ])('refuses a name that is %s with 400 INVALID_ARGUMENT on name', async (_what, body) => {
      const res = await t.http().post(`/api/v1/sectors/${s1}/tokens`).set(auth(s1AdminToken)).send(body);
      expectError(res, 400, 3);
      expect(fieldViolations(res.body).map((v) => v.field)).toContain('name');
    });

    it('accepts a name of 200 characters', async () => {
      const res = await t.http().post(`/api/v1/sectors/${s1}/tokens`).set(auth(s1AdminToken)).send({ name: 'n'.repeat(200) });
      expect(res.status).toBe(200);
      expect(res.body.apiToken.name).toBe('n'.repeat(200));
    });
  });

  describe('authenticating with an API token', () => {
    let s1Api: string;
    let rootApi: string;
    let platformRootApi: string;

    beforeAll(async () => {
      s1Api = (await mint(s1AdminToken, s1, 'S1 automation')).token;
      rootApi = (await mint(a.adminToken, a.rootSectorID, 'A default-sector automation')).token;
      // The platform tenant's default sector: the sector of the platform admin's access token.
      const introspected = await t
        .http()
        .post('/api/v1/introspect')
        .set(auth(await t.platformToken()))
        .send({ token: await t.platformToken() });
      expect(introspected.status).toBe(200);
      platformRootApi = (await mint(await t.platformToken(), introspected.body.sectorID, 'platform automation')).token;
    });

    it('reads and updates its own sector settings', async () => {
      const get = await t.http().get(`/api/v1/sectors/${s1}/settings`).set(auth(s1Api));
      expect(get.status).toBe(200);
      expect(get.body.sectorID).toBe(s1);
      const put = await t.http().put(`/api/v1/sectors/${s1}/settings`).set(auth(s1Api)).send({ WebAuthnRPDisplayName: 'Set by a token' });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({ sectorID: s1, WebAuthnRPDisplayName: 'Set by a token' });
      const again = await t.http().get(`/api/v1/sectors/${s1}/settings`).set(auth(s1AdminToken));
      expect(again.body.WebAuthnRPDisplayName).toBe('Set by a token');
    });

    it('never changes where credentials go: MagicLinkURL and the passkey relying party are 403 FIELD_NOT_WRITABLE', async () => {
      for (const body of [{ MagicLinkURL: 'https://evil.test/accept' }, { WebAuthnRPID: 'evil.test' }, { WebAuthnRPOrigins: ['https://evil.test'] }]) {
        expectError(await t.http().put(`/api/v1/sectors/${s1}/settings`).set(auth(s1Api)).send(body), 403, 7, 'FIELD_NOT_WRITABLE');
      }
      const after = await t.http().get(`/api/v1/sectors/${s1}/settings`).set(auth(s1AdminToken));
      expect(after.body).toMatchObject({ MagicLinkURL: '', WebAuthnRPID: '', WebAuthnRPOrigins: [] });
    });

    it('creates and lists users of its own sector, and reads them', async () => {
      const email = `made-by-token-${randomUUID().slice(0, 8)}@a.test`;
      const created = await t.http().post(`/api/v1/sectors/${s1}/users`).set(auth(s1Api)).send({ email, password: 'made-by-token-pw' });
      expect(created.status).toBe(200);
      expect(created.body).toMatchObject({ sub: expect.stringMatching(UUID), email });
      const list = await t.http().get(`/api/v1/sectors/${s1}/users`).set(auth(s1Api)).query({ filterEmail: email });
      expect(list.status).toBe(200);
      expect(list.body.users.map((u: any) => u.sub)).toEqual([created.body.sub]);
      const read = await t.http().get(`/api/v1/users/${s1UserSub}`).set(auth(s1Api));
      expect(read.status).toBe(200);
      expect(read.body.sub).toBe(s1UserSub);
      // The user the token created can sign in with the password it was given.
      await t.login(email, 'made-by-token-pw', s1);
    });

    it("is refused another sector's settings and users in the same tenant (403)", async () => {
      expectError(await t.http().get(`/api/v1/sectors/${s2}/settings`).set(auth(s1Api)), 403, 7, 'ROLE_REQUIRED');
      expectError(await t.http().put(`/api/v1/sectors/${s2}/settings`).set(auth(s1Api)).send({ MFARequired: true }), 403, 7, 'ROLE_REQUIRED');
      expectError(await t.http().get(`/api/v1/sectors/${s2}/users`).set(auth(s1Api)), 403, 7, 'ROLE_REQUIRED');
      expectError(
        await t.http().post(`/api/v1/sectors/${s2}/users`).set(auth(s1Api)).send({ email: 'nope@a.test', password: 'nope-password' }),
        403,
        7,
        'ROLE_REQUIRED',
      );
      expectError(await t.http().get(`/api/v1/sectors/${a.rootSectorID}/settings`).set(auth(s1Api)), 403, 7, 'ROLE_REQUIRED');
      const s2Settings = await t.http().get(`/api/v1/sectors/${s2}/settings`).set(auth(s2AdminToken));
      expect(s2Settings.body.MFARequired).toBe(false);
    });

    it('is not default-sector-wide, even as a token of the default sector', async () => {
      for (const token of [s1Api, rootApi]) {
        expectError(await t.http().get('/api/v1/sectors').set(auth(token)), 403, 7, 'ROLE_REQUIRED');
        expectError(
          await t.http().post('/api/v1/sectors').set(auth(token)).send({ name: 'By token', slug: uniqueSlug('tok') }),
          403,
          7,
          'ROLE_REQUIRED',
        );
      }
      // The default sector's token is an admin of the default sector itself...
      const own = await t.http().get(`/api/v1/sectors/${a.rootSectorID}/settings`).set(auth(rootApi));
      expect(own.status).toBe(200);
      expect(own.body.sectorID).toBe(a.rootSectorID);
      // ...and of no other sector, unlike a default-sector admin user.
      expectError(await t.http().get(`/api/v1/sectors/${s1}/settings`).set(auth(rootApi)), 403, 7, 'ROLE_REQUIRED');
      expectError(await t.http().get(`/api/v1/sectors/${s1}/users`).set(auth(rootApi)), 403, 7, 'ROLE_REQUIRED');
      expectError(await t.http().get(`/api/v1/users/${s1UserSub}`).set(auth(rootApi)), 403, 7, 'ROLE_REQUIRED');
    });

    it('never performs tenant or platform operations (403), even from the platform default sector', async () => {
      for (const token of [s1Api, rootApi, platformRootApi]) {
        expectError(await t.http().get(`/api/v1/tenants/${a.tenantID}`).set(auth(token)), 403, 7, 'ROLE_REQUIRED');
        expectError(
          await t.http().get(`/api/v1/tenants/${a.tenantID}`).query({ includeStats: 'true' }).set(auth(token)),
          403,
          7,
          'ROLE_REQUIRED',
        );
        expectError(await t.http().post('/api/v1/tenants').set(auth(token)).send({ slug: uniqueSlug('tok'), name: 'By token' }), 403, 7, 'ROLE_REQUIRED');
      }
    });

    it('never mints, lists or revokes API tokens (403), not even in its own sector', async () => {
      const victim = await mint(s1AdminToken, s1, 'victim');
      for (const token of [s1Api, rootApi]) {
        const sector = token === s1Api ? s1 : a.rootSectorID;
        expectError(await t.http().post(`/api/v1/sectors/${sector}/tokens`).set(auth(token)).send({ name: 'child' }), 403, 7, 'ROLE_REQUIRED');
        expectError(await t.http().get(`/api/v1/sectors/${sector}/tokens`).set(auth(token)), 403, 7, 'ROLE_REQUIRED');
      }
      expectError(await t.http().delete(`/api/v1/sectors/${s1}/tokens/${victim.apiToken.id}`).set(auth(s1Api)), 403, 7, 'ROLE_REQUIRED');
      // Nothing was minted or revoked.
      expect((await listTokens(s1AdminToken, s1)).map((x) => x.name)).not.toContain('child');
      expect(await listed(s1, victim.apiToken.id)).toBeDefined();
    });

    it("answers another tenant's sector as not found (404)", async () => {
      expectError(await t.http().get(`/api/v1/sectors/${b.rootSectorID}/settings`).set(auth(s1Api)), 404, 5, 'SECTOR_NOT_FOUND');
      expectError(await t.http().put(`/api/v1/sectors/${b.rootSectorID}/settings`).set(auth(s1Api)).send({ MFARequired: true }), 404, 5, 'SECTOR_NOT_FOUND');
      expectError(await t.http().get(`/api/v1/sectors/${b.rootSectorID}/users`).set(auth(s1Api)), 404, 5, 'SECTOR_NOT_FOUND');
      expectError(
        await t.http().post(`/api/v1/sectors/${b.rootSectorID}/users`).set(auth(s1Api)).send({ email: 'x@b.test', password: 'x-password-1' }),
        404,
        5,
        'SECTOR_NOT_FOUND',
      );
      expectError(await t.http().post(`/api/v1/sectors/${b.rootSectorID}/tokens`).set(auth(s1Api)).send({ name: 'x' }), 404, 5, 'SECTOR_NOT_FOUND');
    });
  });

  describe('introspection with an API token as the bearer (operation 20)', () => {
    let s1Api: string;

    beforeAll(async () => {
      s1Api = (await mint(s1AdminToken, s1, 'introspector')).token;
    });

    it("answers 200 with the claims of a token of a user of the same tenant, in any of the tenant's sectors", async () => {
      for (const [token, sectorID, isAdmin, username] of [
        [s1UserToken, s1, false, 's1-user@a.test'],
        [s2AdminToken, s2, true, 's2-admin@a.test'],
        [a.adminToken, a.rootSectorID, true, a.adminEmail],
      ] as const) {
        const res = await t.http().post('/api/v1/introspect').set(auth(s1Api)).send({ token });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({
          sub: expect.stringMatching(UUID),
          username,
          sectorID,
          isAdmin,
          roles: [],
          permissions: [],
          exp: expect.stringMatching(UNIX),
          iat: expect.stringMatching(UNIX),
          tenantID: a.tenantID,
        });
        expect(Number(res.body.exp)).toBeGreaterThan(Number(res.body.iat));
      }
    });

    it('refuses a token of another tenant with 403 TENANT_MISMATCH', async () => {
      const res = await t.http().post('/api/v1/introspect').set(auth(s1Api)).send({ token: b.adminToken });
      expectError(res, 403, 7, 'TENANT_MISMATCH');
      expect(JSON.stringify(res.body)).not.toContain(b.adminEmail);
    });

    it('an API token is not itself an introspectable access token', async () => {
      const res = await t.http().post('/api/v1/introspect').set(auth(s1Api)).send({ token: s1Api });
      expectError(res, 401, 16, 'TOKEN_INVALID');
    });
  });

  describe('revocation', () => {
    it('answers 200 {id}; the token gets 401 TOKEN_INVALID at once and leaves the list', async () => {
      const { token, apiToken } = await mint(s1AdminToken, s1, 'to revoke');
      expect((await t.http().get(`/api/v1/sectors/${s1}/settings`).set(auth(token))).status).toBe(200);
      const res = await t.http().delete(`/api/v1/sectors/${s1}/tokens/${apiToken.id}`).set(auth(s1AdminToken));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: apiToken.id });
      const after = await t.http().get(`/api/v1/sectors/${s1}/settings`).set(auth(token));
      expectError(after, 401, 16, 'TOKEN_INVALID');
      expect(after.headers['www-authenticate']).toBe('Bearer');
      expect(await listed(s1, apiToken.id)).toBeUndefined();
      // Revoking it again: it is gone.
      expectError(await t.http().delete(`/api/v1/sectors/${s1}/tokens/${apiToken.id}`).set(auth(s1AdminToken)), 404, 5, 'API_TOKEN_NOT_FOUND');
    });

    it('answers an unknown or malformed id with 404 API_TOKEN_NOT_FOUND', async () => {
      expectError(await t.http().delete(`/api/v1/sectors/${s1}/tokens/${randomUUID()}`).set(auth(s1AdminToken)), 404, 5, 'API_TOKEN_NOT_FOUND');
      const malformed = await t.http().delete(`/api/v1/sectors/${s1}/tokens/not-a-uuid`).set(auth(s1AdminToken));
      expect([400, 404]).toContain(malformed.status);
    });

    it("answers a token id of another sector, through this sector's path, with 404 and leaves that token working", async () => {
      const other = await mint(s2AdminToken, s2, 'S2 token');
      expectError(await t.http().delete(`/api/v1/sectors/${s1}/tokens/${other.apiToken.id}`).set(auth(s1AdminToken)), 404, 5, 'API_TOKEN_NOT_FOUND');
      // Even the default-sector admin, who may manage both sectors, must name the right one.
      expectError(await t.http().delete(`/api/v1/sectors/${s1}/tokens/${other.apiToken.id}`).set(auth(a.adminToken)), 404, 5, 'API_TOKEN_NOT_FOUND');
      expect((await t.http().get(`/api/v1/sectors/${s2}/settings`).set(auth(other.token))).status).toBe(200);
      expect(await listed(s2, other.apiToken.id)).toBeDefined();
    });
  });

  describe('lastUsedAt', () => {
    it('becomes the time of first use, and is written at most once a minute per token', async () => {
      const { token, apiToken } = await mint(s1AdminToken, s1, 'usage');
      const before = nowSeconds();
      expect((await listed(s1, apiToken.id)).lastUsedAt).toBe('0');

      const firstUseAt = Date.now();
      expect((await t.http().get(`/api/v1/sectors/${s1}/settings`).set(auth(token))).status).toBe(200);
      // The write is not on the request's path: wait for it to land.
      const first = await eventually(async () => {
        const item = await listed(s1, apiToken.id);
        return item.lastUsedAt !== '0' ? (item.lastUsedAt as string) : undefined;
      }, 10_000, 'lastUsedAt set');
      expect(first).toMatch(UNIX);
      expect(Number(first)).toBeGreaterThanOrEqual(before - 5);
      expect(Number(first)).toBeLessThanOrEqual(nowSeconds() + 5);
      const [stored] = await tenantSql(t, a.tenantID, 'select last_used_at::text as at from api_tokens where id = $1', [apiToken.id]);

      // A second use within the minute writes nothing: the stored timestamp stays identical to the microsecond.
      expect((await t.http().get(`/api/v1/sectors/${s1}/users`).set(auth(token))).status).toBe(200);
      // Give a (wrongly) issued write the chance to land before looking; not a timing assertion.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const [afterSecond] = await tenantSql(t, a.tenantID, 'select last_used_at::text as at from api_tokens where id = $1', [apiToken.id]);
      expect(afterSecond.at).toBe(stored.at);
      expect((await listed(s1, apiToken.id)).lastUsedAt).toBe(first);

      // Set it back by SQL to an old value, and clear nothing else. The throttle is an
      // in-memory map in ApiTokenService (token id -> when this instance last wrote
      // last_used_at), so within the same minute this instance still does not rewrite
      // it: the database value is not consulted. (Another instance, or this one after
      // a minute or a restart, would write it again.)
      const old = await tenantSql(
        t,
        a.tenantID,
        `update api_tokens set last_used_at = now() - interval '1 day' where id = $1 returning floor(extract(epoch from last_used_at))::bigint::text as unix`,
        [apiToken.id],
      );
      const oldUnix = ((Array.isArray(old[0]) ? old[0][0] : old[0]) as { unix: string }).unix;
      expect((await t.http().get(`/api/v1/sectors/${s1}/settings`).set(auth(token))).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Everything above ran within the minute after the first use (the premise of this check).
      expect(Date.now() - firstUseAt).toBeLessThan(55_000);
      expect((await listed(s1, apiToken.id)).lastUsedAt).toBe(oldUnix);
    });

    it('is tracked per token: using one token does not mark another as used', async () => {
      const used = await mint(s1AdminToken, s1, 'used');
      const unused = await mint(s1AdminToken, s1, 'unused');
      expect((await t.http().get(`/api/v1/sectors/${s1}/settings`).set(auth(used.token))).status).toBe(200);
      await eventually(async () => (await listed(s1, used.apiToken.id)).lastUsedAt !== '0', 10_000, 'lastUsedAt set');
      expect((await listed(s1, unused.apiToken.id)).lastUsedAt).toBe('0');
    });
  });

  describe('malformed and forged tokens', () => {
    let real: string;

    beforeAll(async () => {
      real = (await mint(s1AdminToken, s1, 'real')).token;
    });

    function changeOneChar(token: string, index: number): string {
      const c = token[index];
      return token.slice(0, index) + (c === 'A' ? 'B' : 'A') + token.slice(index + 1);
    }

    it.each([
      ['iam_garbage', () => 'iam_garbage'],
      ['iam_ alone', () => 'iam_'],
      ['a valid-looking token for a random tenant', () => forgedToken(randomUUID())],
      ['a valid-looking token for an existing tenant, never issued', () => forgedToken(a.tenantID)],
      ['a real token with one character of its random part changed', () => changeOneChar(real, 10)],
      ['a real token with its last character changed', () => changeOneChar(real, real.length - 1)],
      ['a real token with a character appended', () => `${real}A`],
      ['a real token, truncated', () => real.slice(0, -1)],
    ])('refuses %s with 401 TOKEN_INVALID', async (_what, make) => {
      const res = await t.http().get(`/api/v1/sectors/${s1}/settings`).set(auth(make()));
      expectError(res, 401, 16, 'TOKEN_INVALID');
      expect(res.headers['www-authenticate']).toBe('Bearer');
    });

    it('still accepts the real token', async () => {
      expect((await t.http().get(`/api/v1/sectors/${s1}/settings`).set(auth(real))).status).toBe(200);
    });
  });

  describe('who may manage tokens (operation 10 and the list/revoke extensions)', () => {
    it("lets the sector's admin and the default-sector admin mint, list and revoke", async () => {
      for (const caller of [s1AdminToken, a.adminToken]) {
        const { apiToken } = await mint(caller, s1, 'managed');
        expect(apiToken.sectorID).toBe(s1);
        expect((await listTokens(caller, s1)).map((x) => x.id)).toContain(apiToken.id);
        const del = await t.http().delete(`/api/v1/sectors/${s1}/tokens/${apiToken.id}`).set(auth(caller));
        expect(del.status).toBe(200);
        expect(del.body).toEqual({ id: apiToken.id });
      }
      // The default-sector admin also manages the default sector's own tokens.
      const root = await mint(a.adminToken, a.rootSectorID, 'root');
      expect(root.apiToken.sectorID).toBe(a.rootSectorID);
    });

    it("refuses a non-admin of the sector and another sector's admin (403)", async () => {
      const target = await mint(s1AdminToken, s1, 'target');
      for (const caller of [s1UserToken, s2AdminToken]) {
        expectError(await t.http().post(`/api/v1/sectors/${s1}/tokens`).set(auth(caller)).send({ name: 'x' }), 403, 7, 'ROLE_REQUIRED');
        expectError(await t.http().get(`/api/v1/sectors/${s1}/tokens`).set(auth(caller)), 403, 7, 'ROLE_REQUIRED');
        expectError(await t.http().delete(`/api/v1/sectors/${s1}/tokens/${target.apiToken.id}`).set(auth(caller)), 403, 7, 'ROLE_REQUIRED');
      }
      // A sector admin is not an admin of the default sector either.
      expectError(await t.http().post(`/api/v1/sectors/${a.rootSectorID}/tokens`).set(auth(s1AdminToken)).send({ name: 'x' }), 403, 7, 'ROLE_REQUIRED');
      expect(await listed(s1, target.apiToken.id)).toBeDefined();
    });

    it("answers another tenant's admin with 404", async () => {
      const target = await mint(s1AdminToken, s1, 'target');
      expectError(await t.http().post(`/api/v1/sectors/${s1}/tokens`).set(auth(b.adminToken)).send({ name: 'x' }), 404, 5, 'SECTOR_NOT_FOUND');
      expectError(await t.http().get(`/api/v1/sectors/${s1}/tokens`).set(auth(b.adminToken)), 404, 5, 'SECTOR_NOT_FOUND');
      expectError(await t.http().delete(`/api/v1/sectors/${s1}/tokens/${target.apiToken.id}`).set(auth(b.adminToken)), 404, 5, 'SECTOR_NOT_FOUND');
      // The platform admin has no rights over a tenant's tokens either.
      const platform = await t.http().get(`/api/v1/sectors/${s1}/tokens`).set(auth(await t.platformToken()));
      expect([403, 404]).toContain(platform.status);
      expect(await listed(s1, target.apiToken.id)).toBeDefined();
    });

    it('requires a credential (401)', async () => {
      expectError(await t.http().get(`/api/v1/sectors/${s1}/tokens`), 401, 16);
      expectError(await t.http().post(`/api/v1/sectors/${s1}/tokens`).send({ name: 'x' }), 401, 16);
    });
  });

  describe('tenant stats', () => {
    it('count apiTokenCount (revoked tokens leave the count)', async () => {
      const c = await provisionTenant(t);
      const sector = await createSector(t, c.adminToken);
      const stats = async () => {
        const res = await t.http().get(`/api/v1/tenants/${c.tenantID}`).query({ includeStats: 'true' }).set(auth(await t.platformToken()));
        expect(res.status).toBe(200);
        return res.body.stats;
      };
      expect((await stats()).apiTokenCount).toBe(0);
      await mint(c.adminToken, c.rootSectorID, 'one');
      const two = await mint(c.adminToken, sector, 'two');
      await mint(c.adminToken, sector, 'three');
      expect((await stats()).apiTokenCount).toBe(3);
      expect((await t.http().delete(`/api/v1/sectors/${sector}/tokens/${two.apiToken.id}`).set(auth(c.adminToken))).status).toBe(200);
      expect((await stats()).apiTokenCount).toBe(2);
    });
  });
});
