/**
 * Account takeover through the email address, end to end (HTTP, PostgreSQL, SMTP):
 *
 *  1. Users change their own email only with a recent authentication; the new
 *     address waits until the link mailed to it is followed, the old one is told,
 *     and recovery links go only to a verified (or admin-set) address.
 *  2. A `?transactionID=` proof changes neither the email nor the phone number, and
 *     enrols no factor.
 *  3. An API token changes the email of a pending invitation only, never of a user
 *     who can sign in; an address it set receives no recovery link.
 *  4. Recovery links die when the address changes or the password is set.
 *  5. A password reset removes the factors added in the last day, and keeps older ones.
 *
 * "Nothing mailed" is read from `account_links` (the link row and its mail are
 * written in one transaction), never waited for.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { expectWireError } from './support/contract';
import { agedSession, createSector, createUser, provisionTenant, ProvisionedTenant, tenantSql, uniqueSlug } from './support/factories';
import { FAST_WORKER, MAIL_FROM, ReceivedMail, startSmtpServer, TestSmtpServer } from './support/smtp';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(120_000);

type Res = { status: number; body: any; headers: Record<string, string> };

const PASSWORD = 'correct horse battery staple';
const SENT = { status: 'SENT' };
const LINK = /https?:\/\/[^\s"'<>]*[?&]token=[A-Za-z0-9_%-]+[^\s"'<>]*/;
const tag = randomBytes(3).toString('hex');
let seq = 0;
const uniqueEmail = (label: string) => `${label}-${tag}-${++seq}@example.test`;
const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

function linkOf(mail: ReceivedMail): URL {
  const match = LINK.exec(mail.text);
  if (!match) throw new Error(`no link in mail text: ${mail.text}`);
  return new URL(match[0]);
}

describe('security: email changes, recovery links and API tokens', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  let a: ProvisionedTenant;
  let sector: string;
  let sectorSlug: string;
  let apiToken: string;

  const mailsTo = (email: string) => smtp.find((m) => m.to.includes(email));
  /** The first mail to `email` not among `seen`. */
  function mailTo(email: string, seen: ReceivedMail[] = []): Promise<ReceivedMail> {
    const ids = new Set(seen.map((m) => m.messageId));
    return smtp.waitForMail((m) => m.to.includes(email) && !ids.has(m.messageId), 15_000);
  }
  const tokenOf = (mail: ReceivedMail): string => linkOf(mail).searchParams.get('token') as string;

  const put = (sub: string, body: object, token?: string, query: Record<string, string> = {}): Promise<Res> => {
    const req = t.http().put(`/api/v1/users/${sub}`).query(query);
    return (token ? req.set(auth(token)) : req).send(body);
  };
  const get = (sub: string, token = a.adminToken): Promise<Res> => t.http().get(`/api/v1/users/${sub}`).set(auth(token));
  const forgot = (email: string): Promise<Res> => t.http().post('/api/v1/password/forgot').send({ sectorID: sector, email });
  const reset = (token: string, newPassword: string): Promise<Res> => t.http().post('/api/v1/password/reset').send({ token, newPassword });
  const magicBegin = (email: string): Promise<Res> => t.http().post('/api/v1/login/magic-link/begin').send({ sectorID: sector, email });
  const magicFinish = (token: string): Promise<Res> => t.http().post('/api/v1/login/magic-link/finish').send({ token });
  const confirm = (token: string): Promise<Res> => t.http().post('/api/v1/email/change/confirm').send({ token });
  const login = (username: string, password = PASSWORD): Promise<Res> =>
    t.http().post('/api/v1/login/password').send({ username, password, sectorID: sector });

  /** The user's links of `kind` (a recovery link exists exactly when its mail was queued). */
  async function links(sub: string, kind: string): Promise<number> {
    const [row] = await tenantSql(t, a.tenantID, 'SELECT count(*)::int AS n FROM account_links WHERE user_id = $1 AND kind = $2', [sub, kind]);
    return row.n as number;
  }

  /** A member with a password, created by the admin (so its address is admin-set). */
  async function member(label: string): Promise<{ sub: string; email: string }> {
    const email = uniqueEmail(label);
    return { sub: await createUser(t, a.adminToken, sector, { email, password: PASSWORD }), email };
  }

  /** A member who signed up alone: a password, an unverified address nobody vouched for. */
  async function signedUp(label: string): Promise<{ sub: string; email: string }> {
    const email = uniqueEmail(label);
    const res = await t.http().post('/api/v1/signup').send({ sectorID: sector, email, password: PASSWORD });
    if (res.status !== 200) throw new Error(`signup failed: ${res.status} ${JSON.stringify(res.body)}`);
    const [row] = await tenantSql(t, a.tenantID, 'SELECT id FROM users WHERE email = $1', [email]);
    return { sub: row.id as string, email };
  }

  /** Signs in, then makes the session ten minutes old and refreshes: a token whose auth_time is that old. */
  async function agedToken(username: string): Promise<string> {
    const res = await login(username);
    expect({ status: res.status, result: res.body.status }).toEqual({ status: 200, result: 'SUCCESS' });
    return (await agedSession(t, a.tenantID, res.body)).token;
  }

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({ env: { SMTP_URL: smtp.url, MAIL_FROM, ...FAST_WORKER } });
    a = await provisionTenant(t);
    sectorSlug = uniqueSlug('s');
    sector = await createSector(t, a.adminToken, sectorSlug);
    const settings = await t.http().put(`/api/v1/sectors/${sector}/settings`).set(auth(a.adminToken)).send({ MagicLinkLoginEnabled: true, SelfSignUpAllowed: true });
    expect(settings.status).toBe(200);
    const minted = await t.http().post(`/api/v1/sectors/${sector}/tokens`).set(auth(a.adminToken)).send({ name: `account ${tag}` });
    expect(minted.status).toBe(200);
    apiToken = minted.body.token as string;
  });

  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  describe('1. changing one\'s own email needs a recent authentication and a confirmed new address', () => {
    it('an old sign-in is refused; with the current password the new address waits for its link, the old one is told', async () => {
      const u = await member('owner');
      const token = await agedToken(u.email);
      const attacker = uniqueEmail('attacker');

      const refused = expectWireError(await put(u.sub, { profile: { email: attacker } }, token), 403, 7, 'REAUTHENTICATION_REQUIRED', { metadata: { maxAgeSeconds: '300' } });
      expect(refused.message).toMatch(/sign in again|currentPassword/);
      expectWireError(await put(u.sub, { profile: { phoneNumber: '+14155550123' } }, token), 403, 7, 'REAUTHENTICATION_REQUIRED', { metadata: { maxAgeSeconds: '300' } });
      expectWireError(await put(u.sub, { profile: { email: attacker }, currentPassword: 'not the password' }, token), 401, 16, 'INVALID_CREDENTIALS');
      // Other fields need no step-up.
      expect((await put(u.sub, { profile: { name: 'Still Me' } }, token)).status).toBe(200);
      expect((await get(u.sub)).body).toMatchObject({ email: u.email, pendingEmail: '', name: 'Still Me' });

      const seenNew = mailsTo(attacker);
      const seenOld = mailsTo(u.email);
      const changed = await put(u.sub, { profile: { email: attacker }, currentPassword: PASSWORD }, token);
      expect({ status: changed.status, body: changed.body }).toEqual({
        status: 200,
        body: { sub: u.sub, username: u.email, sectorID: sector, pendingEmail: attacker },
      });
      // Nothing changed yet but the pending address.
      expect((await get(u.sub)).body).toMatchObject({ email: u.email, emailVerified: false, pendingEmail: attacker });
      expect((await get(u.sub, token)).body).toMatchObject({ email: u.email, pendingEmail: attacker });

      const linkMail = await mailTo(attacker, seenNew);
      const link = linkOf(linkMail);
      expect(`${link.origin}${link.pathname}`).toBe(`http://iam.test/t/${a.slug}/${sectorSlug}/confirm-email`);
      expect(link.searchParams.get('type')).toBe('email-change');
      const notice = await mailTo(u.email, seenOld);
      expect(notice.text).toContain('email address');
      expect(notice.text).not.toContain(attacker);

      // The pending address is no login and receives no recovery link until confirmed.
      expect(await forgot(attacker)).toMatchObject({ status: 200, body: SENT });
      expect(await links(u.sub, 'password-reset')).toBe(0);

      const confirmed = await confirm(tokenOf(linkMail));
      expect({ status: confirmed.status, body: confirmed.body }).toEqual({ status: 200, body: { sub: u.sub, email: attacker, emailVerified: true } });
      expect((await get(u.sub)).body).toMatchObject({ email: attacker, emailVerified: true, pendingEmail: '' });
      expectWireError(await confirm(tokenOf(linkMail)), 404, 5, 'LINK_INVALID');
      // The username (the old email) stays.
      expect((await login(u.email)).status).toBe(200);
      expect((await login(attacker)).status).toBe(200);

      // A confirmed (verified) address receives recovery links.
      expect(await forgot(attacker)).toMatchObject({ status: 200, body: SENT });
      expect(await links(u.sub, 'password-reset')).toBe(1);
    });

    it('a fresh sign-in changes the email without the password; a taken address is EMAIL_TAKEN at the request and at the confirmation', async () => {
      const u = await member('fresh');
      const other = await member('other');
      const token = (await login(u.email)).body.token as string;
      expectWireError(await put(u.sub, { profile: { email: other.email.toUpperCase() } }, token), 409, 6, 'EMAIL_TAKEN');

      const wanted = uniqueEmail('wanted');
      const seen = mailsTo(wanted);
      expect((await put(u.sub, { profile: { email: wanted } }, token)).body).toMatchObject({ pendingEmail: wanted });
      const linkMail = await mailTo(wanted, seen);
      // Someone else takes the address meanwhile.
      expect((await put(other.sub, { profile: { email: wanted } }, a.adminToken)).status).toBe(200);
      expectWireError(await confirm(tokenOf(linkMail)), 409, 6, 'EMAIL_TAKEN');
      expect((await get(u.sub)).body).toMatchObject({ email: u.email });
    });

    it('a self-signed-up user with an unverified address gets no reset or magic link; a verified one does', async () => {
      const u = await signedUp('selfish');
      expect(await forgot(u.email)).toMatchObject({ status: 200, body: SENT });
      expect(await magicBegin(u.email)).toMatchObject({ status: 200, body: SENT });
      expect(await links(u.sub, 'password-reset')).toBe(0);
      expect(await links(u.sub, 'magic-link')).toBe(0);
      // Verified through its link, the address receives them.
      const token = (await login(u.email)).body.token as string;
      const seen = mailsTo(u.email);
      expect((await t.http().post(`/api/v1/users/${u.sub}/email/verify`).set(auth(token))).status).toBe(200);
      expect((await t.http().post('/api/v1/email/verify').send({ token: tokenOf(await mailTo(u.email, seen)) })).status).toBe(200);
      expect(await forgot(u.email)).toMatchObject({ status: 200, body: SENT });
      expect(await links(u.sub, 'password-reset')).toBe(1);
    });

    it('a phone change by the user applies unverified and tells the email address', async () => {
      const u = await member('phone');
      const token = (await login(u.email)).body.token as string;
      const seen = mailsTo(u.email);
      const res = await put(u.sub, { profile: { phoneNumber: '+14155550177' } }, token);
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { sub: u.sub, username: u.email, sectorID: sector } });
      expect((await get(u.sub)).body).toMatchObject({ phoneNumber: '+14155550177', phoneNumberVerified: false });
      expect((await mailTo(u.email, seen)).text).toContain('phone number');
    });
  });

  describe('2. a transactionID proof changes no contact detail and enrols no factor', () => {
    it('refuses email and phone changes and TOTP enrolment with only ?transactionID=', async () => {
      const u = await member('proof');
      const signIn = await login(u.email);
      const transactionID = signIn.body.transactionID as string;
      const proof = { transactionID };

      expectWireError(await put(u.sub, { profile: { email: uniqueEmail('stolen') } }, undefined, proof), 403, 7, 'REAUTHENTICATION_REQUIRED', { metadata: { maxAgeSeconds: '300' } });
      expectWireError(await put(u.sub, { profile: { phoneNumber: '+14155550199' } }, undefined, proof), 403, 7, 'REAUTHENTICATION_REQUIRED', { metadata: { maxAgeSeconds: '300' } });
      expectWireError(await put(u.sub, { profile: { email: uniqueEmail('stolen') }, currentPassword: PASSWORD }, undefined, proof), 403, 7, 'REAUTHENTICATION_REQUIRED', {
        metadata: { maxAgeSeconds: '300' },
      });
      // Other profile fields still work with the proof.
      expect((await put(u.sub, { profile: { name: 'By Proof' } }, undefined, proof)).status).toBe(200);

      // Adding a factor takes a bearer credential: the proof is not even read there.
      const totp = await t.http().post(`/api/v1/users/${u.sub}/otp-registrations`).query(proof).send({ type: 'totp' });
      expectWireError(totp, 401, 16, 'CREDENTIAL_MISSING');
      const [row] = await tenantSql(t, a.tenantID, 'SELECT count(*)::int AS n FROM otp_registrations WHERE user_id = $1', [u.sub]);
      expect(row.n).toBe(0);
      expect((await get(u.sub)).body).toMatchObject({ email: u.email, phoneNumber: '', pendingEmail: '', name: 'By Proof' });
    });
  });

  describe('3. API tokens change the email of pending invitations only', () => {
    it('refuses a member with a password (or a factor); allows a pending invitee, whose token-set address gets no recovery link', async () => {
      const u = await member('tokened');
      const res = await put(u.sub, { profile: { email: uniqueEmail('taken-over') } }, apiToken);
      const body = expectWireError(res, 403, 7, 'FIELD_NOT_WRITABLE');
      expect(body.message).toMatch(/API token/);
      expectWireError(await put(u.sub, { profile: { phoneNumber: '+14155550111' } }, apiToken), 403, 7, 'FIELD_NOT_WRITABLE');
      // Other fields stay writable.
      expect((await put(u.sub, { profile: { name: 'Token Named' } }, apiToken)).status).toBe(200);
      expect((await get(u.sub)).body).toMatchObject({ email: u.email, phoneNumber: '', name: 'Token Named' });

      // A passwordless user with a passkey can sign in too.
      const passkeyUser = await createUser(t, a.adminToken, sector, { email: uniqueEmail('passkey-only') });
      await tenantSql(t, a.tenantID, `UPDATE users SET invite_token_hash = NULL, invite_accepted_at = now() WHERE id = $1`, [passkeyUser]);
      await tenantSql(t, a.tenantID, `INSERT INTO webauthn_credentials (credential_id, user_id, sector_id, public_key, rp_id) VALUES ($1, $2, $3, '\\x00', 'iam.test')`, [
        `cred-${randomUUID()}`,
        passkeyUser,
        sector,
      ]);
      expectWireError(await put(passkeyUser, { profile: { email: uniqueEmail('passkey-stolen') } }, apiToken), 403, 7, 'FIELD_NOT_WRITABLE');

      const invitedEmail = uniqueEmail('invitee');
      const invitee = await createUser(t, a.adminToken, sector, { email: invitedEmail });
      const fixed = uniqueEmail('invitee-fixed');
      const moved = await put(invitee, { profile: { email: fixed, phoneNumber: '+14155550122' } }, apiToken);
      expect({ status: moved.status, body: moved.body }).toEqual({ status: 200, body: { sub: invitee, username: invitedEmail, sectorID: sector } });
      expect((await get(invitee)).body).toMatchObject({ email: fixed, emailVerified: false, pendingEmail: '' });
      // An address an API token set is neither verified nor admin-set: no recovery link.
      expect(await forgot(fixed)).toMatchObject({ status: 200, body: SENT });
      expect(await links(invitee, 'password-reset')).toBe(0);
      // The invitation mailed to the old address died with it (an admin resends it).
      const [row] = await tenantSql(t, a.tenantID, 'SELECT invite_token_hash FROM users WHERE id = $1', [invitee]);
      expect(row.invite_token_hash).toBeNull();

      // The same change by a signed-in admin makes the address one that receives recovery links.
      const byAdmin = uniqueEmail('admin-set');
      expect((await put(invitee, { profile: { email: byAdmin } }, a.adminToken)).status).toBe(200);
      expect(await forgot(byAdmin)).toMatchObject({ status: 200, body: SENT });
      expect(await links(invitee, 'password-reset')).toBe(1);
    });
  });

  describe('4. recovery links die when the address changes or the password is set', () => {
    it('a reset link mailed to the old address dies when an admin changes the email', async () => {
      const u = await member('moved');
      const seen = mailsTo(u.email);
      expect(await forgot(u.email)).toMatchObject({ status: 200, body: SENT });
      const token = tokenOf(await mailTo(u.email, seen));
      expect((await put(u.sub, { profile: { email: uniqueEmail('moved-new') } }, a.adminToken)).status).toBe(200);
      expectWireError(await reset(token, 'new-password-after-move'), 404, 5, 'LINK_INVALID');
      expect((await login(u.email)).status).toBe(200);
    });

    it('a reset link whose address is no longer the user\'s is refused at use', async () => {
      const u = await member('stale');
      const seen = mailsTo(u.email);
      expect(await forgot(u.email)).toMatchObject({ status: 200, body: SENT });
      const token = tokenOf(await mailTo(u.email, seen));
      // Straight in the database (no code path leaves such a link behind): the check at use still holds.
      await tenantSql(t, a.tenantID, `UPDATE users SET email = $2 WHERE id = $1`, [u.sub, uniqueEmail('stale-new')]);
      expectWireError(await reset(token, 'new-password-after-move'), 404, 5, 'LINK_INVALID');
    });

    it('a magic link dies when the password changes', async () => {
      const u = await member('magic');
      const seen = mailsTo(u.email);
      expect(await magicBegin(u.email)).toMatchObject({ status: 200, body: SENT });
      const token = tokenOf(await mailTo(u.email, seen));
      const userToken = (await login(u.email)).body.token as string;
      const changed = await t.http().post(`/api/v1/users/${u.sub}/password`).set(auth(userToken)).send({ currentPassword: PASSWORD, newPassword: 'a-changed-password-1' });
      expect(changed.status).toBe(200);
      expectWireError(await magicFinish(token), 404, 5, 'LINK_INVALID');
    });
  });

  describe('5. a password reset removes the factors added in the last day', () => {
    it('removes a passkey and a TOTP factor added today, keeps older ones, and says so in the audit event', async () => {
      const u = await member('reset-factors');
      const recentCred = `recent-${randomUUID()}`;
      const oldCred = `old-${randomUUID()}`;
      const recentOtp = randomUUID();
      const oldOtp = randomUUID();
      await tenantSql(
        t,
        a.tenantID,
        `INSERT INTO webauthn_credentials (credential_id, user_id, sector_id, public_key, rp_id, created_at)
         VALUES ($1, $3, $4, '\\x00', 'iam.test', now() - interval '1 hour'), ($2, $3, $4, '\\x00', 'iam.test', now() - interval '3 days')`,
        [recentCred, oldCred, u.sub, sector],
      );
      await tenantSql(
        t,
        a.tenantID,
        `INSERT INTO otp_registrations (id, user_id, type, verified_at, created_at)
         VALUES ($1, $3, 'totp', now(), now() - interval '2 hours'), ($2, $3, 'totp', now() - interval '2 days', now() - interval '2 days')`,
        [recentOtp, oldOtp, u.sub],
      );
      const seen = mailsTo(u.email);
      expect(await forgot(u.email)).toMatchObject({ status: 200, body: SENT });
      const done = await reset(tokenOf(await mailTo(u.email, seen)), 'recovered-password-1');
      expect(done.status).toBe(200);

      const creds = await tenantSql(t, a.tenantID, 'SELECT credential_id FROM webauthn_credentials WHERE user_id = $1', [u.sub]);
      expect(creds.map((r) => r.credential_id)).toEqual([oldCred]);
      const otps = await tenantSql(t, a.tenantID, 'SELECT id FROM otp_registrations WHERE user_id = $1', [u.sub]);
      expect(otps.map((r) => r.id)).toEqual([oldOtp]);
      const [event] = await tenantSql(t, a.tenantID, `SELECT details FROM audit_events WHERE type = 'password.reset' AND target_id = $1`, [u.sub]);
      expect(event.details).toEqual({ removedRecentPasskeys: 1, removedRecentOtpFactors: 1 });
    });
  });
});
