/**
 * Access tokens end to end (docs/api.md, Credentials; interface op 20): tokens verify with a
 * standard JOSE library against the published JWK Set; introspection answers for
 * the caller's tenant and refuses expired, tampered, forged, unsigned, foreign and
 * orphaned tokens, exactly as the bearer check does; key rotation keeps old tokens
 * valid while new ones carry the new kid.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KeyService } from '../src/keys/key.service';
import { createSector, expectError, provisionTenant, ProvisionedTenant, seedUser, tenantSql, uniqueSlug } from './support/factories';
import { startTestApp, TestApp } from './support/test-app';
import { untilNotified } from './support/wait';

type Jose = typeof import('jose', { with: { 'resolution-mode': 'import' } });

const ISSUER = 'http://iam.test';
const MASTER_KEY = 'test-master-key-0123456789abcdef0123456789'; // the one test/support/test-app.ts boots with
const ROOT = join(__dirname, '..');

function b64urlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function decodePart(token: string, index: 0 | 1): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[index], 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** Replaces the character in the middle of one part of a JWT with a different base64url character. */
function flipChar(token: string, part: 1 | 2): string {
  const parts = token.split('.');
  const s = parts[part];
  const i = Math.floor(s.length / 2);
  parts[part] = s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
  return parts.join('.');
}

async function sleepUntil(epochMs: number): Promise<void> {
  const wait = epochMs - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}

describe('access tokens, JWKS and introspection', () => {
  let t: TestApp;
  let jose: Jose;
  let a: ProvisionedTenant;
  let b: ProvisionedTenant;

  const introspect = (callerToken: string | undefined, token: string) => {
    const req = t.http().post('/api/v1/introspect');
    if (callerToken !== undefined) req.set('Authorization', `Bearer ${callerToken}`);
    return req.send({ token });
  };
  const jwks = () => jose.createRemoteJWKSet(new URL(`${t.baseUrl}/.well-known/jwks.json`));
  const kidOf = (token: string) => decodePart(token, 0).kid as string;

  /** Asserts a 401 with reason and the WWW-Authenticate challenge. */
  const expect401 = (res: Parameters<typeof expectError>[0], reason?: string) => {
    expectError(res, 401, 16, reason);
    expect(res.headers['www-authenticate']).toBe('Bearer');
  };

  beforeAll(async () => {
    jose = await import('jose');
    t = await startTestApp();
    a = await provisionTenant(t);
    b = await provisionTenant(t);
  });
  afterAll(() => t?.close());

  describe('a login token', () => {
    it('verifies with jose against the published JWK Set, with the contract claims', async () => {
      const res = await t.http().post('/api/v1/login/password').send({ username: a.adminEmail, password: a.adminPassword, sectorID: a.rootSectorID });
      expect(res.status).toBe(200);
      const token = res.body.token as string;

      const { payload, protectedHeader } = await jose.jwtVerify(token, jwks(), { issuer: ISSUER });
      expect(protectedHeader.alg).toBe('ES256');
      expect(protectedHeader.kid).toBe(a.kid);

      expect(Object.keys(payload).sort()).toEqual(
        expect.arrayContaining(['exp', 'iat', 'isAdmin', 'iss', 'jti', 'sectorID', 'sub', 'tenantID', 'username'].sort()),
      );
      const [user] = await tenantSql(t, a.tenantID, 'SELECT id, username FROM users WHERE email = $1', [a.adminEmail]);
      expect(payload).toMatchObject({
        iss: ISSUER,
        sub: user.id,
        tenantID: a.tenantID,
        sectorID: a.rootSectorID,
        username: user.username,
        isAdmin: true,
      });
      expect(typeof payload.jti).toBe('string');
      expect((payload.jti as string).length).toBeGreaterThan(0);
      expect(Number.isInteger(payload.iat)).toBe(true);
      expect(payload.exp! - payload.iat!).toBe(3600);
      expect(Math.abs(payload.iat! - Date.now() / 1000)).toBeLessThan(60);
    });

    it('of the platform admin verifies too, with the platform tenant kid', async () => {
      const token = await t.platformToken();
      const [platform] = await t.sql<{ id: string; kid: string; root_sector_id: string }>('SELECT id, kid, root_sector_id FROM tenants WHERE is_platform');
      const { payload, protectedHeader } = await jose.jwtVerify(token, jwks(), { issuer: ISSUER });
      expect(protectedHeader).toMatchObject({ alg: 'ES256', kid: platform.kid });
      expect(payload).toMatchObject({ tenantID: platform.id, sectorID: platform.root_sector_id, isAdmin: true });
    });

    it('has a unique jti per issuance', async () => {
      const t1 = await t.login(a.adminEmail, a.adminPassword, a.rootSectorID);
      const t2 = await t.login(a.adminEmail, a.adminPassword, a.rootSectorID);
      expect(decodePart(t1, 1).jti).not.toBe(decodePart(t2, 1).jti);
    });
  });

  describe('GET /.well-known/jwks.json', () => {
    it('lists the public keys of every tenant and no private members', async () => {
      const res = await t.http().get('/.well-known/jwks.json');
      expect(res.status).toBe(200);
      const keys = res.body.keys as Array<Record<string, unknown>>;
      const tenants = await t.sql<{ kid: string; is_platform: boolean }>('SELECT kid, is_platform FROM tenants');
      expect(tenants.some((x) => x.is_platform)).toBe(true);
      const kids = keys.map((k) => k.kid);
      for (const { kid } of tenants) expect(kids).toContain(kid);
      expect(kids).toEqual(expect.arrayContaining([a.kid, b.kid]));
      expect(new Set(kids).size).toBe(kids.length);
      for (const key of keys) {
        expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
        expect(typeof key.x).toBe('string');
        expect(typeof key.y).toBe('string');
        for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) expect(key).not.toHaveProperty(secret);
      }
    });

    it('is public (no credential needed) and cacheable', async () => {
      const res = await t.http().get('/.well-known/jwks.json').set('Authorization', 'Bearer not-a-token');
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toMatch(/max-age=\d+/);
    });
  });

  describe('POST /api/v1/introspect', () => {
    let sectorID: string;
    let userID: string;
    let userToken: string;
    const userEmail = 'Intro.User@Example.test';
    const userPassword = 'intro-user-password';

    beforeAll(async () => {
      sectorID = await createSector(t, a.adminToken);
      userID = await seedUser(t, a.tenantID, sectorID, { email: userEmail, username: 'intro-user', password: userPassword });
      userToken = await t.login('intro-user', userPassword, sectorID);
    });

    it('returns the token facts for a caller of the same tenant', async () => {
      const res = await introspect(a.adminToken, userToken);
      expect(res.status).toBe(200);
      const claims = decodePart(userToken, 1);
      expect(res.body).toEqual({
        sub: userID,
        username: 'intro-user',
        sectorID,
        isAdmin: false,
        roles: [],
        permissions: [],
        exp: String(claims.exp),
        iat: String(claims.iat),
        tenantID: a.tenantID,
      });
    });

    it('lets a non-admin of the tenant introspect (its own token too)', async () => {
      const res = await introspect(userToken, userToken);
      expect(res.status).toBe(200);
      expect(res.body.sub).toBe(userID);
    });

    it('reports the admin flag as stored now, not as issued', async () => {
      const token = await t.login('intro-user', userPassword, sectorID);
      await tenantSql(t, a.tenantID, 'UPDATE users SET is_admin = true WHERE id = $1', [userID]);
      try {
        const res = await introspect(a.adminToken, token);
        expect(res.status).toBe(200);
        expect(decodePart(token, 1).isAdmin).toBe(false);
        expect(res.body.isAdmin).toBe(true);
      } finally {
        await tenantSql(t, a.tenantID, 'UPDATE users SET is_admin = false WHERE id = $1', [userID]);
      }
    });

    it('refuses a caller without a bearer credential', async () => {
      expect401(await introspect(undefined, userToken), 'CREDENTIAL_MISSING');
      const basic = await t.http().post('/api/v1/introspect').set('Authorization', 'Basic dXNlcjpwdw==').send({ token: userToken });
      expect401(basic, 'CREDENTIAL_MISSING');
    });

    it('refuses a missing or empty token field', async () => {
      expectError(await t.http().post('/api/v1/introspect').set('Authorization', `Bearer ${a.adminToken}`).send({}), 400, 3);
      expectError(await introspect(a.adminToken, ''), 400, 3);
    });

    it('refuses another tenant’s token (PERMISSION_DENIED, TENANT_MISMATCH)', async () => {
      expectError(await introspect(a.adminToken, b.adminToken), 403, 7, 'TENANT_MISMATCH');
      expectError(await introspect(b.adminToken, userToken), 403, 7, 'TENANT_MISMATCH');
      expectError(await introspect(await t.platformToken(), a.adminToken), 403, 7, 'TENANT_MISMATCH');
    });

    it('refuses a token that is not a JWT at all', async () => {
      expect401(await introspect(a.adminToken, 'not-a-jwt'), 'TOKEN_INVALID');
      expect401(await introspect(a.adminToken, 'a.b.c'), 'TOKEN_INVALID');
    });

    it('refuses a token with a flipped character in the payload or the signature', async () => {
      const payloadFlipped = flipChar(userToken, 1);
      const signatureFlipped = flipChar(userToken, 2);
      expect(payloadFlipped).not.toBe(userToken);
      expect(signatureFlipped).not.toBe(userToken);
      expect401(await introspect(a.adminToken, payloadFlipped), 'TOKEN_INVALID');
      expect401(await introspect(a.adminToken, signatureFlipped), 'TOKEN_INVALID');

      // A well-formed but edited payload (privilege escalation attempt) with the original signature.
      const [h, , s] = userToken.split('.');
      const escalated = `${h}.${b64urlJson({ ...decodePart(userToken, 1), isAdmin: true, sub: a.adminEmail })}.${s}`;
      expect401(await introspect(a.adminToken, escalated), 'TOKEN_INVALID');
    });

    it('refuses a token signed by another key under the tenant’s kid', async () => {
      const { privateKey } = await jose.generateKeyPair('ES256');
      const forged = await new jose.SignJWT(decodePart(userToken, 1))
        .setProtectedHeader({ alg: 'ES256', kid: a.kid, typ: 'JWT' })
        .sign(privateKey);
      expect(kidOf(forged)).toBe(a.kid);
      expect401(await introspect(a.adminToken, forged), 'TOKEN_INVALID');
      // jose itself agrees the forgery does not verify against the published keys.
      await expect(jose.jwtVerify(forged, jwks(), { issuer: ISSUER })).rejects.toThrow();
    });

    it('refuses a token under a kid nobody published', async () => {
      const { privateKey } = await jose.generateKeyPair('ES256');
      const unknownKid = await new jose.SignJWT(decodePart(userToken, 1))
        .setProtectedHeader({ alg: 'ES256', kid: 'no-such-kid' })
        .sign(privateKey);
      expect401(await introspect(a.adminToken, unknownKid), 'TOKEN_INVALID');
    });

    it('refuses an unsigned token (alg none), with or without a trailing signature part', async () => {
      const header = b64urlJson({ alg: 'none', typ: 'JWT', kid: a.kid });
      const payload = b64urlJson(decodePart(userToken, 1));
      const unsigned = `${header}.${payload}.`;
      const res = await introspect(a.adminToken, unsigned);
      expect401(res, 'TOKEN_INVALID');
      const withSig = `${header}.${payload}.${userToken.split('.')[2]}`;
      expect401(await introspect(a.adminToken, withSig), 'TOKEN_INVALID');
      // Also refused with an HMAC algorithm (no key confusion with the public key).
      const hs = `${b64urlJson({ alg: 'HS256', typ: 'JWT', kid: a.kid })}.${payload}.${userToken.split('.')[2]}`;
      expect401(await introspect(a.adminToken, hs), 'TOKEN_INVALID');
    });

    it('checks issuer, tenant ownership of the key and expiry even under the real key', async () => {
      // Signed with tenant A's real private key (taken from the running service), so only the claims are wrong.
      const realKey = await t.app.get(KeyService).privateKey(a.kid);
      const sign = (claims: Record<string, unknown>) =>
        new jose.SignJWT({ ...decodePart(userToken, 1), ...claims }).setProtectedHeader({ alg: 'ES256', kid: a.kid, typ: 'JWT' }).sign(realKey);

      // Control: a faithful copy verifies.
      expect((await introspect(a.adminToken, await sign({ jti: 'copy' }))).status).toBe(200);
      expect401(await introspect(a.adminToken, await sign({ iss: 'http://evil.test' })), 'TOKEN_INVALID');
      // Tenant B's claim under tenant A's key: the key owner decides, never the claim.
      const crossTenant = await sign({ tenantID: b.tenantID });
      expect401(await introspect(a.adminToken, crossTenant), 'TOKEN_INVALID');
      expect401(await introspect(b.adminToken, crossTenant), 'TOKEN_INVALID');
      const now = Math.floor(Date.now() / 1000);
      expect401(await introspect(a.adminToken, await sign({ iat: now - 120, exp: now - 60 })), 'TOKEN_EXPIRED');
      expect401(await introspect(a.adminToken, await sign({ sub: 'c0ffee00-0000-4000-8000-000000000000' })), 'TOKEN_INVALID');
    });

    it('refuses the token of a deleted user, as introspected token and as bearer', async () => {
      const doomedID = await seedUser(t, a.tenantID, sectorID, { email: 'doomed@example.test', password: 'doomed-password' });
      const token = await t.login('doomed@example.test', 'doomed-password', sectorID);
      expect((await introspect(a.adminToken, token)).status).toBe(200);
      await tenantSql(t, a.tenantID, 'DELETE FROM users WHERE id = $1', [doomedID]);
      await untilNotified(async () => (await introspect(a.adminToken, token)).status === 401);
      expect401(await introspect(a.adminToken, token), 'TOKEN_INVALID');
      expect401(await introspect(token, a.adminToken), 'TOKEN_INVALID');
    });

    it('refuses an expired token exactly after exp, as introspected token and as bearer', async () => {
      const shortSector = await createSector(t, a.adminToken);
      await seedUser(t, a.tenantID, shortSector, { email: 'short@example.test', password: 'short-lived-pw', isAdmin: true });
      const put = await t
        .http()
        .put(`/api/v1/sectors/${shortSector}/settings`)
        .set('Authorization', `Bearer ${a.adminToken}`)
        .send({ AccessTokenDuration: '1' });
      expect(put.status).toBe(200);
      expect(put.body.AccessTokenDuration).toBe('1');

      const token = await t.login('short@example.test', 'short-lived-pw', shortSector);
      const claims = decodePart(token, 1) as { exp: number; iat: number };
      expect(claims.exp - claims.iat).toBe(1);
      await sleepUntil(claims.exp * 1000 + 1100);

      expect401(await introspect(a.adminToken, token), 'TOKEN_EXPIRED');
      const asBearer = await t.http().get('/api/v1/sectors').set('Authorization', `Bearer ${token}`);
      expect401(asBearer, 'TOKEN_EXPIRED');
      expect401(await introspect(token, a.adminToken), 'TOKEN_EXPIRED');
    });

    it('applies the same refusals when the bad token is the bearer credential', async () => {
      const list = (credential: string) => t.http().get('/api/v1/sectors').set('Authorization', `Bearer ${credential}`);
      expect((await list(a.adminToken)).status).toBe(200);
      expect401(await list(flipChar(a.adminToken, 1)), 'TOKEN_INVALID');
      expect401(await list(flipChar(a.adminToken, 2)), 'TOKEN_INVALID');

      const { privateKey } = await jose.generateKeyPair('ES256');
      const forged = await new jose.SignJWT(decodePart(a.adminToken, 1)).setProtectedHeader({ alg: 'ES256', kid: a.kid }).sign(privateKey);
      expect401(await list(forged), 'TOKEN_INVALID');

      const none = `${b64urlJson({ alg: 'none', typ: 'JWT', kid: a.kid })}.${b64urlJson(decodePart(a.adminToken, 1))}.`;
      expect401(await list(none), 'TOKEN_INVALID');
      expect401(await t.http().get('/api/v1/sectors'), 'CREDENTIAL_MISSING');
    });
  });

  describe('key rotation', () => {
    it('publishes the new key beside the old one; old tokens stay valid, new ones carry the new kid', async () => {
      const c = await provisionTenant(t);
      const oldToken = c.adminToken;
      expect(kidOf(oldToken)).toBe(c.kid);

      const { oldKid, newKid } = await t.app.get(KeyService).rotate(c.tenantID);
      expect(oldKid).toBe(c.kid);
      expect(newKid).not.toBe(oldKid);

      const keys = (await t.http().get('/.well-known/jwks.json')).body.keys as Array<{ kid: string }>;
      expect(keys.map((k) => k.kid)).toEqual(expect.arrayContaining([oldKid, newKid]));

      // The old token still verifies, through the service and through jose.
      const old = await introspect(oldToken, oldToken);
      expect(old.status).toBe(200);
      expect(old.body.tenantID).toBe(c.tenantID);
      await jose.jwtVerify(oldToken, jwks(), { issuer: ISSUER });

      // A new login signs with the new key.
      const newToken = await t.login(c.adminEmail, c.adminPassword, c.rootSectorID);
      expect(kidOf(newToken)).toBe(newKid);
      const { protectedHeader } = await jose.jwtVerify(newToken, jwks(), { issuer: ISSUER });
      expect(protectedHeader.kid).toBe(newKid);
      expect((await introspect(oldToken, newToken)).status).toBe(200);
      expect((await introspect(newToken, oldToken)).status).toBe(200);

      // The tenant read shows the new kid.
      const read = await t.http().get(`/api/v1/tenants/${c.tenantID}`).set('Authorization', `Bearer ${await t.platformToken()}`);
      expect(read.status).toBe(200);
      expect(read.body.tenant.kid).toBe(newKid);

      // Other tenants are untouched.
      const other = await t.login(a.adminEmail, a.adminPassword, a.rootSectorID);
      expect(kidOf(other)).toBe(a.kid);
    });

    const cli = join(ROOT, 'src/cli/rotate-key.ts');
    (existsSync(cli) ? it : it.skip)('rotates through the CLI (npm run keys:rotate -- <slug>)', async () => {
      const built = join(ROOT, 'dist/src/cli/rotate-key.js');
      if (!existsSync(built)) throw new Error(`${built} is missing: build first (npm run build; npm test does it in pretest)`);
      const d = await provisionTenant(t, uniqueSlug('cli'));
      const oldToken = d.adminToken;

      const dataDir = mkdtempSync(join(tmpdir(), 'iam-cli-'));
      const env: NodeJS.ProcessEnv = { ...process.env };
      delete env.TEST_DATABASE_URL;
      delete env.IAM_TEST_PG_URL;
      Object.assign(env, {
        NODE_ENV: 'test',
        DATABASE_URL: t.databaseUrl,
        DATA_DIR: dataDir,
        TENANCY_MODE: t.config.tenancyMode,
        PUBLIC_URL: ISSUER,
        MASTER_KEY,
        BOOTSTRAP_ADMIN_EMAIL: 'root@platform.test',
        BOOTSTRAP_ADMIN_PASSWORD: 'platform-admin-pw',
        BCRYPT_COST: '4',
        LOG_LEVEL: 'log',
      });
      const run = (args: string[]) => promisify(execFile)(process.execPath, [built, ...args], { cwd: ROOT, env, timeout: 60_000 });
      let unknown: { code?: number; stdout?: string; stderr?: string } = {};
      const { stdout, stderr } = await run([d.slug])
        .then(async (ok) => {
          unknown = await run(['no-such-tenant-slug']).then(() => ({ code: 0 }), (err: { code?: number; stdout?: string; stderr?: string }) => err);
          return ok;
        })
        .finally(() => rmSync(dataDir, { recursive: true, force: true }));
      // An unknown slug fails with a message and a non-zero exit, rotating nothing.
      expect(unknown.code).toBe(1);
      expect(`${unknown.stdout}${unknown.stderr}`).toContain('no-such-tenant-slug');
      const output = stdout + stderr;
      expect(output).toContain(d.slug);
      expect(output).toContain(d.kid);

      const [row] = await t.sql<{ kid: string }>('SELECT kid FROM tenants WHERE id = $1', [d.tenantID]);
      expect(row.kid).not.toBe(d.kid);
      expect(output).toContain(row.kid);
      const stored = await t.sql<{ kid: string; retired: boolean }>('SELECT kid, retired_at IS NOT NULL AS retired FROM signing_keys WHERE tenant_id = $1', [d.tenantID]);
      expect(stored).toEqual(expect.arrayContaining([{ kid: d.kid, retired: true }, { kid: row.kid, retired: false }]));

      // The running instance picks the rotation up within seconds (tenant cache, key refresh).
      const deadline = Date.now() + 25_000;
      let newToken = '';
      let jwksKids: string[] = [];
      let introspected = 0;
      while (Date.now() < deadline) {
        newToken = await t.login(d.adminEmail, d.adminPassword, d.rootSectorID);
        if (kidOf(newToken) === row.kid) {
          introspected = (await introspect(oldToken, newToken)).status;
          jwksKids = ((await t.http().get('/.well-known/jwks.json')).body.keys as Array<{ kid: string }>).map((k) => k.kid);
          if (introspected === 200 && jwksKids.includes(row.kid)) break;
        }
        await new Promise((r) => setTimeout(r, 500));
      }
      expect(kidOf(newToken)).toBe(row.kid);
      expect(introspected).toBe(200);
      expect(jwksKids).toEqual(expect.arrayContaining([d.kid, row.kid]));
      expect((await introspect(newToken, oldToken)).status).toBe(200);
    }, 90_000);

    it('refuses rotating an unknown tenant', async () => {
      await expect(t.app.get(KeyService).rotate('00000000-0000-4000-8000-000000000000')).rejects.toThrow();
    });
  });
});
