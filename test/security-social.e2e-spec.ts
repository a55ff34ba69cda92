/**
 * Security review of social login, end to end: each describe replays one attack
 * against the real application and a real OpenID provider (`oidc-provider` on
 * 127.0.0.1) and asserts that it fails while the honest flow still works.
 *
 *  a. The OAuth state is not the key to the result: an attacker who started the
 *     flow and sent the victim its authorization URL cannot collect the victim's
 *     tokens (not with the transactionID, the state, or without the code the
 *     victim's browser got), nor use the transactionID as a self-access proof;
 *     the browser that started the flow collects with code + verifier, once.
 *  b. No pre-account takeover: an account signed up with the victim's address
 *     (unverified) is never linked by email; the victim links the provider from
 *     their own account page instead, and the provider then signs them in there.
 *  c. Links are keyed by issuer: after the `oidc` provider is pointed at another
 *     issuer, the same subject there does not sign in the user linked before.
 */
import { randomBytes } from 'node:crypto';
import { expectWireError, JWT, TRANSACTION_ID } from './support/contract';
import { createSector, createUser, provisionTenant, ProvisionedTenant, tenantSql } from './support/factories';
import { OidcIdp, startOidcIdp } from './support/oidc-idp';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

type Res = { status: number; body: any; headers: Record<string, string> };

const ORIGIN = 'https://shop.acme.test';
const RETURN_TO = `${ORIGIN}/after-login`;
/** An allowed-origin page that never collects anything. */
const NEVER_COLLECTS = `${ORIGIN}/robots.txt`;
const ACCOUNT_PAGE = `${ORIGIN}/account`;
const PASSWORD = 'correct horse battery staple';
const tag = randomBytes(3).toString('hex');
const email = (name: string) => `${name}.${tag}@example.test`;

describe('security review: social login', () => {
  let t: TestApp;
  let a: ProvisionedTenant;
  let idp: OidcIdp;
  /** Self sign-up on, one `oidc` provider. */
  let S: string;

  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const callbackUri = () => `${t.baseUrl}/api/v1/oauth/oidc/callback`;
  const initiate = (body: Record<string, unknown>): Promise<Res> => t.http().post('/api/v1/oauth/oidc/initiate').send(body);
  const exchange = (body: Record<string, unknown>): Promise<Res> => t.http().post('/api/v1/oauth/token').send(body);
  const stateOf = (init: Res) => new URL(init.body.authURL).searchParams.get('state')!;
  const subOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sub as string;
  const configure = (sectorID: string, oidc: Record<string, unknown>) =>
    t.http().put(`/api/v1/sectors/${sectorID}/oauth/providers`).set(bearer(a.adminToken)).send({ providers: { oidc } });

  /** The user at the provider signs in and consents; the provider's redirect reaches the service's callback. Answers where the browser is sent. */
  async function completeAtProvider(provider: OidcIdp, account: string, authURL: string): Promise<URL> {
    provider.useAccount(account);
    const answer = await provider.authorize(authURL);
    expect(`${answer.origin}${answer.pathname}`).toBe(callbackUri());
    const cb = await t.http().get('/api/v1/oauth/oidc/callback').query(Object.fromEntries(answer.searchParams)).redirects(0);
    expect(cb.status).toBe(302);
    return new URL(cb.headers.location);
  }

  beforeAll(async () => {
    t = await startTestApp({ env: { ...NO_THROTTLE } });
    idp = await startOidcIdp([`${t.baseUrl}/api/v1/oauth/oidc/callback`]);
    a = await provisionTenant(t);
    S = await createSector(t, a.adminToken, undefined, { allowedOrigins: [ORIGIN] });
    expect((await t.http().put(`/api/v1/sectors/${S}/settings`).set(bearer(a.adminToken)).send({ SelfSignUpAllowed: true })).status).toBe(200);
    expect((await configure(S, { enabled: true, clientID: idp.clientId, clientSecret: idp.clientSecret, issuerURL: idp.issuer, redirectURI: callbackUri() })).status).toBe(200);
  });

  afterAll(async () => {
    await idp?.close();
    await t?.close();
  });

  describe('a. the result of a social sign-in is bound to the browser that started it', () => {
    let victimSub: string;

    beforeAll(async () => {
      idp.accounts.set('victim-a', { sub: 'victim-a', email: email('victim-a'), email_verified: true, name: 'Victim A' });
      victimSub = await createUser(t, a.adminToken, S, { email: email('victim-a'), password: PASSWORD, profile: { emailVerified: true } });
    });

    it("an attacker who started the flow cannot collect the victim's sign-in, nor use its transactionID as a proof", async () => {
      // The attacker starts a flow returning to a page that never collects, keeps everything initiate answers…
      const init = await initiate({ sectorID: S, redirectURI: NEVER_COLLECTS });
      expect(init.status).toBe(200);
      const { transactionID, verifier } = init.body;
      const state = stateOf(init);
      // The state is the transaction id (operation 17's contract): knowing it must not be enough.
      expect(state).toBe(transactionID);
      // …and sends the victim the genuine authorization URL. The victim signs in at the provider.
      const back = await completeAtProvider(idp, 'victim-a', init.body.authURL);
      // The victim's browser gets a fresh code (beside the transactionID, which the attacker knows and which proves nothing).
      expect(`${back.origin}${back.pathname}`).toBe(NEVER_COLLECTS);
      expect(Object.fromEntries(back.searchParams)).toEqual({ transactionID, code: expect.stringMatching(TRANSACTION_ID) });
      const code = back.searchParams.get('code')!;
      expect([transactionID, state, verifier]).not.toContain(code);
      const [tx] = await tenantSql(t, a.tenantID, 'SELECT status, user_id FROM auth_transactions WHERE id = $1', [transactionID]);
      expect(tx).toEqual({ status: 'SUCCESS', user_id: victimSub });

      // The old contract (the transactionID alone) is gone.
      expectWireError(await exchange({ transactionID }), 400, 3, 'VALIDATION_FAILED', { fields: ['code', 'verifier'] });
      // Neither the transactionID nor the state is the code, even with the attacker's own verifier.
      for (const guess of [transactionID, state]) expectWireError(await exchange({ code: guess, verifier }), 400, 9, 'OAUTH_RESULT_BINDING_INVALID', { metadata: {} });
      // The transactionID is never a self-access proof.
      expectWireError(await t.http().get(`/api/v1/users/${victimSub}?transactionID=${transactionID}`), 401, 16, 'TRANSACTION_PROOF_INVALID', { metadata: {} });
      // Whoever has the code but not the verifier gets nothing (and the code is not burnt by the attempt)…
      expectWireError(await exchange({ code, verifier: randomBytes(32).toString('base64url') }), 400, 9, 'OAUTH_RESULT_BINDING_INVALID', { metadata: {} });
      const [kept] = await tenantSql(t, a.tenantID, `SELECT data->'oauth' ? 'result' AS waiting FROM auth_transactions WHERE id = $1`, [transactionID]);
      expect(kept.waiting).toBe(true);
    });

    it('the honest browser collects with code + verifier, exactly once; its transactionID is not a proof either', async () => {
      const init = await initiate({ sectorID: S, redirectURI: RETURN_TO });
      const back = await completeAtProvider(idp, 'victim-a', init.body.authURL);
      const code = back.searchParams.get('code')!;
      expect(back.searchParams.get('transactionID')).toBe(init.body.transactionID);
      // A wrong verifier first: refused, and the code still works for the right one.
      expectWireError(await exchange({ code, verifier: 'A'.repeat(43) }), 400, 9, 'OAUTH_RESULT_BINDING_INVALID', { metadata: {} });
      const ok = await exchange({ code, verifier: init.body.verifier });
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual(expect.objectContaining({ transactionID: init.body.transactionID, status: 'SUCCESS', token: expect.stringMatching(JWT) }));
      expect(subOf(ok.body.token)).toBe(victimSub);
      expect((await t.http().get(`/api/v1/users/${victimSub}`).set(bearer(ok.body.token))).status).toBe(200);
      // Once.
      expectWireError(await exchange({ code, verifier: init.body.verifier }), 400, 9, 'OAUTH_RESULT_BINDING_INVALID', { metadata: {} });
      expectWireError(await t.http().get(`/api/v1/users/${victimSub}?transactionID=${init.body.transactionID}`), 401, 16, 'TRANSACTION_PROOF_INVALID', { metadata: {} });
    });

    it('an error goes back without any id', async () => {
      const init = await initiate({ sectorID: S, redirectURI: RETURN_TO });
      const cb = await t.http().get('/api/v1/oauth/oidc/callback').query({ error: 'access_denied', state: stateOf(init) }).redirects(0);
      expect(cb.status).toBe(302);
      expect(Object.fromEntries(new URL(cb.headers.location).searchParams)).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), error: 'OAUTH_PROVIDER_ERROR' });
    });
  });

  describe('b. a social sign-in links by email only to a verified address', () => {
    it("an account signed up with the victim's address is not linked; the victim links the provider from their own account page", async () => {
      const victimEmail = email('victim-b');
      idp.accounts.set('victim-b', { sub: 'victim-b', email: victimEmail, email_verified: true, name: 'Victim B' });
      // The attacker signs up first, with the victim's address and a password of their own.
      const signup = await t.http().post('/api/v1/signup').send({ sectorID: S, email: victimEmail, password: 'attacker-chosen-password' });
      expect(signup.status).toBe(200);
      const [squatter] = await tenantSql(t, a.tenantID, 'SELECT id, email_verified FROM users WHERE sector_id = $1 AND lower(email) = lower($2)', [S, victimEmail]);
      expect(squatter.email_verified).toBe(false);

      // The victim signs in with the provider: refused, nothing linked, nobody signed in.
      const init = await initiate({ sectorID: S, redirectURI: RETURN_TO });
      const back = await completeAtProvider(idp, 'victim-b', init.body.authURL);
      expect(Object.fromEntries(back.searchParams)).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), error: 'SOCIAL_LINK_REQUIRES_VERIFIED_EMAIL' });
      expect(await tenantSql(t, a.tenantID, `SELECT 1 FROM linked_identities WHERE subject = 'victim-b'`)).toEqual([]);
      const [tx] = await tenantSql(t, a.tenantID, 'SELECT status, factors FROM auth_transactions WHERE id = $1', [init.body.transactionID]);
      expect(tx).toEqual({ status: 'PENDING', factors: [] });

      // The victim signs in to their own (verified) account, and links the provider from the account page.
      const ownEmail = email('victim-b-own');
      const victimSub = await createUser(t, a.adminToken, S, { email: ownEmail, password: PASSWORD, profile: { emailVerified: true } });
      const token = await t.login(ownEmail, PASSWORD, S);
      const link = await t.http().post(`/api/v1/users/${victimSub}/identities/oidc/link`).set(bearer(token)).send({ redirectURI: ACCOUNT_PAGE });
      expect(link.status).toBe(200);
      expect(link.body).toEqual({ authURL: expect.any(String), transactionID: expect.stringMatching(TRANSACTION_ID), verifier: expect.stringMatching(/^[\w-]{43}$/) });
      const linkBack = await completeAtProvider(idp, 'victim-b', link.body.authURL);
      expect(`${linkBack.origin}${linkBack.pathname}`).toBe(ACCOUNT_PAGE);
      const code = linkBack.searchParams.get('code')!;
      expect(Object.fromEntries(linkBack.searchParams)).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), code: expect.any(String) });
      // Collected like a sign-in, but nobody is signed in: the link's outcome only.
      expectWireError(await exchange({ code, verifier: 'B'.repeat(43) }), 400, 9, 'OAUTH_RESULT_BINDING_INVALID', { metadata: {} });
      const linked = await exchange({ code, verifier: link.body.verifier });
      expect(linked.status).toBe(200);
      expect(linked.body).toEqual({
        linked: true,
        identity: { id: expect.any(String), provider: 'oidc', issuer: idp.issuer, subject: 'victim-b', email: victimEmail, createdAt: expect.any(String), lastUsedAt: '0' },
      });
      expect(JSON.stringify(linked.body)).not.toMatch(/eyJ|refreshToken/);
      const rows = await tenantSql(t, a.tenantID, `SELECT user_id, issuer FROM linked_identities WHERE subject = 'victim-b'`);
      expect(rows).toEqual([{ user_id: victimSub, issuer: idp.issuer }]);
      const events = await tenantSql(t, a.tenantID, `SELECT actor_id, target_id, details FROM audit_events WHERE type = 'identity.linked' AND target_id = $1`, [victimSub]);
      expect(events).toEqual([{ actor_id: victimSub, target_id: victimSub, details: { provider: 'oidc', identityID: linked.body.identity.id } }]);
      // A link flow's transactionID is not a proof.
      expectWireError(await t.http().get(`/api/v1/users/${victimSub}?transactionID=${link.body.transactionID}`), 401, 16, 'TRANSACTION_PROOF_INVALID', { metadata: {} });

      // Now the provider signs the victim in to their own account (the squatter's stays unlinked).
      const again = await initiate({ sectorID: S, redirectURI: RETURN_TO });
      const againBack = await completeAtProvider(idp, 'victim-b', again.body.authURL);
      const signedIn = await exchange({ code: againBack.searchParams.get('code'), verifier: again.body.verifier });
      expect(signedIn.status).toBe(200);
      expect(subOf(signedIn.body.token)).toBe(victimSub);
      expect(subOf(signedIn.body.token)).not.toBe(squatter.id);
    });

    it('linking is for the user themselves; an identity linked to another user is refused with IDENTITY_ALREADY_LINKED', async () => {
      const otherEmail = email('other-b');
      const otherSub = await createUser(t, a.adminToken, S, { email: otherEmail, password: PASSWORD, profile: { emailVerified: true } });
      const otherToken = await t.login(otherEmail, PASSWORD, S);
      // An admin cannot link a provider into someone else's account.
      expectWireError(await t.http().post(`/api/v1/users/${otherSub}/identities/oidc/link`).set(bearer(a.adminToken)).send({ redirectURI: ACCOUNT_PAGE }), 403, 7, 'ROLE_REQUIRED');
      // A foreign return page is refused.
      expectWireError(
        await t.http().post(`/api/v1/users/${otherSub}/identities/oidc/link`).set(bearer(otherToken)).send({ redirectURI: 'https://evil.test/x' }),
        400,
        3,
        'REDIRECT_URI_NOT_ALLOWED',
        { fields: ['redirectURI'], metadata: {} },
      );
      // The provider identity victim-b is linked to the victim already.
      const link = await t.http().post(`/api/v1/users/${otherSub}/identities/oidc/link`).set(bearer(otherToken)).send({ redirectURI: ACCOUNT_PAGE });
      expect(link.status).toBe(200);
      const back = await completeAtProvider(idp, 'victim-b', link.body.authURL);
      expect(Object.fromEntries(back.searchParams)).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), error: 'IDENTITY_ALREADY_LINKED' });
      expect(await tenantSql(t, a.tenantID, 'SELECT 1 FROM linked_identities WHERE user_id = $1', [otherSub])).toEqual([]);
    });
  });

  describe('c. linked identities are keyed by issuer', () => {
    let other: OidcIdp;
    let S3: string;

    beforeAll(async () => {
      other = await startOidcIdp([`${t.baseUrl}/api/v1/oauth/oidc/callback`]);
      S3 = await createSector(t, a.adminToken, undefined, { allowedOrigins: [ORIGIN] });
      expect((await configure(S3, { enabled: true, clientID: idp.clientId, clientSecret: idp.clientSecret, issuerURL: idp.issuer, redirectURI: callbackUri() })).status).toBe(200);
    });

    afterAll(async () => {
      await other?.close();
    });

    it('after the oidc issuer changes, the same subject at the new issuer does not sign in the user linked under the old one', async () => {
      idp.accounts.set('same-sub', { sub: 'same-sub', email: email('keyed'), email_verified: true, name: 'Keyed' });
      const userSub = await createUser(t, a.adminToken, S3, { email: email('keyed'), password: PASSWORD, profile: { emailVerified: true } });
      // Linked under the first issuer (by verified email on a first sign-in).
      const first = await initiate({ sectorID: S3, redirectURI: RETURN_TO });
      const firstBack = await completeAtProvider(idp, 'same-sub', first.body.authURL);
      const firstToken = await exchange({ code: firstBack.searchParams.get('code'), verifier: first.body.verifier });
      expect(subOf(firstToken.body.token)).toBe(userSub);
      expect(await tenantSql(t, a.tenantID, `SELECT issuer FROM linked_identities WHERE user_id = $1`, [userSub])).toEqual([{ issuer: idp.issuer }]);
      const listed = await t.http().get(`/api/v1/users/${userSub}/identities`).set(bearer(firstToken.body.token));
      expect(listed.body.identities.map((i: { issuer: string; subject: string }) => [i.issuer, i.subject])).toEqual([[idp.issuer, 'same-sub']]);

      // The admin points the oidc provider at another issuer, where someone else holds the same subject.
      other.accounts.set('same-sub', { sub: 'same-sub', email: email('someone-else'), email_verified: false, name: 'Someone Else' });
      expect((await configure(S3, { issuerURL: other.issuer, clientSecret: other.clientSecret })).status).toBe(200);
      const second = await initiate({ sectorID: S3, redirectURI: RETURN_TO });
      expect(new URL(second.body.authURL).origin).toBe(other.issuer);
      const secondBack = await completeAtProvider(other, 'same-sub', second.body.authURL);
      // Not the linked user: the subject is another issuer's, and its email is not verified.
      expect(Object.fromEntries(secondBack.searchParams)).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), error: 'SOCIAL_EMAIL_UNVERIFIED' });
      const [tx] = await tenantSql(t, a.tenantID, 'SELECT status, user_id FROM auth_transactions WHERE id = $1', [second.body.transactionID]);
      expect(tx).toEqual({ status: 'PENDING', user_id: null });

      // Back to the first issuer: its link still signs the user in.
      expect((await configure(S3, { issuerURL: idp.issuer, clientSecret: idp.clientSecret })).status).toBe(200);
      const third = await initiate({ sectorID: S3, redirectURI: RETURN_TO });
      const thirdBack = await completeAtProvider(idp, 'same-sub', third.body.authURL);
      const thirdToken = await exchange({ code: thirdBack.searchParams.get('code'), verifier: third.body.verifier });
      expect(subOf(thirdToken.body.token)).toBe(userSub);
    });
  });
});
