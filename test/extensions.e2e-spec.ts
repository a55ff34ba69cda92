/**
 * Extension modules loaded through EXTENSION_MODULES (docs/extending.md,
 * docs/adr/0047-extension-modules.md), on the real app: the example package
 * (examples/extensions) adds its claim to access tokens (sign-in and refresh),
 * its allow-list policy refuses a sign-in from an address it does not list
 * (PERMISSION_DENIED / SIGN_IN_DENIED_BY_POLICY) and lets the listed ones in,
 * and its subscriber writes the service's events to a file; a policy that
 * throws refuses the sign-in with UNAVAILABLE and is logged with the module's
 * name; a claims contributor that fails refuses the token (UNAVAILABLE) and
 * leaves the refresh token usable; a module that fails to load stops the start,
 * naming it (in process, and the built service's exit code).
 */
import { Logger } from '@nestjs/common';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/main';
import { claimsOf, expectWireError } from './support/contract';
import { createUser, provisionTenant, ProvisionedTenant } from './support/factories';
import { ADMIN_EMAIL, ADMIN_PASSWORD, NO_THROTTLE, startTestApp, TestApp, testConfig } from './support/test-app';
import { eventually } from './support/wait';

const ROOT = join(__dirname, '..');
const EXAMPLE = join(ROOT, 'examples', 'extensions');
const THROWING = join(__dirname, 'support', 'extensions', 'throwing-policy.mjs');
const SWITCHABLE_CLAIMS = join(__dirname, 'support', 'extensions', 'switchable-claims.cjs');
const PERMISSION_DENIED = 7;
const UNAVAILABLE = 14;
const PASSWORD = 'correct horse battery staple';

describe('extension modules', () => {
  describe('the example extension (examples/extensions)', () => {
    let t: TestApp;
    let a: ProvisionedTenant;
    const eventsFile = join(mkdtempSync(join(tmpdir(), 'iam-ext-events-')), 'events.jsonl');
    const signIn = (username: string, from?: string) => {
      const req = t.http().post('/api/v1/login/password');
      if (from) req.set('X-Forwarded-For', from);
      return req.send({ username, password: PASSWORD, sectorID: a.rootSectorID });
    };

    beforeAll(async () => {
      // The example reads its options when the service loads it. Loopback (this spec's requests) and one range are allowed;
      // the proxy (loopback) is trusted, so X-Forwarded-For names the client.
      process.env.IAM_EXAMPLE_ALLOWED_ADDRESSES = '127.0.0.1,::1,198.51.100.0/24';
      process.env.IAM_EXAMPLE_EVENTS_FILE = eventsFile;
      try {
        t = await startTestApp({ env: { ...NO_THROTTLE, EXTENSION_MODULES: EXAMPLE, TRUST_PROXY: 'loopback' } });
      } finally {
        delete process.env.IAM_EXAMPLE_ALLOWED_ADDRESSES;
        delete process.env.IAM_EXAMPLE_EVENTS_FILE;
      }
      a = await provisionTenant(t);
    });

    afterAll(async () => {
      await t?.close();
    });

    it('adds its claims to access tokens, from sign-in and refresh alike, and changes no reserved one', async () => {
      const username = `ann-${Date.now()}`;
      const sub = await createUser(t, a.adminToken, a.rootSectorID, { username, email: `${username}@Example.ORG`, password: PASSWORD });
      const res = await signIn(username);
      expect(res.status).toBe(200);
      const claims = claimsOf(res.body.token);
      expect(claims).toMatchObject({ ext_example: true, email_domain: 'example.org', sub, username, tenantID: a.tenantID, sectorID: a.rootSectorID, isAdmin: false, iss: 'http://iam.test' });
      // The service still accepts the token as its own.
      expect((await t.http().get(`/api/v1/users/${sub}`).set('Authorization', `Bearer ${res.body.token}`)).status).toBe(200);

      const refreshed = await t.http().post('/api/v1/token/refresh').send({ refreshToken: res.body.refreshToken });
      expect(refreshed.status).toBe(200);
      expect(claimsOf(refreshed.body.token)).toMatchObject({ ext_example: true, email_domain: 'example.org', sub, sid: claims.sid });
    });

    it('refuses a sign-in from an address its allow-list does not name, and lets a listed one in', async () => {
      const username = `bob-${Date.now()}`;
      await createUser(t, a.adminToken, a.rootSectorID, { username, email: `${username}@example.com`, password: PASSWORD });

      const refused = await signIn(username, '203.0.113.7');
      const body = expectWireError(refused, 403, PERMISSION_DENIED, 'SIGN_IN_DENIED_BY_POLICY');
      expect(body.message).toBe('Signing in is not allowed from this network.');
      // A wrong password is refused as ever: the policy is asked only of a sign-in about to succeed.
      expectWireError(await t.http().post('/api/v1/login/password').set('X-Forwarded-For', '203.0.113.7').send({ username, password: 'wrong', sectorID: a.rootSectorID }), 401, 16, 'INVALID_CREDENTIALS');

      const allowed = await signIn(username, '198.51.100.20');
      expect(allowed.status).toBe(200);
      expect(allowed.body).toMatchObject({ status: 'SUCCESS', token: expect.any(String) });
    });

    it("hands its subscriber the service's events after their commit (user.created written to its file)", async () => {
      const username = `cy-${Date.now()}`;
      const sub = await createUser(t, a.adminToken, a.rootSectorID, { username, email: `${username}@example.com`, password: PASSWORD });
      const event = await eventually(
        () =>
          existsSync(eventsFile) &&
          readFileSync(eventsFile, 'utf8')
            .split('\n')
            .filter((line) => line !== '')
            .map((line) => JSON.parse(line) as { id: string; type: string; timestamp: string; data: Record<string, unknown> })
            .find((e) => e.type === 'user.created' && e.data.userID === sub),
        10_000,
        `user.created of ${sub} in ${eventsFile}`,
      );
      expect(event).toEqual({
        id: expect.stringMatching(/^msg_/),
        type: 'user.created',
        timestamp: expect.any(String),
        data: expect.objectContaining({ tenantID: a.tenantID, sectorID: a.rootSectorID, userID: sub }),
      });
    });
  });

  describe('a sign-in policy that throws (test/support/extensions/throwing-policy.mjs, an ES module)', () => {
    let t: TestApp;
    let logged: jest.SpyInstance;

    beforeAll(async () => {
      t = await startTestApp({ env: { EXTENSION_MODULES: THROWING } });
    });

    afterAll(async () => {
      logged?.mockRestore();
      await t?.close();
    });

    it('refuses the sign-in with UNAVAILABLE, never lets it through, and logs the failure with the module name', async () => {
      logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      const res = await t.http().post('/api/v1/login/password').send({ username: ADMIN_EMAIL, password: ADMIN_PASSWORD });
      const body = expectWireError(res, 503, UNAVAILABLE, 'EXTENSION_HOOK_FAILED');
      expect(body.message).not.toMatch(/throwing-policy|backend/);
      expect(res.body.token).toBeUndefined();
      expect(logged.mock.calls.map((c) => String(c[0]))).toContainEqual(`Extension hook "${THROWING}" failed: the policy backend is down`);
    });
  });

  describe('a claims contributor that fails (test/support/extensions/switchable-claims.cjs)', () => {
    let t: TestApp;
    const state = globalThis as { iamTestClaimsDown?: boolean };
    const signIn = () => t.http().post('/api/v1/login/password').send({ username: ADMIN_EMAIL, password: ADMIN_PASSWORD });

    beforeAll(async () => {
      t = await startTestApp({ env: { EXTENSION_MODULES: SWITCHABLE_CLAIMS } });
      jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    });

    afterAll(async () => {
      delete state.iamTestClaimsDown;
      jest.restoreAllMocks();
      await t?.close();
    });

    it('refuses the token with UNAVAILABLE rather than issue it without the claims; a refresh token survives the failure', async () => {
      const first = await signIn();
      expect(first.status).toBe(200);
      expect(claimsOf(first.body.token).switchable).toBe('up');

      state.iamTestClaimsDown = true;
      expectWireError(await signIn(), 503, UNAVAILABLE, 'EXTENSION_HOOK_FAILED');
      const refresh = () => t.http().post('/api/v1/token/refresh').send({ refreshToken: first.body.refreshToken });
      expectWireError(await refresh(), 503, UNAVAILABLE, 'EXTENSION_HOOK_FAILED');

      // The refresh token was not spent: once the contributor is back, it works (no reuse detected, the session lives).
      state.iamTestClaimsDown = false;
      const refreshed = await refresh();
      expect(refreshed.status).toBe(200);
      expect(claimsOf(refreshed.body.token)).toMatchObject({ switchable: 'up', sid: claimsOf(first.body.token).sid });
    });
  });

  describe('a module that fails to load', () => {
    it('stops the start with an error naming it', async () => {
      const config = testConfig('postgres://unused.invalid/none', { EXTENSION_MODULES: `${EXAMPLE},./no/such-extension` });
      await expect(createApp(config, config.databaseUrl!)).rejects.toThrow(/^Extension module "\.\/no\/such-extension" failed to load: .*Cannot find module/);
    });

    it('makes the built service exit 1, naming it', () => {
      const run = spawnSync(process.execPath, [join(ROOT, 'dist', 'src', 'main.js')], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 60_000,
        env: {
          PATH: process.env.PATH,
          NODE_ENV: 'test',
          DATABASE_URL: 'postgres://127.0.0.1:1/none',
          DATA_DIR: mkdtempSync(join(tmpdir(), 'iam-ext-start-')),
          MASTER_KEY: 'test-master-key-0123456789abcdef0123456789',
          EXTENSION_MODULES: './examples/extensions,@iam-examples/not-installed',
        },
      });
      expect(run.status).toBe(1);
      expect(run.stdout + run.stderr).toMatch(/Start failed: Extension module "@iam-examples\/not-installed" failed to load/);
    });
  });
});
