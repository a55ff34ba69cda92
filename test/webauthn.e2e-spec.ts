/**
 * Passkeys in a real browser (docs/api.md, Passkeys; ops 14, 15, 18, 19): Debian's
 * chromium through playwright-core with the DevTools virtual authenticator (CTAP2,
 * resident keys, user verification), on a page served for the test from
 * http://localhost:<port> — the sector's relying party is `localhost` with that
 * origin. The page calls navigator.credentials.create()/.get() with the service's
 * options and the spec posts `credential.toJSON()` back. Covered: registration from
 * the profile, passkey sign-in with a username, usernameless (discoverable)
 * sign-in, the passkey as the second factor after a password (a user with a
 * passkey, and an MFA-required sector), managing passkeys and the last-factor
 * refusal. If chromium cannot start, the spec fails.
 */
import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { closeAll, PasskeyPage, serveTestPage, startBrowser, TestOrigin } from './support/browser';
import { claimsOf, expectWireError, TRANSACTION_ID, UNIX, UUID } from './support/contract';
import { createSector, createUser, provisionTenant, ProvisionedTenant } from './support/factories';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';
import { userHandleOf } from './support/webauthn-crafting';

const PASSWORD = 'correct horse battery staple';
const tag = randomBytes(3).toString('hex');
const email = (name: string) => `${name}.${tag}@example.test`;

jest.setTimeout(90_000);

describe('passkeys in chromium with a virtual authenticator', () => {
  let site: TestOrigin;
  let browser: Browser;
  let t: TestApp;
  let a: ProvisionedTenant;
  /** Sector whose relying party is localhost with the test page's origin. */
  let S: string;
  /** The same relying party; MFARequired once its user has a passkey. */
  let SM: string;
  let ana: { sub: string; email: string; token: string };
  let page: PasskeyPage;
  let anaCredentialId: string;

  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const creds = (sub: string) => `/api/v1/users/${sub}/webauthn-credentials`;
  const passwordLogin = (username: string, sectorID: string) => t.http().post('/api/v1/login/password').send({ username, password: PASSWORD, sectorID });

  async function newUser(sectorID: string, name: string): Promise<{ sub: string; email: string; token: string }> {
    const address = email(name);
    const sub = await createUser(t, a.adminToken, sectorID, { email: address, password: PASSWORD, profile: { name: `${name} Example` } });
    return { sub, email: address, token: await t.login(address, PASSWORD, sectorID) };
  }

  /** Registration from the profile page: begin (18), the browser creates, finish (19). Answers the credential's JSON. */
  async function registerIn(p: PasskeyPage, token: string, keyName: string): Promise<Record<string, any>> {
    const begin = await t.http().post('/api/v1/webauthn/registration/begin').set(bearer(token)).send({ keyName });
    expect(begin.status).toBe(200);
    const credential = await p.create(begin.body.options);
    const finish = await t.http().post('/api/v1/webauthn/registration/finish').set(bearer(token)).send({ ...credential, transactionID: begin.body.transactionID });
    expect({ status: finish.status, body: finish.body }).toEqual({ status: 200, body: { sub: claimsOf(token).sub, type: 'public-key' } });
    return credential;
  }

  /** Sign-in with the passkey: begin (14), the browser asserts, finish (15). */
  async function passkeySignIn(p: PasskeyPage, body: Record<string, unknown>) {
    const begin = await t.http().post('/api/v1/login/webauthn/begin').send(body);
    expect(begin.status).toBe(200);
    const assertion = await p.get(begin.body.credentialAssertion.publicKey);
    const finish = await t
      .http()
      .post('/api/v1/login/webauthn/finish')
      .send({ ...assertion, transactionID: begin.body.transactionID, sectorID: body.sectorID });
    return { begin: begin.body, assertion, finish };
  }

  beforeAll(async () => {
    site = await serveTestPage();
    browser = await startBrowser();
    t = await startTestApp({ env: NO_THROTTLE });
    a = await provisionTenant(t);
    S = await createSector(t, a.adminToken, undefined, { domain: 'localhost', allowedOrigins: [site.origin] });
    SM = await createSector(t, a.adminToken, undefined, { domain: 'localhost', allowedOrigins: [site.origin] });
    const settings = await t
      .http()
      .put(`/api/v1/sectors/${S}/settings`)
      .set(bearer(a.adminToken))
      .send({ WebAuthnRPID: 'localhost', WebAuthnRPOrigins: [site.origin], WebAuthnRPDisplayName: 'Browser Shop' });
    expect(settings.status).toBe(200);
    ana = await newUser(S, 'ana');
    page = await PasskeyPage.open(browser, site.origin);
  });

  afterAll(() => closeAll([page, browser], site, t));

  it('registers a passkey from the profile page (operations 18 and 19)', async () => {
    const begin = await t.http().post('/api/v1/webauthn/registration/begin').set(bearer(ana.token)).send({ sectorID: S, keyName: 'This laptop' });
    expect(begin.status).toBe(200);
    expect(begin.body).toEqual({
      options: {
        challenge: expect.stringMatching(/^[\w-]{43}$/),
        rp: { name: 'Browser Shop', icon: '', id: 'localhost' },
        user: { name: ana.email, icon: '', displayName: 'ana Example', id: userHandleOf(ana.sub) },
        pubKeyCredParams: [
          { type: 'public-key', alg: -7 },
          { type: 'public-key', alg: -257 },
          { type: 'public-key', alg: -8 },
        ],
        authenticatorSelection: { authenticatorAttachment: '', requireResidentKey: false, residentKey: 'preferred', userVerification: 'preferred' },
        timeout: expect.any(Number),
        excludeCredentials: [],
        extensions: {},
        attestation: 'none',
      },
      transactionID: expect.stringMatching(TRANSACTION_ID),
      sectorID: S,
    });
    const credential = await page.create(begin.body.options);
    expect(credential).toEqual(expect.objectContaining({ id: expect.any(String), rawId: expect.any(String), type: 'public-key' }));
    const finish = await t.http().post('/api/v1/webauthn/registration/finish').set(bearer(ana.token)).send({ ...credential, transactionID: begin.body.transactionID });
    expect({ status: finish.status, body: finish.body }).toEqual({ status: 200, body: { sub: ana.sub, type: 'public-key' } });
    anaCredentialId = credential.id as string;

    // The browser holds a discoverable credential for localhost under the user's handle.
    const stored = await page.storedCredentials();
    expect(stored).toEqual([expect.objectContaining({ isResidentCredential: true, rpId: 'localhost' })]);
    expect(Buffer.from(stored[0].userHandle!, 'base64').toString('base64url')).toBe(userHandleOf(ana.sub));

    const list = await t.http().get(creds(ana.sub)).set(bearer(ana.token));
    expect({ status: list.status, body: list.body }).toEqual({
      status: 200,
      body: {
        credentials: [
          {
            id: anaCredentialId,
            keyName: 'This laptop',
            createdAt: expect.stringMatching(UNIX),
            lastUsedAt: '0',
            transports: ['internal'],
            backedUp: false,
            aaguid: expect.stringMatching(UUID),
            cloneWarning: false,
            flagged: false,
            flaggedAt: '0',
          },
        ],
      },
    });

    // The next registration excludes it: the browser refuses to register the same authenticator twice.
    const again = await t.http().post('/api/v1/webauthn/registration/begin').set(bearer(ana.token)).send({ keyName: 'twice' });
    expect(again.body.options.excludeCredentials).toEqual([{ type: 'public-key', id: anaCredentialId, transports: ['internal'] }]);
    expect(await page.createError(again.body.options)).toBe('InvalidStateError');
  });

  it('a user with a passkey: the password asks for it (MFA_REQUIRED / WEBAUTHN), and the passkey completes the sign-in', async () => {
    const pw = await passwordLogin(ana.email, S);
    expect(pw.body).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), status: 'MFA_REQUIRED', challengeType: 'WEBAUTHN' });
    const { begin, finish } = await passkeySignIn(page, { transactionID: pw.body.transactionID, sectorID: S });
    expect(begin.transactionID).toBe(pw.body.transactionID);
    expect(begin.credentialAssertion.publicKey.allowCredentials).toEqual([{ type: 'public-key', id: anaCredentialId, transports: ['internal'] }]);
    expect({ status: finish.status, body: finish.body }).toEqual({
      status: 200,
      body: { transactionID: pw.body.transactionID, status: 'SUCCESS', challengeType: '', token: expect.any(String), refreshToken: expect.any(String) },
    });
    expect(claimsOf(finish.body.token)).toMatchObject({ sub: ana.sub, sectorID: S });
  });

  it('signs in with the passkey alone, naming the user', async () => {
    const { begin, finish } = await passkeySignIn(page, { username: ana.email, sectorID: S });
    expect(begin.credentialAssertion.publicKey).toEqual({
      challenge: expect.any(String),
      timout: expect.any(Number),
      timeout: expect.any(Number),
      rpID: 'localhost',
      // Named before any factor: no transports (they would tell real passkeys from the stand-ins of logins without any).
      allowCredentials: [{ type: 'public-key', id: anaCredentialId, transports: [] }],
      userVerification: 'required',
      extensions: {},
    });
    expect({ status: finish.status, result: finish.body.status, sub: claimsOf(finish.body.token).sub }).toEqual({ status: 200, result: 'SUCCESS', sub: ana.sub });
    const list = await t.http().get(creds(ana.sub)).set(bearer(ana.token));
    expect(list.body.credentials[0].lastUsedAt).toMatch(UNIX);
  });

  it('signs in usernameless: the discoverable passkey names the user', async () => {
    const { begin, assertion, finish } = await passkeySignIn(page, { sectorID: S });
    expect(begin.credentialAssertion.publicKey.allowCredentials).toEqual([]);
    expect(assertion.response.userHandle).toBe(userHandleOf(ana.sub));
    expect({ status: finish.status, result: finish.body.status }).toEqual({ status: 200, result: 'SUCCESS' });
    expect(claimsOf(finish.body.token).sub).toBe(ana.sub);
    // The completed flow proves self-access like any sign-in.
    const self = await t.http().get(`/api/v1/users/${ana.sub}`).query({ transactionID: finish.body.transactionID });
    expect({ status: self.status, sub: self.body.sub }).toEqual({ status: 200, sub: ana.sub });
  });

  it('in an MFA-required sector the passkey is the second factor, and the last factor cannot be removed', async () => {
    const bob = await newUser(SM, 'bob');
    const bobPage = await PasskeyPage.open(browser, site.origin);
    try {
      const first = await registerIn(bobPage, bob.token, 'Phone');
      const mfa = await t.http().put(`/api/v1/sectors/${SM}/settings`).set(bearer(a.adminToken)).send({ MFARequired: true });
      expect(mfa.status).toBe(200);

      const pw = await passwordLogin(bob.email, SM);
      expect(pw.body).toEqual({ transactionID: expect.any(String), status: 'MFA_REQUIRED', challengeType: 'WEBAUTHN' });
      const second = await passkeySignIn(bobPage, { transactionID: pw.body.transactionID, sectorID: SM });
      expect({ status: second.finish.status, result: second.finish.body.status }).toEqual({ status: 200, result: 'SUCCESS' });
      const token = second.finish.body.token as string;

      // The passkey alone also satisfies the sector's MFA (possession plus the user's verification).
      const alone = await passkeySignIn(bobPage, { sectorID: SM });
      expect({ status: alone.finish.status, result: alone.finish.body.status, sub: claimsOf(alone.finish.body.token).sub }).toEqual({
        status: 200,
        result: 'SUCCESS',
        sub: bob.sub,
      });

      // Management: rename; the only factor stays.
      const renamed = await t.http().patch(`${creds(bob.sub)}/${first.id}`).set(bearer(token)).send({ keyName: 'Old phone' });
      expect({ status: renamed.status, keyName: renamed.body.keyName }).toEqual({ status: 200, keyName: 'Old phone' });
      expectWireError(await t.http().delete(`${creds(bob.sub)}/${first.id}`).set(bearer(token)), 400, 9, 'LAST_FACTOR', { metadata: {} });

      // A second passkey on a new authenticator; then the first may go, and the second is the last.
      await bobPage.replaceAuthenticator();
      const next = await registerIn(bobPage, token, 'New phone');
      const list = await t.http().get(creds(bob.sub)).set(bearer(token));
      expect(list.body.credentials.map((c: { id: string; keyName: string }) => [c.id, c.keyName])).toEqual([
        [first.id, 'Old phone'],
        [next.id, 'New phone'],
      ]);
      const removed = await t.http().delete(`${creds(bob.sub)}/${first.id}`).set(bearer(token));
      expect({ status: removed.status, body: removed.body }).toEqual({ status: 200, body: { id: first.id } });
      expectWireError(await t.http().delete(`${creds(bob.sub)}/${next.id}`).set(bearer(token)), 400, 9, 'LAST_FACTOR', { metadata: {} });
      const after = await t.http().get(creds(bob.sub)).set(bearer(token));
      expect(after.body.credentials.map((c: { id: string }) => c.id)).toEqual([next.id]);

      // The remaining passkey still signs in after the password.
      const pw2 = await passwordLogin(bob.email, SM);
      const again = await passkeySignIn(bobPage, { transactionID: pw2.body.transactionID, sectorID: SM });
      expect(again.finish.body.status).toBe('SUCCESS');
    } finally {
      await bobPage.close();
    }
  });

  it('lists, renames and deletes passkeys; without one the password alone signs in again', async () => {
    const renamed = await t.http().patch(`${creds(ana.sub)}/${anaCredentialId}`).set(bearer(ana.token)).send({ keyName: 'Work laptop' });
    expect({ status: renamed.status, body: renamed.body }).toEqual({
      status: 200,
      body: expect.objectContaining({ id: anaCredentialId, keyName: 'Work laptop', lastUsedAt: expect.stringMatching(UNIX) }),
    });
    // A signed-in admin over the user reads them too.
    const byAdmin = await t.http().get(creds(ana.sub)).set(bearer(a.adminToken));
    expect(byAdmin.body.credentials.map((c: { keyName: string }) => c.keyName)).toEqual(['Work laptop']);
    const removed = await t.http().delete(`${creds(ana.sub)}/${anaCredentialId}`).set(bearer(ana.token));
    expect({ status: removed.status, body: removed.body }).toEqual({ status: 200, body: { id: anaCredentialId } });
    expect((await t.http().get(creds(ana.sub)).set(bearer(ana.token))).body).toEqual({ credentials: [] });
    const pw = await passwordLogin(ana.email, S);
    expect(pw.body.status).toBe('SUCCESS');
  });
});
