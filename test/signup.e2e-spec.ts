/**
 * Self sign-up (docs/api.md, Sign-in flows) and signup MFA (interface op 16): allowed only
 * where SelfSignUpAllowed, the password policy, taken emails, the platform default
 * sector when sectorID is omitted, and in an MFA-required sector the email-OTP
 * enrollment (MFA_ENROLLMENT_REQUIRED, a mailed code, POST /signup/mfa/verify with
 * `transactionId`) with its refusals. Real HTTP, PostgreSQL and SMTP; no timing
 * assertions.
 */
import { randomBytes } from 'node:crypto';
import { claimsOf, expectWireError as expectContractError, JWT, TRANSACTION_ID, UUID, WireErrorOptions } from './support/contract';
import { createSector, provisionTenant, ProvisionedTenant, tenantSql } from './support/factories';
import { codeIn, FAST_WORKER, ReceivedMail, startSmtpServer, TestSmtpServer, wrong } from './support/smtp';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

type Res = { status: number; body: any; headers: Record<string, string> };

const PASSWORD = 'a perfectly fine passphrase';

/** The whole contract error body (docs/api.md, Errors); ErrorInfo.metadata is exactly {} unless `opts.metadata` says otherwise. */
const expectWireError = (res: Res, status: number, code: number, reason: string, opts: WireErrorOptions = {}) =>
  expectContractError(res, status, code, reason, { ...opts, metadata: opts.metadata ?? {} });

const tag = randomBytes(3).toString('hex');
const email = (name: string) => `${name}.${tag}@example.test`;

describe('self sign-up and signup MFA', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  let a: ProvisionedTenant;
  /** SelfSignUpAllowed false (the default). */
  let closed: string;
  /** SelfSignUpAllowed, no MFA. */
  let open: string;
  /** SelfSignUpAllowed and MFARequired. */
  let mfa: string;
  const consumed = new Set<ReceivedMail>();

  async function nextMail(to: string): Promise<ReceivedMail> {
    const mail = await smtp.waitForMail((m) => !consumed.has(m) && m.envelopeTo.some((r) => r.toLowerCase() === to.toLowerCase()), 15_000);
    consumed.add(mail);
    return mail;
  }

  const signup = (body: Record<string, unknown>) => t.http().post('/api/v1/signup').send(body);
  const mfaBegin = (body: Record<string, unknown>) => t.http().post('/api/v1/signup/mfa/begin').send(body);
  const mfaVerify = (body: Record<string, unknown>) => t.http().post('/api/v1/signup/mfa/verify').send(body);
  const getUser = (sub: string, token: string) => t.http().get(`/api/v1/users/${sub}`).set('Authorization', `Bearer ${token}`);

  async function settings(sectorID: string, token: string, body: Record<string, unknown>): Promise<void> {
    const res = await t.http().put(`/api/v1/sectors/${sectorID}/settings`).set('Authorization', `Bearer ${token}`).send(body);
    expect(res.status).toBe(200);
  }

  /** Signs up in the MFA sector: the enrollment transaction and the mailed code. */
  async function mfaSignup(address: string): Promise<{ tx: string; code: string }> {
    const res = await signup({ sectorID: mfa, email: address, password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), status: 'MFA_ENROLLMENT_REQUIRED', challengeType: 'EMAIL_OTP_ENROLLMENT' });
    return { tx: res.body.transactionID, code: codeIn((await nextMail(address)).text) };
  }

  beforeAll(async () => {
    smtp = await startSmtpServer();
    // A long resend cooldown: the 429 below must not depend on how fast the requests are.
    t = await startTestApp({ env: { SMTP_URL: smtp.url, ...FAST_WORKER, OTP_RESEND_COOLDOWN_SECONDS: '60', ...NO_THROTTLE } });
    a = await provisionTenant(t);
    closed = await createSector(t, a.adminToken);
    open = await createSector(t, a.adminToken);
    mfa = await createSector(t, a.adminToken);
    await settings(open, a.adminToken, { SelfSignUpAllowed: true });
    await settings(mfa, a.adminToken, { SelfSignUpAllowed: true, MFARequired: true });
  });

  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  describe('POST /api/v1/signup', () => {
    it('is refused where SelfSignUpAllowed is false (403 SIGNUP_NOT_ALLOWED), and creates nobody', async () => {
      const address = email('closed');
      expectWireError(await signup({ sectorID: closed, email: address, password: PASSWORD }), 403, 7, 'SIGNUP_NOT_ALLOWED');
      const rows = await tenantSql(t, a.tenantID, 'SELECT id FROM users WHERE lower(email) = lower($1)', [address]);
      expect(rows).toEqual([]);
    });

    it('signs up and in where allowed without MFA: SUCCESS with a token; the user exists, email not verified', async () => {
      const address = email('Open.User');
      const res = await signup({
        sectorID: open,
        email: address,
        password: PASSWORD,
        username: `open-${tag}`,
        // A self-registering user cannot mark their own email verified.
        profile: { name: 'Open User', emailVerified: true },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), status: 'SUCCESS', challengeType: '', token: expect.stringMatching(JWT), refreshToken: expect.any(String) });
      const claims = claimsOf(res.body.token);
      expect(claims).toMatchObject({ sectorID: open, tenantID: a.tenantID, username: `open-${tag}`, isAdmin: false });
      const sub = claims.sub as string;
      expect(sub).toMatch(UUID);

      const profile = await getUser(sub, res.body.token);
      expect(profile.status).toBe(200);
      expect(profile.body).toMatchObject({ sub, email: address, emailVerified: false, name: 'Open User' });
      // The signup's transaction proves self-access, as any SUCCESS does.
      const proof = await t.http().get(`/api/v1/users/${sub}`).query({ transactionID: res.body.transactionID });
      expect(proof.status).toBe(200);
      expect(proof.body.sub).toBe(sub);
      // The admin sees the user; the password works for sign-in (by username and by email).
      const listed = await t.http().get(`/api/v1/sectors/${open}/users`).query({ filterEmail: address }).set('Authorization', `Bearer ${a.adminToken}`);
      expect(listed.body.users).toEqual([expect.objectContaining({ sub, email: address, emailVerified: false, isAdmin: false })]);
      for (const username of [`open-${tag}`, address.toLowerCase()]) {
        const login = await t.http().post('/api/v1/login/password').send({ username, password: PASSWORD, sectorID: open });
        expect(login.body).toMatchObject({ status: 'SUCCESS' });
      }
    });

    it.each([
      ['too short', () => 'short1'],
      ['equal to the email', (address: string) => address.toUpperCase()],
      ['over 72 bytes', () => 'p'.repeat(73)],
      ['over 72 bytes in UTF-8 (fewer characters)', () => 'ü'.repeat(37)],
    ])('refuses a weak password: %s (400, fieldViolation password)', async (_what, password) => {
      const address = email('weak');
      expectWireError(await signup({ sectorID: open, email: address, password: password(address) }), 400, 3, 'VALIDATION_FAILED', { fields: ['password'] });
      expect(await tenantSql(t, a.tenantID, 'SELECT id FROM users WHERE lower(email) = lower($1)', [address])).toEqual([]);
    });

    it('refuses a taken email (409 EMAIL_TAKEN), whatever its case', async () => {
      const address = email('dup');
      expect((await signup({ sectorID: open, email: address, password: PASSWORD })).status).toBe(200);
      expectWireError(await signup({ sectorID: open, email: address.toUpperCase(), password: PASSWORD }), 409, 6, 'EMAIL_TAKEN');
      // In another sector the address is free (sectors are separate namespaces).
      expect((await signup({ sectorID: mfa, email: address, password: PASSWORD })).status).toBe(200);
      await nextMail(address);
    });

    it('validates the body: email required and well-formed, password required', async () => {
      expectWireError(await signup({ sectorID: open, password: PASSWORD }), 400, 3, 'VALIDATION_FAILED', { fields: ['email'] });
      expectWireError(await signup({ sectorID: open, email: 'not-an-email', password: PASSWORD }), 400, 3, 'VALIDATION_FAILED', { fields: ['email'] });
      expectWireError(await signup({ sectorID: open, email: email('nopw') }), 400, 3, 'VALIDATION_FAILED', { fields: ['password'] });
      expectWireError(await signup({ sectorID: open, email: email('badname'), password: PASSWORD, username: 'has space' }), 400, 3, 'VALIDATION_FAILED', {
        fields: ['username'],
      });
    });

    it('refuses an unknown sector (404)', async () => {
      expectWireError(await signup({ sectorID: '00000000-0000-4000-8000-000000000000', email: email('nosector'), password: PASSWORD }), 404, 5, 'SECTOR_NOT_FOUND');
    });

    it("uses the platform tenant's default sector when sectorID is omitted", async () => {
      const [platform] = await t.sql<{ id: string; root_sector_id: string }>('SELECT id, root_sector_id FROM tenants WHERE is_platform');
      const address = email('platform');
      // Refused there until the platform admin allows it.
      expectWireError(await signup({ email: address, password: PASSWORD }), 403, 7, 'SIGNUP_NOT_ALLOWED');
      await settings(platform.root_sector_id, await t.platformToken(), { SelfSignUpAllowed: true });
      try {
        const res = await signup({ email: address, password: PASSWORD });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), status: 'SUCCESS', challengeType: '', token: expect.stringMatching(JWT), refreshToken: expect.any(String) });
        expect(claimsOf(res.body.token)).toMatchObject({ tenantID: platform.id, sectorID: platform.root_sector_id, isAdmin: false });
        // ... and the new user signs in there without a sectorID.
        const login = await t.http().post('/api/v1/login/password').send({ username: address, password: PASSWORD });
        expect(login.body).toMatchObject({ status: 'SUCCESS' });
        expect(claimsOf(login.body.token).sub).toBe(claimsOf(res.body.token).sub);
      } finally {
        await settings(platform.root_sector_id, await t.platformToken(), { SelfSignUpAllowed: false });
      }
    });
  });

  describe('MFA-required sector', () => {
    it('answers MFA_ENROLLMENT_REQUIRED without a token, mails a code, and issues the token for the right code', async () => {
      const address = email('enroll');
      const res = await signup({ sectorID: mfa, email: address, password: PASSWORD });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), status: 'MFA_ENROLLMENT_REQUIRED', challengeType: 'EMAIL_OTP_ENROLLMENT' });
      expect(Object.keys(res.body)).not.toContain('token');
      const tx = res.body.transactionID as string;
      const [user] = await tenantSql(t, a.tenantID, 'SELECT id, email_verified FROM users WHERE lower(email) = lower($1)', [address]);
      expect(user.email_verified).toBe(false);
      const sub = user.id as string;

      const mail = await nextMail(address);
      expect(mail.subject).toMatch(/^Your Sector s-[0-9a-f]+ verification code$/);
      const code = codeIn(mail.text);

      // A password sign-in meanwhile cannot skip the enrollment.
      const login = await t.http().post('/api/v1/login/password').send({ username: address, password: PASSWORD, sectorID: mfa });
      expect(login.body).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), status: 'MFA_ENROLLMENT_REQUIRED', challengeType: 'EMAIL_OTP_ENROLLMENT' });

      expectWireError(await mfaVerify({ sectorID: mfa, email: address, code: wrong(code), transactionId: tx }), 401, 16, 'INVALID_CODE', {
        metadata: { attemptsLeft: '4' },
      });

      const ok = await mfaVerify({ sectorID: mfa, email: address.toUpperCase(), code, transactionId: tx });
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ token: expect.stringMatching(JWT), refreshToken: expect.any(String) });
      const token = ok.body.token as string;
      expect(claimsOf(token)).toMatchObject({ sub, sectorID: mfa, tenantID: a.tenantID, username: address, isAdmin: false });

      const introspected = await t.http().post('/api/v1/introspect').set('Authorization', `Bearer ${token}`).send({ token });
      expect(introspected.status).toBe(200);
      expect(introspected.body).toMatchObject({ sub, sectorID: mfa, username: address, isAdmin: false });

      const profile = await getUser(sub, token);
      expect(profile.status).toBe(200);
      expect(profile.body).toMatchObject({ sub, email: address, emailVerified: true });

      const regs = await t.http().get(`/api/v1/users/${sub}/otp-registrations`).set('Authorization', `Bearer ${token}`);
      expect(regs.status).toBe(200);
      expect(regs.body).toEqual({ registrations: [{ registrationID: expect.stringMatching(UUID), type: 'email', destination: 'e•••@example.test', verified: true }] });

      // The transaction completed once; its SUCCESS proves self-access.
      expectWireError(await mfaVerify({ sectorID: mfa, email: address, code, transactionId: tx }), 409, 10, 'TRANSACTION_COMPLETED');
      const [row] = await tenantSql(t, a.tenantID, 'SELECT status FROM auth_transactions WHERE id = $1', [tx]);
      expect(row.status).toBe('SUCCESS');
      expect((await t.http().get(`/api/v1/users/${sub}`).query({ transactionID: tx })).status).toBe(200);

      // The next sign-in asks for the code of the enrolled factor.
      const next = await t.http().post('/api/v1/login/password').send({ username: address, password: PASSWORD, sectorID: mfa });
      expect(next.body).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), status: 'MFA_REQUIRED', challengeType: 'OTP' });
    });

    it("refuses a transaction of another user or email (400 TRANSACTION_MISMATCH), and it stays usable by its own user", async () => {
      const x = email('mismatch.x');
      const y = email('mismatch.y');
      const sx = await mfaSignup(x);
      const sy = await mfaSignup(y);
      // X's transaction with Y's email and Y's code; Y's transaction with X's email and code.
      expectWireError(await mfaVerify({ sectorID: mfa, email: y, code: sy.code, transactionId: sx.tx }), 400, 9, 'TRANSACTION_MISMATCH');
      expectWireError(await mfaVerify({ sectorID: mfa, email: x, code: sx.code, transactionId: sy.tx }), 400, 9, 'TRANSACTION_MISMATCH');
      expectWireError(await mfaBegin({ sectorID: mfa, email: y, transactionId: sx.tx }), 400, 9, 'TRANSACTION_MISMATCH');
      // Another sector's id with the right transaction: no such transaction there.
      expectWireError(await mfaVerify({ sectorID: open, email: x, code: sx.code, transactionId: sx.tx }), 400, 9, 'TRANSACTION_NOT_FOUND');
      // A transaction that is not waiting for an enrollment (a completed password login of another sector).
      const plain = await signup({ sectorID: open, email: email('mismatch.plain'), password: PASSWORD });
      expect(plain.body.status).toBe('SUCCESS');
      expectWireError(await mfaVerify({ sectorID: open, email: email('mismatch.plain'), code: '123456', transactionId: plain.body.transactionID }), 409, 10, 'TRANSACTION_COMPLETED');

      for (const [address, s] of [
        [x, sx],
        [y, sy],
      ] as const) {
        const ok = await mfaVerify({ sectorID: mfa, email: address, code: s.code, transactionId: s.tx });
        expect(ok.status).toBe(200);
        expect(ok.body).toEqual({ token: expect.stringMatching(JWT), refreshToken: expect.any(String) });
      }
    });

    it('requires transactionId (that spelling), email and code (400)', async () => {
      const address = email('fields');
      const s = await mfaSignup(address);
      expectWireError(await mfaVerify({ sectorID: mfa, email: address, code: s.code }), 400, 3, 'VALIDATION_FAILED', { fields: ['transactionId'] });
      expectWireError(await mfaVerify({ sectorID: mfa, email: address, code: s.code, transactionID: s.tx }), 400, 3, 'VALIDATION_FAILED', { fields: ['transactionId'] });
      expectWireError(await mfaVerify({ sectorID: mfa, code: s.code, transactionId: s.tx }), 400, 3, 'VALIDATION_FAILED', { fields: ['email'] });
      expectWireError(await mfaVerify({ sectorID: mfa, email: address, transactionId: s.tx }), 400, 3, 'VALIDATION_FAILED', { fields: ['code'] });
      expectWireError(await mfaBegin({ sectorID: mfa, email: address }), 400, 3, 'VALIDATION_FAILED', { fields: ['transactionId'] });
      expectWireError(await mfaVerify({ sectorID: mfa, email: address, code: s.code, transactionId: 'no-such-transaction' }), 400, 9, 'TRANSACTION_NOT_FOUND');
      // None of these spent the code.
      expect((await mfaVerify({ sectorID: mfa, email: address, code: s.code, transactionId: s.tx })).status).toBe(200);
    });

    it('refuses a resend within the cooldown (429 RESEND_COOLDOWN with RetryInfo and Retry-After)', async () => {
      const address = email('cooldown');
      const s = await mfaSignup(address);
      const before = smtp.received.length;
      const res = await mfaBegin({ sectorID: mfa, email: address, transactionId: s.tx });
      expectWireError(res, 429, 8, 'RESEND_COOLDOWN', { retry: true });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
      // The pending code still works.
      expect((await mfaVerify({ sectorID: mfa, email: address, code: s.code, transactionId: s.tx })).status).toBe(200);
      expect(smtp.received.slice(before).filter((m) => m.envelopeTo.includes(address.toLowerCase()))).toEqual([]);
    });

    it('kills the enrollment after 5 wrong codes: the right code on the sixth try is refused (400 TRANSACTION_FAILED)', async () => {
      const address = email('sixth');
      const s = await mfaSignup(address);
      let bad = s.code;
      for (let left = 4; left >= 0; left--) {
        bad = wrong(bad);
        expectWireError(await mfaVerify({ sectorID: mfa, email: address, code: bad, transactionId: s.tx }), 401, 16, 'INVALID_CODE', {
          metadata: { attemptsLeft: String(left) },
        });
      }
      expectWireError(await mfaVerify({ sectorID: mfa, email: address, code: s.code, transactionId: s.tx }), 400, 9, 'TRANSACTION_FAILED');
      expectWireError(await mfaBegin({ sectorID: mfa, email: address, transactionId: s.tx }), 400, 9, 'TRANSACTION_FAILED');
      const [user] = await tenantSql(t, a.tenantID, 'SELECT email_verified FROM users WHERE lower(email) = lower($1)', [address]);
      expect(user.email_verified).toBe(false);
    });
  });
});
