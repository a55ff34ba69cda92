/**
 * Sign-in methods (passkeys and one-time-code factors), end to end:
 *
 *  1. Adding or removing one's own factor needs a recent sign-in (auth_time within
 *     five minutes) or the current password; the user is mailed when one is added.
 *  2. A sign-in's `?transactionID=` proof can no longer enrol, verify or remove a factor.
 *  3. A passkey whose counter goes backwards is flagged and refused until an admin clears it.
 *  4. The username-first passkey begin answers the same shape for every login.
 *
 * Real HTTP, PostgreSQL and SMTP; crafted passkeys from a software authenticator.
 */
import { randomBytes } from 'node:crypto';
import { claimsOf, expectWireError, TRANSACTION_ID, UNIX, WireErrorOptions } from './support/contract';
import { agedSession, createSector, createUser, provisionTenant, ProvisionedTenant } from './support/factories';
import { FAST_WORKER, ReceivedMail, startSmtpServer, TestSmtpServer } from './support/smtp';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';
import { SoftAuthenticator } from './support/webauthn-crafting';

jest.setTimeout(120_000);

type Res = { status: number; body: any; headers: Record<string, string> };

const PASSWORD = 'correct horse battery staple';
const RP_ID = 'localhost';
const ORIGIN = 'http://localhost:4010';
const tag = randomBytes(3).toString('hex');
let seq = 0;
const email = (name: string) => `${name}-${tag}-${++seq}@example.test`;
const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

/** The whole error body; ErrorInfo.metadata exactly {} unless said otherwise. */
const expectRefusal = (res: Res, status: number, code: number, reason: string, opts: WireErrorOptions = {}) =>
  expectWireError(res, status, code, reason, { ...opts, metadata: opts.metadata ?? {} });
const STEP_UP = { metadata: { maxAgeSeconds: '300' } };

let smtp: TestSmtpServer;
let t: TestApp;
let a: ProvisionedTenant;
/** A sector with a relying party on localhost. */
let S: string;
let otplib: typeof import('otplib', { with: { 'resolution-mode': 'import' } });

const regs = (sub: string) => `/api/v1/users/${sub}/otp-registrations`;
const creds = (sub: string) => `/api/v1/users/${sub}/webauthn-credentials`;
const regBegin = (token: string, body: Record<string, unknown> = {}) => t.http().post('/api/v1/webauthn/registration/begin').set(auth(token)).send(body);
const regFinish = (token: string, body: Record<string, unknown>) => t.http().post('/api/v1/webauthn/registration/finish').set(auth(token)).send(body);
const loginBegin = (body: Record<string, unknown>) => t.http().post('/api/v1/login/webauthn/begin').send(body);
const loginFinish = (body: Record<string, unknown>) => t.http().post('/api/v1/login/webauthn/finish').send(body);

interface Member {
  sub: string;
  email: string;
  token: string;
}

async function newMember(name: string): Promise<Member> {
  const address = email(name);
  const sub = await createUser(t, a.adminToken, S, { email: address, password: PASSWORD });
  return { sub, email: address, token: await t.login(address, PASSWORD, S) };
}

/** A password sign-in of `m` (who has no second factor yet): its token and refresh token. */
async function signIn(m: Member): Promise<{ token: string; refreshToken: string }> {
  const res = await t.http().post('/api/v1/login/password').send({ username: m.email, password: PASSWORD, sectorID: S });
  expect({ status: res.status, result: res.body.status }).toEqual({ status: 200, result: 'SUCCESS' });
  return { token: res.body.token, refreshToken: res.body.refreshToken };
}

/** Makes the session look ten minutes old and refreshes: a token whose auth_time is that old. */
async function aged(session: { token: string; refreshToken: string }): Promise<string> {
  const { token } = await agedSession(t, a.tenantID, session);
  const claims = claimsOf(token);
  expect((claims.iat as number) - (claims.auth_time as number)).toBeGreaterThanOrEqual(595);
  return token;
}

const agedToken = async (m: Member): Promise<string> => aged(await signIn(m));

/** Registers a software passkey through operations 18 and 19 (begin with `beginBody`). */
async function registerPasskey(token: string, key: SoftAuthenticator, beginBody: Record<string, unknown> = {}): Promise<void> {
  const begin = await regBegin(token, { keyName: 'Soft key', ...beginBody });
  expect(begin.status).toBe(200);
  const finish = await regFinish(token, { transactionID: begin.body.transactionID, ...key.attestation({ challenge: begin.body.options.challenge, origin: ORIGIN, rpId: RP_ID }) });
  expect({ status: finish.status, body: finish.body }).toEqual({ status: 200, body: { sub: expect.any(String), type: 'public-key' } });
}

function factorAddedMail(to: string, factor: string): Promise<ReceivedMail> {
  return smtp.waitForMail((m) => m.to.includes(to) && m.subject.startsWith('A new sign-in method was added') && m.text.includes(`(${factor})`));
}

beforeAll(async () => {
  smtp = await startSmtpServer();
  otplib = await import('otplib');
  t = await startTestApp({ env: { ...NO_THROTTLE, SMTP_URL: smtp.url, ...FAST_WORKER } });
  a = await provisionTenant(t);
  S = await createSector(t, a.adminToken, undefined, { domain: RP_ID, allowedOrigins: [ORIGIN] });
  const rp = await t.http().put(`/api/v1/sectors/${S}/settings`).set(auth(a.adminToken)).send({ WebAuthnRPID: RP_ID, WebAuthnRPOrigins: [ORIGIN] });
  expect(rp.status).toBe(200);
});

afterAll(async () => {
  await t?.close();
  await smtp?.stop();
});

describe('1: adding or removing a factor needs a recent sign-in or the current password, and is announced by mail', () => {
  it('passkey registration: an old sign-in is REAUTHENTICATION_REQUIRED; the current password lets it through; the user is mailed', async () => {
    const m = await newMember('passkey-stepup');
    const old = await agedToken(m);
    expectRefusal(await regBegin(old, { keyName: 'Thief' }), 403, 7, 'REAUTHENTICATION_REQUIRED', STEP_UP);
    expectRefusal(await regBegin(old, { keyName: 'Thief', currentPassword: 'not the password' }), 401, 16, 'INVALID_CREDENTIALS');
    expect((await t.http().get(creds(m.sub)).set(auth(m.token))).body).toEqual({ credentials: [] });

    const key = new SoftAuthenticator();
    // The step-up is at begin; finish completes the registration that begin made for this user.
    await registerPasskey(old, key, { currentPassword: PASSWORD });
    const mail = await factorAddedMail(m.email, 'passkey');
    expect(mail.text).toContain(`Hello ${m.email},`);
    const listed = await t.http().get(creds(m.sub)).set(auth(m.token));
    expect(listed.body.credentials).toEqual([expect.objectContaining({ id: key.id, flagged: false, flaggedAt: '0' })]);
  });

  it('TOTP registration: an old sign-in is REAUTHENTICATION_REQUIRED; with the current password it enrols, and verifying it mails the user', async () => {
    const m = await newMember('totp-stepup');
    const old = await agedToken(m);
    expectRefusal(await t.http().post(regs(m.sub)).set(auth(old)).send({ type: 'totp' }), 403, 7, 'REAUTHENTICATION_REQUIRED', STEP_UP);
    expectRefusal(await t.http().post(regs(m.sub)).set(auth(old)).send({ type: 'email', destination: email('thief') }), 403, 7, 'REAUTHENTICATION_REQUIRED', STEP_UP);
    expect((await t.http().get(regs(m.sub)).set(auth(m.token))).body).toEqual({ registrations: [] });

    const created = await t.http().post(regs(m.sub)).set(auth(old)).send({ type: 'totp', currentPassword: PASSWORD });
    expect(created.status).toBe(200);
    expect(created.body.secret).toEqual(expect.any(String));
    const verified = await t.http().post(`${regs(m.sub)}/${created.body.registrationID}/verify`).set(auth(old)).send({ code: await otplib.generate({ secret: created.body.secret }) });
    expect({ status: verified.status, body: verified.body }).toEqual({ status: 200, body: { registrationID: created.body.registrationID } });
    await factorAddedMail(m.email, 'authenticator app');
  });

  it('a fresh sign-in needs no password: passkey and TOTP registration work with the token alone', async () => {
    const m = await newMember('fresh');
    await registerPasskey(m.token, new SoftAuthenticator());
    const created = await t.http().post(regs(m.sub)).set(auth(m.token)).send({ type: 'totp' });
    expect(created.status).toBe(200);
    await factorAddedMail(m.email, 'passkey');
  });

  it('removing a factor with an old sign-in is REAUTHENTICATION_REQUIRED; after re-authenticating it works', async () => {
    const m = await newMember('remove-stepup');
    // Signed in before the factors exist (afterwards the password alone would not complete a sign-in).
    const session = await signIn(m);
    const key = new SoftAuthenticator();
    await registerPasskey(m.token, key);
    const totp = await t.http().post(regs(m.sub)).set(auth(m.token)).send({ type: 'totp' });
    expect(totp.status).toBe(200);

    const old = await aged(session);
    expectRefusal(await t.http().delete(`${creds(m.sub)}/${key.id}`).set(auth(old)), 403, 7, 'REAUTHENTICATION_REQUIRED', STEP_UP);
    expectRefusal(await t.http().delete(`${regs(m.sub)}/${totp.body.registrationID}`).set(auth(old)), 403, 7, 'REAUTHENTICATION_REQUIRED', STEP_UP);

    const reauth = await t.http().post(`/api/v1/users/${m.sub}/reauthenticate`).set(auth(old)).send({ currentPassword: PASSWORD });
    expect(reauth.status).toBe(200);
    expect((await t.http().delete(`${creds(m.sub)}/${key.id}`).set(auth(reauth.body.token))).body).toEqual({ id: key.id });
    expect((await t.http().delete(`${regs(m.sub)}/${totp.body.registrationID}`).set(auth(reauth.body.token))).body).toEqual({ registrationID: totp.body.registrationID });
  });

  it("an admin acting on another user's factors needs no step-up", async () => {
    const m = await newMember('by-admin');
    const created = await t.http().post(regs(m.sub)).set(auth(a.adminToken)).send({ type: 'totp' });
    expect(created.status).toBe(200);
    expect((await t.http().delete(`${regs(m.sub)}/${created.body.registrationID}`).set(auth(a.adminToken))).status).toBe(200);
  });
});

describe('2: a transactionID proof cannot enrol, verify or remove a factor', () => {
  it('TOTP and email factors, passkeys: the proof is not a credential there (CREDENTIAL_MISSING); it still reads the lists', async () => {
    const m = await newMember('proof');
    const signIn = await t.http().post('/api/v1/login/password').send({ username: m.email, password: PASSWORD, sectorID: S });
    expect(signIn.body.status).toBe('SUCCESS');
    const proof = signIn.body.transactionID as string;
    expect(proof).toMatch(TRANSACTION_ID);

    expectRefusal(await t.http().post(regs(m.sub)).query({ transactionID: proof }).send({ type: 'totp' }), 401, 16, 'CREDENTIAL_MISSING');
    expectRefusal(await t.http().post(regs(m.sub)).query({ transactionID: proof }).send({ type: 'email', destination: email('side') }), 401, 16, 'CREDENTIAL_MISSING');
    expectRefusal(await t.http().post('/api/v1/webauthn/registration/begin').query({ transactionID: proof }).send({}), 401, 16, 'CREDENTIAL_MISSING');

    // A factor the user added with their token: the proof neither verifies nor removes it.
    const created = await t.http().post(regs(m.sub)).set(auth(m.token)).send({ type: 'totp' });
    expect(created.status).toBe(200);
    const code = await otplib.generate({ secret: created.body.secret });
    expectRefusal(await t.http().post(`${regs(m.sub)}/${created.body.registrationID}/verify`).query({ transactionID: proof }).send({ code }), 401, 16, 'CREDENTIAL_MISSING');
    expectRefusal(await t.http().delete(`${regs(m.sub)}/${created.body.registrationID}`).query({ transactionID: proof }), 401, 16, 'CREDENTIAL_MISSING');
    const key = new SoftAuthenticator();
    await registerPasskey(m.token, key);
    expectRefusal(await t.http().delete(`${creds(m.sub)}/${key.id}`).query({ transactionID: proof }), 401, 16, 'CREDENTIAL_MISSING');
    expectRefusal(await t.http().patch(`${creds(m.sub)}/${key.id}`).query({ transactionID: proof }).send({ keyName: 'Renamed' }), 401, 16, 'CREDENTIAL_MISSING');

    // Reading stays open to the proof, and shows nothing was changed by it.
    const listed = await t.http().get(regs(m.sub)).query({ transactionID: proof });
    expect({ status: listed.status, body: listed.body }).toEqual({
      status: 200,
      body: { registrations: [{ registrationID: created.body.registrationID, type: 'totp', destination: '', verified: false }] },
    });
    const passkeys = await t.http().get(creds(m.sub)).query({ transactionID: proof });
    expect({ status: passkeys.status, ids: passkeys.body.credentials.map((c: { id: string; keyName: string }) => [c.id, c.keyName]) }).toEqual({ status: 200, ids: [[key.id, 'Soft key']] });
  });
});

describe('3: a passkey whose counter goes backwards stays refused until an admin clears it', () => {
  it('flags on the regression, refuses later sign-ins whatever the counter, and signs in again once an admin cleared it', async () => {
    const m = await newMember('cloned');
    const key = new SoftAuthenticator();
    await registerPasskey(m.token, key);
    const signIn = async (counter: number): Promise<Res> => {
      const b = await loginBegin({ username: m.email, sectorID: S });
      expect(b.status).toBe(200);
      const challenge = b.body.credentialAssertion.publicKey.challenge;
      return loginFinish({ sectorID: S, transactionID: b.body.transactionID, ...key.assertion({ challenge, origin: ORIGIN, rpId: RP_ID, counter }) });
    };
    expect((await signIn(20)).body.status).toBe('SUCCESS');
    expectRefusal(await signIn(5), 401, 16, 'WEBAUTHN_COUNTER_REGRESSION', { metadata: { attemptsLeft: '4' } });
    // Higher than ever: still refused, the passkey is flagged.
    expectRefusal(await signIn(50), 401, 16, 'WEBAUTHN_CREDENTIAL_FLAGGED', { metadata: { attemptsLeft: '4' } });
    const listed = await t.http().get(creds(m.sub)).set(auth(m.token));
    expect(listed.body.credentials).toEqual([expect.objectContaining({ id: key.id, cloneWarning: true, flagged: true, flaggedAt: expect.stringMatching(UNIX) })]);
    expect(listed.body.credentials[0].flaggedAt).not.toBe('0');

    // Not the user, not an API token, not an admin of another sector.
    const clear = (token: string) => t.http().post(`${creds(m.sub)}/${key.id}/clear-flag`).set(auth(token)).send({});
    expectRefusal(await clear(m.token), 403, 7, 'ROLE_REQUIRED');
    const apiToken = await t.http().post(`/api/v1/sectors/${S}/tokens`).set(auth(a.adminToken)).send({ name: `factors-${tag}` });
    expect(apiToken.status).toBe(200);
    expect((await clear(apiToken.body.token)).status).toBe(403);
    const otherSector = await createSector(t, a.adminToken);
    const otherAdminEmail = email('other-admin');
    await createUser(t, a.adminToken, otherSector, { email: otherAdminEmail, password: PASSWORD, isAdmin: true, setAdminExplicitly: true });
    expectRefusal(await clear(await t.login(otherAdminEmail, PASSWORD, otherSector)), 403, 7, 'ROLE_REQUIRED');
    expectRefusal(await signIn(60), 401, 16, 'WEBAUTHN_CREDENTIAL_FLAGGED', { metadata: { attemptsLeft: '4' } });

    const cleared = await clear(a.adminToken);
    expect({ status: cleared.status, body: cleared.body }).toEqual({
      status: 200,
      body: expect.objectContaining({ id: key.id, cloneWarning: true, flagged: false, flaggedAt: '0' }),
    });
    const audit = await t.http().get(`/api/v1/sectors/${S}/audit-events`).query({ type: 'mfa.flag_cleared' }).set(auth(a.adminToken));
    expect(audit.status).toBe(200);
    expect(JSON.stringify(audit.body)).toContain(key.id);

    const again = await signIn(70);
    expect({ status: again.status, result: again.body.status }).toEqual({ status: 200, result: 'SUCCESS' });
    // An unknown passkey id answers like a missing one.
    expectRefusal(await t.http().post(`${creds(m.sub)}/${new SoftAuthenticator().id}/clear-flag`).set(auth(a.adminToken)).send({}), 404, 5, 'WEBAUTHN_CREDENTIAL_NOT_FOUND');
  });
});

describe('4: the username-first passkey begin answers the same for every login', () => {
  it('an unknown login, a user without passkeys and a user with one get the same shape, stable per login', async () => {
    const withKey = await newMember('with-key');
    await registerPasskey(withKey.token, new SoftAuthenticator());
    const without = await newMember('without-key');
    const logins = [email('nobody'), without.email, withKey.email];
    const answers: Res[] = [];
    for (const username of logins) {
      const first = await loginBegin({ username, sectorID: S });
      const second = await loginBegin({ username, sectorID: S });
      for (const res of [first, second]) {
        expect({ status: res.status, keys: Object.keys(res.body).sort() }).toEqual({ status: 200, keys: ['credentialAssertion', 'transactionID'] });
        expect(res.body.transactionID).toMatch(TRANSACTION_ID);
        expect(res.body.credentialAssertion).toEqual({
          publicKey: {
            challenge: expect.stringMatching(/^[\w-]{43}$/),
            timout: expect.any(Number),
            timeout: expect.any(Number),
            rpID: RP_ID,
            allowCredentials: [{ type: 'public-key', id: expect.stringMatching(/^[\w-]{43}$/), transports: [] }],
            userVerification: 'required',
            extensions: {},
          },
        });
      }
      // Deterministic per login: the same list on every call.
      expect(second.body.credentialAssertion.publicKey.allowCredentials).toEqual(first.body.credentialAssertion.publicKey.allowCredentials);
      answers.push(first);
    }
    const ids = answers.map((r) => r.body.credentialAssertion.publicKey.allowCredentials[0].id);
    expect(new Set(ids).size).toBe(3);
    // The finish of a login without a passkey fails with the ordinary refusal.
    const nobody = answers[0].body;
    const res = await loginFinish({
      sectorID: S,
      transactionID: nobody.transactionID,
      ...new SoftAuthenticator().assertion({ challenge: nobody.credentialAssertion.publicKey.challenge, origin: ORIGIN, rpId: RP_ID }),
    });
    expectRefusal(res, 401, 16, 'WEBAUTHN_CREDENTIAL_NOT_REGISTERED', { metadata: { attemptsLeft: '4' } });
  });

  it('the usernameless flow is unchanged: no allowCredentials', async () => {
    const res = await loginBegin({ sectorID: S });
    expect(res.status).toBe(200);
    expect(res.body.credentialAssertion.publicKey.allowCredentials).toEqual([]);
  });
});
