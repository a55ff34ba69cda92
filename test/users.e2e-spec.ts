/**
 * User administration end to end: create (docs/api.md, Endpoints), get (op 7), update
 * (op 8) and delete, with the access rules (docs/api.md, Roles: admins, the user by
 * token or by a recent transactionID, sector members when the sector allows it,
 * API tokens of the sector) and the update rules of op 8 (docs/api.md, Roles).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import { expectWireError, INT64, UUID } from './support/contract';
import { createSector, provisionTenant, ProvisionedTenant, tenantSql } from './support/factories';
import { startTestApp, TestApp } from './support/test-app';

type Res = { status: number; body: any; headers: Record<string, string> };

const EMPTY_ADDRESS = { formatted: '', streetAddress: '', locality: '', region: '', postalCode: '', country: '' };

/** A UserProfile with every field at its zero value (docs/api.md, Overview). */
function zeroProfile(sub: string, email: string) {
  return {
    sub,
    name: '',
    givenName: '',
    familyName: '',
    middleName: '',
    nickname: '',
    preferredUsername: '',
    profile: '',
    picture: '',
    website: '',
    email,
    emailVerified: false,
    pendingEmail: '',
    gender: '',
    birthdate: '',
    zoneinfo: '',
    locale: '',
    phoneNumber: '',
    phoneNumberVerified: false,
    address: EMPTY_ADDRESS,
    disabled: false,
    updatedAt: expect.stringMatching(INT64),
    createdAt: expect.stringMatching(INT64),
  };
}

const FULL_PROFILE = {
  name: 'Ada Lovelace',
  givenName: 'Ada',
  familyName: 'Lovelace',
  middleName: 'Augusta',
  nickname: 'ada',
  preferredUsername: 'countess',
  profile: 'https://example.com/ada',
  picture: 'https://example.com/ada.png',
  website: 'https://ada.example.com',
  gender: 'female',
  birthdate: '1815-12-10',
  zoneinfo: 'Europe/London',
  locale: 'en-GB',
  phoneNumber: '+441234567890',
  address: {
    formatted: '12 St James Square, London',
    streetAddress: '12 St James Square',
    locality: 'London',
    region: 'Greater London',
    postalCode: 'SW1Y 4JH',
    country: 'GB',
  },
};

interface Made {
  sub: string;
  email: string;
  password: string;
  token: string;
}

describe('users (create, get, update, delete)', () => {
  let t: TestApp;
  let T: ProvisionedTenant;
  let U: ProvisionedTenant;

  const bearer = (req: request.Test, token: string | undefined) => (token === undefined ? req : req.set('Authorization', `Bearer ${token}`));
  const createUser = (token: string | undefined, sectorID: string, body: object): Promise<Res> =>
    bearer(t.http().post(`/api/v1/sectors/${sectorID}/users`), token).send(body);
  const getUser = (token: string | undefined, sub: string, query: Record<string, string> = {}): Promise<Res> =>
    bearer(t.http().get(`/api/v1/users/${sub}`).query(query), token);
  const putUser = (token: string | undefined, sub: string, body: object, query: Record<string, string> = {}): Promise<Res> =>
    bearer(t.http().put(`/api/v1/users/${sub}`).query(query), token).send(body);
  const deleteUser = (token: string | undefined, sub: string): Promise<Res> => bearer(t.http().delete(`/api/v1/users/${sub}`), token);
  const listUsers = (token: string | undefined, sectorID: string, query: Record<string, string> = {}): Promise<Res> =>
    bearer(t.http().get(`/api/v1/sectors/${sectorID}/users`).query(query), token);
  const putSettings = async (token: string, sectorID: string, body: object) => {
    const res = await t.http().put(`/api/v1/sectors/${sectorID}/settings`).set('Authorization', `Bearer ${token}`).send(body);
    expect(res.status).toBe(200);
  };
  const loginRes = (username: string, password: string, sectorID: string): Promise<Res> =>
    t.http().post('/api/v1/login/password').send({ username, password, sectorID });

  const uniqueEmail = (label: string) => `${label}-${randomBytes(3).toString('hex')}@users.test`;

  /** Creates a user with a password through the API (as `creatorToken`) and signs them in. */
  async function makeUser(creatorToken: string, sectorID: string, opts: { label?: string; isAdmin?: boolean; profile?: object } = {}): Promise<Made> {
    const email = uniqueEmail(opts.label ?? 'user');
    const password = `pw-${randomBytes(6).toString('hex')}`;
    const res = await createUser(creatorToken, sectorID, { email, password, isAdmin: opts.isAdmin ?? false, profile: opts.profile });
    if (res.status !== 200) throw new Error(`creating ${email} failed: ${res.status} ${JSON.stringify(res.body)}`);
    return { sub: res.body.sub, email, password, token: await t.login(email, password, sectorID) };
  }

  beforeAll(async () => {
    t = await startTestApp();
    [T, U] = await Promise.all([provisionTenant(t), provisionTenant(t)]);
  }, 60_000);
  afterAll(() => t?.close(), 60_000);

  describe('POST /api/v1/sectors/{sectorID}/users', () => {
    let S1: string;
    let S2: string;
    beforeAll(async () => {
      [S1, S2] = await Promise.all([createSector(t, T.adminToken), createSector(t, T.adminToken)]);
    });

    it('creates a user with a full profile and answers the whole UserProfile', async () => {
      const email = uniqueEmail('ada');
      const before = Math.floor(Date.now() / 1000);
      const res = await createUser(T.adminToken, S1, { email, username: `ada-${randomBytes(3).toString('hex')}`, password: 'analytical-engine', profile: FULL_PROFILE });
      const after = Math.ceil(Date.now() / 1000);
      expect({ status: res.status, body: res.body }).toEqual({
        status: 200,
        body: { ...zeroProfile(expect.stringMatching(UUID) as unknown as string, email), ...FULL_PROFILE },
      });
      for (const field of ['createdAt', 'updatedAt']) {
        expect(Number(res.body[field])).toBeGreaterThanOrEqual(before);
        expect(Number(res.body[field])).toBeLessThanOrEqual(after);
      }
      const read = await getUser(T.adminToken, res.body.sub);
      expect({ status: read.status, body: read.body }).toEqual({ status: 200, body: res.body });
    });

    it('creates a minimal user: every field present with its zero value, username = email, and the user signs in', async () => {
      const email = uniqueEmail('Min');
      const res = await createUser(T.adminToken, S1, { email, password: 'minimal-password' });
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: zeroProfile(res.body.sub, email) });
      expect(res.body.sub).toMatch(UUID);
      expect(Object.keys(res.body.address).sort()).toEqual(Object.keys(EMPTY_ADDRESS).sort());

      const login = await loginRes(email.toUpperCase(), 'minimal-password', S1);
      expect(login.status).toBe(200);
      expect(login.body).toEqual({ transactionID: expect.any(String), status: 'SUCCESS', challengeType: '', token: expect.any(String), refreshToken: expect.any(String) });
      // The username defaulted to the email (the update answers it).
      const put = await putUser(login.body.token, res.body.sub, {});
      expect({ status: put.status, body: put.body }).toEqual({ status: 200, body: { sub: res.body.sub, username: email, sectorID: S1 } });
    });

    it('an explicit username is a login too', async () => {
      const email = uniqueEmail('named');
      const username = `Named.${randomBytes(3).toString('hex')}`;
      const res = await createUser(T.adminToken, S1, { email, username, password: 'named-password' });
      expect(res.status).toBe(200);
      const put = await putUser(await t.login(username.toLowerCase(), 'named-password', S1), res.body.sub, {});
      expect(put.body).toEqual({ sub: res.body.sub, username, sectorID: S1 });
    });

    it('a wrong password does not sign the new user in', async () => {
      const email = uniqueEmail('wrongpw');
      expect((await createUser(T.adminToken, S1, { email, password: 'right-password' })).status).toBe(200);
      expectWireError(await loginRes(email, 'wrong-password', S1), 401, 16, 'INVALID_CREDENTIALS');
    });

    describe('uniqueness in the sector (case-insensitive)', () => {
      let taken: { email: string; username: string };
      beforeAll(async () => {
        taken = { email: uniqueEmail('taken'), username: `taken-${randomBytes(3).toString('hex')}` };
        const res = await createUser(T.adminToken, S1, { ...taken, password: 'taken-password' });
        expect(res.status).toBe(200);
      });

      it('a taken username (other case) → 409 USERNAME_TAKEN', async () => {
        const res = await createUser(T.adminToken, S1, { email: uniqueEmail('other'), username: taken.username.toUpperCase(), password: 'other-password' });
        expectWireError(res, 409, 6, 'USERNAME_TAKEN');
      });

      it('a taken email (other case) with its own username → 409 EMAIL_TAKEN', async () => {
        const res = await createUser(T.adminToken, S1, { email: taken.email.toUpperCase(), username: `fresh-${randomBytes(3).toString('hex')}`, password: 'other-password' });
        expectWireError(res, 409, 6, 'EMAIL_TAKEN');
      });

      it('a taken email (other case) with the username defaulting to it → 409 EMAIL_TAKEN', async () => {
        const res = await createUser(T.adminToken, S1, { email: taken.email.toUpperCase(), password: 'other-password' });
        expectWireError(res, 409, 6, 'EMAIL_TAKEN');
      });

      it("an email (and so the defaulted username) equal to another user's username → 409 EMAIL_TAKEN", async () => {
        const named = { email: uniqueEmail('named'), username: `${randomBytes(3).toString('hex')}@alias.test` };
        expect((await createUser(T.adminToken, S1, { ...named, password: 'named-password' })).status).toBe(200);
        expectWireError(await createUser(T.adminToken, S1, { email: named.username.toUpperCase(), password: 'other-password' }), 409, 6, 'EMAIL_TAKEN');
      });

      it("a username equal to another user's email → 409 USERNAME_TAKEN", async () => {
        const res = await createUser(T.adminToken, S1, { email: uniqueEmail('other'), username: taken.email.toUpperCase(), password: 'other-password' });
        expectWireError(res, 409, 6, 'USERNAME_TAKEN');
      });

      it("an email equal to another user's username → 409 EMAIL_TAKEN", async () => {
        const clash = `${taken.username}@users.test`;
        const first = await createUser(T.adminToken, S1, { email: uniqueEmail('u'), username: clash, password: 'clash-password' });
        expect(first.status).toBe(200);
        const res = await createUser(T.adminToken, S1, { email: clash, username: `x-${randomBytes(3).toString('hex')}`, password: 'clash-password' });
        expectWireError(res, 409, 6, 'EMAIL_TAKEN');
      });

      it('the same email and username in another sector are fine', async () => {
        const res = await createUser(T.adminToken, S2, { ...taken, password: 'taken-password-2' });
        expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: zeroProfile(res.body.sub, taken.email) });
        // Each signs in to their own sector with their own password.
        await t.login(taken.username, 'taken-password', S1);
        await t.login(taken.username, 'taken-password-2', S2);
      });

      it('refused creations left no user behind', async () => {
        const rows = await tenantSql(t, T.tenantID, 'SELECT sector_id FROM users WHERE lower(email) = lower($1) ORDER BY sector_id', [taken.email]);
        expect(rows.map((r) => r.sector_id).sort()).toEqual([S1, S2].sort());
      });
    });

    describe('password policy', () => {
      it.each([
        ['too short', () => 'short1'],
        ['equal to the email (other case)', (email: string) => email.toUpperCase()],
        ['over 72 bytes (37 two-byte characters)', () => 'é'.repeat(37)],
        ['over 72 bytes (73 ASCII characters)', () => 'a'.repeat(73)],
      ])('%s → 400 naming password', async (_label, password) => {
        const email = uniqueEmail('weak');
        const res = await createUser(T.adminToken, S1, { email, password: password(email) });
        expectWireError(res, 400, 3, 'VALIDATION_FAILED', { fields: ['password'] });
        expect(await tenantSql(t, T.tenantID, 'SELECT id FROM users WHERE email = $1', [email])).toEqual([]);
      });

      it('exactly 72 bytes is accepted', async () => {
        const email = uniqueEmail('long');
        const password = 'é'.repeat(36);
        expect((await createUser(T.adminToken, S1, { email, password })).status).toBe(200);
        await t.login(email, password, S1);
      });
    });

    describe('field validation', () => {
      it.each([
        ['a malformed email', 'email', { email: 'not-an-email' }],
        ['no email', 'email', { email: undefined }],
        ['a phone number that is not E.164', 'profile.phoneNumber', { profile: { phoneNumber: '0123 456' } }],
        ['a phone number without +', 'profile.phoneNumber', { profile: { phoneNumber: '14155550100' } }],
        ['a malformed birthdate', 'profile.birthdate', { profile: { birthdate: '10/12/1815' } }],
        ['a website that is not an http(s) URL', 'profile.website', { profile: { website: 'ftp://example.com' } }],
        ['a website that is no URL', 'profile.website', { profile: { website: 'example dot com' } }],
        ['a non-boolean isAdmin', 'isAdmin', { isAdmin: 'yes' }],
        ['a non-string name', 'profile.name', { profile: { name: 42 } }],
      ])('%s → 400 naming %s', async (_label, field, body) => {
        const res = await createUser(T.adminToken, S1, { email: uniqueEmail('bad'), password: 'valid-password', ...body });
        expectWireError(res, 400, 3, 'VALIDATION_FAILED', { fields: [field] });
      });

      it('an empty website, phone number and birthdate are valid (zero values)', async () => {
        const res = await createUser(T.adminToken, S1, {
          email: uniqueEmail('empty'),
          password: 'valid-password',
          profile: { website: '', phoneNumber: '', birthdate: '' },
        });
        expect(res.status).toBe(200);
      });
    });

    it('an unknown sector → 404 SECTOR_NOT_FOUND; another tenant’s sector → 404', async () => {
      expectWireError(await createUser(T.adminToken, randomUUID(), { email: uniqueEmail('x'), password: 'valid-password' }), 404, 5, 'SECTOR_NOT_FOUND');
      expectWireError(await createUser(U.adminToken, S1, { email: uniqueEmail('x'), password: 'valid-password' }), 404, 5, 'SECTOR_NOT_FOUND');
    });

    it('no credential → 401 CREDENTIAL_MISSING', async () => {
      expectWireError(await createUser(undefined, S1, { email: uniqueEmail('x'), password: 'valid-password' }), 401, 16, 'CREDENTIAL_MISSING');
    });
  });

  describe('AllowUserCreationForNonAdmins', () => {
    let S: string;
    let other: string;
    let member: Made;
    let outsider: Made;
    beforeAll(async () => {
      [S, other] = await Promise.all([createSector(t, T.adminToken), createSector(t, T.adminToken)]);
      [member, outsider] = await Promise.all([makeUser(T.adminToken, S, { label: 'member' }), makeUser(T.adminToken, other, { label: 'outsider' })]);
    });

    it('off (the default): a non-admin of the sector → 403 ROLE_REQUIRED', async () => {
      const email = uniqueEmail('by-member');
      expectWireError(await createUser(member.token, S, { email, password: 'valid-password' }), 403, 7, 'ROLE_REQUIRED');
      expect(await tenantSql(t, T.tenantID, 'SELECT id FROM users WHERE email = $1', [email])).toEqual([]);
    });

    describe('on', () => {
      beforeAll(() => putSettings(T.adminToken, S, { AllowUserCreationForNonAdmins: true }));

      it('a non-admin of the sector creates a user', async () => {
        const email = uniqueEmail('by-member');
        const res = await createUser(member.token, S, { email, password: 'valid-password', profile: { name: 'Made by member' } });
        expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { ...zeroProfile(res.body.sub, email), name: 'Made by member' } });
        await t.login(email, 'valid-password', S);
      });

      it('but never an admin → 403 ADMIN_REQUIRED_TO_GRANT_ADMIN', async () => {
        const email = uniqueEmail('admin-by-member');
        expectWireError(await createUser(member.token, S, { email, password: 'valid-password', isAdmin: true }), 403, 7, 'ADMIN_REQUIRED_TO_GRANT_ADMIN');
        expect(await tenantSql(t, T.tenantID, 'SELECT id FROM users WHERE email = $1', [email])).toEqual([]);
      });

      it('isAdmin:false is fine', async () => {
        expect((await createUser(member.token, S, { email: uniqueEmail('plain'), password: 'valid-password', isAdmin: false })).status).toBe(200);
      });

      it('nor a pre-verified email → 403 FIELD_NOT_WRITABLE', async () => {
        const res = await createUser(member.token, S, { email: uniqueEmail('verified'), password: 'valid-password', profile: { emailVerified: true } });
        expectWireError(res, 403, 7, 'FIELD_NOT_WRITABLE');
      });

      it('a user of another sector → 403 ROLE_REQUIRED', async () => {
        expectWireError(await createUser(outsider.token, S, { email: uniqueEmail('by-outsider'), password: 'valid-password' }), 403, 7, 'ROLE_REQUIRED');
      });

      it('the setting of one sector opens no other sector', async () => {
        expectWireError(await createUser(member.token, other, { email: uniqueEmail('elsewhere'), password: 'valid-password' }), 403, 7, 'ROLE_REQUIRED');
      });

      it('admins still create admins', async () => {
        const res = await createUser(T.adminToken, S, { email: uniqueEmail('sub-admin'), password: 'valid-password', isAdmin: true });
        expect(res.status).toBe(200);
      });
    });
  });

  describe('GET and PUT /api/v1/users/{sub}: who may', () => {
    let SA: string;
    let SB: string;
    let SM: string;
    let saAdmin: Made;
    let sbAdmin: Made;
    let target: Made;
    let peer: Made;
    let targetTx: string;
    let peerTx: string;
    let mfaUser: Made;
    let mfaTx: string;
    let platform: string;

    beforeAll(async () => {
      [SA, SB, SM] = await Promise.all([createSector(t, T.adminToken), createSector(t, T.adminToken), createSector(t, T.adminToken)]);
      [saAdmin, sbAdmin, target, peer] = await Promise.all([
        makeUser(T.adminToken, SA, { label: 'sa-admin', isAdmin: true }),
        makeUser(T.adminToken, SB, { label: 'sb-admin', isAdmin: true }),
        makeUser(T.adminToken, SA, { label: 'target', profile: { name: 'Target' } }),
        makeUser(T.adminToken, SA, { label: 'peer' }),
      ]);
      const tl = await loginRes(target.email, target.password, SA);
      const pl = await loginRes(peer.email, peer.password, SA);
      expect([tl.body.status, pl.body.status]).toEqual(['SUCCESS', 'SUCCESS']);
      targetTx = tl.body.transactionID;
      peerTx = pl.body.transactionID;

      // A user of an MFA-required sector: their password step ends in MFA_ENROLLMENT_REQUIRED.
      const email = uniqueEmail('mfa');
      const created = await createUser(T.adminToken, SM, { email, password: 'mfa-user-password' });
      expect(created.status).toBe(200);
      await putSettings(T.adminToken, SM, { MFARequired: true });
      const ml = await loginRes(email, 'mfa-user-password', SM);
      expect(ml.body).toEqual({ transactionID: expect.any(String), status: 'MFA_ENROLLMENT_REQUIRED', challengeType: 'EMAIL_OTP_ENROLLMENT' });
      mfaUser = { sub: created.body.sub, email, password: 'mfa-user-password', token: '' };
      mfaTx = ml.body.transactionID;
      platform = await t.platformToken();
    });

    type Cred = { token?: string; tx?: string };
    const OK = 200 as const;
    type Expected = typeof OK | { status: number; code: number; reason: string };
    const DENIED = { status: 403, code: 7, reason: 'ROLE_REQUIRED' };
    const NOT_FOUND = { status: 404, code: 5, reason: 'USER_NOT_FOUND' };
    const BAD_PROOF = { status: 401, code: 16, reason: 'TRANSACTION_PROOF_INVALID' };

    const send = (method: 'get' | 'put', cred: Cred, sub: string, body: object = {}) => {
      const query: Record<string, string> = cred.tx !== undefined ? { transactionID: cred.tx } : {};
      return method === 'get' ? getUser(cred.token, sub, query) : putUser(cred.token, sub, body, query);
    };

    const who: Array<[string, () => Cred, Expected, Expected]> = [
      // [caller, credential, GET expectation, PUT expectation]
      ["the default-sector admin", () => ({ token: T.adminToken }), OK, OK],
      ["the user's sector admin", () => ({ token: saAdmin.token }), OK, OK],
      ['the user, by access token', () => ({ token: target.token }), OK, OK],
      ['the user, by the transactionID of their sign-in', () => ({ tx: targetTx }), OK, OK],
      ['a user of the same sector (AllowUserReadForNonAdmins off)', () => ({ token: peer.token }), DENIED, DENIED],
      ['an admin of another sector', () => ({ token: sbAdmin.token }), DENIED, DENIED],
      ["another tenant's admin", () => ({ token: U.adminToken }), NOT_FOUND, NOT_FOUND],
      ['the platform admin', () => ({ token: platform }), NOT_FOUND, NOT_FOUND],
      ["another user's transactionID", () => ({ tx: peerTx }), BAD_PROOF, BAD_PROOF],
      ['an unknown transactionID of the tenant', () => ({ tx: Buffer.concat([randomBytes(32), Buffer.from(T.tenantID.replace(/-/g, ''), 'hex')]).toString('base64url') }), BAD_PROOF, BAD_PROOF],
      ['a malformed transactionID', () => ({ tx: 'not-a-transaction' }), BAD_PROOF, BAD_PROOF],
      ['an empty transactionID', () => ({ tx: '' }), BAD_PROOF, BAD_PROOF],
      ['a transactionID that stopped at MFA_ENROLLMENT_REQUIRED', () => ({ tx: mfaTx }), BAD_PROOF, BAD_PROOF],
      ['no credential', () => ({}), { status: 401, code: 16, reason: 'CREDENTIAL_MISSING' }, { status: 401, code: 16, reason: 'CREDENTIAL_MISSING' }],
      ['a malformed bearer', () => ({ token: 'not-a-token' }), { status: 401, code: 16, reason: 'TOKEN_INVALID' }, { status: 401, code: 16, reason: 'TOKEN_INVALID' }],
    ];
    const label = (e: Expected) => (e === OK ? '200' : `${e.status} ${e.reason}`);

    it.each(who.map(([name, cred, get]) => [name, label(get), cred, get] as const))('GET as %s → %s', async (_name, _l, cred, expected) => {
      const res = await send('get', cred(), target.sub);
      if (expected === OK) {
        expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { ...zeroProfile(target.sub, target.email), name: expect.any(String), nickname: expect.any(String) } });
      } else {
        expectWireError(res, expected.status, expected.code, expected.reason);
      }
    });

    it.each(who.map(([name, cred, , put]) => [name, label(put), cred, put] as const))('PUT as %s → %s', async (name, _l, cred, expected) => {
      const nickname = `set by ${name}`;
      const res = await send('put', cred(), target.sub, { profile: { nickname } });
      const stored = await tenantSql(t, T.tenantID, 'SELECT nickname FROM users WHERE id = $1', [target.sub]);
      if (expected === OK) {
        expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { sub: target.sub, username: target.email, sectorID: SA } });
        expect(stored).toEqual([{ nickname }]);
      } else {
        expectWireError(res, expected.status, expected.code, expected.reason);
        expect(stored).not.toEqual([{ nickname }]);
      }
    });

    it('the MFA user’s own pending transaction proves nothing even for themselves', async () => {
      expectWireError(await getUser(undefined, mfaUser.sub, { transactionID: mfaTx }), 401, 16, 'TRANSACTION_PROOF_INVALID');
      expectWireError(await putUser(undefined, mfaUser.sub, { profile: { name: 'x' } }, { transactionID: mfaTx }), 401, 16, 'TRANSACTION_PROOF_INVALID');
    });

    it('a sign-in older than 15 minutes proves nothing', async () => {
      const l = await loginRes(target.email, target.password, SA);
      const tx = l.body.transactionID as string;
      expect((await getUser(undefined, target.sub, { transactionID: tx })).status).toBe(200);
      await tenantSql(t, T.tenantID, "UPDATE auth_transactions SET completed_at = now() - interval '16 minutes' WHERE id = $1", [tx]);
      expectWireError(await getUser(undefined, target.sub, { transactionID: tx }), 401, 16, 'TRANSACTION_PROOF_INVALID');
      expectWireError(await putUser(undefined, target.sub, { profile: { name: 'late' } }, { transactionID: tx }), 401, 16, 'TRANSACTION_PROOF_INVALID');
      // 14 minutes is still within the window.
      await tenantSql(t, T.tenantID, "UPDATE auth_transactions SET completed_at = now() - interval '14 minutes' WHERE id = $1", [tx]);
      expect((await getUser(undefined, target.sub, { transactionID: tx })).status).toBe(200);
    });

    it("a deleted user's transactionID proves nothing", async () => {
      const gone = await makeUser(T.adminToken, SA, { label: 'gone' });
      const l = await loginRes(gone.email, gone.password, SA);
      expect((await deleteUser(T.adminToken, gone.sub)).status).toBe(200);
      const res = await getUser(undefined, gone.sub, { transactionID: l.body.transactionID });
      expectWireError(res, 401, 16, 'TRANSACTION_PROOF_INVALID');
    });

    it.each([
      ['GET /api/v1/sectors/{sector}/users', (tx: string) => t.http().get(`/api/v1/sectors/${SA}/users`).query({ transactionID: tx })],
      ['POST /api/v1/sectors/{sector}/users', (tx: string) => t.http().post(`/api/v1/sectors/${SA}/users`).query({ transactionID: tx }).send({ email: uniqueEmail('tx'), password: 'valid-password' })],
      ['DELETE /api/v1/users/{sub}', (tx: string) => t.http().delete(`/api/v1/users/${target.sub}`).query({ transactionID: tx })],
      ['GET /api/v1/sectors/{sector}/settings', (tx: string) => t.http().get(`/api/v1/sectors/${SA}/settings`).query({ transactionID: tx })],
      ['POST /api/v1/sectors/{sector}/tokens', (tx: string) => t.http().post(`/api/v1/sectors/${SA}/tokens`).query({ transactionID: tx }).send({ name: 'x' })],
    ])('a transaction proof never reaches %s → 401 CREDENTIAL_MISSING', async (_name, call) => {
      const l = await loginRes(target.email, target.password, SA);
      expectWireError(await call(l.body.transactionID), 401, 16, 'CREDENTIAL_MISSING');
    });

    it('with a bearer credential, a transactionID adds no rights (the bearer decides)', async () => {
      const res = await getUser(peer.token, target.sub, { transactionID: targetTx });
      expectWireError(res, 403, 7, 'ROLE_REQUIRED');
    });

    it('another tenant’s user and a random UUID answer alike: 404 USER_NOT_FOUND', async () => {
      const foreign = await makeUser(U.adminToken, U.rootSectorID, { label: 'foreign' });
      expectWireError(await getUser(T.adminToken, foreign.sub), 404, 5, 'USER_NOT_FOUND');
      expectWireError(await putUser(T.adminToken, foreign.sub, { profile: { name: 'hijack' } }), 404, 5, 'USER_NOT_FOUND');
      expectWireError(await deleteUser(T.adminToken, foreign.sub), 404, 5, 'USER_NOT_FOUND');
      expectWireError(await getUser(T.adminToken, randomUUID()), 404, 5, 'USER_NOT_FOUND');
      // A transactionID of T proves nothing about a user of U either (and reveals nothing).
      expectWireError(await getUser(undefined, foreign.sub, { transactionID: targetTx }), 401, 16, 'TRANSACTION_PROOF_INVALID');
      expectWireError(await getUser(undefined, randomUUID(), { transactionID: targetTx }), 401, 16, 'TRANSACTION_PROOF_INVALID');
      const stored = await tenantSql(t, U.tenantID, 'SELECT name FROM users WHERE id = $1', [foreign.sub]);
      expect(stored).toEqual([{ name: '' }]);
    });

    it.each(['not-a-uuid', '12345', `${randomUUID()}x`])('a malformed sub %s → 400 naming sub', async (sub) => {
      expectWireError(await getUser(T.adminToken, sub), 400, 3, 'VALIDATION_FAILED', { fields: ['sub'] });
      expectWireError(await putUser(T.adminToken, sub, {}), 400, 3, 'VALIDATION_FAILED', { fields: ['sub'] });
      expectWireError(await deleteUser(T.adminToken, sub), 400, 3, 'VALIDATION_FAILED', { fields: ['sub'] });
    });

    describe('with AllowUserReadForNonAdmins on', () => {
      beforeAll(() => putSettings(T.adminToken, SA, { AllowUserReadForNonAdmins: true }));
      afterAll(() => putSettings(T.adminToken, SA, { AllowUserReadForNonAdmins: false }));

      it('a user of the same sector reads others', async () => {
        const res = await getUser(peer.token, target.sub);
        expect({ status: res.status, sub: res.body.sub, email: res.body.email }).toEqual({ status: 200, sub: target.sub, email: target.email });
      });

      it('but never updates them → 403', async () => {
        expectWireError(await putUser(peer.token, target.sub, { profile: { name: 'by peer' } }), 403, 7, 'ROLE_REQUIRED');
      });

      it("nor reads with another user's transactionID", async () => {
        expectWireError(await getUser(undefined, target.sub, { transactionID: peerTx }), 401, 16, 'TRANSACTION_PROOF_INVALID');
      });

      it('a user of another sector still → 403', async () => {
        const outsider = await makeUser(T.adminToken, SB, { label: 'sb-user' });
        expectWireError(await getUser(outsider.token, target.sub), 403, 7, 'ROLE_REQUIRED');
      });
    });
  });

  describe('update rules', () => {
    let S: string;
    let sAdmin: Made;
    beforeAll(async () => {
      S = await createSector(t, T.adminToken);
      sAdmin = await makeUser(T.adminToken, S, { label: 's-admin', isAdmin: true });
    });

    const stored = async (sub: string) => {
      const res = await getUser(T.adminToken, sub);
      expect(res.status).toBe(200);
      return res.body;
    };
    const isAdminStored = async (sub: string) => (await tenantSql(t, T.tenantID, 'SELECT is_admin FROM users WHERE id = $1', [sub]))[0].is_admin;

    it('the response is exactly {sub, username, sectorID}', async () => {
      const u = await makeUser(T.adminToken, S);
      const res = await putUser(T.adminToken, u.sub, { profile: { name: 'Renamed' } });
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { sub: u.sub, username: u.email, sectorID: S } });
    });

    it.each([
      ['isAdmin:true alone', { isAdmin: true }],
      ['isAdmin:true with setAdminExplicitly:false', { isAdmin: true, setAdminExplicitly: false }],
      ['setAdminExplicitly:true without isAdmin', { setAdminExplicitly: true }],
    ])('%s (by an admin) changes nothing', async (_label, body) => {
      const u = await makeUser(T.adminToken, S);
      const res = await putUser(T.adminToken, u.sub, body);
      expect(res.status).toBe(200);
      expect(await isAdminStored(u.sub)).toBe(false);
      expectWireError(await listUsers(u.token, S), 403, 7, 'ROLE_REQUIRED');
    });

    it('isAdmin:false without setAdminExplicitly leaves an admin an admin', async () => {
      const a = await makeUser(T.adminToken, S, { isAdmin: true });
      expect((await putUser(T.adminToken, a.sub, { isAdmin: false, profile: { name: 'still admin' } })).status).toBe(200);
      expect(await isAdminStored(a.sub)).toBe(true);
      expect((await listUsers(a.token, S)).status).toBe(200);
    });

    it('a non-admin making themselves admin → 403 ADMIN_REQUIRED_TO_GRANT_ADMIN (by token and by transaction proof)', async () => {
      const u = await makeUser(T.adminToken, S);
      expectWireError(await putUser(u.token, u.sub, { setAdminExplicitly: true, isAdmin: true }), 403, 7, 'ADMIN_REQUIRED_TO_GRANT_ADMIN');
      const tx = (await loginRes(u.email, u.password, S)).body.transactionID;
      expectWireError(await putUser(undefined, u.sub, { setAdminExplicitly: true, isAdmin: true }, { transactionID: tx }), 403, 7, 'ADMIN_REQUIRED_TO_GRANT_ADMIN');
      expect(await isAdminStored(u.sub)).toBe(false);
      // Restating the current state is not a change.
      expect((await putUser(u.token, u.sub, { setAdminExplicitly: true, isAdmin: false })).status).toBe(200);
    });

    it('granted by an admin: admin rights follow the stored flag at once (same token)', async () => {
      const u = await makeUser(T.adminToken, S);
      expectWireError(await listUsers(u.token, S), 403, 7, 'ROLE_REQUIRED');
      const res = await putUser(sAdmin.token, u.sub, { setAdminExplicitly: true, isAdmin: true });
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { sub: u.sub, username: u.email, sectorID: S } });
      expect(await isAdminStored(u.sub)).toBe(true);
      const list = await listUsers(u.token, S, { pageSize: '100' });
      expect(list.status).toBe(200);
      expect(list.body.users.find((x: { sub: string }) => x.sub === u.sub)).toEqual(expect.objectContaining({ isAdmin: true }));
    });

    describe("the last admin of the tenant's default sector", () => {
      let W: ProvisionedTenant;
      let wAdminSub: string;
      beforeAll(async () => {
        W = await provisionTenant(t);
        const list = await listUsers(W.adminToken, W.rootSectorID);
        expect(list.body.users).toHaveLength(1);
        wAdminSub = list.body.users[0].sub;
      });

      it('cannot be demoted → 400 LAST_ADMIN', async () => {
        expectWireError(await putUser(W.adminToken, wAdminSub, { setAdminExplicitly: true, isAdmin: false }), 400, 9, 'LAST_ADMIN');
        expect(await tenantSql(t, W.tenantID, 'SELECT is_admin FROM users WHERE id = $1', [wAdminSub])).toEqual([{ is_admin: true }]);
      });

      it('cannot be deleted → 400 LAST_ADMIN', async () => {
        expectWireError(await deleteUser(W.adminToken, wAdminSub), 400, 9, 'LAST_ADMIN');
        expect(await tenantSql(t, W.tenantID, 'SELECT id FROM users WHERE id = $1', [wAdminSub])).toHaveLength(1);
      });

      it('with two admins one can be demoted, and then the other is the last', async () => {
        const second = await makeUser(W.adminToken, W.rootSectorID, { label: 'second-admin', isAdmin: true });
        const res = await putUser(second.token, wAdminSub, { setAdminExplicitly: true, isAdmin: false });
        expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { sub: wAdminSub, username: W.adminEmail, sectorID: W.rootSectorID } });
        // The demoted admin lost the default sector at once.
        expectWireError(await listUsers(W.adminToken, W.rootSectorID), 403, 7, 'ROLE_REQUIRED');
        expectWireError(await putUser(second.token, second.sub, { setAdminExplicitly: true, isAdmin: false }), 400, 9, 'LAST_ADMIN');
        expectWireError(await deleteUser(second.token, second.sub), 400, 9, 'LAST_ADMIN');
        // Re-grant, then the first may go.
        expect((await putUser(second.token, wAdminSub, { setAdminExplicitly: true, isAdmin: true })).status).toBe(200);
        expect((await deleteUser(second.token, wAdminSub)).status).toBe(200);
      });

      it('a sub-sector may lose its last admin', async () => {
        const sub = await createSector(t, T.adminToken);
        const only = await makeUser(T.adminToken, sub, { isAdmin: true });
        expect((await putUser(T.adminToken, only.sub, { setAdminExplicitly: true, isAdmin: false })).status).toBe(200);
        expect(await isAdminStored(only.sub)).toBe(false);
      });
    });

    it('an email change clears emailVerified', async () => {
      const u = await makeUser(T.adminToken, S);
      expect((await putUser(T.adminToken, u.sub, { profile: { emailVerified: true, phoneNumber: '+14155550100', phoneNumberVerified: true } })).status).toBe(200);
      expect(await stored(u.sub)).toEqual(expect.objectContaining({ emailVerified: true, phoneNumberVerified: true }));
      const newEmail = uniqueEmail('changed');
      // The user's own change waits for the link mailed to the new address (security-account.e2e-spec.ts); an admin's applies at once.
      expect((await putUser(u.token, u.sub, { profile: { email: newEmail } })).body).toEqual({ sub: u.sub, username: u.email, sectorID: S, pendingEmail: newEmail });
      expect(await stored(u.sub)).toEqual(expect.objectContaining({ email: u.email, emailVerified: true, pendingEmail: newEmail }));
      expect((await putUser(T.adminToken, u.sub, { profile: { email: newEmail } })).status).toBe(200);
      expect(await stored(u.sub)).toEqual(expect.objectContaining({ email: newEmail, emailVerified: false, phoneNumberVerified: true, pendingEmail: '' }));
      // The new email is a login at once; the username stays.
      await t.login(newEmail, u.password, S);
      // A phone number change clears phoneNumberVerified the same way.
      expect((await putUser(u.token, u.sub, { profile: { phoneNumber: '+14155550199' } })).status).toBe(200);
      expect(await stored(u.sub)).toEqual(expect.objectContaining({ phoneNumber: '+14155550199', phoneNumberVerified: false }));
    });

    it('an email change only in case keeps emailVerified', async () => {
      const u = await makeUser(T.adminToken, S);
      expect((await putUser(T.adminToken, u.sub, { profile: { emailVerified: true } })).status).toBe(200);
      expect((await putUser(u.token, u.sub, { profile: { email: u.email.toUpperCase() } })).status).toBe(200);
      expect(await stored(u.sub)).toEqual(expect.objectContaining({ email: u.email.toUpperCase(), emailVerified: true }));
    });

    it("an email change to another user's email or username → 409 EMAIL_TAKEN", async () => {
      const [u, v] = await Promise.all([makeUser(T.adminToken, S), makeUser(T.adminToken, S)]);
      expectWireError(await putUser(u.token, u.sub, { profile: { email: v.email.toUpperCase() } }), 409, 6, 'EMAIL_TAKEN');
      expect((await stored(u.sub)).email).toBe(u.email);
    });

    it('a user may not change emailVerified or phoneNumberVerified → 403 FIELD_NOT_WRITABLE, but may send them unchanged', async () => {
      const u = await makeUser(T.adminToken, S);
      expectWireError(await putUser(u.token, u.sub, { profile: { emailVerified: true } }), 403, 7, 'FIELD_NOT_WRITABLE');
      expectWireError(await putUser(u.token, u.sub, { profile: { phoneNumberVerified: true } }), 403, 7, 'FIELD_NOT_WRITABLE');
      const tx = (await loginRes(u.email, u.password, S)).body.transactionID;
      expectWireError(await putUser(undefined, u.sub, { profile: { emailVerified: true } }, { transactionID: tx }), 403, 7, 'FIELD_NOT_WRITABLE');
      expect(await stored(u.sub)).toEqual(expect.objectContaining({ emailVerified: false, phoneNumberVerified: false }));

      // The whole profile as read, sent back unchanged (as a profile page does), is fine.
      const current = await stored(u.sub);
      const back = await putUser(u.token, u.sub, { profile: { ...current, nickname: 'echo' } });
      expect(back.status).toBe(200);

      // After an admin verified the email, the user may still send emailVerified:true, but not false.
      expect((await putUser(T.adminToken, u.sub, { profile: { emailVerified: true } })).status).toBe(200);
      expect((await putUser(u.token, u.sub, { profile: { emailVerified: true, name: 'kept' } })).status).toBe(200);
      expectWireError(await putUser(u.token, u.sub, { profile: { emailVerified: false } }), 403, 7, 'FIELD_NOT_WRITABLE');
      expect(await stored(u.sub)).toEqual(expect.objectContaining({ emailVerified: true, name: 'kept', nickname: 'echo' }));
    });

    it('updates merge: absent fields keep their values; the address merges per key', async () => {
      const u = await makeUser(T.adminToken, S, { profile: FULL_PROFILE });
      const before = await stored(u.sub);
      expect(before).toEqual({ ...zeroProfile(u.sub, u.email), ...FULL_PROFILE, createdAt: before.createdAt, updatedAt: before.updatedAt });

      const res = await putUser(u.token, u.sub, { profile: { nickname: 'Lady Ada', address: { locality: 'Marylebone', country: 'UK' } } });
      expect(res.status).toBe(200);
      expect(await stored(u.sub)).toEqual({
        ...before,
        nickname: 'Lady Ada',
        address: { ...FULL_PROFILE.address, locality: 'Marylebone', country: 'UK' },
        updatedAt: expect.stringMatching(INT64),
      });

      // An empty body and an empty profile change nothing; a field can be set back to "".
      expect((await putUser(u.token, u.sub, {})).status).toBe(200);
      expect((await putUser(u.token, u.sub, { profile: {} })).status).toBe(200);
      expect((await putUser(u.token, u.sub, { profile: { middleName: '', address: { region: '' } } })).status).toBe(200);
      const after = await stored(u.sub);
      expect(after).toEqual({
        ...before,
        nickname: 'Lady Ada',
        middleName: '',
        address: { ...FULL_PROFILE.address, locality: 'Marylebone', country: 'UK', region: '' },
        updatedAt: expect.stringMatching(INT64),
      });
      expect(Number(after.updatedAt)).toBeGreaterThanOrEqual(Number(before.updatedAt));
    });

    it('null fields mean absent', async () => {
      const u = await makeUser(T.adminToken, S, { profile: { name: 'Keep Me' } });
      expect((await putUser(u.token, u.sub, { profile: { name: null, nickname: 'n' } })).status).toBe(200);
      expect(await stored(u.sub)).toEqual(expect.objectContaining({ name: 'Keep Me', nickname: 'n' }));
    });

    it('sub, createdAt and updatedAt in the body are ignored', async () => {
      const u = await makeUser(T.adminToken, S);
      const before = await stored(u.sub);
      const other = randomUUID();
      const res = await putUser(u.token, u.sub, { sub: other, createdAt: '1', profile: { sub: other, createdAt: '1', updatedAt: '1', name: 'Same Person' } });
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { sub: u.sub, username: u.email, sectorID: S } });
      const after = await stored(u.sub);
      expect(after).toEqual({ ...before, name: 'Same Person', updatedAt: expect.stringMatching(INT64) });
      expect(after.updatedAt).not.toBe('1');
    });

    it("sectorID in the body: the user's own is fine, another → 400 SECTOR_MISMATCH", async () => {
      const u = await makeUser(T.adminToken, S);
      expect((await putUser(T.adminToken, u.sub, { sectorID: S, profile: { name: 'here' } })).status).toBe(200);
      for (const sectorID of [T.rootSectorID, randomUUID(), 'garbage']) {
        expectWireError(await putUser(T.adminToken, u.sub, { sectorID, profile: { name: 'moved' } }), 400, 3, 'SECTOR_MISMATCH', { fields: ['sectorID'] });
      }
      expect(await stored(u.sub)).toEqual(expect.objectContaining({ name: 'here' }));
      const rows = await tenantSql(t, T.tenantID, 'SELECT sector_id FROM users WHERE id = $1', [u.sub]);
      expect(rows).toEqual([{ sector_id: S }]);
    });

    it.each([
      ['a phone number that is not E.164', { profile: { phoneNumber: '555-1234' } }, 'profile.phoneNumber'],
      ['a malformed birthdate', { profile: { birthdate: '1815-12' } }, 'profile.birthdate'],
      ['a malformed email', { profile: { email: 'nope' } }, 'profile.email'],
      ['a website that is not a URL', { profile: { website: 'javascript:alert(1)' } }, 'profile.website'],
      ['a non-boolean setAdminExplicitly', { setAdminExplicitly: 'true' }, 'setAdminExplicitly'],
      ['an address that is not an object', { profile: { address: 'Main Street' } }, 'profile.address'],
    ])('%s → 400 naming the field', async (_label, body, field) => {
      const u = await makeUser(T.adminToken, S);
      const res = await putUser(u.token, u.sub, body);
      expectWireError(res, 400, 3, 'VALIDATION_FAILED', { fields: [field] });
    });
  });

  describe('DELETE /api/v1/users/{sub}', () => {
    let S: string;
    let other: string;
    let sAdmin: Made;
    let otherAdmin: Made;
    beforeAll(async () => {
      [S, other] = await Promise.all([createSector(t, T.adminToken), createSector(t, T.adminToken)]);
      [sAdmin, otherAdmin] = await Promise.all([makeUser(T.adminToken, S, { isAdmin: true }), makeUser(T.adminToken, other, { isAdmin: true })]);
    });

    it('the user themselves → 403; another sector’s admin → 403; another tenant’s admin → 404', async () => {
      const u = await makeUser(T.adminToken, S);
      expectWireError(await deleteUser(u.token, u.sub), 403, 7, 'ROLE_REQUIRED');
      expectWireError(await deleteUser(otherAdmin.token, u.sub), 403, 7, 'ROLE_REQUIRED');
      expectWireError(await deleteUser(U.adminToken, u.sub), 404, 5, 'USER_NOT_FOUND');
      expectWireError(await deleteUser(await t.platformToken(), u.sub), 404, 5, 'USER_NOT_FOUND');
      expectWireError(await deleteUser(undefined, u.sub), 401, 16, 'CREDENTIAL_MISSING');
      expect((await getUser(u.token, u.sub)).status).toBe(200);
    });

    it.each([
      ['the sector admin', () => sAdmin.token],
      ['the default-sector admin', () => T.adminToken],
    ])('by %s: the user is gone and their token stops at once', async (_label, token) => {
      const u = await makeUser(T.adminToken, S);
      expect((await getUser(u.token, u.sub)).status).toBe(200);
      const res = await deleteUser(token(), u.sub);
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { sub: u.sub } });
      expectWireError(await getUser(u.token, u.sub), 401, 16, 'TOKEN_INVALID');
      expectWireError(await putUser(u.token, u.sub, { profile: { name: 'ghost' } }), 401, 16, 'TOKEN_INVALID');
      expectWireError(await getUser(T.adminToken, u.sub), 404, 5, 'USER_NOT_FOUND');
      expectWireError(await deleteUser(T.adminToken, u.sub), 404, 5, 'USER_NOT_FOUND');
      expectWireError(await loginRes(u.email, u.password, S), 401, 16, 'INVALID_CREDENTIALS');
      const intro = await t.http().post('/api/v1/introspect').set('Authorization', `Bearer ${T.adminToken}`).send({ token: u.token });
      expectWireError(intro, 401, 16, 'TOKEN_INVALID');
    });

    it('the email is free again after deletion', async () => {
      const u = await makeUser(T.adminToken, S);
      expect((await deleteUser(sAdmin.token, u.sub)).status).toBe(200);
      const again = await createUser(sAdmin.token, S, { email: u.email, password: 'second-life' });
      expect(again.status).toBe(200);
      expect(again.body.sub).not.toBe(u.sub);
    });
  });

  describe('a demoted sub-sector admin', () => {
    it('loses the sector at once, whatever the token says', async () => {
      const S = await createSector(t, T.adminToken);
      const a = await makeUser(T.adminToken, S, { label: 'demotee', isAdmin: true });
      const before = await listUsers(a.token, S);
      expect(before.status).toBe(200);
      const res = await putUser(T.adminToken, a.sub, { setAdminExplicitly: true, isAdmin: false });
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { sub: a.sub, username: a.email, sectorID: S } });
      expect(JSON.parse(Buffer.from(a.token.split('.')[1], 'base64url').toString('utf8')).isAdmin).toBe(true);
      expectWireError(await listUsers(a.token, S), 403, 7, 'ROLE_REQUIRED');
      expectWireError(await createUser(a.token, S, { email: uniqueEmail('x'), password: 'valid-password' }), 403, 7, 'ROLE_REQUIRED');
      // Still themselves: they read and update their own profile.
      expect((await getUser(a.token, a.sub)).status).toBe(200);
      expect((await putUser(a.token, a.sub, { profile: { name: 'demoted' } })).status).toBe(200);
    });
  });

  describe('sector API tokens act as an admin of their own sector only', () => {
    let S: string;
    let other: string;
    let apiToken: string;
    let foreignApiToken: string;
    let member: Made;
    let otherMember: Made;

    const mint = async (adminToken: string, sectorID: string) => {
      const res = await t.http().post(`/api/v1/sectors/${sectorID}/tokens`).set('Authorization', `Bearer ${adminToken}`).send({ name: 'users e2e' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ token: expect.any(String), apiToken: expect.objectContaining({ sectorID }) });
      return res.body.token as string;
    };

    beforeAll(async () => {
      [S, other] = await Promise.all([createSector(t, T.adminToken), createSector(t, T.adminToken)]);
      [apiToken, foreignApiToken] = await Promise.all([mint(T.adminToken, S), mint(U.adminToken, U.rootSectorID)]);
      [member, otherMember] = await Promise.all([makeUser(T.adminToken, S), makeUser(T.adminToken, other)]);
    });

    it('creates, lists, reads, updates and deletes non-admin users of its sector', async () => {
      const email = uniqueEmail('by-api');
      const created = await createUser(apiToken, S, { email, password: 'valid-password' });
      expect({ status: created.status, body: created.body }).toEqual({ status: 200, body: zeroProfile(created.body.sub, email) });
      const list = await listUsers(apiToken, S, { pageSize: '100' });
      expect(list.status).toBe(200);
      expect(list.body.users.map((u: { sub: string }) => u.sub).sort()).toEqual([member.sub, created.body.sub].sort());
      const read = await getUser(apiToken, member.sub);
      expect({ status: read.status, sub: read.body.sub }).toEqual({ status: 200, sub: member.sub });
      const put = await putUser(apiToken, member.sub, { profile: { name: 'by api' } });
      expect({ status: put.status, body: put.body }).toEqual({ status: 200, body: { sub: member.sub, username: member.email, sectorID: S } });
      expect((await getUser(apiToken, member.sub)).body).toEqual(expect.objectContaining({ name: 'by api', emailVerified: false }));
      expect((await deleteUser(apiToken, created.body.sub)).status).toBe(200);
    });

    it('never creates an admin, grants admin or marks a field verified: what it makes never exceeds the token', async () => {
      const email = uniqueEmail('escalate');
      expectWireError(await createUser(apiToken, S, { email, password: 'valid-password', isAdmin: true }), 403, 7, 'ADMIN_REQUIRED_TO_GRANT_ADMIN');
      expectWireError(await createUser(apiToken, S, { email, profile: { emailVerified: true } }), 403, 7, 'FIELD_NOT_WRITABLE');
      expect((await listUsers(T.adminToken, S, { filterEmail: email })).body.users).toEqual([]);
      expectWireError(await putUser(apiToken, member.sub, { setAdminExplicitly: true, isAdmin: true }), 403, 7, 'ADMIN_REQUIRED_TO_GRANT_ADMIN');
      expectWireError(await putUser(apiToken, member.sub, { profile: { emailVerified: true } }), 403, 7, 'FIELD_NOT_WRITABLE');
      expect((await getUser(T.adminToken, member.sub)).body.emailVerified).toBe(false);
    });

    it('gets 403 for another sector of the same tenant', async () => {
      expectWireError(await createUser(apiToken, other, { email: uniqueEmail('x'), password: 'valid-password' }), 403, 7, 'ROLE_REQUIRED');
      expectWireError(await listUsers(apiToken, other), 403, 7, 'ROLE_REQUIRED');
      expectWireError(await getUser(apiToken, otherMember.sub), 403, 7, 'ROLE_REQUIRED');
      expectWireError(await putUser(apiToken, otherMember.sub, { profile: { name: 'x' } }), 403, 7, 'ROLE_REQUIRED');
      expectWireError(await deleteUser(apiToken, otherMember.sub), 403, 7, 'ROLE_REQUIRED');
      // Not default-sector-wide either.
      expectWireError(await listUsers(apiToken, T.rootSectorID), 403, 7, 'ROLE_REQUIRED');
    });

    it("another tenant's API token gets 404", async () => {
      expectWireError(await getUser(foreignApiToken, member.sub), 404, 5, 'USER_NOT_FOUND');
      expectWireError(await putUser(foreignApiToken, member.sub, { profile: { name: 'x' } }), 404, 5, 'USER_NOT_FOUND');
      expectWireError(await deleteUser(foreignApiToken, member.sub), 404, 5, 'USER_NOT_FOUND');
      expectWireError(await listUsers(foreignApiToken, S), 404, 5, 'SECTOR_NOT_FOUND');
      expectWireError(await createUser(foreignApiToken, S, { email: uniqueEmail('x'), password: 'valid-password' }), 404, 5, 'SECTOR_NOT_FOUND');
    });
  });

  describe('tenant stats', () => {
    it('count the users and admins created through the API', async () => {
      const X = await provisionTenant(t);
      const platform = await t.platformToken();
      const stats = async () => {
        const res = await t.http().get(`/api/v1/tenants/${X.tenantID}`).query({ includeStats: 'true' }).set('Authorization', `Bearer ${platform}`);
        expect(res.status).toBe(200);
        return res.body.stats;
      };
      const base = { apiTokenCount: 0, mfaRequired: false, selfSignupAllowed: false, webauthnConfigured: false };
      expect(await stats()).toEqual({ ...base, userCount: 1, adminCount: 1, pendingInviteCount: 0 });

      const sub = await createSector(t, X.adminToken);
      await makeUser(X.adminToken, X.rootSectorID, { isAdmin: true });
      await makeUser(X.adminToken, sub, { isAdmin: true });
      const plain = await makeUser(X.adminToken, sub);
      await makeUser(X.adminToken, sub);
      const invited = await createUser(X.adminToken, sub, { email: uniqueEmail('invited') });
      expect(invited.status).toBe(200);
      expect(await stats()).toEqual({ ...base, userCount: 6, adminCount: 3, pendingInviteCount: 1 });

      expect((await putUser(X.adminToken, plain.sub, { setAdminExplicitly: true, isAdmin: true })).status).toBe(200);
      expect((await deleteUser(X.adminToken, invited.body.sub)).status).toBe(200);
      expect(await stats()).toEqual({ ...base, userCount: 5, adminCount: 4, pendingInviteCount: 0 });
    });
  });
});
