/**
 * No secret leaks into a response or a log line. Realistic flows run against the
 * real app with a real SMTP server and SMS gateway, at LOG_LEVEL=verbose, while
 * every response (status, headers, body) and every log line the app writes is
 * captured; then none may contain a secret the test knows:
 *
 *  - every password used, right or wrong (platform admin, tenant admin, users, an
 *    invitee, a signup, changed passwords, too-short ones);
 *  - every one-time code read from mail or SMS, and the TOTP codes computed;
 *  - the TOTP secret, except in the one response that creates the registration
 *    (secret and otpauthURL are shown once by design);
 *  - the API token plaintext, except in the one response that creates it;
 *  - invitation tokens (they travel only in mail);
 *  - the tenants' private signing keys (and the JWK Set has no private parameter);
 *  - the MASTER_KEY (every master key configured) and the SMS gateway credential.
 *
 * Logs also must not carry the bearer credentials and transaction ids that
 * responses hand out by design. A leak is reported as which secret, where
 * (response or log line) and around what.
 */
import { Logger } from '@nestjs/common';
import { createPrivateKey, randomBytes } from 'node:crypto';
import { claimsOf } from './support/contract';
import { createSector, createUser } from './support/factories';
import { SmsGateway } from './support/sms-gateway';
import { codeIn, DEFAULT_MAIL_CODE, FAST_WORKER, ReceivedMail, startSmtpServer, TestSmtpServer, wrong } from './support/smtp';
import { ADMIN_EMAIL, ADMIN_PASSWORD, NO_THROTTLE, startTestApp, TestApp } from './support/test-app';
import { eventually } from './support/wait';
import { KeyService } from '../src/keys/key.service';

jest.setTimeout(60_000);

type Res = { status: number; body: any; text: string; headers: Record<string, string> };

/** Something the app wrote: a response (request, status, headers, body) or a log line. */
interface Capture {
  where: string;
  text: string;
  /** Responses only: whether it is an error (non-2xx). */
  error?: boolean;
  /** Responses only: its index in `responses`. */
  index?: number;
}

interface Secret {
  label: string;
  value: string;
  /** Short codes match only as a whole token (not inside a longer run of digits, an id or a JWT). */
  whole?: boolean;
  /** Responses allowed to carry it (by index): the one that shows it by design. */
  allowedIn?: number;
}

/** The forms a secret could take in a response or a log: as is, JSON-escaped, URL-encoded. */
function formsOf(value: string): string[] {
  const forms = new Set([value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value), encodeURIComponent(value).replace(/%20/g, '+')]);
  return [...forms].filter((f) => f.length > 0);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Where `secret` occurs in `text` (-1: nowhere). */
function findSecret(text: string, secret: Secret): number {
  for (const form of formsOf(secret.value)) {
    if (secret.whole) {
      const m = new RegExp(`(?<![A-Za-z0-9_-])${escapeRegExp(form)}(?![A-Za-z0-9_-])`).exec(text);
      if (m) return m.index;
    } else {
      const at = text.indexOf(form);
      if (at >= 0) return at;
    }
  }
  return -1;
}

interface Leak {
  secret: Secret;
  capture: Capture;
  at: number;
}

function leaksIn(captures: Capture[], secrets: Secret[]): Leak[] {
  const leaks: Leak[] = [];
  for (const capture of captures) {
    for (const secret of secrets) {
      if (capture.index !== undefined && capture.index === secret.allowedIn) continue;
      const at = findSecret(capture.text, secret);
      if (at >= 0) leaks.push({ secret, capture, at });
    }
  }
  return leaks;
}

const show = (s: string) => JSON.stringify(s.length > 12 ? `${s.slice(0, 6)}…${s.slice(-3)}` : s);

expect.extend({
  /** Passes when no capture contains any secret; the message names each leaked secret and where. */
  toLeakNoSecret(received: Capture[], secrets: Secret[]) {
    const leaks = leaksIn(received, secrets);
    const pass = leaks.length === 0;
    return {
      pass,
      message: () =>
        pass
          ? `expected a leak among ${received.length} captures, found none`
          : `${leaks.length} secret leak(s) in ${received.length} captures checked against ${secrets.length} secrets:\n` +
            leaks
              .slice(0, 30)
              .map(({ secret, capture, at }) => {
                const context = capture.text.slice(Math.max(0, at - 120), at + secret.value.length + 120).replace(/\n/g, '⏎');
                return `  - ${secret.label} (${show(secret.value)}) in ${capture.where}\n      …${context}…`;
              })
              .join('\n') +
            (leaks.length > 30 ? `\n  … and ${leaks.length - 30} more` : ''),
    };
  },
});

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace jest {
    interface Matchers<R> {
      toLeakNoSecret(secrets: Secret[]): R;
    }
  }
}

const tag = randomBytes(3).toString('hex');
const email = (name: string) => `${name}.${tag}@secrets.test`;
/** A distinctive password (nothing else in a response or log could contain it by chance). */
const password = (name: string) => `${name}-${randomBytes(6).toString('hex')}-Pw`;

const SMS_GATEWAY_SECRET = `sms-gateway-${randomBytes(8).toString('hex')}`;

const LINK = /https?:\/\/[^\s"'<>]*[?&]token=[A-Za-z0-9_%-]+/;
const SMS_CODE = /^(\d{6}) is your /;

describe('secrets never leak into responses or logs', () => {
  let smtp: TestSmtpServer;
  let sms: SmsGateway;
  let t: TestApp;
  let otplib: typeof import('otplib', { with: { 'resolution-mode': 'import' } });

  const secrets: Secret[] = [];
  const responses: Capture[] = [];
  /** What reached stdout/stderr. */
  const written: Capture[] = [];
  const loggerSpies: Array<{ source: string; spy: jest.SpyInstance }> = [];
  /** Every log line: the Logger calls' arguments, and what was written to stdout/stderr. */
  const logLines = (): Capture[] => [
    ...loggerSpies.flatMap(({ source, spy }) =>
      spy.mock.calls.map((args: unknown[]) => ({
        where: source,
        text: args.map((a) => (a instanceof Error ? `${a.message}\n${a.stack}` : typeof a === 'string' ? a : JSON.stringify(a))).join(' '),
      })),
    ),
    ...written,
  ];
  const secret = (label: string, value: string, extra: Partial<Secret> = {}) => {
    secrets.push({ label, value, ...extra });
    return value;
  };
  const code = (label: string, value: string) => secret(label, value, { whole: true });

  const consumedMail = new Set<ReceivedMail>();
  let smsSeen = 0;

  let tenantID: string;
  let kid: string;
  let rootSector: string;
  let adminToken: string;
  let sector: string;
  let mfaSector: string;
  let alice: { sub: string; email: string; password: string };

  const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

  async function nextMail(to: string): Promise<ReceivedMail> {
    // Notices of a factor added are not what this spec reads.
    const mail = await smtp.waitForMail((m) => !consumedMail.has(m) && !m.subject.startsWith('A new sign-in method was added') && m.envelopeTo.some((r) => r.toLowerCase() === to.toLowerCase()), 15_000);
    consumedMail.add(mail);
    return mail;
  }

  async function nextSms(to: string): Promise<string> {
    const message = await eventually(
      () => {
        const i = sms.received.findIndex((m, idx) => idx >= smsSeen && m.to === to);
        if (i < 0) return undefined;
        smsSeen = i + 1;
        return sms.received[i];
      },
      15_000,
      `an SMS to ${to}`,
    );
    return message.body;
  }

  /** The index the last response got in `responses` (requests run one at a time). */
  const lastIndex = () => responses.length - 1;

  async function login(username: string, pw: string, sectorID?: string): Promise<Res> {
    return t.http().post('/api/v1/login/password').send({ username, password: pw, sectorID });
  }

  async function signIn(username: string, pw: string, sectorID?: string): Promise<string> {
    const res = await login(username, pw, sectorID);
    expect({ status: res.status, result: res.body.status }).toEqual({ status: 200, result: 'SUCCESS' });
    return res.body.token as string;
  }

  beforeAll(async () => {
    // Every log line: the Logger calls (instances and static) with their arguments (they still print), and
    // whatever reaches stdout/stderr (Nest's console logger prints there; swallowed to keep the run quiet).
    for (const level of ['log', 'error', 'warn', 'debug', 'verbose', 'fatal'] as const) {
      loggerSpies.push({ source: `Logger#${level}`, spy: jest.spyOn(Logger.prototype, level) });
      loggerSpies.push({ source: `Logger.${level}`, spy: jest.spyOn(Logger, level) });
    }
    for (const stream of ['stdout', 'stderr'] as const) {
      jest.spyOn(process[stream], 'write').mockImplementation(((chunk: unknown) => {
        written.push({ where: `process.${stream}`, text: typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8') });
        return true;
      }) as typeof process.stdout.write);
    }

    otplib = await import('otplib');
    smtp = await startSmtpServer();
    sms = await SmsGateway.start();
    t = await startTestApp({
      env: {
        LOG_LEVEL: 'verbose',
        SMTP_URL: smtp.url,
        SMS_WEBHOOK_URL: sms.url,
        // The gateway's credential, where the configuration knows it (a secret of the config like MASTER_KEY).
        SMS_WEBHOOK_AUTHORIZATION: `Bearer ${SMS_GATEWAY_SECRET}`,
        ...FAST_WORKER,
        OTP_RESEND_COOLDOWN_SECONDS: '0',
        ...NO_THROTTLE,
      },
    });
    secret('MASTER_KEY', t.config.masterKey);
    // Every configured master key, where the configuration lists several.
    ((t.config as { masterKeys?: string[] }).masterKeys ?? []).forEach((key, i) => secret(`master key #${i}`, key));
    secret('the SMS gateway credential', SMS_GATEWAY_SECRET);
    secret('the platform admin password', ADMIN_PASSWORD);

    // Every response of every request made through t.http() (the factories included) is recorded.
    const base = t.http;
    t.http = () => {
      const agent = base();
      for (const method of ['get', 'post', 'put', 'delete', 'patch'] as const) {
        const open = agent[method].bind(agent);
        agent[method] = ((url: string) => {
          const test = open(url);
          const end = test.end.bind(test);
          test.end = (fn) =>
            end((err, res) => {
              if (res) {
                const index = responses.length;
                responses.push({
                  where: `response #${index} to ${method.toUpperCase()} ${url} (${res.status})`,
                  text: `${JSON.stringify(res.headers)}\n${res.text ?? ''}`,
                  error: res.status >= 300,
                  index,
                });
              }
              fn?.(err, res);
            });
          return test;
        }) as typeof agent.get;
      }
      return agent;
    };
  });

  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
    await sms?.close();
    jest.restoreAllMocks();
  });

  it('provisions a tenant with a first admin password; the admins sign in (and fail with wrong passwords)', async () => {
    expectStatus(await login(ADMIN_EMAIL, secret('a wrong platform admin password', password('wrong-platform'))), 401);
    const platform = await signIn(ADMIN_EMAIL, ADMIN_PASSWORD);

    const slug = `sec-${tag}`;
    const adminEmail = email('admin');
    const adminPassword = secret('the tenant admin password (provisioning)', password('tenant-admin'));
    const res = await t.http().post('/api/v1/tenants').set(auth(platform)).send({ slug, name: `Secrets ${slug}`, adminEmail, adminPassword });
    expectStatus(res, 200);
    tenantID = res.body.tenantID;
    kid = res.body.kid;
    rootSector = res.body.sector.sectorID;

    expectStatus(await login(adminEmail, secret('a wrong tenant admin password', password('wrong-admin')), rootSector), 401);
    adminToken = await signIn(adminEmail, adminPassword, rootSector);
    sector = await createSector(t, adminToken);
    mfaSector = await createSector(t, adminToken);
    expectStatus(await t.http().put(`/api/v1/sectors/${mfaSector}/settings`).set(auth(adminToken)).send({ SelfSignUpAllowed: true, MFARequired: true }), 200);
  });

  it('creates a user with a password, refuses a too-short one, and signs the user in (right and wrong passwords)', async () => {
    const short = secret('a too-short password', 'Shrt7!x');
    expectStatus(await t.http().post(`/api/v1/sectors/${sector}/users`).set(auth(adminToken)).send({ email: email('short'), password: short }), 400);
    alice = { email: email('alice'), password: secret("alice's first password", password('alice')), sub: '' };
    alice.sub = await createUser(t, adminToken, sector, { email: alice.email, password: alice.password });
    expectStatus(await login(alice.email, secret("a wrong password for alice", password('alice-wrong')), sector), 401);
    expect((await login(alice.email, secret('a password with a NUL', `nul\u0000${password('x')}`), sector)).status).toBeGreaterThanOrEqual(400);
    await signIn(alice.email, alice.password, sector);
  });

  it('invites a user, who accepts with the token from the mail (a too-short password first)', async () => {
    const bob = email('bob');
    const invited = await t.http().post(`/api/v1/sectors/${sector}/users`).set(auth(adminToken)).send({ email: bob });
    expectStatus(invited, 200);
    const link = LINK.exec((await nextMail(bob)).text)?.[0];
    expect(link).toBeDefined();
    const token = secret('the invitation token', new URL(link!).searchParams.get('token')!);
    expectStatus(await t.http().post('/api/v1/invites/accept').send({ token, password: secret('a too-short invitee password', 'tiny5') }), 400);
    const accepted = await t.http().post('/api/v1/invites/accept').send({ token, password: secret("bob's password (invitation)", password('bob')) });
    expectStatus(accepted, 200);
    // A resent invitation: another user, another token.
    const carol = email('carol');
    const carolRes = await t.http().post(`/api/v1/sectors/${sector}/users`).set(auth(adminToken)).send({ email: carol });
    expectStatus(carolRes, 200);
    secret('the first invitation token of carol', new URL(LINK.exec((await nextMail(carol)).text)![0]).searchParams.get('token')!);
    expectStatus(await t.http().post(`/api/v1/users/${carolRes.body.sub}/invite`).set(auth(adminToken)), 200);
    secret('the resent invitation token of carol', new URL(LINK.exec((await nextMail(carol)).text)![0]).searchParams.get('token')!);
  });

  it('changes a password (a wrong current password first)', async () => {
    const token = await signIn(alice.email, alice.password, sector);
    const change = (currentPassword: string, newPassword: string) =>
      t.http().post(`/api/v1/users/${alice.sub}/password`).set(auth(token)).send({ currentPassword, newPassword });
    expect((await change(secret("a wrong current password of alice", password('alice-not-current')), secret('a password never set', password('never')))).status).toBeGreaterThanOrEqual(400);
    expectStatus(await change(alice.password, secret('a too-short new password', 'short')), 400);
    const next = secret("alice's second password", password('alice-2'));
    expectStatus(await change(alice.password, next), 200);
    alice.password = next;
    await signIn(alice.email, alice.password, sector);
  });

  let totpSecret: string;
  let totpReg: string;
  let emailReg: string;
  /** Alice's access token from her last (two-factor) sign-in. */
  let aliceToken: string;

  it('enrols email, SMS and TOTP factors with the codes from mail and SMS and a computed TOTP code', async () => {
    const token = await signIn(alice.email, alice.password, sector);
    const regs = `/api/v1/users/${alice.sub}/otp-registrations`;

    const byMail = await t.http().post(regs).set(auth(token)).send({ type: 'email', destination: alice.email });
    expectStatus(byMail, 200);
    emailReg = byMail.body.registrationID;
    const mailCode = code('an email enrolment code', codeIn((await nextMail(alice.email)).text, DEFAULT_MAIL_CODE));
    expectStatus(await t.http().post(`${regs}/${emailReg}/verify`).set(auth(token)).send({ code: code('a wrong email enrolment code', wrong(mailCode)) }), 401);
    expectStatus(await t.http().post(`${regs}/${emailReg}/verify`).set(auth(token)).send({ code: mailCode }), 200);

    const phone = '+14155550123';
    const bySms = await t.http().post(regs).set(auth(token)).send({ type: 'sms', destination: phone });
    expectStatus(bySms, 200);
    const smsCode = code('an SMS enrolment code', codeIn(await nextSms(phone), SMS_CODE));
    expectStatus(await t.http().post(`${regs}/${bySms.body.registrationID}/verify`).set(auth(token)).send({ code: smsCode }), 200);

    const byTotp = await t.http().post(regs).set(auth(token)).send({ type: 'totp' });
    expectStatus(byTotp, 200);
    const created = lastIndex();
    totpReg = byTotp.body.registrationID;
    totpSecret = secret('the TOTP secret', byTotp.body.secret, { allowedIn: created });
    secret('the TOTP secret in lower case', totpSecret.toLowerCase(), { allowedIn: created });
    secret('the otpauth URL', byTotp.body.otpauthURL, { allowedIn: created });
    // The one response that shows them does show them (the capture is not blind).
    expect(responses[created].text).toContain(totpSecret);
    // One step back (drift): the sign-in below can use the current step.
    const verifyCode = code('a TOTP enrolment code', await otplib.generate({ secret: totpSecret, epoch: Math.floor(Date.now() / 1000) - 30 }));
    expectStatus(await t.http().post(`${regs}/${totpReg}/verify`).set(auth(token)).send({ code: verifyCode }), 200);
  });

  it('signs in with a one-time code after the password: by mail (a wrong code first) and by TOTP', async () => {
    const start = async () => {
      const res = await login(alice.email, alice.password, sector);
      expect(res.body).toMatchObject({ status: 'MFA_REQUIRED', challengeType: 'OTP' });
      return res.body.transactionID as string;
    };
    const tx = await start();
    expectStatus(await t.http().post('/api/v1/login/otp/begin').send({ transactionID: tx, registrationID: emailReg, sectorID: sector }), 200);
    const mailCode = code('an email sign-in code', codeIn((await nextMail(alice.email)).text, DEFAULT_MAIL_CODE));
    expectStatus(await t.http().post('/api/v1/login/otp').send({ transactionID: tx, password: code('a wrong email sign-in code', wrong(mailCode)), sectorID: sector }), 401);
    const done = await t.http().post('/api/v1/login/otp').send({ transactionID: tx, password: mailCode, sectorID: sector });
    expect(done.body).toMatchObject({ status: 'SUCCESS' });

    const tx2 = await start();
    expectStatus(await t.http().post('/api/v1/login/otp/begin').send({ transactionID: tx2, registrationID: totpReg, sectorID: sector }), 200);
    const totpCode = code('a TOTP sign-in code', await otplib.generate({ secret: totpSecret, epoch: Math.floor(Date.now() / 1000) }));
    const done2 = await t.http().post('/api/v1/login/otp').send({ transactionID: tx2, code: totpCode, sectorID: sector });
    expect(done2.body).toMatchObject({ status: 'SUCCESS' });
    aliceToken = done2.body.token;
    // The completed transaction proves self-access in a query parameter.
    expectStatus(await t.http().get(`/api/v1/users/${alice.sub}`).query({ transactionID: tx2 }), 200);
  });

  it('signs up in a sector with SelfSignUpAllowed and MFARequired and enrols email MFA with the mailed code', async () => {
    const dora = email('dora');
    const res = await t.http().post('/api/v1/signup').send({ sectorID: mfaSector, email: dora, password: secret("dora's signup password", password('dora')) });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ status: 'MFA_ENROLLMENT_REQUIRED', challengeType: 'EMAIL_OTP_ENROLLMENT' });
    const tx = res.body.transactionID as string;
    const enrolCode = code('a signup MFA code', codeIn((await nextMail(dora)).text, DEFAULT_MAIL_CODE));
    expectStatus(await t.http().post('/api/v1/signup/mfa/verify').send({ sectorID: mfaSector, email: dora, code: code('a wrong signup MFA code', wrong(enrolCode)), transactionId: tx }), 401);
    const ok = await t.http().post('/api/v1/signup/mfa/verify').send({ sectorID: mfaSector, email: dora, code: enrolCode, transactionId: tx });
    expectStatus(ok, 200);
    expect(ok.body.token).toEqual(expect.any(String));
  });

  it('mints an API token, uses it, and introspects tokens', async () => {
    const minted = await t.http().post(`/api/v1/sectors/${sector}/tokens`).set(auth(adminToken)).send({ name: 'secrets spec' });
    expectStatus(minted, 200);
    const apiToken = secret('the API token', minted.body.token, { allowedIn: lastIndex() });
    expect(responses[lastIndex()].text).toContain(apiToken);

    expectStatus(await t.http().get(`/api/v1/sectors/${sector}/users`).set(auth(apiToken)), 200);
    expectStatus(await t.http().get(`/api/v1/sectors/${sector}/tokens`).set(auth(adminToken)), 200);
    const introspected = await t.http().post('/api/v1/introspect').set(auth(apiToken)).send({ token: aliceToken });
    expectStatus(introspected, 200);
    expect(introspected.body.sub).toBe(alice.sub);
    expect((await t.http().post('/api/v1/introspect').set(auth(adminToken)).send({ token: apiToken })).status).toBeLessThan(500);
    // A damaged API token and a revoked one are refused (and must not be echoed either).
    expectStatus(await t.http().get(`/api/v1/sectors/${sector}/users`).set(auth(`${apiToken}x`)), 401);
    expectStatus(await t.http().delete(`/api/v1/sectors/${sector}/tokens/${minted.body.apiToken.id}`).set(auth(adminToken)), 200);
    expectStatus(await t.http().get(`/api/v1/sectors/${sector}/users`).set(auth(apiToken)), 401);
  });

  it('publishes the JWK Set without any private key parameter', async () => {
    const jwks = await t.http().get('/.well-known/jwks.json');
    expectStatus(jwks, 200);
    const privateParams = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'];
    const found: string[] = [];
    const walk = (v: unknown, path: string) => {
      if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`));
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) {
        if (privateParams.includes(k)) found.push(`${path}.${k}`);
        else walk(x, `${path}.${k}`);
      }
    };
    walk(jwks.body, 'jwks');
    expect(found).toEqual([]);
    expect((jwks.body.keys as Array<{ kid: string }>).map((k) => k.kid)).toContain(kid);

    // The private halves themselves, as the app holds them, are secrets too.
    const keys = t.app.get(KeyService);
    const platformKid = JSON.parse(Buffer.from((await signIn(ADMIN_EMAIL, ADMIN_PASSWORD)).split('.')[0], 'base64url').toString('utf8')).kid as string;
    for (const [owner, k] of [
      ['the tenant', kid],
      ['the platform tenant', platformKid],
    ] as const) {
      const key = await keys.privateKey(k);
      const jwk = key.export({ format: 'jwk' }) as { d: string };
      secret(`the private signing key of ${owner} (JWK d)`, jwk.d);
      secret(`the private signing key of ${owner} (d, base64)`, Buffer.from(jwk.d, 'base64url').toString('base64').replace(/=+$/, ''));
      secret(`the private signing key of ${owner} (d, hex)`, Buffer.from(jwk.d, 'base64url').toString('hex'));
      const pem = key.export({ format: 'pem', type: 'pkcs8' }).toString();
      const body = pem.split('\n').filter((l) => l && !l.startsWith('-----'));
      body.forEach((line, i) => secret(`the private signing key of ${owner} (PEM line ${i + 1})`, line));
      // Sanity: the key is the one the tenant signs with.
      expect(createPrivateKey(pem).asymmetricKeyType).toBe('ec');
    }
    expect(claimsOf(adminToken).tenantID).toBe(tenantID);
  });

  it('captured the responses and the app log (verbose)', () => {
    expect(responses.length).toBeGreaterThan(40);
    const log = logLines()
      .map((l) => l.text)
      .join('\n');
    // Nest's own start-up lines, the app's lines at verbose/debug level.
    expect(log).toMatch(/Mapped \{/);
    expect(log).toMatch(/Mail .* sent to /);
    expect(log).toMatch(/SMS .* sent to /);
  });

  it('no response body (nor header) contains a secret, outside the one response that shows it by design', () => {
    expect(secrets.length).toBeGreaterThan(25);
    expect(responses).toLeakNoSecret(secrets);
  });

  it('no error body contains a secret', () => {
    const errors = responses.filter((r) => r.error);
    expect(errors.length).toBeGreaterThan(10);
    expect(errors).toLeakNoSecret(secrets);
  });

  it('no log line contains a secret, nor a bearer credential or transaction id the app handed out', () => {
    const lines = logLines();
    expect(lines.length).toBeGreaterThan(0);
    // Credentials that responses carry by design but logs must not: access tokens and transaction ids (a
    // completed sign-in's transactionID proves self-access).
    const handedOut = new Map<string, Secret>();
    for (const r of responses) {
      for (const m of r.text.matchAll(/"(token|transactionID|transactionId)":"([^"]{20,})"/g)) {
        handedOut.set(m[2], { label: `a ${m[1]} handed out in ${r.where}`, value: m[2] });
      }
    }
    expect(handedOut.size).toBeGreaterThan(10);
    expect(lines.map((l, i) => ({ ...l, where: `log line #${i} (${l.where})` }))).toLeakNoSecret([...secrets, ...handedOut.values()]);
  });
});

function expectStatus(res: { status: number; text?: string }, status: number): void {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text ?? ''}`);
}
