import { randomBytes } from 'node:crypto';
import { createSector, createUser, expectError, ProvisionedTenant, provisionTenant } from './support/factories';
import { startTestApp, TestApp } from './support/test-app';

/**
 * Browser sessions (docs/api.md, Browser sessions): a sign-in's refresh token is
 * handed over once into an HttpOnly, SameSite=Strict cookie scoped to the sector's
 * path; the cookie renews the access token (rotating like a refresh token, a
 * replay ends the session), only with the console's header and from an allowed
 * origin; signing out or revoking the session ends it.
 */

type Res = { status: number; body: any; headers: Record<string, any> };

const JWT = /^[\w-]+\.[\w-]+\.[\w-]+$/;
const PASSWORD = 'browser-session-password-1';
const CSRF = { 'X-Requested-With': 'iam-console' };

const auth = (token: string) => ({ Authorization: `Bearer ${token}` });
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;

/** The one Set-Cookie header of a response, split into its value and attributes. */
function setCookie(res: Res): { value: string; attributes: Record<string, string | true> } {
  const raw = res.headers['set-cookie'] as string[] | string | undefined;
  const list = Array.isArray(raw) ? raw : raw ? [raw] : [];
  expect(list).toHaveLength(1);
  const [pair, ...rest] = list[0].split(';').map((part) => part.trim());
  expect(pair.startsWith('iam_session=')).toBe(true);
  const attributes: Record<string, string | true> = {};
  for (const a of rest) {
    const eq = a.indexOf('=');
    attributes[(eq < 0 ? a : a.slice(0, eq)).toLowerCase()] = eq < 0 ? true : a.slice(eq + 1);
  }
  return { value: pair.slice('iam_session='.length), attributes };
}

describe('browser sessions: the refresh token in an HttpOnly cookie', () => {
  let t: TestApp;
  let a: ProvisionedTenant;
  let sector: string;
  let other: string;

  const path = (sectorID: string) => `/api/v1/browser-sessions/${sectorID}`;
  const signIn = async (email: string, sectorID = sector): Promise<{ token: string; refreshToken: string; sub: string; sid: string }> => {
    const res = await t.http().post('/api/v1/login/password').send({ username: email, password: PASSWORD, sectorID });
    expect({ status: res.status, result: res.body.status }).toEqual({ status: 200, result: 'SUCCESS' });
    const claims = claimsOf(res.body.token);
    return { token: res.body.token, refreshToken: res.body.refreshToken, sub: claims.sub as string, sid: claims.sid as string };
  };
  const newUser = async (label: string, sectorID = sector): Promise<string> => {
    const email = `${label}-${randomBytes(4).toString('hex')}@example.test`;
    await createUser(t, a.adminToken, sectorID, { email, password: PASSWORD });
    return email;
  };
  const handOver = (token: string, refreshToken: string, sectorID = sector): Promise<Res> =>
    t.http().post(path(sectorID)).set(auth(token)).send({ refreshToken });
  const refresh = (cookie: string | undefined, headers: Record<string, string> = CSRF, sectorID = sector): Promise<Res> => {
    const req = t.http().post(`${path(sectorID)}/refresh`).set(headers);
    return cookie === undefined ? req : req.set('Cookie', `iam_session=${cookie}`);
  };
  const end = (cookie: string | undefined, headers: Record<string, string> = CSRF): Promise<Res> => {
    const req = t.http().delete(path(sector)).set(headers);
    return cookie === undefined ? req : req.set('Cookie', `iam_session=${cookie}`);
  };
  const me = (sub: string, token: string): Promise<Res> => t.http().get(`/api/v1/users/${sub}`).set(auth(token));

  /** A user signed in with the session handed over: the tokens and the cookie's value. */
  async function browserSession(label: string): Promise<{ token: string; sub: string; sid: string; cookie: string }> {
    const s = await signIn(await newUser(label));
    const res = await handOver(s.token, s.refreshToken);
    expect(res.status).toBe(200);
    return { ...s, cookie: setCookie(res).value };
  }

  /** The cookie is dropped: empty, Max-Age=0, on the sector's path. */
  function expectCleared(res: Res): void {
    const c = setCookie(res);
    expect({ value: c.value, maxAge: c.attributes['max-age'], path: c.attributes.path }).toEqual({ value: '', maxAge: '0', path: path(sector) });
  }

  beforeAll(async () => {
    t = await startTestApp();
    a = await provisionTenant(t);
    sector = await createSector(t, a.adminToken);
    other = await createSector(t, a.adminToken);
  });
  afterAll(() => t.close());

  it('hands the refresh token over into an HttpOnly, SameSite=Strict cookie of the sector’s path (not Secure over http)', async () => {
    const s = await signIn(await newUser('handover'));
    const res = await handOver(s.token, s.refreshToken);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ expiresAt: expect.stringMatching(/^\d+$/) });
    const c = setCookie(res);
    expect(c.value).toBe(s.refreshToken);
    expect(c.attributes).toEqual({ path: path(sector), 'max-age': expect.stringMatching(/^\d+$/), httponly: true, samesite: 'Strict' });
    // The session's idle timeout (7 days by default) bounds the cookie: within a minute of it.
    const maxAge = Number(c.attributes['max-age']);
    expect(maxAge).toBeGreaterThan(7 * 86400 - 60);
    expect(maxAge).toBeLessThanOrEqual(7 * 86400);
    expect(Math.abs(Number(res.body.expiresAt) - (Math.floor(Date.now() / 1000) + maxAge))).toBeLessThan(60);
  });

  it('refuses a refresh token of another session, user or sector, and an unknown one', async () => {
    const mine = await signIn(await newUser('mine'));
    const theirs = await signIn(await newUser('theirs'));
    const elsewhere = await signIn(await newUser('elsewhere', other), other);
    const twiceEmail = await newUser('twice');
    const first = await signIn(twiceEmail);
    const second = await signIn(twiceEmail);
    for (const foreign of [theirs.refreshToken, elsewhere.refreshToken]) {
      const res = await handOver(mine.token, foreign);
      expectError(res, 403, 7, 'REFRESH_TOKEN_MISMATCH');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    // The caller's own token, but the path names another sector.
    expectError(await handOver(mine.token, mine.refreshToken, other), 403, 7, 'REFRESH_TOKEN_MISMATCH');
    // Another session of the same user.
    expect(first.sid).not.toBe(second.sid);
    expectError(await handOver(second.token, first.refreshToken), 403, 7, 'REFRESH_TOKEN_MISMATCH');
    expectError(await handOver(mine.token, 'x'.repeat(64)), 401, 16, 'REFRESH_TOKEN_INVALID');
    // Without a bearer token nothing is handed over.
    expectError(await t.http().post(path(sector)).send({ refreshToken: mine.refreshToken }), 401, 16);
  });

  it('renews the access token with the cookie and the header: a new token, a rotated cookie, no refresh token in the body', async () => {
    const s = await browserSession('refresh');
    const res = await refresh(s.cookie);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ token: expect.stringMatching(JWT), expiresAt: expect.stringMatching(/^\d+$/) });
    expect(claimsOf(res.body.token)).toMatchObject({ sub: s.sub, sid: s.sid, sectorID: sector });
    const c = setCookie(res);
    expect(c.value).not.toBe(s.cookie);
    expect(c.value).toMatch(/^[\w-]{64}$/);
    expect(c.attributes).toMatchObject({ path: path(sector), httponly: true, samesite: 'Strict' });
    expect(c.attributes.secure).toBeUndefined();
    expect((await me(s.sub, res.body.token)).status).toBe(200);

    // The rotated cookie renews again.
    const next = await refresh(c.value);
    expect(next.status).toBe(200);
  });

  it('treats the old cookie presented again as a replay: refused, and the session ended', async () => {
    const s = await browserSession('replay');
    const first = await refresh(s.cookie);
    expect(first.status).toBe(200);
    const rotated = setCookie(first).value;
    const replay = await refresh(s.cookie);
    expectError(replay, 401, 16, 'REFRESH_TOKEN_REUSED');
    expectCleared(replay);
    // The whole session ended: its newest cookie and its access tokens too.
    expectError(await refresh(rotated), 401, 16, 'SESSION_REVOKED');
    expectError(await me(s.sub, first.body.token), 401, 16, 'SESSION_REVOKED');
  });

  it('refuses a refresh without the console’s header, or from a foreign origin (403), and without a cookie (401, cookie cleared)', async () => {
    const s = await browserSession('csrf');
    const bare = await refresh(s.cookie, {});
    expectError(bare, 403, 7, 'CSRF_HEADER_MISSING');
    expect(bare.headers['set-cookie']).toBeUndefined();
    expectError(await refresh(s.cookie, { 'X-Requested-With': 'XMLHttpRequest' }), 403, 7, 'CSRF_HEADER_MISSING');
    expectError(await refresh(s.cookie, { ...CSRF, Origin: 'https://evil.example' }), 403, 7, 'CSRF_ORIGIN_NOT_ALLOWED');
    expectError(await end(s.cookie, {}), 403, 7, 'CSRF_HEADER_MISSING');
    // None of these spent the cookie; PUBLIC_URL's origin is allowed.
    expect((await refresh(s.cookie, { ...CSRF, Origin: new URL(t.config.publicUrl).origin })).status).toBe(200);

    const none = await refresh(undefined);
    expectError(none, 401, 16, 'CREDENTIAL_MISSING');
    expectCleared(none);
    const unknown = await refresh('y'.repeat(64));
    expectError(unknown, 401, 16, 'REFRESH_TOKEN_INVALID');
    expectCleared(unknown);
  });

  it('signs the browser out: DELETE ends the session and clears the cookie; fine without a cookie', async () => {
    const s = await browserSession('signout');
    const res = await end(s.cookie);
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: {} });
    expectCleared(res);
    expectError(await refresh(s.cookie), 401, 16, 'SESSION_REVOKED');
    expectError(await me(s.sub, s.token), 401, 16, 'SESSION_REVOKED');

    const without = await end(undefined);
    expect({ status: without.status, body: without.body }).toEqual({ status: 200, body: {} });
    expectCleared(without);
  });

  it('stops the cookie once an admin revokes the session', async () => {
    const s = await browserSession('revoked');
    const revoked = await t.http().delete(`/api/v1/users/${s.sub}/sessions/${s.sid}`).set(auth(a.adminToken));
    expect(revoked.status).toBe(200);
    const res = await refresh(s.cookie);
    expectError(res, 401, 16, 'SESSION_REVOKED');
    expectCleared(res);
  });
});
