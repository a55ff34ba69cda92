/**
 * Master-key rotation end to end, on the real database: secrets are sealed under
 * the old key (signing keys of the platform and of two tenants, one of them in the
 * old v1 format without a key id; TOTP secrets in two tenants' databases); the
 * keys are rotated (`MASTER_KEYS=new,old`); a re-seal run crashes partway and a
 * second run finishes the rest without touching what the first did; the built
 * command (`node dist/src/cli/reseal-secrets.js`) confirms everything is under the
 * new key; the service then starts with ONLY the new key on the same database and
 * every secret still opens: TOTP users sign in with a code, tenants issue tokens
 * that verify against the JWK Set, and a token issued before the rotation still
 * introspects as valid.
 *
 * Needs the build output (dist/src/cli/reseal-secrets.js) for one step; `npm test`
 * builds it in pretest.
 */
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { spawn } from 'node:child_process';
import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AppModule } from '../src/app.module';
import { resealSecrets, ResealSummary } from '../src/cli/reseal-secrets';
import { masterKeyId, SecretBox } from '../src/common/crypto/secret-box';
import { withDatabase } from '../src/database/data-source-options';
import { SealedColumns } from '../src/tenancy/sealed-columns';
import { claimsOf, JWT, TRANSACTION_ID } from './support/contract';
import { createUser, provisionTenant, ProvisionedTenant } from './support/factories';
import { adminQuery, ADMIN_EMAIL, ADMIN_PASSWORD, NO_THROTTLE, serverUrl, startTestApp, TestApp, testConfig } from './support/test-app';
import { sleep } from './support/wait';

type Jose = typeof import('jose', { with: { 'resolution-mode': 'import' } });
type Otplib = typeof import('otplib', { with: { 'resolution-mode': 'import' } });

jest.setTimeout(120_000);

const ROOT = resolve(__dirname, '..');
const CLI = join(ROOT, 'dist/src/cli/reseal-secrets.js');
const ISSUER = 'http://iam.test';
const OLD = 'old-master-key-for-the-rotation-spec-0123456789';
const NEW = 'new-master-key-for-the-rotation-spec-9876543210';
const OLD_KID = masterKeyId(OLD);
const NEW_KID = masterKeyId(NEW);
const PASSWORD = 'correct horse battery staple';

/** One sealed value in the database, wherever it lives. */
interface Sealed {
  where: string;
  id: string;
  value: string;
}

/** Re-encrypts a v2 value in the v1 format (no key id) the single-key SecretBox wrote, under the same master key. */
function toV1(masterKey: string, purpose: string, sealed: string): string {
  const plaintext = new SecretBox(masterKey).open(purpose, sealed);
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(masterKey, 'utf8'), Buffer.alloc(0), `iam:${purpose}`, 32));
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(purpose));
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
}

describe('master-key rotation', () => {
  let jose: Jose;
  let otplib: Otplib;
  let t: TestApp | undefined;
  let databaseName: string;
  let databaseUrl: string;
  let a: ProvisionedTenant;
  let b: ProvisionedTenant;
  /** A TOTP user in each tenant. */
  const totpUsers: Array<{ tenant: ProvisionedTenant; email: string; secret: string }> = [];
  /** Tokens issued under the old key (tenant a's admin, a TOTP user of tenant b). */
  let oldAdminToken: string;
  let total: number;
  let doneByCrashedRun: Sealed[];

  /** Every sealed value: signing keys in the main database, TOTP secrets in every tenant's storage (read with plain SQL, no app needed). */
  async function sealedValues(): Promise<Sealed[]> {
    const out: Sealed[] = [];
    for (const row of await adminQuery<{ kid: string; sealed: string }>('SELECT kid, private_key_sealed AS sealed FROM signing_keys ORDER BY kid', [], databaseName)) {
      out.push({ where: 'signing_keys', id: row.kid, value: row.sealed });
    }
    const tenants = await adminQuery<{ slug: string; storage: string; database_name: string | null }>(
      'SELECT slug, storage, database_name FROM tenants ORDER BY created_at',
      [],
      databaseName,
    );
    for (const tenant of tenants) {
      const db = tenant.storage === 'main' ? databaseName : tenant.database_name!;
      const rows = await adminQuery<{ id: string; sealed: string }>('SELECT id, secret_sealed AS sealed FROM otp_registrations WHERE secret_sealed IS NOT NULL ORDER BY id', [], db);
      for (const row of rows) out.push({ where: `${tenant.slug}.otp_registrations`, id: row.id, value: row.sealed });
    }
    return out;
  }

  const kidOf = (sealed: string) => (sealed.startsWith('v2.') ? sealed.split('.')[1] : 'v1');

  /** An application context as the CLI starts it (no HTTP), with `MASTER_KEYS`. */
  async function commandContext(masterKeys: string): Promise<INestApplicationContext> {
    const config = testConfig(databaseUrl, { MASTER_KEY: '', MASTER_KEYS: masterKeys });
    return NestFactory.createApplicationContext(AppModule.forRoot(config, databaseUrl), { logger: ['fatal', 'error'] });
  }

  async function runCommand(masterKeys: string, options: { batchSize?: number } = {}): Promise<{ summary: ResealSummary; lines: string[] }> {
    const ctx = await commandContext(masterKeys);
    const lines: string[] = [];
    try {
      return { summary: await resealSecrets(ctx, { ...options, log: (l) => lines.push(l) }), lines };
    } finally {
      await ctx.close();
    }
  }

  /** Waits until at least 12 s of the current 30-second TOTP step remain. */
  async function freshStep(): Promise<number> {
    const left = 30 - ((Date.now() / 1000) % 30);
    if (left < 12) await sleep(left * 1000 + 300);
    return Math.floor(Date.now() / 1000);
  }

  /** Signs a TOTP user in: password, then the code of the current step. */
  async function totpLogin(app: TestApp, user: { tenant: ProvisionedTenant; email: string; secret: string }): Promise<string> {
    const sectorID = user.tenant.rootSectorID;
    const first = await app.http().post('/api/v1/login/password').send({ username: user.email, password: PASSWORD, sectorID });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), status: 'MFA_REQUIRED', challengeType: 'OTP' });
    const transactionID = first.body.transactionID as string;
    expect((await app.http().post('/api/v1/login/otp/begin').send({ transactionID, sectorID })).status).toBe(200);
    const code = await otplib.generate({ secret: user.secret, epoch: Math.floor(Date.now() / 1000) });
    const done = await app.http().post('/api/v1/login/otp').send({ transactionID, code, sectorID });
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ transactionID, status: 'SUCCESS', challengeType: '', token: expect.stringMatching(JWT), refreshToken: expect.any(String) });
    return done.body.token as string;
  }

  beforeAll(async () => {
    jose = await import('jose');
    otplib = await import('otplib');
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await t?.close().catch(() => undefined);
  });

  it('seals everything under the old key (v2 with its kid; one v1 value from before key ids)', async () => {
    t = await startTestApp({ env: { MASTER_KEY: OLD, ...NO_THROTTLE } });
    ({ databaseName, databaseUrl } = t);
    a = await provisionTenant(t);
    b = await provisionTenant(t);
    oldAdminToken = a.adminToken;

    // A TOTP factor for a user of each tenant, verified with a code of the previous step (later sign-ins use later steps).
    for (const tenant of [a, b]) {
      const email = `totp.${randomBytes(3).toString('hex')}@${tenant.slug}.test`;
      const sub = await createUser(t, tenant.adminToken, tenant.rootSectorID, { email, password: PASSWORD });
      const userToken = await t.login(email, PASSWORD, tenant.rootSectorID);
      const created = await t.http().post(`/api/v1/users/${sub}/otp-registrations`).set('Authorization', `Bearer ${tenant.adminToken}`).send({ type: 'totp' });
      expect(created.status).toBe(200);
      const secret = created.body.secret as string;
      const anchor = await freshStep();
      const code = await otplib.generate({ secret, epoch: anchor - 30 });
      const verified = await t
        .http()
        .post(`/api/v1/users/${sub}/otp-registrations/${created.body.registrationID}/verify`)
        .set('Authorization', `Bearer ${userToken}`)
        .send({ code });
      expect(verified.status).toBe(200);
      totpUsers.push({ tenant, email, secret });
    }
    await t.close();
    t = undefined;

    const values = await sealedValues();
    // platform + a + b signing keys; a TOTP secret in a's and in b's database.
    expect(values.filter((v) => v.where === 'signing_keys')).toHaveLength(3);
    expect(values.filter((v) => v.where.endsWith('otp_registrations'))).toHaveLength(2);
    expect(values.every((v) => kidOf(v.value) === OLD_KID)).toBe(true);

    // The platform's key as a release before key ids sealed it: v1, no kid.
    const [platform] = await adminQuery<{ kid: string }>('SELECT kid FROM tenants WHERE is_platform', [], databaseName);
    const row = values.find((v) => v.where === 'signing_keys' && v.id === platform.kid)!;
    await adminQuery('UPDATE signing_keys SET private_key_sealed = $2 WHERE kid = $1', [row.id, toV1(OLD, 'signing-key', row.value)], databaseName);
    expect((await sealedValues()).map((v) => kidOf(v.value)).sort()).toEqual(['v1', OLD_KID, OLD_KID, OLD_KID, OLD_KID].sort());
    total = values.length;
  });

  it('with only the new key configured, the command opens nothing, names the missing key and reports every value as not done', async () => {
    const { summary, lines } = await runCommand(NEW);
    expect(summary).toMatchObject({ keyId: NEW_KID, resealed: 0, alreadyCurrent: 0, failed: total, remaining: total, tenantsSkipped: 0 });
    expect(summary.failures.filter((f) => f.includes(`master key id "${OLD_KID}"`) && f.includes('not configured'))).toHaveLength(total - 1);
    expect(summary.failures.filter((f) => f.includes('v1, no key id'))).toHaveLength(1);
    expect(lines.join('\n')).not.toContain(OLD);
    expect((await sealedValues()).every((v) => kidOf(v.value) !== NEW_KID)).toBe(true);
  });

  it('a run that crashes partway leaves finished rows under the new key and the rest untouched', async () => {
    const replace = SealedColumns.prototype.replace;
    let calls = 0;
    jest.spyOn(SealedColumns.prototype, 'replace').mockImplementation(function (this: SealedColumns, ...args: Parameters<SealedColumns['replace']>) {
      if (++calls > 2) return Promise.reject(new Error('simulated crash'));
      return replace.apply(this, args);
    });
    const ctx = await commandContext(`${NEW},${OLD}`);
    try {
      await expect(resealSecrets(ctx, { batchSize: 1, log: () => undefined })).rejects.toThrow('simulated crash');
    } finally {
      jest.restoreAllMocks();
      await ctx.close();
    }
    const values = await sealedValues();
    doneByCrashedRun = values.filter((v) => kidOf(v.value) === NEW_KID);
    expect(doneByCrashedRun).toHaveLength(2);
    expect(values.filter((v) => kidOf(v.value) !== NEW_KID)).toHaveLength(total - 2);
  });

  it('running it again finishes the rest, tenant by tenant, and changes nothing already done', async () => {
    const { summary, lines } = await runCommand(`${NEW},${OLD}`);
    expect(summary).toMatchObject({ keyId: NEW_KID, resealed: total - 2, alreadyCurrent: 2, failed: 0, remaining: 0, tenantsSkipped: 0, tenants: 3 });
    expect(summary.failures).toEqual([]);
    const values = await sealedValues();
    expect(values).toHaveLength(total);
    expect(values.every((v) => v.value.startsWith(`v2.${NEW_KID}.`))).toBe(true);
    for (const done of doneByCrashedRun) expect(values).toContainEqual(done);
    // Progress and totals per tenant.
    for (const tenant of [a, b]) expect(lines.some((l) => l.startsWith(`tenant ${tenant.slug} `) && l.includes('done: 1 re-sealed'))).toBe(true);
    expect(lines.some((l) => l.startsWith('main database: signing_keys.private_key_sealed:'))).toBe(true);
    expect(lines.join('\n')).not.toMatch(new RegExp(`${OLD}|${NEW}`));

    // Every value opens under the new key alone.
    const onlyNew = new SecretBox(NEW);
    for (const v of values) expect(() => onlyNew.open(v.where === 'signing_keys' ? 'signing-key' : 'totp-secret', v.value)).not.toThrow();
  });

  it('the built command (node dist/src/cli/reseal-secrets.js) finds nothing left to do and exits 0', async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (npm run build; npm test does it in pretest)`);
    const before = await sealedValues();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: withDatabase(serverUrl(), databaseName),
      DATA_DIR: mkdtempSync(join(tmpdir(), 'iam-reseal-')),
      PUBLIC_URL: ISSUER,
      MASTER_KEY: '',
      MASTER_KEY_PREVIOUS: '',
      MASTER_KEYS: `${NEW},${OLD}`,
      BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL,
      BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
      LOG_LEVEL: 'error',
    };
    const child = spawn(process.execPath, [CLI], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((done) => child.on('exit', done));
    if (code !== 0) throw new Error(`exit code ${code}: ${stderr}${stdout}`);
    expect(stdout).toContain(`Total over the main database and 3 of 3 tenants: 0 re-sealed, ${total} already current, 0 failed, 0 not under the newest key`);
    expect(stdout).toContain(`Every sealed secret is under master key ${NEW_KID}`);
    expect(await sealedValues()).toEqual(before);
  });

  it('the service starts with ONLY the new key and every secret still opens', async () => {
    t = await startTestApp({ databaseName, env: { MASTER_KEY: NEW, ...NO_THROTTLE } });
    const jwks = jose.createRemoteJWKSet(new URL(`${t.baseUrl}/.well-known/jwks.json`));

    // TOTP secrets: each user signs in with a code (the secret is opened under the new key).
    const tokens: string[] = [];
    for (const user of totpUsers) {
      const token = await totpLogin(t, user);
      expect(claimsOf(token)).toMatchObject({ tenantID: user.tenant.tenantID, sectorID: user.tenant.rootSectorID });
      tokens.push(token);
    }

    // Signing keys: each tenant (and the platform, whose key was v1) issues tokens that verify against the JWK Set.
    tokens.push(await t.login(a.adminEmail, a.adminPassword, a.rootSectorID));
    tokens.push(await t.login(b.adminEmail, b.adminPassword, b.rootSectorID));
    tokens.push(await t.platformToken());
    for (const token of tokens) {
      const { payload, protectedHeader } = await jose.jwtVerify(token, jwks, { issuer: ISSUER });
      expect(protectedHeader.alg).toBe('ES256');
      expect(payload.sub).toEqual(expect.any(String));
    }
    expect(jose.decodeProtectedHeader(tokens[totpUsers.length]).kid).toBe(a.kid);

    // A token issued before the rotation is still valid.
    await expect(jose.jwtVerify(oldAdminToken, jwks, { issuer: ISSUER })).resolves.toBeDefined();
    const introspected = await t.http().post('/api/v1/introspect').set('Authorization', `Bearer ${tokens[totpUsers.length]}`).send({ token: oldAdminToken });
    expect(introspected.status).toBe(200);
    expect(introspected.body).toMatchObject({ sub: claimsOf(oldAdminToken).sub, tenantID: a.tenantID });
  });
});
