import { randomBytes } from 'node:crypto';
import { createSector, createUser, expectError, ProvisionedTenant, provisionTenant, tenantSql, uniqueSlug } from './support/factories';
import { FAST_WORKER, MAIL_FROM, ReceivedMail, startSmtpServer, TestSmtpServer } from './support/smtp';
import { startTestApp, TestApp } from './support/test-app';

/**
 * Account lifecycle over HTTP with a real SMTP server: password reset, magic-link
 * sign-in and email verification, each from the request to the mailed link to its
 * use; single use, expiry, newer links killing older ones, the password policy,
 * answers that do not tell known accounts from unknown ones, and throttling.
 */

type Res = { status: number; body: any; headers: Record<string, string> };

const LINK = /https?:\/\/[^\s"'<>]*[?&]token=[A-Za-z0-9_%-]+[^\s"'<>]*/;
const JWT = /^[\w-]+\.[\w-]+\.[\w-]+$/;
const PASSWORD = 'original-password-1';
const SENT = { status: 'SENT' };

const uniqueEmail = (label: string) => `${label}-${randomBytes(4).toString('hex')}@example.test`;
const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

function linkOf(mail: ReceivedMail): URL {
  const match = LINK.exec(mail.text);
  if (!match) throw new Error(`no link in mail text: ${mail.text}`);
  return new URL(match[0]);
}

function tokenOf(mail: ReceivedMail): string {
  const token = linkOf(mail).searchParams.get('token');
  if (!token) throw new Error('no token in the link');
  return token;
}

describe('account lifecycle', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  let a: ProvisionedTenant;
  let sector: string;
  let sectorSlug: string;
  let mfaSector: string;

  /** The sector's own page of a mailed link, where a sector without MagicLinkURL sends it: `PUBLIC_URL/t/{tenant}/{sector}{page}`. */
  const sectorPage = (page: string) => `http://iam.test/t/${a.slug}/${sectorSlug}${page}`;

  /** The first mail to `email` not among `seen`. */
  function mailTo(email: string, seen: ReceivedMail[] = []): Promise<ReceivedMail> {
    const ids = new Set(seen.map((m) => m.messageId));
    return smtp.waitForMail((m) => m.to.includes(email) && !ids.has(m.messageId), 15_000);
  }
  const mailsTo = (email: string) => smtp.find((m) => m.to.includes(email));

  const forgot = (body: Record<string, unknown>): Promise<Res> => t.http().post('/api/v1/password/forgot').send(body);
  const reset = (token: string, newPassword: string): Promise<Res> => t.http().post('/api/v1/password/reset').send({ token, newPassword });
  const magicBegin = (body: Record<string, unknown>): Promise<Res> => t.http().post('/api/v1/login/magic-link/begin').send(body);
  const magicFinish = (token: string): Promise<Res> => t.http().post('/api/v1/login/magic-link/finish').send({ token });
  const login = (username: string, password: string, sectorID = sector): Promise<Res> =>
    t.http().post('/api/v1/login/password').send({ username, password, sectorID });

  async function putSettings(sectorID: string, settings: Record<string, unknown>): Promise<void> {
    const res = await t.http().put(`/api/v1/sectors/${sectorID}/settings`).set(auth(a.adminToken)).send(settings);
    if (res.status !== 200) throw new Error(`settings failed: ${res.status} ${JSON.stringify(res.body)}`);
  }

  async function newUser(label: string, sectorID = sector): Promise<{ sub: string; email: string }> {
    const email = uniqueEmail(label);
    const sub = await createUser(t, a.adminToken, sectorID, { email, password: PASSWORD });
    return { sub, email };
  }

  /** Asks for a reset link and returns its token, read from the mail. */
  async function resetToken(email: string, sectorID = sector): Promise<string> {
    const seen = mailsTo(email);
    const res = await forgot({ sectorID, email });
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: SENT });
    return tokenOf(await mailTo(email, seen));
  }

  async function magicToken(email: string, sectorID = sector): Promise<string> {
    const seen = mailsTo(email);
    const res = await magicBegin({ sectorID, email });
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: SENT });
    return tokenOf(await mailTo(email, seen));
  }

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({
      env: { SMTP_URL: smtp.url, MAIL_FROM, ...FAST_WORKER, THROTTLE_SEND_USER_FREE: '3', THROTTLE_SEND_ADDRESS_FREE: '100000' },
    });
    a = await provisionTenant(t);
    sectorSlug = uniqueSlug('s');
    sector = await createSector(t, a.adminToken, sectorSlug);
    mfaSector = await createSector(t, a.adminToken);
    await putSettings(sector, { MagicLinkLoginEnabled: true });
    await putSettings(mfaSector, { MagicLinkLoginEnabled: true, MFARequired: true });
  });

  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  describe('password reset', () => {
    it('goes from the request to a mailed link to a new password and a sign-in, ending the old sessions', async () => {
      const { sub, email } = await newUser('reset');
      const before = await login(email, PASSWORD);
      expect(before.status).toBe(200);

      const seen = mailsTo(email);
      expect(await forgot({ sectorID: sector, email })).toMatchObject({ status: 200, body: SENT });
      const mail = await mailTo(email, seen);
      expect(mail.subject).toMatch(/^Reset your Sector .* password$/);
      const link = linkOf(mail);
      expect(`${link.origin}${link.pathname}`).toBe(sectorPage('/reset-password'));
      expect(link.searchParams.get('type')).toBe('password-reset');
      const token = tokenOf(mail);

      // A weak password is refused and does not use the link up.
      for (const weak of ['short', email]) {
        const body = expectError(await reset(token, weak), 400, 3, 'VALIDATION_FAILED');
        expect(JSON.stringify(body.details)).toContain('newPassword');
      }

      const NEW = 'brand-new-password-2';
      const done = await reset(token, NEW);
      expect(done.status).toBe(200);
      expect(done.body).toEqual({
        transactionID: expect.any(String),
        status: 'SUCCESS',
        challengeType: '',
        token: expect.stringMatching(JWT),
        refreshToken: expect.any(String),
      });
      // The new session's token works; the sessions from before the reset are ended.
      expect((await t.http().get(`/api/v1/users/${sub}`).set(auth(done.body.token))).body.emailVerified).toBe(true);
      expectError(await t.http().get(`/api/v1/users/${sub}`).set(auth(before.body.token)), 401, 16, 'SESSION_REVOKED');
      expectError(await t.http().post('/api/v1/token/refresh').send({ refreshToken: before.body.refreshToken }), 401, 16, 'SESSION_REVOKED');

      expectError(await login(email, PASSWORD), 401, 16, 'INVALID_CREDENTIALS');
      expect((await login(email, NEW)).status).toBe(200);

      // The link worked once.
      expectError(await reset(token, 'yet-another-password'), 404, 5, 'LINK_INVALID');
    });

    it('answers unknown accounts exactly like known ones (by email and by username) and mails nothing to them', async () => {
      const { email } = await newUser('known');
      const known = await forgot({ sectorID: sector, email });
      const unknownEmail = await forgot({ sectorID: sector, email: uniqueEmail('nobody') });
      const unknownName = await forgot({ sectorID: sector, username: `nobody-${randomBytes(3).toString('hex')}` });
      const knownName = await forgot({ sectorID: sector, username: email });
      for (const res of [unknownEmail, unknownName, knownName]) {
        expect({ status: res.status, body: res.body }).toEqual({ status: known.status, body: known.body });
        expect(Object.keys(res.body)).toEqual(Object.keys(known.body));
      }
      expect(known.body).toEqual(SENT);
    });

    it('kills an older link when a newer one is requested', async () => {
      const { email } = await newUser('twice');
      const first = await resetToken(email);
      const second = await resetToken(email);
      expect(second).not.toBe(first);
      expectError(await reset(first, 'first-link-password'), 404, 5, 'LINK_INVALID');
      expect((await reset(second, 'second-link-password')).status).toBe(200);
    });

    it('refuses an expired link', async () => {
      const { sub, email } = await newUser('expired');
      const token = await resetToken(email);
      await tenantSql(t, a.tenantID, `UPDATE account_links SET expires_at = now() - interval '1 minute' WHERE user_id = $1`, [sub]);
      expectError(await reset(token, 'too-late-password'), 400, 9, 'LINK_EXPIRED');
      expectError(await reset(token, 'too-late-password'), 404, 5, 'LINK_INVALID');
    });

    it('kills a pending link when the password changes otherwise', async () => {
      const { sub, email } = await newUser('changed');
      const token = await resetToken(email);
      const changed = await t.http().post(`/api/v1/users/${sub}/password`).set(auth(a.adminToken)).send({ newPassword: 'set-by-the-admin' });
      expect(changed.status).toBe(200);
      expectError(await reset(token, 'after-the-change'), 404, 5, 'LINK_INVALID');
    });

    it('still asks for the second factor in a sector that requires MFA', async () => {
      const { email } = await newUser('mfa', mfaSector);
      const token = await resetToken(email, mfaSector);
      const res = await reset(token, 'mfa-reset-password');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ transactionID: expect.any(String), status: 'MFA_ENROLLMENT_REQUIRED', challengeType: 'EMAIL_OTP_ENROLLMENT' });
    });

    it('refuses a made-up token', async () => {
      expectError(await reset('not-a-token', 'whatever-password'), 404, 5, 'LINK_INVALID');
      expectError(await reset(randomBytes(48).toString('base64url'), 'whatever-password'), 404, 5, 'LINK_INVALID');
    });

    it('throttles repeated requests per account, known or unknown alike', async () => {
      const { email } = await newUser('throttled');
      const unknown = uniqueEmail('ghost');
      const statuses = async (address: string) => {
        const out: number[] = [];
        for (let i = 0; i < 5; i++) out.push((await forgot({ sectorID: sector, email: address })).status);
        return out;
      };
      const knownStatuses = await statuses(email);
      const unknownStatuses = await statuses(unknown);
      expect(knownStatuses).toEqual([200, 200, 200, 429, 429]);
      expect(unknownStatuses).toEqual(knownStatuses);
      const refused = await forgot({ sectorID: sector, email });
      expectError(refused, 429, 8, 'RATE_LIMITED');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    });
  });

  describe('magic-link sign-in', () => {
    it('mails a link that signs in once, as a first factor', async () => {
      const { sub, email } = await newUser('magic');
      const seen = mailsTo(email);
      expect(await magicBegin({ sectorID: sector, username: email })).toMatchObject({ status: 200, body: SENT });
      const mail = await mailTo(email, seen);
      expect(mail.subject).toMatch(/^Sign in to Sector /);
      const link = linkOf(mail);
      expect(`${link.origin}${link.pathname}`).toBe(sectorPage('/magic-link'));
      const token = tokenOf(mail);

      const done = await magicFinish(token);
      expect(done.status).toBe(200);
      expect(done.body).toEqual({
        transactionID: expect.any(String),
        status: 'SUCCESS',
        challengeType: '',
        token: expect.stringMatching(JWT),
        refreshToken: expect.any(String),
      });
      const me = await t.http().get(`/api/v1/users/${sub}`).set(auth(done.body.token));
      expect({ status: me.status, verified: me.body.emailVerified }).toEqual({ status: 200, verified: true });
      expectError(await magicFinish(token), 404, 5, 'LINK_INVALID');
    });

    it('uses MagicLinkURL as the link base when the sector sets one', async () => {
      const other = await createSector(t, a.adminToken, undefined, { allowedOrigins: ['https://app.example.com'] });
      await putSettings(other, { MagicLinkLoginEnabled: true, MagicLinkURL: 'https://app.example.com/auth?x=1' });
      const { email } = await newUser('base', other);
      const seen = mailsTo(email);
      await magicBegin({ sectorID: other, email });
      const link = linkOf(await mailTo(email, seen));
      expect(`${link.origin}${link.pathname}`).toBe('https://app.example.com/auth');
      expect(link.searchParams.get('x')).toBe('1');
      expect((await magicFinish(link.searchParams.get('token')!)).status).toBe(200);
    });

    it('answers unknown accounts like known ones', async () => {
      const { email } = await newUser('magic-known');
      const known = await magicBegin({ sectorID: sector, email });
      const unknown = await magicBegin({ sectorID: sector, email: uniqueEmail('magic-ghost') });
      expect({ status: unknown.status, body: unknown.body }).toEqual({ status: known.status, body: known.body });
    });

    it('refuses expired and superseded links', async () => {
      const { sub, email } = await newUser('magic-old');
      const first = await magicToken(email);
      const second = await magicToken(email);
      expectError(await magicFinish(first), 404, 5, 'LINK_INVALID');
      await tenantSql(t, a.tenantID, `UPDATE account_links SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [sub]);
      expectError(await magicFinish(second), 400, 9, 'LINK_EXPIRED');
    });

    it('is refused where the sector does not enable it', async () => {
      const { email } = await newUser('magic-off', a.rootSectorID);
      expectError(await magicBegin({ sectorID: a.rootSectorID, email }), 403, 7, 'MAGIC_LINK_DISABLED');
    });

    it('still asks for the second factor in a sector that requires MFA', async () => {
      const { email } = await newUser('magic-mfa', mfaSector);
      const res = await magicFinish(await magicToken(email, mfaSector));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ transactionID: expect.any(String), status: 'MFA_ENROLLMENT_REQUIRED', challengeType: 'EMAIL_OTP_ENROLLMENT' });
    });
  });

  describe('email verification', () => {
    const begin = (sub: string, token: string): Promise<Res> => t.http().post(`/api/v1/users/${sub}/email/verify`).set(auth(token));
    const finish = (token: string): Promise<Res> => t.http().post('/api/v1/email/verify').send({ token });

    it('mails the signed-in user a link that marks the email verified', async () => {
      const { sub, email } = await newUser('verify');
      const userToken = await t.login(email, PASSWORD, sector);
      expect((await t.http().get(`/api/v1/users/${sub}`).set(auth(userToken))).body.emailVerified).toBe(false);
      const seen = mailsTo(email);
      const res = await begin(sub, userToken);
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { sub, status: 'SENT' } });
      const mail = await mailTo(email, seen);
      expect(mail.subject).toMatch(/^Confirm your Sector .* email address$/);
      expect(`${linkOf(mail).origin}${linkOf(mail).pathname}`).toBe(sectorPage('/verify-email'));
      const token = tokenOf(mail);
      expect(await finish(token)).toMatchObject({ status: 200, body: { sub, emailVerified: true } });
      expect((await t.http().get(`/api/v1/users/${sub}`).set(auth(userToken))).body.emailVerified).toBe(true);
      expectError(await finish(token), 404, 5, 'LINK_INVALID');
      expectError(await begin(sub, userToken), 400, 9, 'EMAIL_ALREADY_VERIFIED');
    });

    it('lets an admin send it for their user, and not another user', async () => {
      const { sub, email } = await newUser('verify-admin');
      const other = await newUser('verify-other');
      const otherToken = await t.login(other.email, PASSWORD, sector);
      expectError(await begin(sub, otherToken), 403, 7, 'ROLE_REQUIRED');
      const seen = mailsTo(email);
      expect((await begin(sub, a.adminToken)).status).toBe(200);
      expect((await finish(tokenOf(await mailTo(email, seen)))).status).toBe(200);
    });

    it('does not verify an address that changed after the link was sent', async () => {
      const { sub, email } = await newUser('verify-moved');
      const userToken = await t.login(email, PASSWORD, sector);
      const seen = mailsTo(email);
      expect((await begin(sub, userToken)).status).toBe(200);
      const token = tokenOf(await mailTo(email, seen));
      // An email change deletes the links mailed to the old address.
      const movedTo = uniqueEmail('moved');
      const moved = await t.http().put(`/api/v1/users/${sub}`).set(auth(a.adminToken)).send({ profile: { email: movedTo } });
      expect(moved.status).toBe(200);
      expectError(await finish(token), 404, 5, 'LINK_INVALID');
      expect((await t.http().get(`/api/v1/users/${sub}`).set(auth(userToken))).body.emailVerified).toBe(false);
      // A link that outlived a change (written straight in the database) still verifies nothing.
      const seenAgain = mailsTo(movedTo);
      expect((await begin(sub, userToken)).status).toBe(200);
      const second = tokenOf(await mailTo(movedTo, seenAgain));
      await tenantSql(t, a.tenantID, 'UPDATE users SET email = $2 WHERE id = $1', [sub, uniqueEmail('moved-again')]);
      expectError(await finish(second), 400, 9, 'EMAIL_CHANGED');
    });
  });
});
