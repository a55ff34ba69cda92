/**
 * Security review findings, end to end: each describe reproduces one attack on
 * the real application (HTTP, PostgreSQL, SMTP) and asserts that it is refused.
 *
 *  1. API tokens cannot escalate (admins, verified flags, admin accounts, passwords, factors).
 *  2. The password throttle reserves atomically and keeps one bucket per account.
 *  3. An anonymous `login/otp/begin` costs the account owner nothing.
 *  4. Factor registrations are capped and their sends throttled (per user, per address).
 *  5. Anonymous transactions are throttled per address and purged when expired.
 *  6. Deeply nested JSON is refused before it can hurt.
 *  7. Credentials are redacted in logged URLs.
 *  8. A password change revokes other tokens and transaction proofs.
 *  9. Signup is throttled per address.
 * 10. Malformed strings (NUL, lone surrogates) are refused at the edge.
 *
 * Client addresses vary through X-Forwarded-For (TRUST_PROXY on) with TEST-NET
 * addresses; no timing assertions, short sleeps only to let deliveries happen.
 */
import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { claimsOf, ERROR_INFO, ErrorBody, expectWireError, JWT, TRANSACTION_ID, UUID } from './support/contract';
import { createSector, createUser, provisionTenant, ProvisionedTenant, tenantSql } from './support/factories';
import { codeIn, DEFAULT_MAIL_CODE, FAST_WORKER, ReceivedMail, startSmtpServer, TestSmtpServer } from './support/smtp';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';
import { eventually, sleep } from './support/wait';
import { TransactionJanitor } from '../src/auth/engine/transaction-janitor';
import { PasswordHasher } from '../src/user/password-hasher';
import { UserService } from '../src/user/user.service';

jest.setTimeout(120_000);

type Res = { status: number; body: any; headers: Record<string, string> };

const PASSWORD = 'correct horse battery staple';
const WRONG = 'not the password at all';

/** Unique names per run. */
const tag = randomBytes(3).toString('hex');
let nameSeq = 0;
function uniqueEmail(label: string): string {
  nameSeq += 1;
  return `${label}-${tag}-${nameSeq}@example.test`;
}

let addressSeq = 0;
const TEST_NETS = ['192.0.2', '198.51.100', '203.0.113'];
/** A client address no other request of this file uses (TEST-NET-1/2/3). */
function newAddress(): string {
  const n = addressSeq++;
  return `${TEST_NETS[Math.floor(n / 254) % TEST_NETS.length]}.${(n % 254) + 1}`;
}

const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

/** ErrorInfo.reason of an error body. */
function reasonOf(res: Res): unknown {
  return ((res.body as ErrorBody).details ?? []).find((d) => d['@type'] === ERROR_INFO)?.reason;
}

/** The shared SMTP server that captures every mail the apps of this file send. */
let smtp: TestSmtpServer;

beforeAll(async () => {
  smtp = await startSmtpServer();
});

afterAll(async () => {
  await smtp?.stop();
});

afterEach(() => {
  jest.restoreAllMocks();
});

// ---------------------------------------------------------------------------------------------
// 1. API tokens
// ---------------------------------------------------------------------------------------------

describe('finding 1: API tokens cannot escalate', () => {
  let t: TestApp;
  let a: ProvisionedTenant;
  let platformTenantID: string;

  interface Scope {
    /** The token's sector. */
    sector: string;
    /** A sector API token of that sector. */
    apiToken: string;
    /** A signed-in admin over that sector (to arrange and to check). */
    adminToken: string;
  }
  const scopes: Record<string, Scope> = {};

  const SUB_SECTOR = 'a sub-sector';
  const DEFAULT_SECTOR = "the tenant's default sector";
  const PLATFORM_SECTOR = "the platform tenant's default sector";

  async function mint(adminToken: string, sectorID: string): Promise<string> {
    const res = await t.http().post(`/api/v1/sectors/${sectorID}/tokens`).set(auth(adminToken)).send({ name: `review ${randomBytes(3).toString('hex')}` });
    if (res.status !== 200) throw new Error(`minting a token in ${sectorID} failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.token as string;
  }

  interface Made {
    sub: string;
    email: string;
    password: string;
  }

  /** A user of the scope's sector with a password, created by its admin. */
  async function makeUser(s: Scope, label: string, isAdmin = false): Promise<Made> {
    const email = uniqueEmail(label);
    const password = `pw-${randomBytes(6).toString('hex')}`;
    const sub = await createUser(t, s.adminToken, s.sector, { email, password, isAdmin });
    return { sub, email, password };
  }

  /** The users of the scope's sector with this email, as its admin lists them. */
  async function usersWithEmail(s: Scope, email: string): Promise<any[]> {
    const res = await t.http().get(`/api/v1/sectors/${s.sector}/users`).set(auth(s.adminToken)).query({ filterEmail: email });
    expect(res.status).toBe(200);
    return res.body.users as any[];
  }

  const createVia = (token: string, sectorID: string, body: object): Promise<Res> => t.http().post(`/api/v1/sectors/${sectorID}/users`).set(auth(token)).send(body);
  const getVia = (token: string, sub: string): Promise<Res> => t.http().get(`/api/v1/users/${sub}`).set(auth(token));
  const putVia = (token: string, sub: string, body: object): Promise<Res> => t.http().put(`/api/v1/users/${sub}`).set(auth(token)).send(body);
  const deleteVia = (token: string, sub: string): Promise<Res> => t.http().delete(`/api/v1/users/${sub}`).set(auth(token));
  const passwordVia = (token: string, sub: string, body: object): Promise<Res> => t.http().post(`/api/v1/users/${sub}/password`).set(auth(token)).send(body);
  const regs = (sub: string) => `/api/v1/users/${sub}/otp-registrations`;

  beforeAll(async () => {
    t = await startTestApp();
    a = await provisionTenant(t);
    const sub = await createSector(t, a.adminToken);
    const platformAdmin = await t.platformToken();
    const claims = claimsOf(platformAdmin);
    const platformSector = claims.sectorID as string;
    platformTenantID = claims.tenantID as string;
    scopes[SUB_SECTOR] = { sector: sub, adminToken: a.adminToken, apiToken: await mint(a.adminToken, sub) };
    scopes[DEFAULT_SECTOR] = { sector: a.rootSectorID, adminToken: a.adminToken, apiToken: await mint(a.adminToken, a.rootSectorID) };
    scopes[PLATFORM_SECTOR] = { sector: platformSector, adminToken: platformAdmin, apiToken: await mint(platformAdmin, platformSector) };
  });

  afterAll(async () => {
    await t?.close();
  });

  describe.each([SUB_SECTOR, DEFAULT_SECTOR, PLATFORM_SECTOR])('a token of %s', (scopeName) => {
    let s: Scope;
    beforeAll(() => {
      s = scopes[scopeName];
    });

    it('cannot create an admin (403 ADMIN_REQUIRED_TO_GRANT_ADMIN); no such user exists afterwards', async () => {
      const email = uniqueEmail('would-be-admin');
      const res = await createVia(s.apiToken, s.sector, { email, password: PASSWORD, isAdmin: true });
      expectWireError(res, 403, 7, 'ADMIN_REQUIRED_TO_GRANT_ADMIN');
      expect(await usersWithEmail(s, email)).toEqual([]);
    });

    it('cannot create a user with a verified email (403 FIELD_NOT_WRITABLE)', async () => {
      const email = uniqueEmail('pre-verified');
      const res = await createVia(s.apiToken, s.sector, { email, profile: { emailVerified: true } });
      expectWireError(res, 403, 7, 'FIELD_NOT_WRITABLE');
      expect(await usersWithEmail(s, email)).toEqual([]);
    });

    it('cannot make a member an admin (ADMIN_REQUIRED_TO_GRANT_ADMIN) nor mark their email verified (FIELD_NOT_WRITABLE)', async () => {
      const member = await makeUser(s, 'member');
      expectWireError(await putVia(s.apiToken, member.sub, { setAdminExplicitly: true, isAdmin: true }), 403, 7, 'ADMIN_REQUIRED_TO_GRANT_ADMIN');
      expectWireError(await putVia(s.apiToken, member.sub, { profile: { emailVerified: true } }), 403, 7, 'FIELD_NOT_WRITABLE');
      const [listed] = await usersWithEmail(s, member.email);
      expect(listed).toMatchObject({ sub: member.sub, isAdmin: false, emailVerified: false });
      const read = await getVia(s.adminToken, member.sub);
      expect(read.status).toBe(200);
      expect(read.body.emailVerified).toBe(false);
    });

    it('cannot update, delete or re-invite an admin of its sector (403 ROLE_REQUIRED), but may read them', async () => {
      const admin = await makeUser(s, 'sector-admin', true);
      expectWireError(await putVia(s.apiToken, admin.sub, { profile: { name: 'x' } }), 403, 7, 'ROLE_REQUIRED');
      expectWireError(await deleteVia(s.apiToken, admin.sub), 403, 7, 'ROLE_REQUIRED');
      expectWireError(await t.http().post(`/api/v1/users/${admin.sub}/invite`).set(auth(s.apiToken)), 403, 7, 'ROLE_REQUIRED');

      const read = await getVia(s.apiToken, admin.sub);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ sub: admin.sub, email: admin.email, name: '' });
      const [listed] = await usersWithEmail(s, admin.email);
      expect(listed).toMatchObject({ sub: admin.sub, isAdmin: true, name: '' });
      await t.login(admin.email, admin.password, s.sector);
    });

    it("cannot set or change anyone's password (403 ROLE_REQUIRED); the old passwords still sign in", async () => {
      const member = await makeUser(s, 'pw-member');
      const admin = await makeUser(s, 'pw-admin', true);
      for (const user of [member, admin]) {
        expectWireError(await passwordVia(s.apiToken, user.sub, { newPassword: 'hijacked-password-1' }), 403, 7, 'ROLE_REQUIRED');
        expectWireError(
          await passwordVia(s.apiToken, user.sub, { currentPassword: user.password, newPassword: 'hijacked-password-2' }),
          403,
          7,
          'ROLE_REQUIRED',
        );
        await t.login(user.email, user.password, s.sector);
        expectWireError(
          await t.http().post('/api/v1/login/password').send({ username: user.email, password: 'hijacked-password-1', sectorID: s.sector }),
          401,
          16,
          'INVALID_CREDENTIALS',
        );
      }
    });

    it("cannot list, add, verify or delete a user's one-time-code factors (403 ROLE_REQUIRED)", async () => {
      const member = await makeUser(s, 'factors');
      const memberToken = await t.login(member.email, member.password, s.sector);
      const own = await t.http().post(regs(member.sub)).set(auth(memberToken)).send({ type: 'totp' });
      expect(own.status).toBe(200);
      const registrationID = own.body.registrationID as string;

      expectWireError(await t.http().get(regs(member.sub)).set(auth(s.apiToken)), 403, 7, 'ROLE_REQUIRED');
      expectWireError(await t.http().post(regs(member.sub)).set(auth(s.apiToken)).send({ type: 'totp' }), 403, 7, 'ROLE_REQUIRED');
      expectWireError(
        await t.http().post(regs(member.sub)).set(auth(s.apiToken)).send({ type: 'email', destination: uniqueEmail('token-factor') }),
        403,
        7,
        'ROLE_REQUIRED',
      );
      expectWireError(await t.http().post(`${regs(member.sub)}/${registrationID}/verify`).set(auth(s.apiToken)).send({ code: '123456' }), 403, 7, 'ROLE_REQUIRED');
      expectWireError(await t.http().delete(`${regs(member.sub)}/${registrationID}`).set(auth(s.apiToken)), 403, 7, 'ROLE_REQUIRED');

      // Nothing changed: the member still has exactly their own, unverified registration.
      const listed = await t.http().get(regs(member.sub)).set(auth(memberToken));
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual({ registrations: [{ registrationID, type: 'totp', destination: '', verified: false }] });
    });

    it('may still create a non-admin user with a password (who signs in), read users, rename a member and delete a non-admin user', async () => {
      const email = uniqueEmail('made-by-token');
      const created = await createVia(s.apiToken, s.sector, { email, password: PASSWORD });
      expect(created.status).toBe(200);
      expect(created.body).toMatchObject({ sub: expect.stringMatching(UUID), email, emailVerified: false });
      await t.login(email, PASSWORD, s.sector);

      const list = await t.http().get(`/api/v1/sectors/${s.sector}/users`).set(auth(s.apiToken)).query({ filterEmail: email });
      expect(list.status).toBe(200);
      expect(list.body.users.map((u: { sub: string; isAdmin: boolean }) => [u.sub, u.isAdmin])).toEqual([[created.body.sub, false]]);
      const read = await getVia(s.apiToken, created.body.sub);
      expect(read.status).toBe(200);
      expect(read.body.sub).toBe(created.body.sub);

      const member = await makeUser(s, 'renamed');
      const renamed = await putVia(s.apiToken, member.sub, { profile: { name: 'Renamed by a token' } });
      expect(renamed.status).toBe(200);
      expect((await getVia(s.adminToken, member.sub)).body.name).toBe('Renamed by a token');

      const deleted = await deleteVia(s.apiToken, created.body.sub);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ sub: created.body.sub });
      expect(await usersWithEmail(s, email)).toEqual([]);
    });
  });

  it('the platform-sector token cannot read tenants (403)', async () => {
    const s = scopes[PLATFORM_SECTOR];
    for (const tenantID of [a.tenantID, platformTenantID]) {
      expectWireError(await t.http().get(`/api/v1/tenants/${tenantID}`).set(auth(s.apiToken)), 403, 7, 'ROLE_REQUIRED');
    }
    // The platform admin it was minted by may.
    expect((await t.http().get(`/api/v1/tenants/${a.tenantID}`).set(auth(s.adminToken))).status).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------
// 2. Password throttle
// ---------------------------------------------------------------------------------------------

describe('finding 2: the password throttle reserves atomically and keeps one bucket per account', () => {
  const ENV = {
    TRUST_PROXY: 'true',
    THROTTLE_ACCOUNT_FREE_ATTEMPTS: '5',
    THROTTLE_ADDRESS_FREE_ATTEMPTS: '1000',
    THROTTLE_BASE_DELAY_SECONDS: '1',
    THROTTLE_MAX_DELAY_SECONDS: '60',
  };
  let t: TestApp;
  let tenant: ProvisionedTenant;
  let sector: string;

  const login = (address: string, username: string, password: string): Promise<Res> =>
    t.http().post('/api/v1/login/password').set('X-Forwarded-For', address).send({ username, password, sectorID: sector });

  function expectWrongPassword(res: Res): void {
    expectWireError(res, 401, 16, 'INVALID_CREDENTIALS');
    expect(res.headers['retry-after']).toBeUndefined();
  }

  function expectThrottled(res: Res): void {
    expectWireError(res, 429, 8, 'TOO_MANY_ATTEMPTS', { retry: true });
  }

  /** A user with username `thr-<rand>` and email `thr-<rand>@example.test`. */
  async function newUser(): Promise<{ username: string; email: string }> {
    const username = `thr-${randomBytes(4).toString('hex')}`;
    const email = `${username}@example.test`;
    await createUser(t, tenant.adminToken, sector, { email, username, password: PASSWORD });
    return { username, email };
  }

  beforeAll(async () => {
    t = await startTestApp({ env: ENV });
    tenant = await provisionTenant(t);
    sector = tenant.rootSectorID;
  });

  afterAll(async () => {
    await t?.close();
  });

  it('20 concurrent wrong passwords for one account (from 20 addresses) run bcrypt at most 5 times; the rest are refused with 429', async () => {
    const user = await newUser();
    const bcrypt = jest.spyOn(t.app.get(PasswordHasher), 'verifyOrWaste');
    const results = (await Promise.all(Array.from({ length: 20 }, () => login(newAddress(), user.username, WRONG)))) as Res[];
    expect(bcrypt.mock.calls.length).toBeLessThanOrEqual(5);
    bcrypt.mockRestore();
    for (const res of results) {
      if (res.status === 401) expectWrongPassword(res);
      else expectThrottled(res);
    }
    expect(results.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(15);
  });

  it('5 wrong passwords with the username block the correct password with the email (same bucket), from a new address', async () => {
    const user = await newUser();
    const attacker = newAddress();
    for (let i = 0; i < 5; i++) expectWrongPassword(await login(attacker, user.username, WRONG));
    expectThrottled(await login(newAddress(), user.email, PASSWORD));
  });

  it('5 wrong passwords with the email block the correct password with the username (same bucket), from a new address', async () => {
    const user = await newUser();
    const attacker = newAddress();
    for (let i = 0; i < 5; i++) expectWrongPassword(await login(attacker, user.email, WRONG));
    expectThrottled(await login(newAddress(), user.username, PASSWORD));
  });

  it('an unknown login gets exactly the same status sequence as a real one: [401×5, 429, 429]', async () => {
    const real = await newUser();
    const unknown = `thr-${randomBytes(4).toString('hex')}-nobody`;
    const sequence = async (username: string): Promise<number[]> => {
      const address = newAddress();
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) {
        const res = await login(address, username, WRONG);
        if (res.status === 401) expectWrongPassword(res);
        else if (res.status === 429) expectThrottled(res);
        statuses.push(res.status);
      }
      return statuses;
    };
    const forReal = await sequence(real.username);
    const forUnknown = await sequence(unknown);
    expect(forReal).toEqual([401, 401, 401, 401, 401, 429, 429]);
    expect(forUnknown).toEqual(forReal);
  });
});

// ---------------------------------------------------------------------------------------------
// Mail helpers shared by the describes that read codes
// ---------------------------------------------------------------------------------------------

const isTo = (mail: ReceivedMail, to: string) => mail.envelopeTo.some((r) => r.toLowerCase() === to.toLowerCase());

/** Mails read (or deliberately skipped) by a test. */
const consumedMail = new Set<ReceivedMail>();

/** The next mail to `to` nobody read yet. */
async function nextMail(to: string): Promise<ReceivedMail> {
  // Notices of a factor added are not what these specs read (security-factors.e2e-spec.ts covers them).
  const mail = await smtp.waitForMail((m) => !consumedMail.has(m) && !m.subject.startsWith('A new sign-in method was added') && isTo(m, to), 15_000);
  consumedMail.add(mail);
  return mail;
}

/** Marks every mail to `to` received so far as read; answers how many there were. */
function skipMailTo(to: string): number {
  const all = smtp.find((m) => isTo(m, to));
  for (const m of all) consumedMail.add(m);
  return all.length;
}

const mailCountTo = (to: string) => smtp.find((m) => isTo(m, to)).length;

/** Waits until the tenant's outbox has nothing left to deliver (after a moment for work queued after the answer). */
async function outboxSettled(t: TestApp, tenantID: string): Promise<void> {
  await sleep(300);
  await eventually(
    async () => {
      const [row] = await tenantSql(t, tenantID, `SELECT count(*)::int AS n FROM outbox WHERE status = 'pending'`);
      return row.n === 0;
    },
    15_000,
    'the outbox to deliver everything',
  );
}

// ---------------------------------------------------------------------------------------------
// 3. Anonymous login/otp/begin
// ---------------------------------------------------------------------------------------------

describe('finding 3: an anonymous login/otp/begin costs the owner nothing', () => {
  let t: TestApp;
  let tenant: ProvisionedTenant;
  let S: string;

  interface Owner {
    sub: string;
    email: string;
  }

  const otpBegin = (body: Record<string, unknown>, address = newAddress()): Promise<Res> =>
    t.http().post('/api/v1/login/otp/begin').set('X-Forwarded-For', address).send(body);
  const otpLogin = (body: Record<string, unknown>): Promise<Res> => t.http().post('/api/v1/login/otp').set('X-Forwarded-For', newAddress()).send(body);

  /** A user with a password and a verified email factor (their own address), in a sector without required MFA. */
  async function newOwner(): Promise<Owner> {
    const email = uniqueEmail('owner');
    const sub = await createUser(t, tenant.adminToken, S, { email, password: PASSWORD });
    const token = await t.login(email, PASSWORD, S);
    const reg = await t.http().post(`/api/v1/users/${sub}/otp-registrations`).set(auth(token)).send({ type: 'email', destination: email });
    expect(reg.status).toBe(200);
    const code = codeIn((await nextMail(email)).text, DEFAULT_MAIL_CODE);
    const verified = await t.http().post(`/api/v1/users/${sub}/otp-registrations/${reg.body.registrationID}/verify`).set(auth(token)).send({ code });
    expect(verified.status).toBe(200);
    return { sub, email };
  }

  /** The owner's password step: the transaction waiting for the one-time code. */
  async function passwordStep(owner: Owner): Promise<string> {
    const res = await t.http().post('/api/v1/login/password').set('X-Forwarded-For', newAddress()).send({ username: owner.email, password: PASSWORD, sectorID: S });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), status: 'MFA_REQUIRED', challengeType: 'OTP' });
    return res.body.transactionID as string;
  }

  /** The owner's whole password-backed sign-in with the emailed code. */
  async function ownerSignsIn(owner: Owner): Promise<void> {
    const tx = await passwordStep(owner);
    const begun = await otpBegin({ transactionID: tx, sectorID: S });
    expect({ status: begun.status, body: begun.body }).toEqual({ status: 200, body: { transactionID: tx } });
    const code = codeIn((await nextMail(owner.email)).text, DEFAULT_MAIL_CODE);
    const done = await otpLogin({ transactionID: tx, password: code, sectorID: S });
    expect({ status: done.status, body: done.body }).toEqual({
      status: 200,
      body: { transactionID: tx, status: 'SUCCESS', challengeType: '', token: expect.stringMatching(JWT), refreshToken: expect.any(String) },
    });
    expect(claimsOf(done.body.token).sub).toBe(owner.sub);
  }

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        SMTP_URL: smtp.url,
        ...FAST_WORKER,
        OTP_RESEND_COOLDOWN_SECONDS: '30',
        OTP_ANONYMOUS_SENDS_PER_HOUR: '3',
        TRUST_PROXY: 'true',
        ...NO_THROTTLE,
        THROTTLE_FLOW_ADDRESS_FREE: '100000',
        THROTTLE_SEND_USER_FREE: '1000',
        THROTTLE_SEND_ADDRESS_FREE: '100000',
      },
    });
    tenant = await provisionTenant(t);
    S = await createSector(t, tenant.adminToken);
  });

  afterAll(async () => {
    await t?.close();
  });

  it("an attacker's begin by username does not stop the owner's password-backed sign-in right after from getting a code", async () => {
    const owner = await newOwner();
    const attack = await otpBegin({ username: owner.email, sectorID: S });
    expect(attack.status).toBe(200);
    expect(attack.body).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID) });
    // Whatever the attacker's request mailed is delivered and set aside: the owner's code is the next mail.
    await outboxSettled(t, tenant.tenantID);
    skipMailTo(owner.email);
    await ownerSignsIn(owner);
  });

  it('5 anonymous begins (new flows) all answer 200 alike, but only 3 code mails reach the owner; the owner still gets a code', async () => {
    const owner = await newOwner();
    await outboxSettled(t, tenant.tenantID);
    const before = skipMailTo(owner.email);

    const results: Res[] = [];
    for (let i = 0; i < 5; i++) results.push(await otpBegin({ username: owner.email, sectorID: S }));
    for (const res of results) {
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { transactionID: expect.stringMatching(TRANSACTION_ID) } });
    }
    expect(new Set(results.map((r) => r.body.transactionID)).size).toBe(5);

    await eventually(() => mailCountTo(owner.email) - before >= 3, 15_000, 'three anonymous code mails');
    await outboxSettled(t, tenant.tenantID);
    await sleep(1000);
    expect(mailCountTo(owner.email) - before).toBe(3);
    skipMailTo(owner.email);

    await ownerSignsIn(owner);
  });

  it('a second begin on the same anonymous transaction within the cooldown is 429 RESEND_COOLDOWN, identically for a known and an unknown username', async () => {
    const owner = await newOwner();
    const secondBegin = async (username: string): Promise<{ status: number; reason: unknown }> => {
      const first = await otpBegin({ username, sectorID: S });
      expect(first.status).toBe(200);
      const second = await otpBegin({ transactionID: first.body.transactionID, sectorID: S });
      expectWireError(second, 429, 8, 'RESEND_COOLDOWN', { retry: true });
      return { status: second.status, reason: reasonOf(second) };
    };
    const known = await secondBegin(owner.email);
    const unknown = await secondBegin(uniqueEmail('nobody'));
    expect(known).toEqual({ status: 429, reason: 'RESEND_COOLDOWN' });
    expect(unknown).toEqual(known);
  });

  it('an anonymous begin for an unknown username answers 200 with only {transactionID}, the same keys as for a known user', async () => {
    const owner = await newOwner();
    const known = await otpBegin({ username: owner.email, sectorID: S });
    const unknown = await otpBegin({ username: uniqueEmail('nobody'), sectorID: S });
    expect({ status: unknown.status, body: unknown.body }).toEqual({ status: 200, body: { transactionID: expect.stringMatching(TRANSACTION_ID) } });
    expect(known.status).toBe(200);
    expect(Object.keys(unknown.body).sort()).toEqual(Object.keys(known.body).sort());
  });

  it('regression: signing in with an emailed code and immediately starting another sign-in gets a new code (no RESEND_COOLDOWN)', async () => {
    const owner = await newOwner();
    await outboxSettled(t, tenant.tenantID);
    skipMailTo(owner.email);
    await ownerSignsIn(owner);
    await ownerSignsIn(owner);
  });
});

// ---------------------------------------------------------------------------------------------
// 4. Factor registrations
// ---------------------------------------------------------------------------------------------

describe('finding 4: factor registrations are capped and their sends throttled', () => {
  interface Member {
    sub: string;
    token: string;
  }

  const regs = (sub: string) => `/api/v1/users/${sub}/otp-registrations`;

  async function newMember(app: TestApp, tenant: ProvisionedTenant): Promise<Member> {
    const email = uniqueEmail('factors');
    const sub = await createUser(app, tenant.adminToken, tenant.rootSectorID, { email, password: PASSWORD });
    return { sub, token: await app.login(email, PASSWORD, tenant.rootSectorID) };
  }

  const addReg = (app: TestApp, m: Member, destination: string, address: string): Promise<Res> =>
    app.http().post(regs(m.sub)).set(auth(m.token)).set('X-Forwarded-For', address).send({ type: 'email', destination });

  async function listIds(app: TestApp, m: Member): Promise<string[]> {
    const res = await app.http().get(regs(m.sub)).set(auth(m.token));
    expect(res.status).toBe(200);
    return (res.body.registrations as Array<{ registrationID: string }>).map((r) => r.registrationID).sort();
  }

  /** Boots an app with these send limits (and a provisioned tenant) for the enclosing describe block. */
  function appWithLimits(limits: { THROTTLE_SEND_USER_FREE: string; THROTTLE_SEND_ADDRESS_FREE: string }) {
    const ctx = {} as { t: TestApp; tenant: ProvisionedTenant };
    beforeAll(async () => {
      ctx.t = await startTestApp({
        env: { SMTP_URL: smtp.url, ...FAST_WORKER, OTP_RESEND_COOLDOWN_SECONDS: '0', OTP_PENDING_REGISTRATIONS_MAX: '3', TRUST_PROXY: 'true', ...limits },
      });
      ctx.tenant = await provisionTenant(ctx.t);
    });
    afterAll(async () => {
      await ctx.t?.close();
    });
    return ctx;
  }

  describe('per user (OTP_PENDING_REGISTRATIONS_MAX=3, THROTTLE_SEND_USER_FREE=6)', () => {
    const ctx = appWithLimits({ THROTTLE_SEND_USER_FREE: '6', THROTTLE_SEND_ADDRESS_FREE: '1000' });

    it('accepts 3 pending registrations, refuses a 4th destination (429 PENDING_REGISTRATIONS_LIMIT), and accepts one again after a delete', async () => {
      const m = await newMember(ctx.t, ctx.tenant);
      const address = newAddress();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await addReg(ctx.t, m, uniqueEmail(`pending${i}`), address);
        expect(res.status).toBe(200);
        ids.push(res.body.registrationID);
      }
      expectWireError(await addReg(ctx.t, m, uniqueEmail('pending3'), address), 429, 8, 'PENDING_REGISTRATIONS_LIMIT');
      expect(await listIds(ctx.t, m)).toEqual([...ids].sort());

      const removed = await ctx.t.http().delete(`${regs(m.sub)}/${ids[0]}`).set(auth(m.token));
      expect(removed.status).toBe(200);
      const again = await addReg(ctx.t, m, uniqueEmail('pending4'), address);
      expect(again.status).toBe(200);
      expect(await listIds(ctx.t, m)).toEqual([ids[1], ids[2], again.body.registrationID].sort());
    });

    it('an unverified registration older than a day no longer counts and is gone after the next registration call', async () => {
      const m = await newMember(ctx.t, ctx.tenant);
      const address = newAddress();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await addReg(ctx.t, m, uniqueEmail(`aging${i}`), address);
        expect(res.status).toBe(200);
        ids.push(res.body.registrationID);
      }
      await tenantSql(ctx.t, ctx.tenant.tenantID, `UPDATE otp_registrations SET created_at = created_at - interval '25 hours' WHERE id = $1`, [ids[0]]);
      const next = await addReg(ctx.t, m, uniqueEmail('aging3'), address);
      expect(next.status).toBe(200);
      expect(await listIds(ctx.t, m)).toEqual([ids[1], ids[2], next.body.registrationID].sort());
    });

    it('repeated registration sends by one user: the 7th send is refused with 429 RATE_LIMITED and RetryInfo', async () => {
      const m = await newMember(ctx.t, ctx.tenant);
      const address = newAddress();
      const destinations = [uniqueEmail('send0'), uniqueEmail('send1'), uniqueEmail('send2')];
      // Sends 1–3: new destinations; 4–6: the same unverified ones again (the cooldown is 0 here).
      for (const destination of [...destinations, ...destinations]) {
        const res = await addReg(ctx.t, m, destination, address);
        expect({ destination, status: res.status }).toEqual({ destination, status: 200 });
      }
      expectWireError(await addReg(ctx.t, m, destinations[0], address), 429, 8, 'RATE_LIMITED', { retry: true });
    });
  });

  describe('per address (THROTTLE_SEND_ADDRESS_FREE=3)', () => {
    const ctx = appWithLimits({ THROTTLE_SEND_USER_FREE: '1000', THROTTLE_SEND_ADDRESS_FREE: '3' });

    it('two users from one address share its allowance: the 4th send from it is refused (RATE_LIMITED); another address still works', async () => {
      const alice = await newMember(ctx.t, ctx.tenant);
      const bob = await newMember(ctx.t, ctx.tenant);
      const shared = newAddress();
      expect((await addReg(ctx.t, alice, uniqueEmail('alice0'), shared)).status).toBe(200);
      expect((await addReg(ctx.t, alice, uniqueEmail('alice1'), shared)).status).toBe(200);
      expect((await addReg(ctx.t, bob, uniqueEmail('bob0'), shared)).status).toBe(200);
      const bobDestination = uniqueEmail('bob1');
      expectWireError(await addReg(ctx.t, bob, bobDestination, shared), 429, 8, 'RATE_LIMITED', { retry: true });
      expect((await addReg(ctx.t, bob, bobDestination, newAddress())).status).toBe(200);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// 5. Anonymous transactions
// ---------------------------------------------------------------------------------------------

describe('finding 5: anonymous transactions are throttled per address and purged', () => {
  let t: TestApp;
  let tenant: ProvisionedTenant;
  let sector: string;

  const otpBegin = (address: string, body: Record<string, unknown>): Promise<Res> =>
    t.http().post('/api/v1/login/otp/begin').set('X-Forwarded-For', address).send({ sectorID: sector, ...body });

  beforeAll(async () => {
    // A long first delay keeps the refusals below independent of how fast the requests are.
    t = await startTestApp({ env: { TRUST_PROXY: 'true', THROTTLE_FLOW_ADDRESS_FREE: '5', THROTTLE_BASE_DELAY_SECONDS: '30', THROTTLE_MAX_DELAY_SECONDS: '600' } });
    tenant = await provisionTenant(t);
    sector = tenant.rootSectorID;
  });

  afterAll(async () => {
    await t?.close();
  });

  it('from one address: 5 new anonymous flows, then 429 RATE_LIMITED (otp/begin and otp); other addresses and password logins still work', async () => {
    const email = uniqueEmail('flow-user');
    await createUser(t, tenant.adminToken, sector, { email, password: PASSWORD });
    const blocked = newAddress();
    for (let i = 0; i < 5; i++) {
      const res = await otpBegin(blocked, { username: uniqueEmail('anon') });
      expect({ i, status: res.status, body: res.body }).toEqual({ i, status: 200, body: { transactionID: expect.stringMatching(TRANSACTION_ID) } });
    }
    expectWireError(await otpBegin(blocked, { username: uniqueEmail('anon') }), 429, 8, 'RATE_LIMITED', { retry: true });
    const otpFlow = await t.http().post('/api/v1/login/otp').set('X-Forwarded-For', blocked).send({ username: uniqueEmail('anon'), password: '123456', sectorID: sector });
    expectWireError(otpFlow, 429, 8, 'RATE_LIMITED', { retry: true });

    const elsewhere = await otpBegin(newAddress(), { username: uniqueEmail('anon') });
    expect(elsewhere.status).toBe(200);

    // Password logins do not count toward (nor are stopped by) the anonymous-flow allowance.
    const login = await t.http().post('/api/v1/login/password').set('X-Forwarded-For', blocked).send({ username: email, password: PASSWORD, sectorID: sector });
    expect({ status: login.status, result: login.body.status }).toEqual({ status: 200, result: 'SUCCESS' });
  });

  it('the janitor deletes a transaction expired two hours ago and keeps a fresh pending one', async () => {
    const old = await otpBegin(newAddress(), { username: uniqueEmail('old') });
    const fresh = await otpBegin(newAddress(), { username: uniqueEmail('fresh') });
    expect([old.status, fresh.status]).toEqual([200, 200]);
    const oldID = old.body.transactionID as string;
    const freshID = fresh.body.transactionID as string;
    await tenantSql(t, tenant.tenantID, `UPDATE auth_transactions SET expires_at = now() - interval '2 hours' WHERE id = $1`, [oldID]);

    await t.app.get(TransactionJanitor).sweep();

    const rows = await tenantSql(t, tenant.tenantID, `SELECT id FROM auth_transactions WHERE id = ANY($1::text[])`, [[oldID, freshID]]);
    expect(rows.map((r) => r.id)).toEqual([freshID]);
  });
});

// ---------------------------------------------------------------------------------------------
// 6. Deep JSON
// ---------------------------------------------------------------------------------------------

describe('finding 6: deeply nested JSON is refused (400 BODY_TOO_DEEP)', () => {
  let t: TestApp;
  let tenant: ProvisionedTenant;

  const postRaw = (text: string): Promise<Res> => t.http().post('/api/v1/login/password').set('content-type', 'application/json').send(text);

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await provisionTenant(t);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('refuses 100000 nested objects and 100000 nested arrays, accepts 20 levels in an unknown field, logs no error, and stays healthy', async () => {
    const email = uniqueEmail('deep');
    await createUser(t, tenant.adminToken, tenant.rootSectorID, { email, password: PASSWORD });
    const errorLog = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);

    expectWireError(await postRaw('{"a":'.repeat(100000) + '1' + '}'.repeat(100000)), 400, 3, 'BODY_TOO_DEEP');
    expectWireError(await postRaw('['.repeat(100000) + ']'.repeat(100000)), 400, 3, 'BODY_TOO_DEEP');

    let nested: unknown = 1;
    for (let i = 0; i < 20; i++) nested = { a: nested };
    const normal = await postRaw(JSON.stringify({ username: email, password: WRONG, sectorID: tenant.rootSectorID, extra: nested }));
    expectWireError(normal, 401, 16, 'INVALID_CREDENTIALS');

    const health = await t.http().get('/healthz');
    expect(health.status).toBe(200);
    expect(errorLog).not.toHaveBeenCalled();
  });
});

// ---------------------------------------------------------------------------------------------
// 7. Logged URLs
// ---------------------------------------------------------------------------------------------

describe('finding 7: credentials are redacted in logged URLs', () => {
  let t: TestApp;
  let tenant: ProvisionedTenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await provisionTenant(t);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('a 500 on GET /users/{sub}?transactionID=… logs transactionID=*** and never the transaction id', async () => {
    const email = uniqueEmail('logged');
    const sub = await createUser(t, tenant.adminToken, tenant.rootSectorID, { email, password: PASSWORD });
    const signedIn = await t.http().post('/api/v1/login/password').send({ username: email, password: PASSWORD, sectorID: tenant.rootSectorID });
    expect(signedIn.body.status).toBe('SUCCESS');
    const transactionID = signedIn.body.transactionID as string;

    const errorLog = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    jest.spyOn(t.app.get(UserService), 'get').mockRejectedValueOnce(new Error('boom'));
    const res = await t.http().get(`/api/v1/users/${sub}?transactionID=${transactionID}`);
    expectWireError(res, 500, 13, 'INTERNAL');

    const logged = errorLog.mock.calls.map((args) => args.map((a) => String(a)).join(' ')).join('\n');
    expect(logged).toContain('transactionID=***');
    expect(logged).not.toContain(transactionID);
  });
});

// ---------------------------------------------------------------------------------------------
// 8. Password change
// ---------------------------------------------------------------------------------------------

describe('finding 8: a password change revokes other tokens and transaction proofs', () => {
  let t: TestApp;
  let tenant: ProvisionedTenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await provisionTenant(t);
  });

  afterAll(async () => {
    await t?.close();
  });

  it("the user's change keeps the token it was made with and revokes the others; an admin's reset revokes them all", async () => {
    const email = uniqueEmail('changer');
    const sector = tenant.rootSectorID;
    const sub = await createUser(t, tenant.adminToken, sector, { email, password: PASSWORD });
    const signIn = async (password: string) => {
      const res = await t.http().post('/api/v1/login/password').send({ username: email, password, sectorID: sector });
      expect({ status: res.status, result: res.body.status }).toEqual({ status: 200, result: 'SUCCESS' });
      return { token: res.body.token as string, transactionID: res.body.transactionID as string };
    };
    const getWith = (token: string) => t.http().get(`/api/v1/users/${sub}`).set(auth(token));

    const A = await signIn(PASSWORD);
    const B = await signIn(PASSWORD);
    const NEW = 'a brand new passphrase';
    const changed = await t.http().post(`/api/v1/users/${sub}/password`).set(auth(A.token)).send({ currentPassword: PASSWORD, newPassword: NEW });
    expect({ status: changed.status, body: changed.body }).toEqual({ status: 200, body: { sub } });

    expect((await getWith(A.token)).status).toBe(200);
    expectWireError(await getWith(B.token), 401, 16, 'SESSION_REVOKED');
    expectWireError(await t.http().post('/api/v1/introspect').set(auth(tenant.adminToken)).send({ token: B.token }), 401, 16, 'SESSION_REVOKED');
    expectWireError(await t.http().get(`/api/v1/users/${sub}`).query({ transactionID: B.transactionID }), 401, 16, 'TRANSACTION_PROOF_INVALID');
    expectWireError(
      await t.http().put(`/api/v1/users/${sub}`).query({ transactionID: B.transactionID }).send({ profile: { name: 'Proof replay' } }),
      401,
      16,
      'TRANSACTION_PROOF_INVALID',
    );
    expect((await t.http().get(`/api/v1/users/${sub}`).set(auth(tenant.adminToken))).body.name).toBe('');

    const C = await signIn(NEW);
    expect((await getWith(C.token)).status).toBe(200);

    const reset = await t.http().post(`/api/v1/users/${sub}/password`).set(auth(tenant.adminToken)).send({ newPassword: 'set by the admin now' });
    expect(reset.status).toBe(200);
    expectWireError(await getWith(A.token), 401, 16, 'SESSION_REVOKED');
    expectWireError(await getWith(C.token), 401, 16, 'SESSION_REVOKED');
  });
});

// ---------------------------------------------------------------------------------------------
// 9. Signup
// ---------------------------------------------------------------------------------------------

describe('finding 9: signup is throttled per address', () => {
  let t: TestApp;
  let tenant: ProvisionedTenant;
  let sector: string;

  const signup = (address: string, email: string): Promise<Res> =>
    t.http().post('/api/v1/signup').set('X-Forwarded-For', address).send({ sectorID: sector, email, password: PASSWORD });

  beforeAll(async () => {
    t = await startTestApp({ env: { TRUST_PROXY: 'true', THROTTLE_SIGNUP_ADDRESS_FREE: '3' } });
    tenant = await provisionTenant(t);
    sector = await createSector(t, tenant.adminToken);
    const settings = await t.http().put(`/api/v1/sectors/${sector}/settings`).set(auth(tenant.adminToken)).send({ SelfSignUpAllowed: true });
    expect(settings.status).toBe(200);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('3 signups from one address succeed; the 4th is 429 RATE_LIMITED without hashing a password; another address still signs up', async () => {
    const address = newAddress();
    for (let i = 0; i < 3; i++) {
      const res = await signup(address, uniqueEmail(`signup${i}`));
      expect({ i, status: res.status }).toEqual({ i, status: 200 });
    }
    const refusedEmail = uniqueEmail('signup3');
    const hash = jest.spyOn(t.app.get(PasswordHasher), 'hash');
    const refused = await signup(address, refusedEmail);
    expect(hash).not.toHaveBeenCalled();
    hash.mockRestore();
    expectWireError(refused, 429, 8, 'RATE_LIMITED', { retry: true });
    const listed = await t.http().get(`/api/v1/sectors/${sector}/users`).set(auth(tenant.adminToken)).query({ filterEmail: refusedEmail });
    expect(listed.body.users).toEqual([]);

    const elsewhere = await signup(newAddress(), uniqueEmail('signup-elsewhere'));
    expect(elsewhere.status).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------
// 10. Malformed strings
// ---------------------------------------------------------------------------------------------

describe('finding 10: malformed strings (NUL, lone surrogates) are refused at the edge', () => {
  let t: TestApp;
  let tenant: ProvisionedTenant;

  const rawJson = (path: string, text: string): Promise<Res> => t.http().post(path).set('content-type', 'application/json').send(text);
  const expectInvalid = (res: Res, field: string) => expectWireError(res, 400, 3, 'VALIDATION_FAILED', { fields: [field] });

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await provisionTenant(t);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('a NUL in searchTerm (user list) → 400 VALIDATION_FAILED on searchTerm', async () => {
    expectInvalid(await t.http().get(`/api/v1/sectors/${tenant.rootSectorID}/users?searchTerm=a%00b`).set(auth(tenant.adminToken)), 'searchTerm');
  });

  it('a NUL in filterDomain (sector list) → 400 VALIDATION_FAILED on filterDomain', async () => {
    expectInvalid(await t.http().get('/api/v1/sectors?filterDomain=a%00b').set(auth(tenant.adminToken)), 'filterDomain');
  });

  it('a NUL transactionID (login/password) → 400 VALIDATION_FAILED on transactionID', async () => {
    expectInvalid(await rawJson('/api/v1/login/password', '{"transactionID":"\\u0000"}'), 'transactionID');
  });

  it('a NUL in username (login/otp/begin) → 400 VALIDATION_FAILED on username', async () => {
    expectInvalid(await rawJson('/api/v1/login/otp/begin', '{"username":"a\\u0000b"}'), 'username');
  });

  it('a lone surrogate in email (signup) → 400 VALIDATION_FAILED on email', async () => {
    expectInvalid(await rawJson('/api/v1/signup', '{"email":"\\ud800","password":"x"}'), 'email');
  });

  it('a lone surrogate in email (signup/mfa/begin) → 400 VALIDATION_FAILED on email', async () => {
    expectInvalid(await rawJson('/api/v1/signup/mfa/begin', '{"transactionId":"x","email":"\\ud800"}'), 'email');
  });
});
