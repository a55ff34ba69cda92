/**
 * One-time-code factors end to end (docs/api.md, Sign-in flows and Endpoints; ops 11, 12,
 * 13 and 16): OTP registrations (email, SMS, TOTP) with their access rules, and
 * sign-in with a one-time code — the code sent by mail or SMS, or computed from a
 * TOTP secret — with the transaction rules (same id throughout, completes once,
 * single-use codes, 5 wrong tries, expiry, resend cooldown, no user enumeration),
 * a race of one code, and the email-MFA enrollment of a user in an MFA-required
 * sector. Real HTTP, PostgreSQL, SMTP and an HTTP SMS gateway; no timing assertions.
 */
import { randomBytes } from 'node:crypto';
import { claimsOf, expectWireError as expectContractError, JWT, TRANSACTION_ID, UUID, WireErrorOptions } from './support/contract';
import { createSector, createUser as createUserViaApi, provisionTenant, ProvisionedTenant, tenantSql } from './support/factories';
import { SmsGateway } from './support/sms-gateway';
import { codeIn, DEFAULT_MAIL_CODE, FAST_WORKER, ReceivedMail, startSmtpServer, TestSmtpServer, wrong } from './support/smtp';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';
import { eventually, sleep } from './support/wait';

type Res = { status: number; body: any; headers: Record<string, string> };

const PASSWORD = 'correct horse battery staple';

jest.setTimeout(60_000);

/** The whole contract error body (docs/api.md, Errors); ErrorInfo.metadata is exactly {} unless `opts.metadata` says otherwise. */
const expectWireError = (res: Res, status: number, code: number, reason: string, opts: WireErrorOptions = {}) =>
  expectContractError(res, status, code, reason, { ...opts, metadata: opts.metadata ?? {} });

const DEFAULT_SMS_CODE = /^(\d{6}) is your /;

/** Unique addresses per run (the SMTP server is shared by this file's two apps). */
const tag = randomBytes(3).toString('hex');
const email = (name: string) => `${name}.${tag}@example.test`;

describe('OTP registrations and sign-in with one-time codes', () => {
  let smtp: TestSmtpServer;
  let sms: SmsGateway;
  let t: TestApp;
  let a: ProvisionedTenant;
  let b: ProvisionedTenant;
  /** Plain sector, default templates. */
  let S1: string;
  /** Sector with its own OTP mail and SMS templates. */
  let S2: string;
  /** MFA-required sector. */
  let SM: string;
  let otplib: typeof import('otplib', { with: { 'resolution-mode': 'import' } });

  const consumedMail = new Set<ReceivedMail>();
  let smsSeen = 0;

  /** The next mail to `to` not read yet. */
  async function nextMail(to: string): Promise<ReceivedMail> {
    // The notices of a factor added (security-factors.e2e-spec.ts) are not what this spec reads.
    const mail = await smtp.waitForMail(
      (m) => !consumedMail.has(m) && !m.subject.startsWith('A new sign-in method was added') && m.envelopeTo.some((r) => r.toLowerCase() === to.toLowerCase()),
      15_000,
    );
    consumedMail.add(mail);
    return mail;
  }

  /** The next SMS to `to` not read yet (SMS are read in order). */
  async function nextSms(to: string): Promise<{ to: string; body: string }> {
    return eventually(
      () => {
        const i = sms.received.findIndex((m, idx) => idx >= smsSeen && m.to === to);
        if (i < 0) return undefined;
        smsSeen = i + 1;
        return sms.received[i];
      },
      15_000,
      `an SMS to ${to}`,
    );
  }

  const bearer = <T extends { set: (k: string, v: string) => T }>(req: T, token?: string) => (token ? req.set('Authorization', `Bearer ${token}`) : req);

  async function createUser(app: TestApp, adminToken: string, sectorID: string, address: string): Promise<{ sub: string; email: string }> {
    return { sub: await createUserViaApi(app, adminToken, sectorID, { email: address, password: PASSWORD }), email: address };
  }

  const regs = (sub: string) => `/api/v1/users/${sub}/otp-registrations`;
  const listRegs = (sub: string, token?: string, app = t) => bearer(app.http().get(regs(sub)), token);
  const addReg = (sub: string, body: Record<string, unknown>, token?: string, app = t) => bearer(app.http().post(regs(sub)), token).send(body);
  const verifyReg = (sub: string, id: string, code: string, token?: string, app = t) => bearer(app.http().post(`${regs(sub)}/${id}/verify`), token).send({ code });
  const deleteReg = (sub: string, id: string, token?: string, app = t) => bearer(app.http().delete(`${regs(sub)}/${id}`), token);

  const passwordLogin = (body: Record<string, unknown>, app = t) => app.http().post('/api/v1/login/password').send(body);
  const otpBegin = (body: Record<string, unknown>, app = t) => app.http().post('/api/v1/login/otp/begin').send(body);
  const otpLogin = (body: Record<string, unknown>, app = t) => app.http().post('/api/v1/login/otp').send(body);

  /** Adds and verifies an email factor (through the API, as the user) and returns its id. */
  async function enrollEmail(user: { sub: string; email: string }, token: string, destination = user.email): Promise<string> {
    const res = await addReg(user.sub, { type: 'email', destination }, token);
    expect(res.status).toBe(200);
    const code = codeIn((await nextMail(destination)).text, DEFAULT_MAIL_CODE);
    expect((await verifyReg(user.sub, res.body.registrationID, code, token)).status).toBe(200);
    return res.body.registrationID as string;
  }

  async function enrollSms(user: { sub: string }, token: string, phone: string): Promise<string> {
    const res = await addReg(user.sub, { type: 'sms', destination: phone }, token);
    expect(res.status).toBe(200);
    const code = codeIn((await nextSms(phone)).body, DEFAULT_SMS_CODE);
    expect((await verifyReg(user.sub, res.body.registrationID, code, token)).status).toBe(200);
    return res.body.registrationID as string;
  }

  /** Password step of a user with a factor: the transaction waiting for the OTP. */
  async function startOtpLogin(user: { email: string }, sectorID: string, app = t): Promise<string> {
    const res = await passwordLogin({ username: user.email, password: PASSWORD, sectorID }, app);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), status: 'MFA_REQUIRED', challengeType: 'OTP' });
    return res.body.transactionID as string;
  }

  async function outboxCount(app: TestApp, tenantID: string): Promise<number> {
    const [row] = await tenantSql(app, tenantID, 'SELECT count(*)::int AS n FROM outbox');
    return row.n as number;
  }

  async function tokenOf(user: { email: string }, sectorID: string): Promise<string> {
    return t.login(user.email, PASSWORD, sectorID);
  }

  beforeAll(async () => {
    otplib = await import('otplib');
    smtp = await startSmtpServer();
    sms = await SmsGateway.start();
    t = await startTestApp({
      env: { SMTP_URL: smtp.url, SMS_WEBHOOK_URL: sms.url, ...FAST_WORKER, OTP_RESEND_COOLDOWN_SECONDS: '0', ...NO_THROTTLE },
    });
    a = await provisionTenant(t);
    b = await provisionTenant(t);
    S1 = await createSector(t, a.adminToken);
    S2 = await createSector(t, a.adminToken);
    SM = await createSector(t, a.adminToken);
    const templates = await t
      .http()
      .put(`/api/v1/sectors/${S2}/settings`)
      .set('Authorization', `Bearer ${a.adminToken}`)
      .send({
        OTPEmailSubject: 'Sign-in code for {{username}}',
        OTPEmailBodyTemplate: 'CODE[{{code}}] for {{email}} at {{sectorName}}, valid {{expiresInMinutes}} min',
        OTPSMSTemplate: 'SMS-CODE[{{code}}] {{sectorName}}',
      });
    expect(templates.status).toBe(200);
    const mfa = await t.http().put(`/api/v1/sectors/${SM}/settings`).set('Authorization', `Bearer ${a.adminToken}`).send({ MFARequired: true });
    expect(mfa.status).toBe(200);
  });

  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
    await sms?.close();
  });

  describe('registrations', () => {
    let alice: { sub: string; email: string };
    let bob: { sub: string; email: string };
    let aliceToken: string;
    let bobToken: string;
    let aliceProof: string;
    let aliceEmailReg: string;
    let aliceSmsReg: string;
    const aliceFactorEmail = email('alice.factor');
    const alicePhone = '+14155550100';

    beforeAll(async () => {
      alice = await createUser(t, a.adminToken, S1, email('alice'));
      bob = await createUser(t, a.adminToken, S1, email('bob'));
      aliceToken = await tokenOf(alice, S1);
      bobToken = await tokenOf(bob, S1);
      // A password sign-in without factors completes at once: its transactionID proves self-access.
      const res = await passwordLogin({ username: alice.email, password: PASSWORD, sectorID: S1 });
      expect(res.body.status).toBe('SUCCESS');
      aliceProof = res.body.transactionID;
    });

    it('starts with an empty list, for the user (token and transactionID proof) and an admin', async () => {
      for (const res of [
        await listRegs(alice.sub, aliceToken),
        await t.http().get(regs(alice.sub)).query({ transactionID: aliceProof }),
        await listRegs(alice.sub, a.adminToken),
      ]) {
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ registrations: [] });
      }
    });

    it('email: mails a code, lists the factor unverified and masked, and verifies it with the right code only', async () => {
      // Added by the user with their access token (a transactionID proof only reads the list).
      const created = await addReg(alice.sub, { type: 'email', destination: aliceFactorEmail }, aliceToken);
      expect(created.status).toBe(200);
      expect(created.body).toEqual({ registrationID: expect.stringMatching(UUID), type: 'email', secret: '', otpauthURL: '' });
      aliceEmailReg = created.body.registrationID;

      const mail = await nextMail(aliceFactorEmail);
      // S1 has no templates: the built-in default.
      expect(mail.subject).toMatch(/^Your Sector s-[0-9a-f]+ verification code$/);
      expect(mail.text).toContain(`Hello ${alice.email},`);
      expect(mail.text).toContain('It expires in 10 minutes.');
      const code = codeIn(mail.text, DEFAULT_MAIL_CODE);
      expect(mail.html).toContain(code);

      // Stored only as a MAC.
      const [row] = await tenantSql(t, a.tenantID, 'SELECT code_mac, verified_at FROM otp_registrations WHERE id = $1', [aliceEmailReg]);
      expect(row.verified_at).toBeNull();
      expect(typeof row.code_mac).toBe('string');
      expect(row.code_mac).not.toContain(code);

      const listed = await listRegs(alice.sub, aliceToken);
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual({
        registrations: [{ registrationID: aliceEmailReg, type: 'email', destination: `a•••@example.test`, verified: false }],
      });
      expect(JSON.stringify(listed.body)).not.toContain(aliceFactorEmail);

      // An unverified factor does not count: password sign-in still completes.
      expect((await passwordLogin({ username: alice.email, password: PASSWORD, sectorID: S1 })).body.status).toBe('SUCCESS');

      const bad = await verifyReg(alice.sub, aliceEmailReg, wrong(code), aliceToken);
      expectWireError(bad, 401, 16, 'INVALID_CODE', { metadata: { attemptsLeft: '4' } });

      const ok = await verifyReg(alice.sub, aliceEmailReg, code, aliceToken);
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ registrationID: aliceEmailReg });

      expect((await listRegs(alice.sub, aliceToken)).body).toEqual({
        registrations: [{ registrationID: aliceEmailReg, type: 'email', destination: 'a•••@example.test', verified: true }],
      });

      expectWireError(await verifyReg(alice.sub, aliceEmailReg, code, aliceToken), 400, 9, 'OTP_ALREADY_VERIFIED');
    });

    it('refuses a second registration of a verified destination (409 OTP_REGISTRATION_EXISTS)', async () => {
      expectWireError(await addReg(alice.sub, { type: 'email', destination: aliceFactorEmail.toUpperCase() }, aliceToken), 409, 6, 'OTP_REGISTRATION_EXISTS');
      expectWireError(await addReg(alice.sub, { type: 'email', destination: aliceFactorEmail }, a.adminToken), 409, 6, 'OTP_REGISTRATION_EXISTS');
    });

    it('validates the request (type, email address, E.164 number)', async () => {
      expectWireError(await addReg(alice.sub, { type: 'voice', destination: alicePhone }, aliceToken), 400, 3, 'VALIDATION_FAILED', { fields: ['type'] });
      expectWireError(await addReg(alice.sub, { type: 'email', destination: 'not-an-address' }, aliceToken), 400, 3, 'VALIDATION_FAILED', { fields: ['destination'] });
      for (const bad of ['4155550100', '+0155550100', '+1 415 555 0100', '+12', 'phone']) {
        expectWireError(await addReg(alice.sub, { type: 'sms', destination: bad }, aliceToken), 400, 3, 'VALIDATION_FAILED', { fields: ['destination'] });
      }
      expectWireError(await verifyReg(alice.sub, aliceEmailReg, '', aliceToken), 400, 3, 'VALIDATION_FAILED', { fields: ['code'] });
      // Nothing was stored by the refusals.
      expect((await listRegs(alice.sub, aliceToken)).body.registrations).toHaveLength(1);
    });

    it('sms: sends the code to the SMS gateway (default text) and verifies it', async () => {
      const created = await addReg(alice.sub, { type: 'sms', destination: alicePhone }, aliceToken);
      expect(created.status).toBe(200);
      expect(created.body).toEqual({ registrationID: expect.stringMatching(UUID), type: 'sms', secret: '', otpauthURL: '' });
      aliceSmsReg = created.body.registrationID;

      const message = await nextSms(alicePhone);
      expect(message.to).toBe(alicePhone);
      expect(message.body).toMatch(/^\d{6} is your Sector s-[0-9a-f]+ verification code\. It expires in 10 minutes\.$/);
      expect(sms.requests.at(-1)?.contentType).toMatch(/^application\/json/);
      const code = codeIn(message.body, DEFAULT_SMS_CODE);

      expect((await listRegs(alice.sub, aliceToken)).body.registrations[1]).toEqual({
        registrationID: aliceSmsReg,
        type: 'sms',
        destination: '+1••••••0100',
        verified: false,
      });
      expectWireError(await verifyReg(alice.sub, aliceSmsReg, wrong(code), aliceToken), 401, 16, 'INVALID_CODE', { metadata: { attemptsLeft: '4' } });
      const ok = await verifyReg(alice.sub, aliceSmsReg, code, aliceToken);
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ registrationID: aliceSmsReg });
      expect((await listRegs(alice.sub, aliceToken)).body.registrations[1].verified).toBe(true);
      expectWireError(await addReg(alice.sub, { type: 'sms', destination: alicePhone }, aliceToken), 409, 6, 'OTP_REGISTRATION_EXISTS');
    });

    it('uses the sector templates (OTPEmailSubject, OTPEmailBodyTemplate, OTPSMSTemplate) where set', async () => {
      const carol = await createUser(t, a.adminToken, S2, email('carol'));
      const carolToken = await tokenOf(carol, S2);
      const [sector] = await tenantSql(t, a.tenantID, 'SELECT name FROM sectors WHERE id = $1', [S2]);

      const mailReg = await addReg(carol.sub, { type: 'email', destination: carol.email }, carolToken);
      expect(mailReg.status).toBe(200);
      const mail = await nextMail(carol.email);
      expect(mail.subject).toBe(`Sign-in code for ${carol.email}`);
      expect(mail.text.trim()).toMatch(new RegExp(`^CODE\\[\\d{6}\\] for ${carol.email.replace(/\./g, '\\.')} at ${sector.name as string}, valid 10 min$`));
      const mailCode = codeIn(mail.text, /CODE\[(\d{6})\]/);
      expect((await verifyReg(carol.sub, mailReg.body.registrationID, mailCode, carolToken)).status).toBe(200);

      const phone = '+442071838750';
      const smsReg = await addReg(carol.sub, { type: 'sms', destination: phone }, carolToken);
      expect(smsReg.status).toBe(200);
      const message = await nextSms(phone);
      expect(message.body).toMatch(new RegExp(`^SMS-CODE\\[\\d{6}\\] ${sector.name as string}$`));
      expect((await verifyReg(carol.sub, smsReg.body.registrationID, codeIn(message.body, /SMS-CODE\[(\d{6})\]/), carolToken)).status).toBe(200);
      expect((await listRegs(carol.sub, carolToken)).body.registrations.map((r: { type: string; verified: boolean }) => [r.type, r.verified])).toEqual([
        ['email', true],
        ['sms', true],
      ]);
    });

    it('lets an admin manage the factors of a user of the tenant (another user: 403, another tenant: 404)', async () => {
      const byAdmin = await listRegs(alice.sub, a.adminToken);
      expect(byAdmin.status).toBe(200);
      expect(byAdmin.body.registrations.map((r: { registrationID: string }) => r.registrationID)).toEqual([aliceEmailReg, aliceSmsReg]);

      // Another user of the same sector: no access, whatever the operation.
      expectWireError(await listRegs(alice.sub, bobToken), 403, 7, 'ROLE_REQUIRED');
      expectWireError(await addReg(alice.sub, { type: 'email', destination: email('bob.sneaky') }, bobToken), 403, 7, 'ROLE_REQUIRED');
      expectWireError(await verifyReg(alice.sub, aliceSmsReg, '123456', bobToken), 403, 7, 'ROLE_REQUIRED');
      expectWireError(await deleteReg(alice.sub, aliceSmsReg, bobToken), 403, 7, 'ROLE_REQUIRED');
      // ... nor with his own transaction proof.
      const bobProof = (await passwordLogin({ username: bob.email, password: PASSWORD, sectorID: S1 })).body.transactionID;
      expectWireError(await t.http().get(regs(alice.sub)).query({ transactionID: bobProof }), 401, 16, 'TRANSACTION_PROOF_INVALID');

      // An admin of another tenant: the user does not exist for them.
      expectWireError(await listRegs(alice.sub, b.adminToken), 404, 5, 'USER_NOT_FOUND');
      expectWireError(await addReg(alice.sub, { type: 'totp' }, b.adminToken), 404, 5, 'USER_NOT_FOUND');
      expectWireError(await deleteReg(alice.sub, aliceSmsReg, b.adminToken), 404, 5, 'USER_NOT_FOUND');
      // Bob's own path with Alice's registration id: not his.
      expectWireError(await deleteReg(bob.sub, aliceSmsReg, bobToken), 404, 5, 'OTP_REGISTRATION_NOT_FOUND');
      expectWireError(await verifyReg(bob.sub, aliceEmailReg, '123456', bobToken), 404, 5, 'OTP_REGISTRATION_NOT_FOUND');
      expect((await listRegs(alice.sub, aliceToken)).body.registrations).toHaveLength(2);

      // No credential at all.
      expectWireError(await listRegs(alice.sub), 401, 16, 'CREDENTIAL_MISSING');
    });

    it('deletes a factor (admin and user), which is then gone', async () => {
      const del = await deleteReg(alice.sub, aliceSmsReg, a.adminToken);
      expect(del.status).toBe(200);
      expect(del.body).toEqual({ registrationID: aliceSmsReg });
      expect((await listRegs(alice.sub, aliceToken)).body).toEqual({
        registrations: [{ registrationID: aliceEmailReg, type: 'email', destination: 'a•••@example.test', verified: true }],
      });
      expectWireError(await deleteReg(alice.sub, aliceSmsReg, aliceToken), 404, 5, 'OTP_REGISTRATION_NOT_FOUND');
      expectWireError(await deleteReg(alice.sub, 'not-a-uuid', aliceToken), 404, 5, 'OTP_REGISTRATION_NOT_FOUND');
      const [{ n }] = await tenantSql(t, a.tenantID, 'SELECT count(*)::int AS n FROM otp_registrations WHERE id = $1', [aliceSmsReg]);
      expect(n).toBe(0);
      // The phone number may be registered again once its registration is gone.
      const again = await addReg(alice.sub, { type: 'sms', destination: alicePhone }, aliceToken);
      expect(again.status).toBe(200);
      await nextSms(alicePhone);
      const own = await deleteReg(alice.sub, again.body.registrationID, aliceToken);
      expect(own.status).toBe(200);
      expect((await listRegs(alice.sub, aliceToken)).body.registrations).toHaveLength(1);
    });
  });

  describe('TOTP', () => {
    let tom: { sub: string; email: string };
    let secret: string;
    let registrationID: string;

    /** The code of the step `offset` steps from `anchor` (Unix seconds). */
    const totp = (anchor: number, offset: number) => otplib.generate({ secret, epoch: anchor + offset * 30 });

    /** Waits (at most ~12 s) until at least 12 s of the current 30-second step remain, so three adjacent steps stay acceptable. */
    async function freshStep(): Promise<number> {
      const left = 30 - ((Date.now() / 1000) % 30);
      if (left < 12) await sleep(left * 1000 + 300);
      return Math.floor(Date.now() / 1000);
    }

    beforeAll(async () => {
      tom = await createUser(t, a.adminToken, S1, email('tom'));
    });

    it('returns the secret and otpauth URL once, stores the secret sealed, and verifies a code (one step of drift accepted once)', async () => {
      // Added by an admin for the user.
      const created = await addReg(tom.sub, { type: 'totp' }, a.adminToken);
      expect(created.status).toBe(200);
      expect(created.body).toEqual({
        registrationID: expect.stringMatching(UUID),
        type: 'totp',
        secret: expect.stringMatching(/^[A-Z2-7]{16,}=*$/),
        otpauthURL: expect.stringMatching(/^otpauth:\/\/totp\//),
      });
      ({ registrationID, secret } = created.body);
      const url = new URL(created.body.otpauthURL);
      expect(url.searchParams.get('secret')).toBe(secret);
      expect(decodeURIComponent(url.pathname)).toContain(tom.email);

      const [row] = await tenantSql(t, a.tenantID, 'SELECT secret_sealed, destination, verified_at FROM otp_registrations WHERE id = $1', [registrationID]);
      expect(typeof row.secret_sealed).toBe('string');
      expect(row.secret_sealed).not.toContain(secret);
      expect(row.secret_sealed).not.toContain(secret.toLowerCase());
      expect(row.verified_at).toBeNull();

      const tomToken = await tokenOf(tom, S1);
      const listed = await listRegs(tom.sub, tomToken);
      expect(listed.body).toEqual({ registrations: [{ registrationID, type: 'totp', destination: '', verified: false }] });
      expect(JSON.stringify(listed.body)).not.toContain(secret);

      const anchor = await freshStep();
      const near = await Promise.all([-1, 0, 1].map((o) => totp(anchor, o)));
      let bad = '000000';
      while (near.includes(bad)) bad = wrong(bad);
      expectWireError(await verifyReg(tom.sub, registrationID, bad, tomToken), 401, 16, 'INVALID_CODE');
      expectWireError(await verifyReg(tom.sub, registrationID, 'abcdef', tomToken), 401, 16, 'INVALID_CODE');

      // A code from one step ago (clock drift) is accepted.
      const ok = await verifyReg(tom.sub, registrationID, near[0], tomToken);
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ registrationID });
      expect((await listRegs(tom.sub, tomToken)).body.registrations).toEqual([{ registrationID, type: 'totp', destination: '', verified: true }]);
      expectWireError(await verifyReg(tom.sub, registrationID, near[1], tomToken), 400, 9, 'OTP_ALREADY_VERIFIED');

      // Sign-in: begin sends nothing; a code is accepted once per step and never for an earlier step.
      const before = await outboxCount(t, a.tenantID);
      const tx = await startOtpLogin(tom, S1);
      const begun = await otpBegin({ transactionID: tx, sectorID: S1 });
      expect(begun.status).toBe(200);
      expect(begun.body).toEqual({ transactionID: tx });
      expect(await outboxCount(t, a.tenantID)).toBe(before);

      // The drift code was used by the verification: not again.
      expectWireError(await otpLogin({ transactionID: tx, password: near[0], sectorID: S1 }), 401, 16, 'INVALID_CODE', { metadata: { attemptsLeft: '4' } });
      const done = await otpLogin({ transactionID: tx, password: near[1], sectorID: S1 });
      expect(done.status).toBe(200);
      expect(done.body).toEqual({ transactionID: tx, status: 'SUCCESS', challengeType: '', token: expect.stringMatching(JWT), refreshToken: expect.any(String) });
      expect(claimsOf(done.body.token)).toMatchObject({ sub: tom.sub, sectorID: S1 });

      // Reusing the code accepted in its step, in a new transaction: refused.
      const tx2 = await startOtpLogin(tom, S1);
      expect((await otpBegin({ transactionID: tx2, sectorID: S1 })).status).toBe(200);
      expectWireError(await otpLogin({ transactionID: tx2, code: near[1], sectorID: S1 }), 401, 16, 'INVALID_CODE', { metadata: { attemptsLeft: '4' } });
      // The next step's code (drift the other way) completes it, with `code` instead of `password`.
      const done2 = await otpLogin({ transactionID: tx2, code: near[2], sectorID: S1 });
      expect(done2.status).toBe(200);
      expect(done2.body).toEqual({ transactionID: tx2, status: 'SUCCESS', challengeType: '', token: expect.stringMatching(JWT), refreshToken: expect.any(String) });
      expect(await outboxCount(t, a.tenantID)).toBe(before);
    });
  });

  describe('sign-in with a code sent by mail or SMS', () => {
    let lena: { sub: string; email: string };
    let lenaEmailReg: string;
    let lenaSmsReg: string;
    const lenaPhone = '+4915112345678';

    beforeAll(async () => {
      lena = await createUser(t, a.adminToken, S1, email('lena'));
      const token = await tokenOf(lena, S1);
      lenaEmailReg = await enrollEmail(lena, token);
      lenaSmsReg = await enrollSms(lena, token, lenaPhone);
    });

    it('asks for the OTP after the password (no token), sends the code to the primary factor, and completes with it', async () => {
      const res = await passwordLogin({ username: lena.email, password: PASSWORD, sectorID: S1 });
      expect(res.status).toBe(200);
      // S1 does not require MFA: an enrolled factor is required anyway. No token key at all.
      expect(res.body).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), status: 'MFA_REQUIRED', challengeType: 'OTP' });
      expect(Object.keys(res.body)).not.toContain('token');
      const tx = res.body.transactionID as string;

      const begun = await otpBegin({ transactionID: tx, sectorID: S1 });
      expect(begun.status).toBe(200);
      expect(begun.body).toEqual({ transactionID: tx });

      const code = codeIn((await nextMail(lena.email)).text, DEFAULT_MAIL_CODE);
      const done = await otpLogin({ transactionID: tx, password: code, sectorID: S1 });
      expect(done.status).toBe(200);
      expect(done.body).toEqual({ transactionID: tx, status: 'SUCCESS', challengeType: '', token: expect.stringMatching(JWT), refreshToken: expect.any(String) });
      expect(claimsOf(done.body.token)).toMatchObject({ sub: lena.sub, sectorID: S1, tenantID: a.tenantID, isAdmin: false });

      // The token works, and the completed transaction proves self-access.
      const introspected = await t.http().post('/api/v1/introspect').set('Authorization', `Bearer ${done.body.token}`).send({ token: done.body.token });
      expect(introspected.status).toBe(200);
      expect(introspected.body.sub).toBe(lena.sub);
      const proof = await t.http().get(regs(lena.sub)).query({ transactionID: tx });
      expect(proof.status).toBe(200);
      expect(proof.body.registrations.map((r: { registrationID: string }) => r.registrationID)).toEqual([lenaEmailReg, lenaSmsReg]);
    });

    it('accepts the code in `code` and sends to the chosen registration (SMS)', async () => {
      const tx = await startOtpLogin(lena, S1);
      const begun = await otpBegin({ transactionID: tx, registrationID: lenaSmsReg, sectorID: S1 });
      expect(begun.status).toBe(200);
      expect(begun.body).toEqual({ transactionID: tx });
      const code = codeIn((await nextSms(lenaPhone)).body, DEFAULT_SMS_CODE);
      const done = await otpLogin({ transactionID: tx, code, sectorID: S1 });
      expect(done.status).toBe(200);
      expect(done.body).toEqual({ transactionID: tx, status: 'SUCCESS', challengeType: '', token: expect.stringMatching(JWT), refreshToken: expect.any(String) });
    });

    it('refuses a wrong code (401), then still takes the right one; a used code is refused afterwards', async () => {
      const tx = await startOtpLogin(lena, S1);
      expect((await otpBegin({ transactionID: tx, sectorID: S1 })).status).toBe(200);
      const code = codeIn((await nextMail(lena.email)).text, DEFAULT_MAIL_CODE);
      expectWireError(await otpLogin({ transactionID: tx, password: wrong(code), sectorID: S1 }), 401, 16, 'INVALID_CODE', { metadata: { attemptsLeft: '4' } });
      expectWireError(await otpLogin({ transactionID: tx, password: wrong(wrong(code)), sectorID: S1 }), 401, 16, 'INVALID_CODE', { metadata: { attemptsLeft: '3' } });
      const done = await otpLogin({ transactionID: tx, password: code, sectorID: S1 });
      expect(done.status).toBe(200);
      expect(done.body.status).toBe('SUCCESS');

      // The same transaction again: completed.
      expectWireError(await otpLogin({ transactionID: tx, password: code, sectorID: S1 }), 409, 10, 'TRANSACTION_COMPLETED');
      expectWireError(await otpBegin({ transactionID: tx, sectorID: S1 }), 409, 10, 'TRANSACTION_COMPLETED');

      // A new transaction with the old code: refused; its own code works.
      const tx2 = await startOtpLogin(lena, S1);
      expect((await otpBegin({ transactionID: tx2, sectorID: S1 })).status).toBe(200);
      const code2 = codeIn((await nextMail(lena.email)).text, DEFAULT_MAIL_CODE);
      if (code2 !== code) {
        expectWireError(await otpLogin({ transactionID: tx2, password: code, sectorID: S1 }), 401, 16, 'INVALID_CODE', { metadata: { attemptsLeft: '4' } });
      }
      expect((await otpLogin({ transactionID: tx2, password: code2, sectorID: S1 })).body.status).toBe('SUCCESS');
    });

    it('kills the transaction after 5 wrong codes: the right code on the sixth try is refused (TRANSACTION_FAILED)', async () => {
      const tx = await startOtpLogin(lena, S1);
      expect((await otpBegin({ transactionID: tx, sectorID: S1 })).status).toBe(200);
      const code = codeIn((await nextMail(lena.email)).text, DEFAULT_MAIL_CODE);
      let bad = code;
      for (let left = 4; left >= 0; left--) {
        bad = wrong(bad);
        expectWireError(await otpLogin({ transactionID: tx, password: bad, sectorID: S1 }), 401, 16, 'INVALID_CODE', { metadata: { attemptsLeft: String(left) } });
      }
      expectWireError(await otpLogin({ transactionID: tx, password: code, sectorID: S1 }), 400, 9, 'TRANSACTION_FAILED');
      // Dead for every step.
      expectWireError(await otpBegin({ transactionID: tx, sectorID: S1 }), 400, 9, 'TRANSACTION_FAILED');
      expectWireError(await passwordLogin({ transactionID: tx, password: PASSWORD, sectorID: S1 }), 400, 9, 'TRANSACTION_FAILED');
      const [row] = await tenantSql(t, a.tenantID, 'SELECT status, completed_at FROM auth_transactions WHERE id = $1', [tx]);
      expect(row).toEqual({ status: 'FAILED', completed_at: null });
    });

    it('replaces the code on a resend after the cooldown, and keeps counting wrong tries across codes', async () => {
      const tx = await startOtpLogin(lena, S1);
      expect((await otpBegin({ transactionID: tx, sectorID: S1 })).status).toBe(200);
      const code1 = codeIn((await nextMail(lena.email)).text, DEFAULT_MAIL_CODE);
      let bad = code1;
      for (let left = 4; left >= 2; left--) {
        bad = wrong(bad);
        expectWireError(await otpLogin({ transactionID: tx, password: bad, sectorID: S1 }), 401, 16, 'INVALID_CODE', { metadata: { attemptsLeft: String(left) } });
      }
      // OTP_RESEND_COOLDOWN_SECONDS=0 here (the cooldown has its own app below): the resend is allowed.
      await eventually(async () => (await otpBegin({ transactionID: tx, sectorID: S1 })).status === 200, 10_000, 'a resend');
      const code2 = codeIn((await nextMail(lena.email)).text, DEFAULT_MAIL_CODE);
      // The first code is gone, and the count goes on.
      const stale = code1 === code2 ? wrong(code2) : code1;
      expectWireError(await otpLogin({ transactionID: tx, password: stale, sectorID: S1 }), 401, 16, 'INVALID_CODE', { metadata: { attemptsLeft: '1' } });
      expectWireError(await otpLogin({ transactionID: tx, password: wrong(code2), sectorID: S1 }), 401, 16, 'INVALID_CODE', { metadata: { attemptsLeft: '0' } });
      expectWireError(await otpLogin({ transactionID: tx, password: code2, sectorID: S1 }), 400, 9, 'TRANSACTION_FAILED');
    });

    it('refuses an expired transaction (TRANSACTION_EXPIRED)', async () => {
      const tx = await startOtpLogin(lena, S1);
      expect((await otpBegin({ transactionID: tx, sectorID: S1 })).status).toBe(200);
      const code = codeIn((await nextMail(lena.email)).text, DEFAULT_MAIL_CODE);
      await tenantSql(t, a.tenantID, `UPDATE auth_transactions SET expires_at = now() - interval '1 second' WHERE id = $1`, [tx]);
      expectWireError(await otpLogin({ transactionID: tx, password: code, sectorID: S1 }), 400, 9, 'TRANSACTION_EXPIRED');
      expectWireError(await otpBegin({ transactionID: tx, sectorID: S1 }), 400, 9, 'TRANSACTION_EXPIRED');
    });

    it("refuses another user's transaction (TRANSACTION_MISMATCH), a transaction of another sector, and an unknown one", async () => {
      const other = await createUser(t, a.adminToken, S1, email('other'));
      const tx = await startOtpLogin(lena, S1);
      expect((await otpBegin({ transactionID: tx, sectorID: S1 })).status).toBe(200);
      const code = codeIn((await nextMail(lena.email)).text, DEFAULT_MAIL_CODE);
      expectWireError(await otpLogin({ transactionID: tx, username: other.email, password: code, sectorID: S1 }), 400, 9, 'TRANSACTION_MISMATCH');
      expectWireError(await otpBegin({ transactionID: tx, username: other.email, sectorID: S1 }), 400, 9, 'TRANSACTION_MISMATCH');
      expectWireError(await otpLogin({ transactionID: tx, password: code, sectorID: S2 }), 400, 9, 'TRANSACTION_NOT_FOUND');
      expectWireError(await otpLogin({ transactionID: 'x'.repeat(43), password: code, sectorID: S1 }), 400, 9, 'TRANSACTION_NOT_FOUND');
      // None of that used the code up: the user's own login (here naming her email) completes.
      const done = await otpLogin({ transactionID: tx, username: lena.email.toUpperCase(), password: code, sectorID: S1 });
      expect(done.status).toBe(200);
      expect(done.body).toEqual({ transactionID: tx, status: 'SUCCESS', challengeType: '', token: expect.stringMatching(JWT), refreshToken: expect.any(String) });
    });

    it('refuses a registrationID of someone else (404) and an OTP step without a code (400)', async () => {
      const other = await createUser(t, a.adminToken, S1, email('other2'));
      const otherReg = await enrollEmail(other, await tokenOf(other, S1));
      const tx = await startOtpLogin(lena, S1);
      const before = await outboxCount(t, a.tenantID);
      expectWireError(await otpBegin({ transactionID: tx, registrationID: otherReg, sectorID: S1 }), 404, 5, 'OTP_REGISTRATION_NOT_FOUND');
      expect(await outboxCount(t, a.tenantID)).toBe(before);
      expectWireError(await otpLogin({ transactionID: tx, sectorID: S1 }), 400, 3, 'VALIDATION_FAILED', { fields: ['password'] });
      expectWireError(await otpLogin({ transactionID: tx, password: '', sectorID: S1 }), 400, 3, 'VALIDATION_FAILED', { fields: ['password'] });
    });

    it('answers otp/begin for an unknown user like for a known one, and sends nothing (no user enumeration)', async () => {
      const before = await outboxCount(t, a.tenantID);
      const unknown = await otpBegin({ username: email('nobody'), sectorID: S1 });
      expect(unknown.status).toBe(200);
      expect(unknown.body).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID) });
      // A known user without any factor: the same.
      const plain = await createUser(t, a.adminToken, S1, email('plain'));
      const noFactor = await otpBegin({ username: plain.email, sectorID: S1 });
      expect(noFactor.status).toBe(200);
      expect(noFactor.body).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID) });
      expect(await outboxCount(t, a.tenantID)).toBe(before);
      // A code for the unknown user's transaction is just wrong.
      expectWireError(await otpLogin({ transactionID: unknown.body.transactionID, password: '123456', sectorID: S1 }), 401, 16, 'INVALID_CODE', {
        metadata: { attemptsLeft: '4' },
      });

      // A known user with a factor: the same answer, and the code is sent; the code alone is one factor, the password follows.
      const known = await otpBegin({ username: lena.email, sectorID: S1 });
      expect(known.status).toBe(200);
      expect(known.body).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID) });
      const code = codeIn((await nextMail(lena.email)).text, DEFAULT_MAIL_CODE);
      const first = await otpLogin({ transactionID: known.body.transactionID, password: code, sectorID: S1 });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ transactionID: known.body.transactionID, status: 'MFA_REQUIRED', challengeType: 'PASSWORD' });
      const second = await passwordLogin({ transactionID: known.body.transactionID, password: PASSWORD, sectorID: S1 });
      expect(second.status).toBe(200);
      expect(second.body).toEqual({ transactionID: known.body.transactionID, status: 'SUCCESS', challengeType: '', token: expect.stringMatching(JWT), refreshToken: expect.any(String) });
    });

    it('lets exactly one of 20 concurrent submissions of the right code complete the transaction', async () => {
      const racer = await createUser(t, a.adminToken, S1, email('racer'));
      await enrollEmail(racer, await tokenOf(racer, S1));
      const tx = await startOtpLogin(racer, S1);
      expect((await otpBegin({ transactionID: tx, sectorID: S1 })).status).toBe(200);
      const code = codeIn((await nextMail(racer.email)).text, DEFAULT_MAIL_CODE);

      const results = await Promise.all(Array.from({ length: 20 }, () => otpLogin({ transactionID: tx, password: code, sectorID: S1 }).then((r) => r as Res)));
      const wins = results.filter((r) => r.status === 200);
      expect(wins).toHaveLength(1);
      expect(wins[0].body).toEqual({ transactionID: tx, status: 'SUCCESS', challengeType: '', token: expect.stringMatching(JWT), refreshToken: expect.any(String) });
      expect(claimsOf(wins[0].body.token).sub).toBe(racer.sub);
      const losers = results.filter((r) => r.status !== 200);
      expect(losers.filter((r) => r.status >= 500)).toEqual([]);
      for (const r of losers) expectWireError(r, 409, 10, 'TRANSACTION_COMPLETED');
      const [row] = await tenantSql(t, a.tenantID, 'SELECT status FROM auth_transactions WHERE id = $1', [tx]);
      expect(row.status).toBe('SUCCESS');
    });
  });

  describe('MFA-required sector: email enrollment at sign-in', () => {
    it('asks a user without factors to enroll, mails a code, verifies it into a factor and a token; the next login asks for the OTP', async () => {
      const mia = await createUser(t, a.adminToken, SM, email('mia'));
      const res = await passwordLogin({ username: mia.email, password: PASSWORD, sectorID: SM });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), status: 'MFA_ENROLLMENT_REQUIRED', challengeType: 'EMAIL_OTP_ENROLLMENT' });
      const tx = res.body.transactionID as string;

      // No OTP factor to send a code to yet.
      expectWireError(await otpBegin({ transactionID: tx, sectorID: SM }), 400, 9, 'NO_OTP_REGISTRATION');

      const begun = await t.http().post('/api/v1/signup/mfa/begin').send({ transactionId: tx, sectorID: SM, email: mia.email });
      expect(begun.status).toBe(200);
      expect(begun.body).toEqual({ transactionID: tx, status: 'MFA_ENROLLMENT_REQUIRED', challengeType: 'EMAIL_OTP_ENROLLMENT' });
      const code = codeIn((await nextMail(mia.email)).text, DEFAULT_MAIL_CODE);

      const verified = await t.http().post('/api/v1/signup/mfa/verify').send({ sectorID: SM, email: mia.email, code, transactionId: tx });
      expect(verified.status).toBe(200);
      expect(verified.body).toEqual({ token: expect.stringMatching(JWT), refreshToken: expect.any(String) });
      expect(claimsOf(verified.body.token)).toMatchObject({ sub: mia.sub, sectorID: SM });

      const profile = await t.http().get(`/api/v1/users/${mia.sub}`).set('Authorization', `Bearer ${a.adminToken}`);
      expect(profile.status).toBe(200);
      expect(profile.body).toMatchObject({ sub: mia.sub, email: mia.email, emailVerified: true });
      const listed = await listRegs(mia.sub, verified.body.token);
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual({ registrations: [{ registrationID: expect.stringMatching(UUID), type: 'email', destination: 'm•••@example.test', verified: true }] });

      // The transaction is done, and the next sign-in asks for the code.
      expectWireError(await t.http().post('/api/v1/signup/mfa/verify').send({ sectorID: SM, email: mia.email, code, transactionId: tx }), 409, 10, 'TRANSACTION_COMPLETED');
      const next = await startOtpLogin(mia, SM);
      expect((await otpBegin({ transactionID: next, sectorID: SM })).body).toEqual({ transactionID: next });
      const code2 = codeIn((await nextMail(mia.email)).text, DEFAULT_MAIL_CODE);
      const done = await otpLogin({ transactionID: next, password: code2, sectorID: SM });
      expect(done.body).toEqual({ transactionID: next, status: 'SUCCESS', challengeType: '', token: expect.stringMatching(JWT), refreshToken: expect.any(String) });
    });
    it("refuses to remove a user's last verified factor (LAST_FACTOR), and removes one of two", async () => {
      const lea = await createUser(t, a.adminToken, SM, email('lea'));
      const res = await passwordLogin({ username: lea.email, password: PASSWORD, sectorID: SM });
      const tx = res.body.transactionID as string;
      await t.http().post('/api/v1/signup/mfa/begin').send({ transactionId: tx, sectorID: SM, email: lea.email });
      const code = codeIn((await nextMail(lea.email)).text, DEFAULT_MAIL_CODE);
      const token = (await t.http().post('/api/v1/signup/mfa/verify').send({ sectorID: SM, email: lea.email, code, transactionId: tx })).body.token as string;
      const [first] = (await listRegs(lea.sub, token)).body.registrations as Array<{ registrationID: string }>;
      expectWireError(await deleteReg(lea.sub, first.registrationID, token), 400, 9, 'LAST_FACTOR');
      expectWireError(await deleteReg(lea.sub, first.registrationID, a.adminToken), 400, 9, 'LAST_FACTOR');
      const second = await enrollEmail(lea, token, `second-${lea.email}`);
      expect((await deleteReg(lea.sub, first.registrationID, token)).status).toBe(200);
      expectWireError(await deleteReg(lea.sub, second, token), 400, 9, 'LAST_FACTOR');
    });

    it('counts wrong enrollment codes against the transaction: 5 wrong tries kill it, even across a resent code', async () => {
      const max = await createUser(t, a.adminToken, SM, email('max'));
      const res = await passwordLogin({ username: max.email, password: PASSWORD, sectorID: SM });
      expect(res.body).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), status: 'MFA_ENROLLMENT_REQUIRED', challengeType: 'EMAIL_OTP_ENROLLMENT' });
      const tx = res.body.transactionID as string;
      const mfaBegin = () => t.http().post('/api/v1/signup/mfa/begin').send({ transactionId: tx, sectorID: SM, email: max.email });
      const mfaVerify = (code: string) => t.http().post('/api/v1/signup/mfa/verify').send({ sectorID: SM, email: max.email, code, transactionId: tx });

      expect((await mfaBegin()).status).toBe(200);
      const code1 = codeIn((await nextMail(max.email)).text, DEFAULT_MAIL_CODE);
      let bad = code1;
      for (let left = 4; left >= 2; left--) {
        bad = wrong(bad);
        expectWireError(await mfaVerify(bad), 401, 16, 'INVALID_CODE', { metadata: { attemptsLeft: String(left) } });
      }
      await eventually(async () => (await mfaBegin()).status === 200, 10_000, 'a resend');
      const code2 = codeIn((await nextMail(max.email)).text, DEFAULT_MAIL_CODE);
      const stale = code1 === code2 ? wrong(code2) : code1;
      expectWireError(await mfaVerify(stale), 401, 16, 'INVALID_CODE', { metadata: { attemptsLeft: '1' } });
      expectWireError(await mfaVerify(wrong(code2)), 401, 16, 'INVALID_CODE', { metadata: { attemptsLeft: '0' } });
      expectWireError(await mfaVerify(code2), 400, 9, 'TRANSACTION_FAILED');
      expectWireError(await mfaBegin(), 400, 9, 'TRANSACTION_FAILED');

      // Nothing was enrolled or verified.
      const profile = await t.http().get(`/api/v1/users/${max.sub}`).set('Authorization', `Bearer ${a.adminToken}`);
      expect(profile.body.emailVerified).toBe(false);
      expect((await listRegs(max.sub, a.adminToken)).body.registrations).toEqual([
        { registrationID: expect.stringMatching(UUID), type: 'email', destination: 'm•••@example.test', verified: false },
      ]);
    });
  });

  describe('code expiry and resend cooldown (OTP_CODE_TTL_SECONDS=2, OTP_RESEND_COOLDOWN_SECONDS=60)', () => {
    let short: TestApp;
    let c: ProvisionedTenant;
    let sector: string;

    beforeAll(async () => {
      short = await startTestApp({
        env: { SMTP_URL: smtp.url, SMS_WEBHOOK_URL: sms.url, ...FAST_WORKER, OTP_CODE_TTL_SECONDS: '2', OTP_RESEND_COOLDOWN_SECONDS: '60', ...NO_THROTTLE },
      });
      c = await provisionTenant(short);
      sector = await createSector(short, c.adminToken);
    });
    afterAll(() => short?.close());

    it('refuses an expired enrollment code (CODE_EXPIRED) and a resend within the cooldown (429 RESEND_COOLDOWN)', async () => {
      const user = await createUser(short, c.adminToken, sector, email('ttl.reg'));
      const token = await short.login(user.email, PASSWORD, sector);
      const created = await addReg(user.sub, { type: 'email', destination: user.email }, token, short);
      expect(created.status).toBe(200);
      const mail = await nextMail(user.email);
      expect(mail.text).toMatch(/It expires in 1 minutes?\./);
      const code = codeIn(mail.text, DEFAULT_MAIL_CODE);
      await eventually(async () => {
        const [row] = await tenantSql(short, c.tenantID, 'SELECT code_expires_at < now() AS gone FROM otp_registrations WHERE id = $1', [created.body.registrationID]);
        return row.gone === true;
      }, 10_000, 'the code expiry');
      expectWireError(await verifyReg(user.sub, created.body.registrationID, code, token, short), 400, 9, 'CODE_EXPIRED');

      const resend = await addReg(user.sub, { type: 'email', destination: user.email }, token, short);
      expectWireError(resend, 429, 8, 'RESEND_COOLDOWN', { retry: true });
      expect(Number(resend.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(resend.headers['retry-after'])).toBeLessThanOrEqual(60);
    });

    it('refuses an expired sign-in code (CODE_EXPIRED) and a resend within the cooldown (429 RESEND_COOLDOWN)', async () => {
      const user = await createUser(short, c.adminToken, sector, email('ttl.login'));
      const token = await short.login(user.email, PASSWORD, sector);
      const created = await addReg(user.sub, { type: 'email', destination: user.email }, token, short);
      expect(created.status).toBe(200);
      await nextMail(user.email);
      // Setup shortcut: with a 2-second code lifetime the enrollment is marked verified directly.
      await tenantSql(short, c.tenantID, 'UPDATE otp_registrations SET verified_at = now(), code_mac = NULL, code_sent_at = NULL WHERE id = $1', [created.body.registrationID]);

      const tx = await startOtpLogin(user, sector, short);
      expect((await otpBegin({ transactionID: tx, sectorID: sector }, short)).body).toEqual({ transactionID: tx });
      const code = codeIn((await nextMail(user.email)).text, DEFAULT_MAIL_CODE);

      const resend = await otpBegin({ transactionID: tx, sectorID: sector }, short);
      expectWireError(resend, 429, 8, 'RESEND_COOLDOWN', { retry: true });
      expect(Number(resend.headers['retry-after'])).toBeLessThanOrEqual(60);

      await eventually(async () => {
        const [row] = await tenantSql(short, c.tenantID, `SELECT (data->'otp'->>'expiresAt')::timestamptz < now() AS gone FROM auth_transactions WHERE id = $1`, [tx]);
        return row.gone === true;
      }, 10_000, 'the code expiry');
      expectWireError(await otpLogin({ transactionID: tx, password: code, sectorID: sector }, short), 400, 9, 'CODE_EXPIRED');
    });

    it('anonymous flows cost the owner nothing: they answer alike, send at most the hourly cap, and never hold up the owner (no mail bombing, no enumeration)', async () => {
      const user = await createUser(short, c.adminToken, sector, email('bomb'));
      const token = await short.login(user.email, PASSWORD, sector);
      const created = await addReg(user.sub, { type: 'email', destination: user.email }, token, short);
      await nextMail(user.email);
      await tenantSql(short, c.tenantID, 'UPDATE otp_registrations SET verified_at = now(), code_mac = NULL, code_sent_at = NULL WHERE id = $1', [created.body.registrationID]);
      const outbox = async () => Number((await tenantSql(short, c.tenantID, "SELECT count(*)::int AS n FROM outbox WHERE tag = 'otp'"))[0].n);
      const before = await outbox();
      // Anonymous flows (username only): every call answers like any other, but only OTP_ANONYMOUS_SENDS_PER_HOUR (5) send.
      for (let i = 0; i < 7; i++) {
        const res = await otpBegin({ username: user.email, sectorID: sector }, short);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID) });
      }
      expect(await outbox()).toBe(before + 5);
      // The owner's flow after the password is exempt from the cap and is not held up by the strangers' codes…
      const tx = await startOtpLogin(user, sector, short);
      expect((await otpBegin({ transactionID: tx, sectorID: sector }, short)).status).toBe(200);
      expect(await outbox()).toBe(before + 6);
      // …and gets one code per cooldown, refused explicitly within its own transaction.
      expectWireError(await otpBegin({ transactionID: tx, sectorID: sector }, short), 429, 8, 'RESEND_COOLDOWN', { retry: true });
      expect(await outbox()).toBe(before + 6);
    });
  });
});
