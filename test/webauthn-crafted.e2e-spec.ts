/**
 * Passkeys with responses a browser will not produce (docs/api.md, Passkeys; ops 14,
 * 15, 18, 19): a software authenticator (an ES256 key from node:crypto, CBOR by
 * hand, attestation "none") answers the service's challenges as told — on the
 * wrong origin, for another RP ID, with a bad signature, a replayed challenge, a
 * counter that goes backwards, another user's credential, an unregistered one —
 * and every refusal is asserted as a whole error body. Also: transactions of
 * another user or kind, expiry, single use under concurrency, no enumeration on
 * begin, who may register and manage passkeys, and the relying-party checks of
 * the settings and the tenant stats. Real HTTP and PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import { claimsOf, expectWireError, TRANSACTION_ID, UNIX, WireErrorOptions } from './support/contract';
import { createSector, createUser, provisionTenant, ProvisionedTenant, tenantSql } from './support/factories';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';
import { FLAGS, SoftAuthenticator, strangerKey, userHandleOf } from './support/webauthn-crafting';

type Res = { status: number; body: any; headers: Record<string, string> };

const PASSWORD = 'correct horse battery staple';
const RP_ID = 'localhost';
const ORIGIN = 'http://localhost:4010';
const tag = randomBytes(3).toString('hex');
const email = (name: string) => `${name}.${tag}@example.test`;

jest.setTimeout(60_000);

/** The whole error body; ErrorInfo.metadata exactly {} unless said otherwise. */
const expectRefusal = (res: Res, status: number, code: number, reason: string, opts: WireErrorOptions = {}) =>
  expectWireError(res, status, code, reason, { ...opts, metadata: opts.metadata ?? {} });

describe('passkeys: crafted responses and the rules around them', () => {
  let t: TestApp;
  let a: ProvisionedTenant;
  /** Sector with a relying party on localhost. */
  let S: string;
  /** Same relying party, MFARequired. */
  let SM: string;
  let u1: { sub: string; email: string; token: string };
  let u2: { sub: string; email: string; token: string };

  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const regBegin = (token: string, body: Record<string, unknown>) => t.http().post('/api/v1/webauthn/registration/begin').set(bearer(token)).send(body);
  const regFinish = (token: string, body: Record<string, unknown>) => t.http().post('/api/v1/webauthn/registration/finish').set(bearer(token)).send(body);
  const loginBegin = (body: Record<string, unknown>) => t.http().post('/api/v1/login/webauthn/begin').send(body);
  const loginFinish = (body: Record<string, unknown>) => t.http().post('/api/v1/login/webauthn/finish').send(body);
  const passwordLogin = (body: Record<string, unknown>) => t.http().post('/api/v1/login/password').send(body);
  const putSettings = (sectorID: string, body: Record<string, unknown>, token = a.adminToken) =>
    t.http().put(`/api/v1/sectors/${sectorID}/settings`).set(bearer(token)).send(body);
  const creds = (sub: string) => `/api/v1/users/${sub}/webauthn-credentials`;

  async function newUser(sectorID: string, name: string): Promise<{ sub: string; email: string; token: string }> {
    const address = email(name);
    const sub = await createUser(t, a.adminToken, sectorID, { email: address, password: PASSWORD });
    return { sub, email: address, token: await t.login(address, PASSWORD, sectorID) };
  }

  /** Registers a software passkey for the token's user through operations 18 and 19. */
  async function register(token: string, auth: SoftAuthenticator, keyName = 'Soft key'): Promise<void> {
    const begin = await regBegin(token, { keyName });
    expect(begin.status).toBe(200);
    const finish = await regFinish(token, { transactionID: begin.body.transactionID, ...auth.attestation({ challenge: begin.body.options.challenge, origin: ORIGIN, rpId: RP_ID }) });
    expect({ status: finish.status, body: finish.body }).toEqual({ status: 200, body: { sub: expect.any(String), type: 'public-key' } });
  }

  /** Begins a passkey sign-in; answers the transaction and the challenge. */
  async function begin(body: Record<string, unknown>): Promise<{ transactionID: string; challenge: string; publicKey: any }> {
    const res = await loginBegin(body);
    expect(res.status).toBe(200);
    return { transactionID: res.body.transactionID, challenge: res.body.credentialAssertion.publicKey.challenge, publicKey: res.body.credentialAssertion.publicKey };
  }

  beforeAll(async () => {
    t = await startTestApp({ env: NO_THROTTLE });
    a = await provisionTenant(t);
    S = await createSector(t, a.adminToken, undefined, { domain: RP_ID, allowedOrigins: [ORIGIN] });
    SM = await createSector(t, a.adminToken, undefined, { domain: RP_ID, allowedOrigins: [ORIGIN] });
    expect((await putSettings(S, { WebAuthnRPID: RP_ID, WebAuthnRPOrigins: [ORIGIN], WebAuthnRPDisplayName: 'Crafted' })).status).toBe(200);
    u1 = await newUser(S, 'u1');
    u2 = await newUser(S, 'u2');
  });
  afterAll(() => t?.close());

  describe('registration (operations 18 and 19)', () => {
    it('stores what the verified attestation says, never the compatibility fields', async () => {
      const auth = new SoftAuthenticator();
      const beginRes = await regBegin(u1.token, { sectorID: S, keyName: 'YubiKey' });
      expect(beginRes.status).toBe(200);
      expect(beginRes.body).toEqual({
        options: {
          challenge: expect.stringMatching(/^[\w-]{43}$/),
          rp: { name: 'Crafted', icon: '', id: RP_ID },
          user: { name: u1.email, icon: '', displayName: u1.email, id: userHandleOf(u1.sub) },
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
      const body = auth.attestation({ challenge: beginRes.body.options.challenge, origin: ORIGIN, rpId: RP_ID, counter: 7 });
      const bogus = { ID: 'AAAA', PublicKey: 'AAAA', AttestationType: 'packed', AAGUID: 'AAAA', SignCount: 999, CloneWarning: true };
      const finish = await regFinish(u1.token, { transactionID: beginRes.body.transactionID, ...body, ...bogus });
      expect({ status: finish.status, body: finish.body }).toEqual({ status: 200, body: { sub: u1.sub, type: 'public-key' } });

      const list = await t.http().get(creds(u1.sub)).set(bearer(u1.token));
      expect({ status: list.status, body: list.body }).toEqual({
        status: 200,
        body: {
          credentials: [
            {
              id: auth.id,
              keyName: 'YubiKey',
              createdAt: expect.stringMatching(UNIX),
              lastUsedAt: '0',
              transports: ['usb'],
              backedUp: false,
              aaguid: '5ca1ab1e-0011-2233-4455-66778899aabb',
              cloneWarning: false,
              flagged: false,
              flaggedAt: '0',
            },
          ],
        },
      });
      const [row] = await tenantSql(t, a.tenantID, 'SELECT public_key, sign_count, rp_id, attestation_format FROM webauthn_credentials WHERE credential_id = $1', [auth.id]);
      expect({ key: Buffer.from(row.public_key as Buffer).equals(auth.cosePublicKey), count: row.sign_count, rp: row.rp_id, fmt: row.attestation_format }).toEqual({
        key: true,
        count: '7',
        rp: RP_ID,
        fmt: 'none',
      });

      // Single use: the same answer again is refused, and the next begin excludes the passkey.
      expectRefusal(await regFinish(u1.token, { transactionID: beginRes.body.transactionID, ...body }), 409, 10, 'TRANSACTION_COMPLETED');
      const again = await regBegin(u1.token, { keyName: 'again' });
      expect(again.body.options.excludeCredentials).toEqual([{ type: 'public-key', id: auth.id, transports: ['usb'] }]);
      // The same credential registered once more is ALREADY_EXISTS (a browser would not even try).
      const dup = await regFinish(u1.token, { transactionID: again.body.transactionID, ...auth.attestation({ challenge: again.body.options.challenge, origin: ORIGIN, rpId: RP_ID }) });
      expectRefusal(dup, 409, 6, 'WEBAUTHN_CREDENTIAL_EXISTS');
    });

    it('refuses a wrong origin, RP ID, challenge or ceremony type with distinct reasons (INVALID_ARGUMENT)', async () => {
      const auth = new SoftAuthenticator();
      const b = await regBegin(u2.token, {});
      const tx = b.body.transactionID;
      const challenge = b.body.options.challenge;
      expectRefusal(await regFinish(u2.token, { transactionID: tx, ...auth.attestation({ challenge, origin: 'http://localhost:9999', rpId: RP_ID }) }), 400, 3, 'WEBAUTHN_ORIGIN_MISMATCH');
      expectRefusal(await regFinish(u2.token, { transactionID: tx, ...auth.attestation({ challenge, origin: ORIGIN, rpId: 'example.com' }) }), 400, 3, 'WEBAUTHN_RP_ID_MISMATCH');
      const other = randomBytes(32).toString('base64url');
      expectRefusal(await regFinish(u2.token, { transactionID: tx, ...auth.attestation({ challenge: other, origin: ORIGIN, rpId: RP_ID }) }), 400, 3, 'WEBAUTHN_CHALLENGE_MISMATCH');
      expectRefusal(
        await regFinish(u2.token, { transactionID: tx, ...auth.attestation({ challenge, origin: ORIGIN, rpId: RP_ID, type: 'webauthn.get' }) }),
        400,
        3,
        'WEBAUTHN_RESPONSE_INVALID',
      );
      // None of them used the registration up.
      const ok = await regFinish(u2.token, { transactionID: tx, ...auth.attestation({ challenge, origin: ORIGIN, rpId: RP_ID }) });
      expect(ok.status).toBe(200);
    });

    it('a registration belongs to its user, expires, and is not a sign-in transaction', async () => {
      const b = await regBegin(u1.token, {});
      const auth = new SoftAuthenticator();
      const body = { transactionID: b.body.transactionID, ...auth.attestation({ challenge: b.body.options.challenge, origin: ORIGIN, rpId: RP_ID }) };
      expectRefusal(await regFinish(u2.token, body), 400, 9, 'TRANSACTION_MISMATCH');
      expectRefusal(await regBegin(u2.token, { transactionID: b.body.transactionID }), 400, 9, 'TRANSACTION_MISMATCH');
      // Sign-in steps do not continue it, and it proves no self-access.
      expectRefusal(await loginFinish({ sectorID: S, ...auth.assertion({ challenge: b.body.options.challenge, origin: ORIGIN, rpId: RP_ID }), transactionID: b.body.transactionID }), 400, 9, 'TRANSACTION_NOT_FOUND');
      expectRefusal(await loginBegin({ sectorID: S, transactionID: b.body.transactionID }), 400, 9, 'TRANSACTION_NOT_FOUND');
      await tenantSql(t, a.tenantID, `UPDATE auth_transactions SET expires_at = now() - interval '1 second' WHERE id = $1`, [b.body.transactionID]);
      expectRefusal(await regFinish(u1.token, body), 400, 9, 'TRANSACTION_EXPIRED');
      expectRefusal(await regFinish(u1.token, { ...body, transactionID: 'x'.repeat(64) }), 400, 9, 'TRANSACTION_NOT_FOUND');
    });

    it('is for a signed-in user: API tokens and anonymous callers are refused, another sector is SECTOR_MISMATCH', async () => {
      const tokenRes = await t.http().post(`/api/v1/sectors/${S}/tokens`).set(bearer(a.adminToken)).send({ name: 'backend' });
      expect(tokenRes.status).toBe(200);
      expectRefusal(await regBegin(tokenRes.body.token, {}), 403, 7, 'ROLE_REQUIRED');
      expectRefusal(await regFinish(tokenRes.body.token, { transactionID: 'x', rawId: 'AAAA', response: { clientDataJSON: 'e30', attestationObject: 'oA' } }), 403, 7, 'ROLE_REQUIRED');
      expectRefusal(await t.http().post('/api/v1/webauthn/registration/begin').send({}), 401, 16, 'CREDENTIAL_MISSING');
      expectRefusal(await regBegin(u1.token, { sectorID: SM }), 400, 3, 'SECTOR_MISMATCH', { fields: ['sectorID'] });
      expectRefusal(await t.http().get(creds(u1.sub)).set(bearer(tokenRes.body.token)), 403, 7, 'ROLE_REQUIRED');
    });

    it('refuses a sector without a usable relying party (WEBAUTHN_NOT_CONFIGURED)', async () => {
      const plain = await createSector(t, a.adminToken, undefined, { domain: 'plain.example.com', allowedOrigins: [] });
      const user = await newUser(plain, 'plain');
      expectRefusal(await regBegin(user.token, {}), 400, 9, 'WEBAUTHN_NOT_CONFIGURED');
      expectRefusal(await loginBegin({ sectorID: plain }), 400, 9, 'WEBAUTHN_NOT_CONFIGURED');
    });
  });

  describe('sign-in (operations 14 and 15)', () => {
    let user: { sub: string; email: string; token: string };
    let key: SoftAuthenticator;

    beforeAll(async () => {
      user = await newUser(S, 'signer');
      key = new SoftAuthenticator();
      await register(user.token, key);
    });

    it('a passkey signs in by username, and its counter and last use are recorded', async () => {
      const b = await begin({ username: user.email, sectorID: S });
      expect(b.publicKey).toEqual({
        challenge: expect.stringMatching(/^[\w-]{43}$/),
        timout: expect.any(Number),
        timeout: expect.any(Number),
        rpID: RP_ID,
        // Named before any factor: no transports, so real passkeys look like the stand-ins of logins without any.
        allowCredentials: [{ type: 'public-key', id: key.id, transports: [] }],
        userVerification: 'required',
        extensions: {},
      });
      expect(b.publicKey.timout).toBe(b.publicKey.timeout);
      const res = await loginFinish({ sectorID: S, transactionID: b.transactionID, username: user.email, ...key.assertion({ challenge: b.challenge, origin: ORIGIN, rpId: RP_ID, counter: 10 }) });
      expect({ status: res.status, body: res.body }).toEqual({
        status: 200,
        body: { transactionID: b.transactionID, status: 'SUCCESS', challengeType: '', token: expect.any(String), refreshToken: expect.any(String) },
      });
      expect(claimsOf(res.body.token)).toMatchObject({ sub: user.sub, sectorID: S });
      const [row] = await tenantSql(t, a.tenantID, 'SELECT sign_count, last_used_at FROM webauthn_credentials WHERE credential_id = $1', [key.id]);
      expect({ count: row.sign_count, used: row.last_used_at !== null }).toEqual({ count: '10', used: true });
      key.counter = 10;
    });

    it('accepts rawID or rawId in standard or URL-safe base64, padded or not', async () => {
      for (const form of [key.credentialId.toString('base64'), key.credentialId.toString('base64').replace(/=+$/, ''), key.id]) {
        const b = await begin({ username: user.email, sectorID: S });
        const body = key.assertion({ challenge: b.challenge, origin: ORIGIN, rpId: RP_ID });
        delete body.rawId;
        delete body.id;
        const res = await loginFinish({ sectorID: S, transactionID: b.transactionID, ...body, rawID: form });
        expect({ form, status: res.status, result: res.body.status }).toEqual({ form, status: 200, result: 'SUCCESS' });
      }
    });

    it('refuses a wrong origin, RP ID, signature, ceremony or missing user verification, each with its reason', async () => {
      const cases: Array<[string, (challenge: string) => Record<string, unknown>]> = [
        ['WEBAUTHN_ORIGIN_MISMATCH', (c) => key.assertion({ challenge: c, origin: 'https://evil.example', rpId: RP_ID })],
        ['WEBAUTHN_RP_ID_MISMATCH', (c) => key.assertion({ challenge: c, origin: ORIGIN, rpId: 'evil.example' })],
        ['WEBAUTHN_BAD_SIGNATURE', (c) => key.assertion({ challenge: c, origin: ORIGIN, rpId: RP_ID, signWith: strangerKey() })],
        ['WEBAUTHN_RESPONSE_INVALID', (c) => key.assertion({ challenge: c, origin: ORIGIN, rpId: RP_ID, type: 'webauthn.create' })],
        ['WEBAUTHN_USER_NOT_VERIFIED', (c) => key.assertion({ challenge: c, origin: ORIGIN, rpId: RP_ID, flags: FLAGS.UP })],
      ];
      for (const [reason, answer] of cases) {
        const b = await begin({ username: user.email, sectorID: S });
        const res = await loginFinish({ sectorID: S, transactionID: b.transactionID, ...answer(b.challenge) });
        expectRefusal(res, 401, 16, reason, { metadata: { attemptsLeft: '4' } });
      }
    });

    it('WebAuthnDebug adds the expected and received origin and RP ID to the refusal, never a challenge', async () => {
      expect((await putSettings(S, { WebAuthnDebug: true })).status).toBe(200);
      try {
        let b = await begin({ username: user.email, sectorID: S });
        const origin = await loginFinish({ sectorID: S, transactionID: b.transactionID, ...key.assertion({ challenge: b.challenge, origin: 'https://evil.example', rpId: RP_ID }) });
        expectRefusal(origin, 401, 16, 'WEBAUTHN_ORIGIN_MISMATCH', { metadata: { attemptsLeft: '4', expectedOrigins: ORIGIN, receivedOrigin: 'https://evil.example' } });
        b = await begin({ username: user.email, sectorID: S });
        const rp = await loginFinish({ sectorID: S, transactionID: b.transactionID, ...key.assertion({ challenge: b.challenge, origin: ORIGIN, rpId: 'evil.example' }) });
        expectRefusal(rp, 401, 16, 'WEBAUTHN_RP_ID_MISMATCH', { metadata: { attemptsLeft: '4', expectedRPID: RP_ID, detail: expect.any(String) } });
        b = await begin({ username: user.email, sectorID: S });
        const replay = await loginFinish({ sectorID: S, transactionID: b.transactionID, ...key.assertion({ challenge: randomBytes(32).toString('base64url'), origin: ORIGIN, rpId: RP_ID }) });
        const body = expectRefusal(replay, 401, 16, 'WEBAUTHN_CHALLENGE_MISMATCH', { metadata: { attemptsLeft: '4', detail: expect.any(String) } });
        expect(JSON.stringify(body)).not.toContain(b.challenge);
      } finally {
        expect((await putSettings(S, { WebAuthnDebug: false })).status).toBe(200);
      }
    });

    it('a challenge works once: a replay, an older challenge and another transaction’s challenge are refused', async () => {
      const first = await begin({ username: user.email, sectorID: S });
      const answer = key.assertion({ challenge: first.challenge, origin: ORIGIN, rpId: RP_ID });
      expect((await loginFinish({ sectorID: S, transactionID: first.transactionID, ...answer })).body.status).toBe('SUCCESS');
      // The same answer again: the transaction is completed.
      expectRefusal(await loginFinish({ sectorID: S, transactionID: first.transactionID, ...answer }), 409, 10, 'TRANSACTION_COMPLETED');
      // The same answer in a new transaction: not its challenge.
      const second = await begin({ username: user.email, sectorID: S });
      expectRefusal(await loginFinish({ sectorID: S, transactionID: second.transactionID, ...answer }), 401, 16, 'WEBAUTHN_CHALLENGE_MISMATCH', {
        metadata: { attemptsLeft: '4' },
      });
      // A new begin on a transaction replaces its challenge: an answer to the older one is refused, the newer one works.
      const renewed = await begin({ transactionID: second.transactionID, sectorID: S });
      expect(renewed.transactionID).toBe(second.transactionID);
      expect(renewed.publicKey.allowCredentials).toEqual([{ type: 'public-key', id: key.id, transports: [] }]);
      const stale = key.assertion({ challenge: second.challenge, origin: ORIGIN, rpId: RP_ID });
      expectRefusal(await loginFinish({ sectorID: S, transactionID: second.transactionID, ...stale }), 401, 16, 'WEBAUTHN_CHALLENGE_MISMATCH', {
        metadata: { attemptsLeft: '3' },
      });
      const fresh = key.assertion({ challenge: renewed.challenge, origin: ORIGIN, rpId: RP_ID });
      expect((await loginFinish({ sectorID: S, transactionID: second.transactionID, ...fresh })).body.status).toBe('SUCCESS');
    });

    it('of concurrent submissions of one answer exactly one signs in', async () => {
      const b = await begin({ username: user.email, sectorID: S });
      const answer = key.assertion({ challenge: b.challenge, origin: ORIGIN, rpId: RP_ID });
      const results = await Promise.all(Array.from({ length: 10 }, () => loginFinish({ sectorID: S, transactionID: b.transactionID, ...answer })));
      expect(results.filter((r) => r.status === 200 && r.body.status === 'SUCCESS')).toHaveLength(1);
      for (const r of results.filter((x) => x.status !== 200)) expect(['TRANSACTION_COMPLETED', 'WEBAUTHN_CHALLENGE_MISMATCH']).toContain(r.body.details[0].reason);
      // Replays are not clones: the passkey is not flagged.
      expect((await t.http().get(creds(user.sub)).set(bearer(user.token))).body.credentials[0].cloneWarning).toBe(false);
    });

    it('a counter that goes backwards (or stands still) is refused and flags the passkey as possibly cloned', async () => {
      for (const regressed of [5, 20]) {
        const clone = new SoftAuthenticator();
        const victim = await newUser(S, `cloned${regressed}`);
        await register(victim.token, clone);
        let b = await begin({ username: victim.email, sectorID: S });
        expect((await loginFinish({ sectorID: S, transactionID: b.transactionID, ...clone.assertion({ challenge: b.challenge, origin: ORIGIN, rpId: RP_ID, counter: 20 }) })).body.status).toBe(
          'SUCCESS',
        );
        b = await begin({ username: victim.email, sectorID: S });
        const res = await loginFinish({ sectorID: S, transactionID: b.transactionID, ...clone.assertion({ challenge: b.challenge, origin: ORIGIN, rpId: RP_ID, counter: regressed }) });
        expectRefusal(res, 401, 16, 'WEBAUTHN_COUNTER_REGRESSION', { metadata: { attemptsLeft: '4' } });
        // From then on the passkey is flagged: refused whatever its counter, until an admin clears it.
        b = await begin({ username: victim.email, sectorID: S });
        const later = await loginFinish({ sectorID: S, transactionID: b.transactionID, ...clone.assertion({ challenge: b.challenge, origin: ORIGIN, rpId: RP_ID, counter: 99 }) });
        expectRefusal(later, 401, 16, 'WEBAUTHN_CREDENTIAL_FLAGGED', { metadata: { attemptsLeft: '4' } });
        const list = await t.http().get(creds(victim.sub)).set(bearer(victim.token));
        expect(list.body.credentials).toEqual([expect.objectContaining({ id: clone.id, cloneWarning: true, flagged: true, flaggedAt: expect.stringMatching(UNIX) })]);
      }
      // A forged answer (bad signature) with a low counter flags nothing: the signature is checked first.
      const honest = new SoftAuthenticator();
      const other = await newUser(S, 'honest');
      await register(other.token, honest);
      const b = await begin({ username: other.email, sectorID: S });
      expectRefusal(
        await loginFinish({ sectorID: S, transactionID: b.transactionID, ...honest.assertion({ challenge: b.challenge, origin: ORIGIN, rpId: RP_ID, counter: 0, signWith: strangerKey() }) }),
        401,
        16,
        'WEBAUTHN_BAD_SIGNATURE',
        { metadata: { attemptsLeft: '4' } },
      );
      expect((await t.http().get(creds(other.sub)).set(bearer(other.token))).body.credentials[0].cloneWarning).toBe(false);
    });

    it("refuses another user's passkey, and one that is not registered", async () => {
      const mine = new SoftAuthenticator();
      await register(u2.token, mine);
      // A sign-in begun for `user` answered with u2's passkey.
      let b = await begin({ username: user.email, sectorID: S });
      expectRefusal(await loginFinish({ sectorID: S, transactionID: b.transactionID, ...mine.assertion({ challenge: b.challenge, origin: ORIGIN, rpId: RP_ID }) }), 401, 16, 'WEBAUTHN_CREDENTIAL_MISMATCH', {
        metadata: { attemptsLeft: '4' },
      });
      // The second factor after user's password, answered with u2's passkey.
      const pw = await passwordLogin({ username: user.email, password: PASSWORD, sectorID: S });
      expect(pw.body).toEqual({ transactionID: expect.any(String), status: 'MFA_REQUIRED', challengeType: 'WEBAUTHN' });
      b = await begin({ transactionID: pw.body.transactionID, sectorID: S });
      expect(b.publicKey.userVerification).toBe('preferred');
      expectRefusal(await loginFinish({ sectorID: S, transactionID: b.transactionID, ...mine.assertion({ challenge: b.challenge, origin: ORIGIN, rpId: RP_ID }) }), 401, 16, 'WEBAUTHN_CREDENTIAL_MISMATCH', {
        metadata: { attemptsLeft: '4' },
      });
      // A usernameless flow whose user handle names someone else than the credential's owner.
      b = await begin({ sectorID: S });
      expectRefusal(
        await loginFinish({ sectorID: S, transactionID: b.transactionID, ...mine.assertion({ challenge: b.challenge, origin: ORIGIN, rpId: RP_ID, userHandle: userHandleOf(user.sub) }) }),
        401,
        16,
        'WEBAUTHN_CREDENTIAL_MISMATCH',
        { metadata: { attemptsLeft: '4' } },
      );
      // Never registered.
      b = await begin({ username: user.email, sectorID: S });
      expectRefusal(
        await loginFinish({ sectorID: S, transactionID: b.transactionID, ...new SoftAuthenticator().assertion({ challenge: b.challenge, origin: ORIGIN, rpId: RP_ID }) }),
        401,
        16,
        'WEBAUTHN_CREDENTIAL_NOT_REGISTERED',
        { metadata: { attemptsLeft: '4' } },
      );
      // A passkey of this sector's user is unknown in another sector.
      const elsewhere = await begin({ sectorID: SM });
      expectRefusal(
        await loginFinish({ sectorID: SM, transactionID: elsewhere.transactionID, ...mine.assertion({ challenge: elsewhere.challenge, origin: ORIGIN, rpId: RP_ID }) }),
        401,
        16,
        'WEBAUTHN_CREDENTIAL_NOT_REGISTERED',
        { metadata: { attemptsLeft: '4' } },
      );
    });

    it('after the password the passkey need not verify the user; alone it must', async () => {
      const pw = await passwordLogin({ username: user.email, password: PASSWORD, sectorID: S });
      const b = await begin({ transactionID: pw.body.transactionID, sectorID: S });
      const res = await loginFinish({ sectorID: S, transactionID: b.transactionID, ...key.assertion({ challenge: b.challenge, origin: ORIGIN, rpId: RP_ID, flags: FLAGS.UP }) });
      expect({ status: res.status, result: res.body.status }).toEqual({ status: 200, result: 'SUCCESS' });
    });

    it('usernameless: the credential names the user', async () => {
      const b = await begin({ sectorID: S });
      expect(b.publicKey.allowCredentials).toEqual([]);
      const res = await loginFinish({ sectorID: S, transactionID: b.transactionID, ...key.assertion({ challenge: b.challenge, origin: ORIGIN, rpId: RP_ID, userHandle: userHandleOf(user.sub) }) });
      expect(res.body.status).toBe('SUCCESS');
      expect(claimsOf(res.body.token).sub).toBe(user.sub);
      const [row] = await tenantSql(t, a.tenantID, 'SELECT user_id FROM auth_transactions WHERE id = $1', [b.transactionID]);
      expect(row.user_id).toBe(user.sub);
      // A username sent with the finish of a usernameless flow must be the passkey's user.
      const named = await begin({ sectorID: S });
      expectRefusal(
        await loginFinish({ sectorID: S, transactionID: named.transactionID, username: u1.email, ...key.assertion({ challenge: named.challenge, origin: ORIGIN, rpId: RP_ID }) }),
        401,
        16,
        'WEBAUTHN_CREDENTIAL_MISMATCH',
        { metadata: { attemptsLeft: '4' } },
      );
      const same = await loginFinish({ sectorID: S, transactionID: named.transactionID, username: user.email.toUpperCase(), ...key.assertion({ challenge: named.challenge, origin: ORIGIN, rpId: RP_ID }) });
      expect({ status: same.status, result: same.body.status }).toEqual({ status: 200, result: 'SUCCESS' });
    });

    it('an expired transaction is refused; wrong answers use up its attempts', async () => {
      let b = await begin({ username: user.email, sectorID: S });
      await tenantSql(t, a.tenantID, `UPDATE auth_transactions SET expires_at = now() - interval '1 second' WHERE id = $1`, [b.transactionID]);
      expectRefusal(await loginFinish({ sectorID: S, transactionID: b.transactionID, ...key.assertion({ challenge: b.challenge, origin: ORIGIN, rpId: RP_ID }) }), 400, 9, 'TRANSACTION_EXPIRED');
      expectRefusal(await loginBegin({ sectorID: S, transactionID: b.transactionID }), 400, 9, 'TRANSACTION_EXPIRED');
      b = await begin({ username: user.email, sectorID: S });
      for (const left of ['4', '3', '2', '1']) {
        const res = await loginFinish({ sectorID: S, transactionID: b.transactionID, ...key.assertion({ challenge: b.challenge, origin: 'https://evil.example', rpId: RP_ID }) });
        expectRefusal(res, 401, 16, 'WEBAUTHN_ORIGIN_MISMATCH', { metadata: { attemptsLeft: left } });
      }
      expectRefusal(
        await loginFinish({ sectorID: S, transactionID: b.transactionID, ...key.assertion({ challenge: b.challenge, origin: 'https://evil.example', rpId: RP_ID }) }),
        401,
        16,
        'WEBAUTHN_ORIGIN_MISMATCH',
        { metadata: { attemptsLeft: '0' } },
      );
      expectRefusal(await loginFinish({ sectorID: S, transactionID: b.transactionID, ...key.assertion({ challenge: b.challenge, origin: ORIGIN, rpId: RP_ID }) }), 400, 9, 'TRANSACTION_FAILED');
    });

    it('does not reveal whether a login exists: stand-in credentials, stable per login', async () => {
      const unknown1 = await begin({ username: email('nobody'), sectorID: S });
      const unknown2 = await begin({ username: email('nobody'), sectorID: S });
      const withoutPasskey = await begin({ username: email('nokey'), sectorID: S });
      const known = await createUser(t, a.adminToken, S, { email: email('keyless'), password: PASSWORD });
      expect(known).toEqual(expect.any(String));
      const keyless = await begin({ username: email('keyless'), sectorID: S });
      for (const b of [unknown1, unknown2, withoutPasskey, keyless]) {
        expect(b.publicKey).toEqual({
          challenge: expect.any(String),
          timout: expect.any(Number),
          timeout: expect.any(Number),
          rpID: RP_ID,
          allowCredentials: [{ type: 'public-key', id: expect.stringMatching(/^[\w-]{43}$/), transports: [] }],
          userVerification: 'required',
          extensions: {},
        });
        expect(b.transactionID).toMatch(TRANSACTION_ID);
      }
      expect(unknown2.publicKey.allowCredentials).toEqual(unknown1.publicKey.allowCredentials);
      expect(keyless.publicKey.allowCredentials).not.toEqual(unknown1.publicKey.allowCredentials);
      // A new begin on the flow answers the same stand-in.
      const renewed = await begin({ transactionID: unknown1.transactionID, sectorID: S });
      expect(renewed.publicKey.allowCredentials).toEqual(unknown1.publicKey.allowCredentials);
      // Any passkey answering an unknown login's flow fails like a wrong one.
      expectRefusal(
        await loginFinish({ sectorID: S, transactionID: unknown1.transactionID, ...key.assertion({ challenge: renewed.challenge, origin: ORIGIN, rpId: RP_ID }) }),
        401,
        16,
        'WEBAUTHN_CREDENTIAL_MISMATCH',
        { metadata: { attemptsLeft: '4' } },
      );
    });

    it('validates the bodies', async () => {
      expectRefusal(await loginFinish({ sectorID: S, rawId: key.id, response: {} }), 400, 3, 'VALIDATION_FAILED', {
        fields: ['transactionID', 'response.clientDataJSON', 'response.authenticatorData', 'response.signature'],
      });
      const b = await begin({ username: user.email, sectorID: S });
      const body = key.assertion({ challenge: b.challenge, origin: ORIGIN, rpId: RP_ID });
      delete body.rawId;
      delete body.id;
      expectRefusal(await loginFinish({ sectorID: S, transactionID: b.transactionID, ...body }), 400, 3, 'VALIDATION_FAILED', { fields: ['rawId'] });
      expectRefusal(await loginFinish({ sectorID: S, transactionID: b.transactionID, ...body, rawID: key.id, rawId: new SoftAuthenticator().id }), 400, 3, 'VALIDATION_FAILED', {
        fields: ['rawId'],
      });
      expectRefusal(await loginBegin({ sectorID: S, username: 5 }), 400, 3, 'VALIDATION_FAILED', { fields: ['username'] });
    });
  });

  describe('management and the last factor', () => {
    it('lists, renames and deletes; the last factor in an MFA-required sector stays, even under concurrent deletions', async () => {
      const owner = await newUser(SM, 'owner');
      const k1 = new SoftAuthenticator();
      const k2 = new SoftAuthenticator();
      await register(owner.token, k1, 'one');
      await register(owner.token, k2, 'two');
      expect((await putSettings(SM, { MFARequired: true })).status).toBe(200);
      const renamed = await t.http().patch(`${creds(owner.sub)}/${k1.id}`).set(bearer(owner.token)).send({ keyName: '  Laptop  ' });
      expect({ status: renamed.status, body: renamed.body }).toEqual({ status: 200, body: expect.objectContaining({ id: k1.id, keyName: 'Laptop' }) });
      expectRefusal(await t.http().patch(`${creds(owner.sub)}/${k1.id}`).set(bearer(owner.token)).send({ keyName: '' }), 400, 3, 'VALIDATION_FAILED', { fields: ['keyName'] });
      expectRefusal(await t.http().patch(`${creds(owner.sub)}/nope`).set(bearer(owner.token)).send({ keyName: 'x' }), 404, 5, 'WEBAUTHN_CREDENTIAL_NOT_FOUND');
      // Two concurrent deletions of the last two passkeys: exactly one goes.
      const [d1, d2] = await Promise.all([k1, k2].map((k) => t.http().delete(`${creds(owner.sub)}/${k.id}`).set(bearer(owner.token))));
      expect([d1.status, d2.status].sort()).toEqual([200, 400]);
      const refused = d1.status === 400 ? d1 : d2;
      expectRefusal(refused, 400, 9, 'LAST_FACTOR');
      const left = await t.http().get(creds(owner.sub)).set(bearer(owner.token));
      expect(left.body.credentials).toHaveLength(1);
      // A signed-in admin over the user manages them too; the last factor still stays.
      expectRefusal(await t.http().delete(`${creds(owner.sub)}/${left.body.credentials[0].id}`).set(bearer(a.adminToken)), 400, 9, 'LAST_FACTOR');
      expect((await t.http().get(creds(owner.sub)).set(bearer(a.adminToken))).status).toBe(200);
      // Another user may not.
      expectRefusal(await t.http().get(creds(owner.sub)).set(bearer(u1.token)), 403, 7, 'ROLE_REQUIRED');
      // Outside an MFA-required sector the last passkey may go.
      const free = await newUser(S, 'free');
      const k3 = new SoftAuthenticator();
      await register(free.token, k3);
      const gone = await t.http().delete(`${creds(free.sub)}/${k3.id}`).set(bearer(free.token));
      expect({ status: gone.status, body: gone.body }).toEqual({ status: 200, body: { id: k3.id } });
      expect((await t.http().get(creds(free.sub)).set(bearer(free.token))).body).toEqual({ credentials: [] });
      expectRefusal(await t.http().delete(`${creds(free.sub)}/${k3.id}`).set(bearer(free.token)), 404, 5, 'WEBAUTHN_CREDENTIAL_NOT_FOUND');
    });
  });

  describe('the relying party in settings and tenant stats', () => {
    it('refuses settings whose RP ID does not suit the origins, naming the field; leaves unconfigured sectors alone', async () => {
      const sector = await createSector(t, a.adminToken, undefined, { domain: 'shop.example.com', allowedOrigins: ['https://shop.example.com'] });
      expectRefusal(await putSettings(sector, { WebAuthnRPID: 'other.example' }), 400, 3, 'VALIDATION_FAILED', { fields: ['WebAuthnRPID'] });
      expectRefusal(await putSettings(sector, { WebAuthnRPOrigins: ['https://evil.com'] }), 400, 3, 'VALIDATION_FAILED', { fields: ['WebAuthnRPOrigins'] });
      expectRefusal(await putSettings(sector, { WebAuthnRPOrigins: ['http://shop.example.com'] }), 400, 3, 'VALIDATION_FAILED', { fields: ['WebAuthnRPOrigins'] });
      expectRefusal(await putSettings(sector, { WebAuthnRPID: 'example.com', WebAuthnRPOrigins: ['https://example.com', 'https://x.org'] }), 400, 3, 'VALIDATION_FAILED', {
        fields: ['WebAuthnRPOrigins'],
      });
      // Nothing was stored by the refusals.
      const read = await t.http().get(`/api/v1/sectors/${sector}/settings`).set(bearer(a.adminToken));
      expect({ id: read.body.WebAuthnRPID, origins: read.body.WebAuthnRPOrigins }).toEqual({ id: '', origins: [] });
      // A parent domain as RP ID with origins on subdomains is fine, merged with what is stored.
      expect((await putSettings(sector, { WebAuthnRPID: 'example.com' })).status).toBe(200);
      expect((await putSettings(sector, { WebAuthnRPOrigins: ['https://shop.example.com', 'https://www.example.com'] })).status).toBe(200);
      expectRefusal(await putSettings(sector, { WebAuthnRPID: 'shop.example.com' }), 400, 3, 'VALIDATION_FAILED', { fields: ['WebAuthnRPID'] });
      // Clearing both leaves passkeys unconfigured: allowed.
      expect((await putSettings(sector, { WebAuthnRPID: '', WebAuthnRPOrigins: [] })).status).toBe(200);
      // A sector without a domain, settings left empty: unrelated updates pass.
      const bare = await createSector(t, a.adminToken, undefined, { domain: '', allowedOrigins: [] });
      expect((await putSettings(bare, { WebAuthnRPOrigins: [], WebAuthnRPID: '', MFARequired: false })).status).toBe(200);
      expectRefusal(await putSettings(bare, { WebAuthnRPOrigins: ['https://a.example.com'] }), 400, 3, 'VALIDATION_FAILED', { fields: ['WebAuthnRPID'] });
    });

    it('tenant stats say webauthnConfigured only when the default sector has a usable relying party', async () => {
      const other = await provisionTenant(t);
      const stats = async () => {
        const res = await t.http().get(`/api/v1/tenants/${other.tenantID}`).query({ includeStats: 'true' }).set(bearer(await t.platformToken()));
        expect(res.status).toBe(200);
        return res.body.stats.webauthnConfigured as boolean;
      };
      // PUBLIC_URL is http://iam.test: an http origin off localhost is no relying party.
      expect(await stats()).toBe(false);
      expectRefusal(await putSettings(other.rootSectorID, { WebAuthnRPID: 'iam.test' }, other.adminToken), 400, 3, 'VALIDATION_FAILED', { fields: ['WebAuthnRPOrigins'] });
      expect((await putSettings(other.rootSectorID, { WebAuthnRPID: 'iam.test', WebAuthnRPOrigins: ['https://iam.test'] }, other.adminToken)).status).toBe(200);
      expect(await stats()).toBe(true);
      expect((await putSettings(other.rootSectorID, { WebAuthnRPID: '', WebAuthnRPOrigins: [] }, other.adminToken)).status).toBe(200);
      expect(await stats()).toBe(false);
    });
  });

  describe('the OpenAPI document', () => {
    it('describes the four operations and the management routes, with their bodies and answers', async () => {
      const res = await t.http().get('/api/docs-json');
      expect(res.status).toBe(200);
      const doc = res.body as {
        paths: Record<string, Record<string, { summary?: string; responses?: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>; requestBody?: unknown }>>;
        components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
      };
      const operations: Array<[string, string, string]> = [
        ['/api/v1/login/webauthn/begin', 'post', 'WebAuthnLoginBeginResponse'],
        ['/api/v1/login/webauthn/finish', 'post', 'AuthResultResponse'],
        ['/api/v1/webauthn/registration/begin', 'post', 'WebAuthnRegistrationBeginResponse'],
        ['/api/v1/webauthn/registration/finish', 'post', 'WebAuthnRegistrationFinishResponse'],
        ['/api/v1/users/{sub}/webauthn-credentials', 'get', 'ListWebAuthnCredentialsResponse'],
        ['/api/v1/users/{sub}/webauthn-credentials/{id}', 'patch', 'WebAuthnCredentialResponse'],
        ['/api/v1/users/{sub}/webauthn-credentials/{id}', 'delete', 'WebAuthnCredentialIdResponse'],
        ['/api/v1/users/{sub}/webauthn-credentials/{id}/clear-flag', 'post', 'WebAuthnCredentialResponse'],
      ];
      for (const [path, method, schema] of operations) {
        const op = doc.paths[path]?.[method];
        expect({ path, method, summary: typeof op?.summary, codes: Object.keys(op?.responses ?? {}).sort() }).toEqual({
          path,
          method,
          summary: 'string',
          codes: ['200', '4XX', 'default'],
        });
        expect({ path, method, ref: op!.responses!['200'].content?.['application/json']?.schema?.$ref }).toEqual({ path, method, ref: `#/components/schemas/${schema}` });
      }
      const sorted = (o: Record<string, unknown> | undefined) => Object.keys(o ?? {}).sort();
      expect(sorted(doc.components.schemas.PublicKeyCredentialCreationOptionsResponse.properties)).toEqual(
        ['attestation', 'authenticatorSelection', 'challenge', 'excludeCredentials', 'extensions', 'pubKeyCredParams', 'rp', 'timeout', 'user'],
      );
      expect(sorted(doc.components.schemas.PublicKeyCredentialRequestOptionsResponse.properties)).toEqual(
        ['allowCredentials', 'challenge', 'extensions', 'rpID', 'timeout', 'timout', 'userVerification'],
      );
      expect(sorted(doc.components.schemas.WebAuthnRegistrationFinishDto.properties)).toEqual(
        expect.arrayContaining(['AAGUID', 'AttestationType', 'CloneWarning', 'ID', 'PublicKey', 'SignCount', 'clientExtensionResults', 'id', 'rawId', 'response', 'transactionID', 'type']),
      );
      expect(sorted(doc.components.schemas.WebAuthnLoginFinishDto.properties)).toEqual(
        expect.arrayContaining(['clientExtensionResults', 'id', 'rawID', 'rawId', 'response', 'sectorID', 'transactionID', 'type', 'username']),
      );
      expect(sorted(doc.components.schemas.WebAuthnCredentialResponse.properties)).toEqual(
        ['aaguid', 'backedUp', 'cloneWarning', 'createdAt', 'flagged', 'flaggedAt', 'id', 'keyName', 'lastUsedAt', 'transports'],
      );
    });
  });
});
