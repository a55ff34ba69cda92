/**
 * Password login (interface op 11; docs/api.md, Sign-in flows): the authentication result,
 * how the user and sector are found, refusals that reveal nothing, the 72-byte
 * bcrypt limit, and the transaction rules (complete once, sector-bound, expiring,
 * pending while MFA enrollment is required). No timing assertions.
 */
import { randomUUID } from 'node:crypto';
import { claimsOf, ErrorBody, fieldViolations, REQUEST_INFO } from './support/contract';
import { createSector, expectError, provisionTenant, ProvisionedTenant, seedUser, tenantSql } from './support/factories';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestApp, TestApp } from './support/test-app';

/** The error body without its per-request parts, for comparing two refusals. */
function withoutRequestInfo(body: ErrorBody) {
  return { ...body, details: body.details.filter((d) => d['@type'] !== REQUEST_INFO) };
}

describe('POST /api/v1/login/password', () => {
  let t: TestApp;
  let a: ProvisionedTenant;
  let sectorA: string;
  let sectorB: string;
  let mfaSector: string;
  let userID: string;
  const password = 'correct horse battery staple';
  // Exactly 72 bytes in UTF-8 (bcrypt's limit): 68 ASCII + one 4-byte emoji.
  const password72 = 'p'.repeat(34) + 'Q'.repeat(34) + '\u{1F511}';

  const login = (body: Record<string, unknown>) => t.http().post('/api/v1/login/password').send(body);

  beforeAll(async () => {
    t = await startTestApp();
    a = await provisionTenant(t);
    sectorA = await createSector(t, a.adminToken);
    sectorB = await createSector(t, a.adminToken);
    mfaSector = await createSector(t, a.adminToken);
    userID = await seedUser(t, a.tenantID, sectorA, { email: 'Mixed.Case@Example.TEST', username: 'MixedUser', password });
    await seedUser(t, a.tenantID, sectorA, { email: 'long@example.test', password: password72 });
    await seedUser(t, a.tenantID, mfaSector, { email: 'mfa@example.test', password });
    const put = await t
      .http()
      .put(`/api/v1/sectors/${mfaSector}/settings`)
      .set('Authorization', `Bearer ${a.adminToken}`)
      .send({ MFARequired: true });
    expect(put.status).toBe(200);
    expect(put.body.MFARequired).toBe(true);
  });
  afterAll(() => t?.close());

  describe('success', () => {
    it('returns the authentication result with a token', async () => {
      const res = await login({ username: 'MixedUser', password, sectorID: sectorA });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['challengeType', 'refreshToken', 'status', 'token', 'transactionID']);
      expect(res.body).toMatchObject({ status: 'SUCCESS', challengeType: '' });
      expect(typeof res.body.transactionID).toBe('string');
      expect(res.body.transactionID.length).toBeGreaterThanOrEqual(22);
      expect(res.body.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(claimsOf(res.body.token)).toMatchObject({ sub: userID, sectorID: sectorA, tenantID: a.tenantID, username: 'MixedUser', isAdmin: false });
    });

    it('gives every sign-in its own transaction', async () => {
      const one = await login({ username: 'MixedUser', password, sectorID: sectorA });
      const two = await login({ username: 'MixedUser', password, sectorID: sectorA });
      expect(one.body.transactionID).not.toBe(two.body.transactionID);
    });

    it.each([
      ['the username, other case', 'mixeduser'],
      ['the username, upper case', 'MIXEDUSER'],
      ['the email, as stored', 'Mixed.Case@Example.TEST'],
      ['the email, lower case', 'mixed.case@example.test'],
      ['the email, upper case', 'MIXED.CASE@EXAMPLE.TEST'],
    ])('matches %s', async (_what, username) => {
      const res = await login({ username, password, sectorID: sectorA });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('SUCCESS');
      expect(claimsOf(res.body.token).sub).toBe(userID);
    });

    it('uses the platform default sector when sectorID is omitted', async () => {
      const [platform] = await t.sql<{ id: string; root_sector_id: string }>('SELECT id, root_sector_id FROM tenants WHERE is_platform');
      for (const body of [{ username: ADMIN_EMAIL, password: ADMIN_PASSWORD }, { username: ADMIN_EMAIL, password: ADMIN_PASSWORD, sectorID: '' }]) {
        const res = await login(body);
        expect(res.status).toBe(200);
        expect(res.body.status).toBe('SUCCESS');
        expect(claimsOf(res.body.token)).toMatchObject({ tenantID: platform.id, sectorID: platform.root_sector_id, isAdmin: true });
      }
    });

    it('does not find a user of another sector (sectors are separate namespaces)', async () => {
      const res = await login({ username: 'MixedUser', password, sectorID: sectorB });
      expectError(res, 401, 16, 'INVALID_CREDENTIALS');
      // Nor a tenant user without sectorID (that is the platform sector).
      expectError(await login({ username: a.adminEmail, password: a.adminPassword }), 401, 16, 'INVALID_CREDENTIALS');
    });
  });

  describe('refusals', () => {
    it('answers a wrong password and an unknown user identically', async () => {
      const wrong = await login({ username: 'MixedUser', password: 'not the password', sectorID: sectorA });
      const unknown = await login({ username: 'nobody@example.test', password: 'not the password', sectorID: sectorA });
      const wrongBody = expectError(wrong, 401, 16, 'INVALID_CREDENTIALS');
      const unknownBody = expectError(unknown, 401, 16, 'INVALID_CREDENTIALS');
      expect(withoutRequestInfo(wrongBody)).toEqual(withoutRequestInfo(unknownBody));
      expect(wrong.headers['www-authenticate']).toBe('Bearer');
      expect(unknown.headers['www-authenticate']).toBe('Bearer');
      expect(wrongBody.message).not.toMatch(/nobody|MixedUser/);
    });

    it('accepts a 72-byte password but refuses one longer whose first 72 bytes match (no silent truncation)', async () => {
      expect(Buffer.byteLength(password72)).toBe(72);
      const ok = await login({ username: 'long@example.test', password: password72, sectorID: sectorA });
      expect(ok.status).toBe(200);
      expect(ok.body.status).toBe('SUCCESS');
      for (const extra of ['x', 'anything after the limit']) {
        const res = await login({ username: 'long@example.test', password: password72 + extra, sectorID: sectorA });
        expectError(res, 401, 16, 'INVALID_CREDENTIALS');
      }
    });

    it('requires a username when no transaction is given', async () => {
      for (const body of [{ password, sectorID: sectorA }, { username: '', password, sectorID: sectorA }]) {
        const res = await login(body);
        const err = expectError(res, 400, 3, 'VALIDATION_FAILED');
        expect(fieldViolations(err).map((v) => v.field)).toContain('username');
      }
    });

    it('requires a password', async () => {
      for (const body of [{ username: 'MixedUser', sectorID: sectorA }, { username: 'MixedUser', password: '', sectorID: sectorA }]) {
        const err = expectError(await login(body), 400, 3, 'VALIDATION_FAILED');
        expect(fieldViolations(err).map((v) => v.field)).toContain('password');
      }
    });

    it('refuses fields of the wrong type', async () => {
      const err = expectError(await login({ username: 'MixedUser', password: 12345678, sectorID: sectorA }), 400, 3);
      expect(fieldViolations(err).map((v) => v.field)).toContain('password');
    });

    it('refuses an unknown sector (NOT_FOUND) and a malformed sector id (INVALID_ARGUMENT)', async () => {
      expectError(await login({ username: 'MixedUser', password, sectorID: randomUUID() }), 404, 5, 'SECTOR_NOT_FOUND');
      const bad = expectError(await login({ username: 'MixedUser', password, sectorID: 'not-a-uuid' }), 400, 3);
      expect(fieldViolations(bad).map((v) => v.field)).toContain('sectorID');
    });
  });

  describe('transactions', () => {
    it('refuses a completed transaction sent again (ABORTED, TRANSACTION_COMPLETED)', async () => {
      const first = await login({ username: 'MixedUser', password, sectorID: sectorA });
      expect(first.body.status).toBe('SUCCESS');
      const again = await login({ transactionID: first.body.transactionID, password, sectorID: sectorA });
      expectError(again, 409, 10, 'TRANSACTION_COMPLETED');
      const withUser = await login({ transactionID: first.body.transactionID, username: 'MixedUser', password, sectorID: sectorA });
      expectError(withUser, 409, 10, 'TRANSACTION_COMPLETED');
    });

    it('refuses an unknown transaction (FAILED_PRECONDITION, TRANSACTION_NOT_FOUND)', async () => {
      const res = await login({ transactionID: 'no-such-transaction-0123456789abcdef', password, sectorID: sectorA });
      expectError(res, 400, 9, 'TRANSACTION_NOT_FOUND');
      const withUser = await login({ transactionID: 'no-such-transaction-0123456789abcdef', username: 'MixedUser', password, sectorID: sectorA });
      expectError(withUser, 400, 9, 'TRANSACTION_NOT_FOUND');
    });

    describe('in a sector with MFARequired', () => {
      it('answers MFA_ENROLLMENT_REQUIRED with a transaction and no token', async () => {
        const res = await login({ username: 'mfa@example.test', password, sectorID: mfaSector });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ transactionID: expect.any(String), status: 'MFA_ENROLLMENT_REQUIRED', challengeType: 'EMAIL_OTP_ENROLLMENT' });
        expect(res.body).not.toHaveProperty('token');
        expect(res.body.transactionID.length).toBeGreaterThanOrEqual(22);
        const [row] = await tenantSql(t, a.tenantID, 'SELECT status, sector_id FROM auth_transactions WHERE id = $1', [res.body.transactionID]);
        expect(row).toEqual({ status: 'PENDING', sector_id: mfaSector });
      });

      it('still refuses a wrong password before anything else', async () => {
        expectError(await login({ username: 'mfa@example.test', password: 'wrong password', sectorID: mfaSector }), 401, 16, 'INVALID_CREDENTIALS');
      });

      it('keeps the transaction pending when the password is sent again', async () => {
        const first = await login({ username: 'mfa@example.test', password, sectorID: mfaSector });
        const id = first.body.transactionID as string;
        for (const body of [
          { transactionID: id, password, sectorID: mfaSector },
          { transactionID: id, username: 'MFA@example.test', password, sectorID: mfaSector },
        ]) {
          const res = await login(body);
          expect(res.status).toBe(200);
          expect(res.body).toEqual({ transactionID: id, status: 'MFA_ENROLLMENT_REQUIRED', challengeType: 'EMAIL_OTP_ENROLLMENT' });
        }
        // A wrong password on the transaction is refused and does not complete it.
        expectError(await login({ transactionID: id, password: 'wrong password', sectorID: mfaSector }), 401, 16, 'INVALID_CREDENTIALS');
        const [row] = await tenantSql(t, a.tenantID, 'SELECT status FROM auth_transactions WHERE id = $1', [id]);
        expect(row.status).toBe('PENDING');
      });

      it('refuses the transaction in another sector (TRANSACTION_NOT_FOUND)', async () => {
        const first = await login({ username: 'mfa@example.test', password, sectorID: mfaSector });
        const id = first.body.transactionID as string;
        // Another sector of the same tenant.
        expectError(await login({ transactionID: id, password, sectorID: sectorB }), 400, 9, 'TRANSACTION_NOT_FOUND');
        expectError(await login({ transactionID: id, username: 'mfa@example.test', password, sectorID: sectorA }), 400, 9, 'TRANSACTION_NOT_FOUND');
        // Another tenant's sector (the platform default sector, by omission).
        expectError(await login({ transactionID: id, password }), 400, 9, 'TRANSACTION_NOT_FOUND');
        // The transaction itself is untouched.
        const still = await login({ transactionID: id, password, sectorID: mfaSector });
        expect(still.body).toMatchObject({ transactionID: id, status: 'MFA_ENROLLMENT_REQUIRED' });
      });

      it('refuses an expired transaction (FAILED_PRECONDITION, TRANSACTION_EXPIRED)', async () => {
        const first = await login({ username: 'mfa@example.test', password, sectorID: mfaSector });
        const id = first.body.transactionID as string;
        await tenantSql(t, a.tenantID, `UPDATE auth_transactions SET expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
        expectError(await login({ transactionID: id, password, sectorID: mfaSector }), 400, 9, 'TRANSACTION_EXPIRED');
        const [row] = await tenantSql(t, a.tenantID, 'SELECT status FROM auth_transactions WHERE id = $1', [id]);
        expect(row.status).toBe('PENDING');
      });

      it('refuses a transaction of another user', async () => {
        await seedUser(t, a.tenantID, mfaSector, { email: 'other-mfa@example.test', password: 'other-password' });
        const first = await login({ username: 'mfa@example.test', password, sectorID: mfaSector });
        const res = await login({ transactionID: first.body.transactionID, username: 'other-mfa@example.test', password: 'other-password', sectorID: mfaSector });
        expectError(res, 400, 9, 'TRANSACTION_MISMATCH');
        expect(res.body).not.toHaveProperty('token');
      });
    });
  });
});
