/**
 * Attempt throttling of password sign-in (RESOURCE_EXHAUSTED / TOO_MANY_ATTEMPTS):
 * per account (the user's id, or the login when it names nobody) and per client
 * address, counters in the main database shared by every instance, growing delays
 * rather than a lock. With an allowance of N, N wrong attempts may be made back to
 * back and the N-th starts the first delay (2 s). Client
 * addresses vary through X-Forwarded-For (TRUST_PROXY on). Small allowances keep
 * the waits to a few seconds; each test uses its own addresses and accounts.
 */
import { randomBytes } from 'node:crypto';
import { expectWireError } from './support/contract';
import { createUser, expectError, provisionTenant, ProvisionedTenant } from './support/factories';
import { startTestApp, TestApp } from './support/test-app';
import { sleep } from './support/wait';
import { ThrottleRepository } from '../src/throttle/throttle.repository';
import { PasswordHasher } from '../src/user/password-hasher';

type Res = { status: number; body: any; headers: Record<string, string> };

const ENV = {
  TRUST_PROXY: 'true',
  THROTTLE_ACCOUNT_FREE_ATTEMPTS: '3',
  THROTTLE_ADDRESS_FREE_ATTEMPTS: '10',
  THROTTLE_BASE_DELAY_SECONDS: '1',
  THROTTLE_MAX_DELAY_SECONDS: '60',
  THROTTLE_WINDOW_SECONDS: '600',
};
const ACCOUNT_FREE = 3;
const ADDRESS_FREE = 10;
const PASSWORD = 'correct horse battery staple';
const WRONG = 'not the password';

let addressSeq = 0;
/** A client address no other test uses (TEST-NET-2, varied per run). */
function newAddress(): string {
  addressSeq += 1;
  return `198.51.${randomBytes(1)[0]}.${addressSeq}`;
}

/** The whole throttling refusal: 429, code 8, TOO_MANY_ATTEMPTS, a RetryInfo matching Retry-After. Returns the delay in seconds. */
function expectThrottled(res: Res): number {
  expectWireError(res, 429, 8, 'TOO_MANY_ATTEMPTS', { retry: true });
  return Number(res.headers['retry-after']);
}

function expectWrongPassword(res: Res): void {
  expectError(res, 401, 16, 'INVALID_CREDENTIALS');
  expect(res.headers['retry-after']).toBeUndefined();
}

function expectSignedIn(res: Res): void {
  expect({ status: res.status, result: res.body.status }).toEqual({ status: 200, result: 'SUCCESS' });
  expect(typeof res.body.token).toBe('string');
}

describe('throttling of password attempts', () => {
  let t: TestApp;
  let tenant: ProvisionedTenant;
  let sector: string;

  const login = (app: TestApp, address: string, username: string, password: string): Promise<Res> =>
    app.http().post('/api/v1/login/password').set('X-Forwarded-For', address).send({ username, password, sectorID: sector });

  const subs = new Map<string, string>();

  /** Creates a user (username = email) in the tenant's default sector and returns the login. */
  async function newUser(label: string): Promise<string> {
    const email = `${label}-${randomBytes(4).toString('hex')}@throttle.test`;
    subs.set(email, await createUser(t, tenant.adminToken, sector, { email, password: PASSWORD }));
    return email;
  }

  /** The account counter's key of a user: counted by the user's id, whatever login named it. */
  const accountKeyOf = (login: string) => `password:acct:${tenant.tenantID}:${sector}:id:${subs.get(login)}`;

  /** `n` wrong passwords, each answered as a wrong password (nothing blocked yet). */
  async function fail(app: TestApp, address: string, username: string, n: number): Promise<void> {
    for (let i = 0; i < n; i++) expectWrongPassword(await login(app, address, username, WRONG));
  }

  beforeAll(async () => {
    t = await startTestApp({ env: ENV });
    tenant = await provisionTenant(t);
    sector = tenant.rootSectorID;
  });

  afterAll(async () => {
    await t?.close();
  });

  it('a burst of wrong passwords is refused with RetryInfo; another account from another address still signs in; the account works again after the delay', async () => {
    const alice = await newUser('alice');
    const bob = await newUser('bob');
    const attacker = newAddress();

    // The allowance, whose last failure starts the first delay (2 s = base·2^1): each answered as a wrong password.
    await fail(t, attacker, alice, ACCOUNT_FREE);
    const bcrypt = jest.spyOn(t.app.get(PasswordHasher), 'verifyOrWaste');
    try {
      const first = await login(t, attacker, alice, WRONG);
      expect(expectThrottled(first)).toBe(2);
      // Even the right password is refused while the account is blocked — also from another address.
      expectThrottled(await login(t, attacker, alice, PASSWORD));
      // Refusals cost no bcrypt work.
      expect(bcrypt).not.toHaveBeenCalled();
    } finally {
      bcrypt.mockRestore();
    }
    const elsewhere = await login(t, newAddress(), alice, PASSWORD);
    const wait = expectThrottled(elsewhere);

    // Another account from another address is unaffected.
    expectSignedIn(await login(t, newAddress(), bob, PASSWORD));

    await sleep(wait * 1000 + 100);
    expectSignedIn(await login(t, newAddress(), alice, PASSWORD));
  });

  it('an unknown username is throttled exactly like a real one', async () => {
    const real = await newUser('real');
    const unknown = `nobody-${randomBytes(4).toString('hex')}@throttle.test`;
    const outcomes = async (username: string) => {
      const address = newAddress();
      const statuses: number[] = [];
      let last: Res | undefined;
      for (let i = 0; i < ACCOUNT_FREE + 2; i++) {
        last = await login(t, address, username, WRONG);
        statuses.push(last.status);
      }
      return { statuses, retryDelay: expectThrottled(last!) };
    };
    const forReal = await outcomes(real);
    const forUnknown = await outcomes(unknown);
    expect(forReal).toEqual({ statuses: [401, 401, 401, 429, 429], retryDelay: 2 });
    expect(forUnknown).toEqual(forReal);
  });

  it('the address counter stops a spray across many accounts from one address while another address still works', async () => {
    const victim = await newUser('victim');
    const sprayer = newAddress();
    // One wrong password for each of many accounts: no account reaches its allowance, the address does.
    for (let i = 0; i < ADDRESS_FREE; i++) {
      expectWrongPassword(await login(t, sprayer, `spray-${i}-${randomBytes(3).toString('hex')}@throttle.test`, WRONG));
    }
    expectThrottled(await login(t, sprayer, `spray-next@throttle.test`, WRONG));
    // The victim's own correct password from the spraying address is refused, from another address it works.
    expectThrottled(await login(t, sprayer, victim, PASSWORD));
    expectSignedIn(await login(t, newAddress(), victim, PASSWORD));
  });

  it('counters are shared by instances on the same database', async () => {
    const carol = await newUser('carol');
    const other = await startTestApp({ databaseName: t.databaseName, env: ENV });
    try {
      // Failures alternate between the two instances and from different addresses: only the shared account count can block.
      await fail(t, newAddress(), carol, 1);
      await fail(other, newAddress(), carol, 2);
      expectThrottled(await login(t, newAddress(), carol, PASSWORD));
      expectThrottled(await login(other, newAddress(), carol, PASSWORD));
    } finally {
      await other.close();
    }
  });

  it('delays grow: the next failure after a block blocks for longer', async () => {
    const dave = await newUser('dave');
    await fail(t, newAddress(), dave, ACCOUNT_FREE);
    const firstDelay = expectThrottled(await login(t, newAddress(), dave, WRONG));
    expect(firstDelay).toBe(2);
    await sleep(firstDelay * 1000 + 100);
    // Allowed again, but still counted: one more wrong password doubles the delay.
    expectWrongPassword(await login(t, newAddress(), dave, WRONG));
    const secondDelay = expectThrottled(await login(t, newAddress(), dave, WRONG));
    expect(secondDelay).toBe(4);
    expect(secondDelay).toBeGreaterThan(firstDelay);
  });

  it('concurrent attempts are reserved atomically: exactly the allowance reaches the check, every one is counted', async () => {
    const frank = await newUser('frank');
    // Each attempt is checked and counted in one statement before bcrypt, so a parallel wave cannot pass the check together.
    const results = await Promise.all(Array.from({ length: 8 }, () => login(t, newAddress(), frank, WRONG)));
    const wrong = results.filter((res) => res.status === 401);
    for (const res of wrong) expectWrongPassword(res);
    for (const res of results.filter((r) => r.status !== 401)) expectThrottled(res);
    expect(wrong.length).toBe(ACCOUNT_FREE);
    const [row] = await t.sql<{ failures: number; blocked: boolean }>(
      `SELECT failures, blocked_until > now() AS blocked FROM throttle_counters WHERE key = $1`,
      [accountKeyOf(frank)],
    );
    expect(row).toEqual({ failures: wrong.length, blocked: true });
    expectThrottled(await login(t, newAddress(), frank, PASSWORD));
  });

  it('concurrent counts, settlements and clean-ups sharing an account and an address never deadlock', async () => {
    // Every statement that changes counters takes their rows in the order of the keys' names; a settlement that
    // reset the account after giving the address back deadlocked with a concurrent count (account, then address).
    const counters = t.app.get(ThrottleRepository);
    const account = `password:acct:race:${randomBytes(4).toString('hex')}`;
    const address = `password:ip:${newAddress()}`;
    const keys = [
      { key: address, freeAttempts: 1000 },
      { key: account, freeAttempts: 1000 },
    ];
    const attempt = async (i: number): Promise<void> => {
      await counters.reserve(keys, [1], 600);
      if (i % 3 === 0) await counters.settle([account], [keys[0]]);
      else if (i % 3 === 1) await counters.settle([], keys);
      else await counters.purgeIdle(600, 1000);
    };
    const outcomes = await Promise.allSettled(Array.from({ length: 120 }, (_, i) => attempt(i)));
    expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
  });

  it('failures a window old no longer count, and idle rows are cleaned up', async () => {
    const grace = await newUser('grace');
    const key = accountKeyOf(grace);
    await fail(t, newAddress(), grace, ACCOUNT_FREE);
    expectThrottled(await login(t, newAddress(), grace, PASSWORD));
    // Move the last failure and the block more than a window (600 s) into the past.
    await t.sql(`UPDATE throttle_counters SET last_failure_at = now() - interval '11 minutes', blocked_until = now() - interval '601 seconds' WHERE key = $1`, [key]);
    expectWrongPassword(await login(t, newAddress(), grace, WRONG));
    expect(await t.sql(`SELECT failures FROM throttle_counters WHERE key = $1`, [key])).toEqual([{ failures: 1 }]);

    // The clean-up deletes what no longer counts and nothing else.
    await t.sql(`UPDATE throttle_counters SET last_failure_at = now() - interval '11 minutes', blocked_until = NULL WHERE key = $1`, [key]);
    const counts = () =>
      t.sql<{ idle: number; live: number }>(
        `SELECT count(*) FILTER (WHERE greatest(last_failure_at, blocked_until) < now() - interval '600 seconds')::int AS idle,
                count(*) FILTER (WHERE greatest(last_failure_at, blocked_until) >= now() - interval '600 seconds')::int AS live
           FROM throttle_counters`,
      );
    const [before] = await counts();
    expect(before.live).toBeGreaterThan(0);
    // (The occasional background clean-up may have taken the row already.)
    expect(await t.app.get(ThrottleRepository).purgeIdle(600, 1000)).toBeLessThanOrEqual(before.idle);
    expect(await t.sql(`SELECT key FROM throttle_counters WHERE key = $1`, [key])).toEqual([]);
    expect(await counts()).toEqual([{ idle: 0, live: before.live }]);
  });

  it('a successful sign-in resets the account counter but not the address counter', async () => {
    const erin = await newUser('erin');
    const address = newAddress();
    await fail(t, address, erin, ACCOUNT_FREE - 1);
    expectSignedIn(await login(t, address, erin, PASSWORD));
    // Without the reset the next wrong password would start a delay and the one after would be refused.
    await fail(t, address, erin, ACCOUNT_FREE - 1);
    expectSignedIn(await login(t, address, erin, PASSWORD));

    // The address keeps its failures; the successes were given back.
    const rows = await t.sql<{ key: string; failures: number }>(
      `SELECT key, failures FROM throttle_counters WHERE key = $1 OR key = $2 ORDER BY key`,
      [accountKeyOf(erin), `password:ip:${address}`],
    );
    expect(rows).toEqual([{ key: `password:ip:${address}`, failures: 2 * (ACCOUNT_FREE - 1) }]);
  });

  it('throttles one-time-code attempts too (per account), with RetryInfo', async () => {
    const { generate } = await import('otplib');
    const carol = await newUser('carol');
    const address = newAddress();
    const token = await t.login(carol, PASSWORD, sector);
    const sub = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sub as string;
    const reg = await t.http().post(`/api/v1/users/${sub}/otp-registrations`).set('Authorization', `Bearer ${token}`).send({ type: 'totp' });
    expect(reg.status).toBe(200);
    const verified = await t
      .http()
      .post(`/api/v1/users/${sub}/otp-registrations/${reg.body.registrationID}/verify`)
      .set('Authorization', `Bearer ${token}`)
      .send({ code: await generate({ secret: reg.body.secret }) });
    expect(verified.status).toBe(200);
    const started = await login(t, address, carol, PASSWORD);
    expect(started.body).toMatchObject({ status: 'MFA_REQUIRED', challengeType: 'OTP' });
    const wrongCode = async () =>
      t.http().post('/api/v1/login/otp').set('X-Forwarded-For', address).send({ transactionID: started.body.transactionID, password: '000000', sectorID: sector });
    // The allowance, whose last failure starts the first delay, is answered as wrong codes…
    for (let i = 0; i < ACCOUNT_FREE; i++) expect((await wrongCode()).body.details[0].reason).toBe('INVALID_CODE');
    // …then the account's code attempts are refused before any check.
    const refused = await wrongCode();
    expect(expectThrottled(refused)).toBeGreaterThan(0);
  });
});
