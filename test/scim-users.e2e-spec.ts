import request from 'supertest';
import { createSector, createUser, expectError, ProvisionedTenant, provisionTenant, tenantSql } from './support/factories';
import { SCIM, SCIM_TIME, SCIM_VERSION } from './support/scim';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';

/**
 * SCIM 2.0 Users (`/scim/v2/{sectorID}/Users`) against the contract: Okta's
 * provisioning sequence, the effect of `active` and DELETE on sign-in and
 * introspection (on this instance and another), filters, paging and projection,
 * isolation between sectors and tenants, and the bounds (admins, If-Match,
 * malformed requests, uniqueness, PUT clearing what it leaves out).
 */

const { USER, ENTERPRISE, PATCH_OP, LIST, ERROR } = SCIM;
const ISO = SCIM_TIME;
const VERSION = SCIM_VERSION;
const SCIM_JSON = /^application\/scim\+json/;
const PASSWORD = 'correct horse battery staple';
const PERMISSION_DENIED = 7;
const UNAUTHENTICATED = 16;

type Json = Record<string, any>;

/** SCIM's error body, whole. */
const scimError = (status: number, scimType?: string) => ({ schemas: [ERROR], status: String(status), ...(scimType ? { scimType } : {}), detail: expect.any(String) });

/** A sector's SCIM client: its API token and requests on its base path. */
interface Client {
  sector: string;
  token: string;
  base: string;
  path: (p: string) => string;
  headers: () => Record<string, string>;
  get: (p: string, query?: Json) => request.Test;
  post: (body: Json) => request.Test;
  put: (id: string, body: Json) => request.Test;
  patch: (id: string, ...operations: Json[]) => request.Test;
  del: (id: string) => request.Test;
  /** The userNames a filter selects, sorted. */
  names: (filter: string) => Promise<string[]>;
}

describe('SCIM 2.0 Users: the contract', () => {
  let t: TestApp;
  let a: ProvisionedTenant;
  let b: ProvisionedTenant;
  /** Tenant A's main SCIM sector. */
  let A: Client;
  /** Another sector of tenant A. */
  let A2: Client;
  /** A sector of tenant B. */
  let B: Client;

  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const signIn = (sector: string, username: string, password = PASSWORD) => t.http().post('/api/v1/login/password').send({ username, password, sectorID: sector });
  const introspect = (app: TestApp, token: string) => app.http().post('/api/v1/introspect').set(bearer(a.adminToken)).send({ token });
  const profile = (sub: string) => t.http().get(`/api/v1/users/${sub}`).set(bearer(a.adminToken));

  async function client(tenant: ProvisionedTenant, sector: string, name: string): Promise<Client> {
    const res = await t.http().post(`/api/v1/sectors/${sector}/tokens`).set(bearer(tenant.adminToken)).send({ name });
    if (res.status !== 200) throw new Error(`creating the API token failed: ${res.status} ${JSON.stringify(res.body)}`);
    const token = res.body.token as string;
    const path = (p: string) => `/scim/v2/${sector}${p}`;
    const headers = () => ({ ...bearer(token), 'Content-Type': 'application/scim+json' });
    const c: Client = {
      sector,
      token,
      base: `${t.config.publicUrl}/scim/v2/${sector}`,
      path,
      headers,
      get: (p, query = {}) => t.http().get(path(p)).query(query).set(headers()),
      post: (body) => t.http().post(path('/Users')).set(headers()).send(body),
      put: (id, body) => t.http().put(path(`/Users/${id}`)).set(headers()).send(body),
      patch: (id, ...operations) => t.http().patch(path(`/Users/${id}`)).set(headers()).send({ schemas: [PATCH_OP], Operations: operations }),
      del: (id) => t.http().delete(path(`/Users/${id}`)).set(headers()),
      async names(filter) {
        const res = await c.get('/Users', { filter, count: 200 });
        if (res.status !== 200) throw new Error(`filter ${filter}: ${res.status} ${JSON.stringify(res.body)}`);
        expect(res.body.totalResults).toBe(res.body.Resources.length);
        return (res.body.Resources as Json[]).map((r) => r.userName as string).sort();
      },
    };
    return c;
  }

  /** Creates a user over SCIM (201 expected) and returns the resource. */
  async function provision(c: Client, body: Json): Promise<Json> {
    const res = await c.post({ schemas: [USER], ...body });
    if (res.status !== 201) throw new Error(`provisioning ${String(body.userName)} failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Json;
  }

  const unique = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}`;

  beforeAll(async () => {
    t = await startTestApp({ env: NO_THROTTLE });
    a = await provisionTenant(t);
    b = await provisionTenant(t);
    A = await client(a, await createSector(t, a.adminToken), 'okta');
    A2 = await client(a, await createSector(t, a.adminToken), 'entra');
    B = await client(b, await createSector(t, b.adminToken), 'other tenant');
  });

  afterAll(async () => {
    await t?.close();
  });

  it('follows Okta’s sequence: look up, create (a password is not stored, nothing is mailed), get, replace, deactivate, reactivate', async () => {
    const userName = `${unique('isaac.brock')}@example.com`;

    // 1. Does the user exist? Okta pages with startIndex and count.
    const lookup = await A.get('/Users', { filter: `userName eq "${userName}"`, startIndex: 1, count: 100 });
    expect(lookup.status).toBe(200);
    expect(lookup.headers['content-type']).toMatch(SCIM_JSON);
    expect(lookup.body).toEqual({ schemas: [LIST], totalResults: 0, itemsPerPage: 0, startIndex: 1, Resources: [] });

    // 2. Create, exactly as Okta sends it.
    const created = await A.post({
      schemas: [USER],
      userName,
      name: { givenName: 'Isaac', familyName: 'Brock' },
      emails: [{ primary: true, value: userName, type: 'work' }],
      displayName: 'Isaac Brock',
      locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h7',
      groups: [],
      password: '1mz050nq',
      active: true,
    });
    expect(created.status).toBe(201);
    expect(created.headers['content-type']).toMatch(SCIM_JSON);
    const id = created.body.id as string;
    const location = `${A.base}/Users/${id}`;
    expect(created.headers.location).toBe(location);
    expect(created.headers.etag).toBe(created.body.meta.version);
    expect(created.body).toEqual({
      schemas: [USER],
      id,
      externalId: '00ujl29u0le5T6Aj10h7',
      userName,
      name: { givenName: 'Isaac', familyName: 'Brock' },
      displayName: 'Isaac Brock',
      locale: 'en-US',
      active: true,
      emails: [{ primary: true, value: userName, type: 'work' }],
      meta: { resourceType: 'User', created: ISO, lastModified: ISO, location, version: VERSION },
    });

    // The password was not stored: it does not sign in, and the user has none.
    expectError(await signIn(A.sector, userName, '1mz050nq'), 401, UNAUTHENTICATED, 'INVALID_CREDENTIALS');
    expect(await tenantSql(t, a.tenantID, 'SELECT password_hash FROM users WHERE id = $1', [id])).toEqual([{ password_hash: null }]);
    // Nothing was mailed (no invitation).
    expect(await tenantSql(t, a.tenantID, 'SELECT id FROM outbox WHERE lower(recipient) = lower($1)', [userName])).toEqual([]);
    // The id is the user's sub.
    expect((await profile(id)).body).toMatchObject({ sub: id, email: userName, givenName: 'Isaac', familyName: 'Brock', name: 'Isaac Brock', locale: 'en-US', disabled: false });

    // 3. Get: the same resource, its version as the ETag.
    const got = await A.get(`/Users/${id}`);
    expect(got.status).toBe(200);
    expect(got.headers['content-type']).toMatch(SCIM_JSON);
    expect(got.headers.etag).toBe(created.body.meta.version);
    expect(got.body).toEqual(created.body);

    // 4. Replace the whole user (Okta sends it back with a change).
    const replaced = await A.put(id, {
      schemas: [USER],
      id,
      userName,
      name: { givenName: 'Another', familyName: 'Brock' },
      emails: [{ primary: true, value: userName, type: 'work' }],
      displayName: 'Isaac Brock',
      locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h7',
      groups: [],
      password: '1mz050nq',
      active: true,
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual({
      ...created.body,
      name: { givenName: 'Another', familyName: 'Brock' },
      meta: { ...created.body.meta, lastModified: ISO, version: VERSION },
    });
    expect(replaced.headers.etag).toBe(replaced.body.meta.version);
    expect(replaced.body.meta.version).not.toBe(created.body.meta.version);
    expect(Date.parse(replaced.body.meta.lastModified)).toBeGreaterThanOrEqual(Date.parse(created.body.meta.lastModified));
    expect((await profile(id)).body.givenName).toBe('Another');

    // 5. Deactivate (path-less replace), as Okta does.
    const deactivated = await A.patch(id, { op: 'replace', value: { active: false } });
    expect(deactivated.status).toBe(200);
    expect(deactivated.body).toEqual({ ...replaced.body, active: false, meta: { ...replaced.body.meta, lastModified: ISO, version: VERSION } });
    expect((await profile(id)).body.disabled).toBe(true);
    expect((await A.get(`/Users/${id}`)).body.active).toBe(false);
    // A change of state is a change of the resource: a new version.
    expect(deactivated.headers.etag).toBe(deactivated.body.meta.version);
    expect(deactivated.body.meta.version).not.toBe(replaced.body.meta.version);

    // 6. Reactivate.
    const reactivated = await A.patch(id, { op: 'replace', value: { active: true } });
    expect(reactivated.status).toBe(200);
    expect(reactivated.body).toEqual({ ...replaced.body, active: true, meta: { ...replaced.body.meta, lastModified: ISO, version: VERSION } });
    expect(reactivated.body.meta.version).not.toBe(deactivated.body.meta.version);
    expect((await profile(id)).body.disabled).toBe(false);
  });

  it('disables and enables sign-in with active, at once on every instance; DELETE ends the user’s tokens', async () => {
    const userName = unique('sigrid');
    const created = await provision(A, { userName, emails: [{ value: `${userName}@example.com`, primary: true }] });
    const id = created.id as string;
    // A password is given through the service's API (SCIM never sets one).
    const set = await t.http().post(`/api/v1/users/${id}/password`).set(bearer(a.adminToken)).send({ newPassword: PASSWORD });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ sub: id });

    const first = await signIn(A.sector, userName);
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('SUCCESS');
    const token = first.body.token as string;
    const refreshToken = first.body.refreshToken as string;
    expect(typeof refreshToken).toBe('string');
    expect((await introspect(t, token)).status).toBe(200);
    expect((await introspect(t, token)).body).toMatchObject({ sub: id });

    const second = await startTestApp({ databaseName: t.databaseName, env: NO_THROTTLE });
    try {
      // The second instance has the token in its cache.
      expect((await introspect(second, token)).body).toMatchObject({ sub: id });

      // Deactivated over SCIM, as Entra ID sends it ("Replace", "False").
      const off = await A.patch(id, { op: 'Replace', path: 'active', value: 'False' });
      expect(off.status).toBe(200);
      expect(off.body.active).toBe(false);
      expectError(await introspect(t, token), 401, UNAUTHENTICATED, 'TOKEN_INVALID');
      expectError(await introspect(second, token), 401, UNAUTHENTICATED, 'TOKEN_INVALID');
      // The user's own calls and the session's refresh token stop too.
      expectError(await t.http().get(`/api/v1/users/${id}`).set(bearer(token)), 401, UNAUTHENTICATED, 'TOKEN_INVALID');
      expectError(await second.http().get(`/api/v1/users/${id}`).set(bearer(token)), 401, UNAUTHENTICATED, 'TOKEN_INVALID');
      expectError(await t.http().post('/api/v1/token/refresh').send({ refreshToken }), 401, UNAUTHENTICATED);
      // Sign-in: a wrong password is refused as ever; the right one as disabled.
      expectError(await signIn(A.sector, userName, 'wrong password entirely'), 401, UNAUTHENTICATED, 'INVALID_CREDENTIALS');
      expectError(await signIn(A.sector, userName), 403, PERMISSION_DENIED, 'USER_DISABLED');

      // Reactivated: sign-in works again (the old token stays ended).
      const on = await A.patch(id, { op: 'Replace', path: 'active', value: 'True' });
      expect(on.status).toBe(200);
      expect(on.body.active).toBe(true);
      const again = await signIn(A.sector, userName);
      expect(again.body.status).toBe('SUCCESS');
      const fresh = again.body.token as string;
      expect((await introspect(second, fresh)).body).toMatchObject({ sub: id });
      expect((await introspect(t, fresh)).body).toMatchObject({ sub: id });
      expectError(await introspect(t, token), 401, UNAUTHENTICATED, 'SESSION_REVOKED');

      // Deleted over SCIM: 204 without a body; the token stops on both instances; the user is gone.
      const deleted = await A.del(id);
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');
      expectError(await introspect(t, fresh), 401, UNAUTHENTICATED, 'TOKEN_INVALID');
      expectError(await introspect(second, fresh), 401, UNAUTHENTICATED, 'TOKEN_INVALID');
      expect((await profile(id)).status).toBe(404);
      const gone = await A.get(`/Users/${id}`);
      expect({ status: gone.status, body: gone.body }).toEqual({ status: 404, body: scimError(404) });
      expect((await A.del(id)).status).toBe(404);
    } finally {
      await second.close();
    }
  });

  describe('filters, paging and projection', () => {
    /** A sector of its own, so that the sets below are exact. */
    let F: Client;
    let users: Record<string, Json>;
    /** The last lastModified of every user but frank, who is created after it. */
    let since: string;
    const N = (short: string) => users[short].userName as string;

    beforeAll(async () => {
      F = await client(a, await createSector(t, a.adminToken), 'filters');
      users = {};
      users.alice = await provision(F, {
        schemas: [USER, ENTERPRISE],
        userName: 'alice.smith@filters.test',
        externalId: 'EXT-Alice',
        name: { givenName: 'Alice', familyName: 'Smith' },
        displayName: 'Alice Smith',
        emails: [
          { value: 'alice@work.example', type: 'work', primary: true },
          { value: 'alice@home.example', type: 'home' },
        ],
        [ENTERPRISE]: { department: 'Sales', employeeNumber: '1001' },
      });
      users.bob = await provision(F, {
        schemas: [USER, ENTERPRISE],
        userName: 'bob.jones@filters.test',
        externalId: 'ext-bob',
        name: { givenName: 'Bob', familyName: 'Jones' },
        displayName: 'Bob Jones',
        // "special" only in his home email: a work-email filter for it must not find him.
        emails: [
          { value: 'bob@work.example', type: 'work', primary: true },
          { value: 'bob.special@home.example', type: 'home' },
        ],
        [ENTERPRISE]: { department: 'Engineering' },
      });
      users.carol = await provision(F, {
        schemas: [USER, ENTERPRISE],
        userName: 'carol@filters.test',
        externalId: 'EXT-carol',
        name: { givenName: 'Carol', familyName: 'Smithers' },
        displayName: 'Carol S',
        emails: [{ value: 'carol.special@work.example', type: 'work', primary: true }],
        active: false,
        [ENTERPRISE]: { department: 'Engineering' },
      });
      users.dave = await provision(F, {
        userName: 'Dave.Brown@filters.test',
        name: { familyName: 'Brown' },
        emails: [{ value: 'dave@home.example', type: 'home', primary: true }],
      });
      users.erin = await provision(F, {
        schemas: [USER, ENTERPRISE],
        userName: 'erin@filters.test',
        externalId: 'ext-erin',
        name: { givenName: 'Erin', familyName: 'Smith' },
        displayName: 'Erin Smith',
        emails: [{ value: 'erin@work.example', type: 'work', primary: true }],
        [ENTERPRISE]: { department: 'Sales' },
      });
      since = (Object.values(users).map((u) => u.meta.lastModified as string).sort() as string[]).at(-1)!;
      await new Promise((resolve) => setTimeout(resolve, 20));
      users.frank = await provision(F, {
        userName: 'frank@other.test',
        externalId: 'EXT-FRANK',
        displayName: 'Frank',
        emails: [{ value: 'frank@work.example', type: 'work', primary: true }],
        active: false,
      });
    });

    const ALL = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank'];
    const but = (...out: string[]) => ALL.filter((u) => !out.includes(u));
    const DEPARTMENT = `${ENTERPRISE}:department`;

    it.each<[string, string[]]>([
      ['userName eq "ALICE.SMITH@filters.test"', ['alice']],
      ['userName eq "dave.brown@FILTERS.TEST"', ['dave']],
      ['UserName EQ "bob.jones@filters.test"', ['bob']],
      ['userName eq "nobody@filters.test"', []],
      ['userName ne "alice.smith@filters.test"', but('alice')],
      ['userName co "SMITH"', ['alice']],
      ['userName sw "b"', ['bob']],
      ['userName ew "@other.test"', ['frank']],
      ['userName pr', ALL],
      ['externalId eq "EXT-Alice"', ['alice']],
      ['externalId eq "ext-alice"', []],
      ['externalId sw "EXT-"', ['alice', 'carol', 'frank']],
      ['externalId pr', but('dave')],
      ['not (externalId pr)', ['dave']],
      ['emails.value eq "BOB.SPECIAL@home.example"', ['bob']],
      ['emails.value co "special"', ['bob', 'carol']],
      ['emails[type eq "work"].value co "special"', ['carol']],
      ['emails[type eq "work" and value co "special"]', ['carol']],
      ['emails[type eq "home"]', ['alice', 'bob', 'dave']],
      ['emails[type eq "work"].value eq "erin@work.example"', ['erin']],
      ['displayName eq "alice smith"', ['alice']],
      ['displayName co "smith"', ['alice', 'erin']],
      ['displayName pr', but('dave')],
      ['active eq false', ['carol', 'frank']],
      ['active eq true', ['alice', 'bob', 'dave', 'erin']],
      ['active ne true', ['carol', 'frank']],
      ['name.familyName eq "smith"', ['alice', 'erin']],
      ['name.familyName sw "Smith"', ['alice', 'carol', 'erin']],
      ['name.givenName pr', but('dave', 'frank')],
      [`${DEPARTMENT} eq "sales"`, ['alice', 'erin']],
      [`${DEPARTMENT} eq "Engineering" and active eq true`, ['bob']],
      ['userName sw "a" or userName sw "b"', ['alice', 'bob']],
      ['name.familyName eq "Smith" and (displayName co "Erin" or active eq false)', ['erin']],
      ['active eq false or displayName sw "Bob" and externalId pr', ['bob', 'carol', 'frank']],
      ['not (active eq true) and emails[type eq "work"].value co "special"', ['carol']],
      ['not (userName sw "a" or userName sw "b")', but('alice', 'bob')],
    ])('filter %s', async (filter, expected) => {
      expect(await F.names(filter)).toEqual(expected.map(N).sort());
    });

    it('filters on meta.lastModified gt a time', async () => {
      const after = (ms: number) => new Date(Date.parse(since) + ms).toISOString();
      expect(await F.names(`meta.lastModified gt "${after(1)}"`)).toEqual([N('frank')]);
      expect(await F.names(`meta.lastModified gt "${after(-60_000)}"`)).toEqual(ALL.map(N).sort());
      expect(await F.names(`meta.lastModified gt "${after(60_000)}"`)).toEqual([]);
      expect(await F.names(`not (meta.lastModified gt "${after(1)}")`)).toEqual(but('frank').map(N).sort());
    });

    it('filters on meta.lastModified gt the lastModified a user shows: not that user', async () => {
      // A directory keeps the lastModified it last saw and asks for what changed since: strictly later only.
      const erin = (await F.get(`/Users/${users.erin.id}`)).body as Json;
      expect(erin.meta.lastModified).toBe(since);
      expect(await F.names(`meta.lastModified gt "${since}"`)).toEqual([N('frank')]);
      expect(await F.names(`meta.lastModified gt "${erin.meta.lastModified as string}" and userName eq "${N('erin')}"`)).toEqual([]);
    });

    it.each(['userName eq', 'foo eq "x"', 'active eq "yes"', 'meta.lastModified gt "not a date"', 'emails[type eq "work"', 'userName eq "a" and', 'userName xx "a"'])(
      'refuses the filter %s: 400 invalidFilter',
      async (filter) => {
        const res = await F.get('/Users', { filter });
        expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: scimError(400, 'invalidFilter') });
      },
    );

    it('pages with startIndex and count: totalResults stays the total, itemsPerPage is the page', async () => {
      const page = async (query: Json) => {
        const res = await F.get('/Users', query);
        expect(res.status).toBe(200);
        return { ...res.body, Resources: (res.body.Resources as Json[]).map((r) => r.userName) };
      };
      expect(await page({ startIndex: 2, count: 2 })).toEqual({ schemas: [LIST], totalResults: 6, itemsPerPage: 2, startIndex: 2, Resources: [N('bob'), N('carol')] });
      expect(await page({ startIndex: 5, count: 10 })).toEqual({ schemas: [LIST], totalResults: 6, itemsPerPage: 2, startIndex: 5, Resources: [N('erin'), N('frank')] });
      expect(await page({ startIndex: 7, count: 10 })).toEqual({ schemas: [LIST], totalResults: 6, itemsPerPage: 0, startIndex: 7, Resources: [] });
      expect(await page({ count: 0 })).toEqual({ schemas: [LIST], totalResults: 6, itemsPerPage: 0, startIndex: 1, Resources: [] });
      expect(await page({})).toEqual({ schemas: [LIST], totalResults: 6, itemsPerPage: 6, startIndex: 1, Resources: ALL.map(N) });
      // With a filter: the total is the filter's.
      expect(await page({ filter: 'active eq true', startIndex: 2, count: 1 })).toEqual({ schemas: [LIST], totalResults: 4, itemsPerPage: 1, startIndex: 2, Resources: [N('bob')] });
      // startIndex below 1 is 1 (RFC 7644 §3.4.2.4).
      expect(await page({ startIndex: 0, count: 1 })).toEqual({ schemas: [LIST], totalResults: 6, itemsPerPage: 1, startIndex: 1, Resources: [N('alice')] });
      // A list's resources are the resources a GET answers.
      const listed = await F.get('/Users', { filter: `userName eq "${N('alice')}"` });
      expect(listed.body.Resources).toEqual([(await F.get(`/Users/${users.alice.id}`)).body]);
    });

    it('answers at most 200 resources a page, whatever count asks', async () => {
      const sector = await createSector(t, a.adminToken);
      const P = await client(a, sector, 'many');
      // 201 users seeded in one statement: the paging is what is tried here, not 201 creations.
      await tenantSql(
        t,
        a.tenantID,
        `INSERT INTO users (id, sector_id, username, email) SELECT gen_random_uuid(), $1, 'many-' || lpad(i::text, 3, '0') || '@example.com', 'many-' || lpad(i::text, 3, '0') || '@example.com' FROM generate_series(0, 200) i`,
        [sector],
      );
      for (const query of [{ count: 1000 }, { count: 201 }, { count: 300, startIndex: 1 }]) {
        const res = await P.get('/Users', query);
        expect(res.status).toBe(200);
        expect({ ...res.body, Resources: res.body.Resources.length }).toEqual({ schemas: [LIST], totalResults: 201, itemsPerPage: 200, startIndex: 1, Resources: 200 });
      }
      const last = await P.get('/Users', { count: 1000, startIndex: 2 });
      expect({ ...last.body, Resources: last.body.Resources.length }).toEqual({ schemas: [LIST], totalResults: 201, itemsPerPage: 200, startIndex: 2, Resources: 200 });
      const ServiceProviderConfig = await P.get('/ServiceProviderConfig');
      expect(ServiceProviderConfig.body.filter).toEqual({ supported: true, maxResults: 200 });
    });

    it('honours attributes and excludedAttributes, on lists and on one user', async () => {
      const alice = users.alice;
      const onlyNameAndEmails = { schemas: alice.schemas, id: alice.id, userName: alice.userName, emails: alice.emails };
      const listed = await F.get('/Users', { filter: `userName eq "${N('alice')}"`, attributes: 'userName,emails' });
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual({ schemas: [LIST], totalResults: 1, itemsPerPage: 1, startIndex: 1, Resources: [onlyNameAndEmails] });
      expect((await F.get(`/Users/${alice.id}`, { attributes: 'userName,emails' })).body).toEqual(onlyNameAndEmails);
      // Every resource of a list, projected.
      const all = await F.get('/Users', { attributes: 'userName,emails' });
      for (const r of all.body.Resources as Json[]) expect(Object.keys(r).sort()).toEqual(['emails', 'id', 'schemas', 'userName']);
      // Sub-attributes, and an extension's attribute.
      expect((await F.get(`/Users/${alice.id}`, { attributes: `name.givenName,${DEPARTMENT}` })).body).toEqual({
        schemas: alice.schemas,
        id: alice.id,
        name: { givenName: 'Alice' },
        [ENTERPRISE]: { department: 'Sales' },
      });

      const current = (await F.get(`/Users/${alice.id}`)).body as Json;
      const { emails: _emails, meta: _meta, ...withoutEmailsAndMeta } = current;
      expect((await F.get(`/Users/${alice.id}`, { excludedAttributes: 'emails,meta' })).body).toEqual(withoutEmailsAndMeta);
      const excluded = await F.get('/Users', { filter: `userName eq "${N('alice')}"`, excludedAttributes: 'emails,meta' });
      expect(excluded.body).toEqual({ schemas: [LIST], totalResults: 1, itemsPerPage: 1, startIndex: 1, Resources: [withoutEmailsAndMeta] });
      // id and schemas are always returned.
      expect((await F.get(`/Users/${alice.id}`, { excludedAttributes: 'id,schemas,userName' })).body).toEqual(
        Object.fromEntries(Object.entries(current).filter(([k]) => k !== 'userName')),
      );
    });
  });

  describe('isolation', () => {
    it('answers 401 in SCIM’s body to another sector’s API token, 404 to another tenant’s (this sector is none of theirs)', async () => {
      const mine = await provision(A, { userName: unique('iso') });
      for (const [other, status] of [
        [A2, 401],
        [B, 404],
      ] as const) {
        for (const req of [
          t.http().get(A.path('/Users')),
          t.http().get(A.path(`/Users/${mine.id}`)),
          t.http().post(A.path('/Users')).send({ schemas: [USER], userName: unique('intruder') }),
          t.http().put(A.path(`/Users/${mine.id}`)).send({ schemas: [USER], userName: unique('intruder') }),
          t.http().patch(A.path(`/Users/${mine.id}`)).send({ schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] }),
          t.http().delete(A.path(`/Users/${mine.id}`)),
          t.http().get(A.path('/ServiceProviderConfig')),
        ]) {
          const res = await req.set(bearer(other.token)).set('Content-Type', 'application/scim+json');
          expect({ status: res.status, body: res.body }).toEqual({ status, body: scimError(status) });
        }
      }
      // Nor any other credential: a user's token (the tenant admin's), another scheme, a made-up token.
      for (const authorization of [`Bearer ${a.adminToken}`, `Basic ${Buffer.from(`x:${A.token}`).toString('base64')}`, A.token, 'Bearer iam_nonsense']) {
        const res = await t.http().get(A.path('/Users')).set('Authorization', authorization);
        expect({ status: res.status, body: res.body }).toEqual({ status: 401, body: scimError(401) });
      }
      // To another tenant's token, this sector answers as one that does not exist.
      const none = await t.http().get('/scim/v2/00000000-0000-4000-8000-000000000000/Users').set(bearer(B.token));
      const here = await t.http().get(A.path('/Users')).set(bearer(B.token));
      expect({ status: here.status, body: { ...here.body, detail: '' } }).toEqual({ status: none.status, body: { ...none.body, detail: '' } });
      // Nothing changed.
      expect((await A.get(`/Users/${mine.id}`)).body).toEqual(mine);
      expect((await A.get('/Users', { filter: 'userName sw "intruder"' })).body.totalResults).toBe(0);
    });

    it('answers 404 for a user of another sector or tenant, and changes nothing of theirs', async () => {
      const neighbour = await provision(A2, { userName: unique('neighbour'), displayName: 'Neighbour' });
      const stranger = await provision(B, { userName: unique('stranger'), displayName: 'Stranger' });
      for (const other of [neighbour, stranger]) {
        for (const res of [
          await A.get(`/Users/${other.id}`),
          await A.put(other.id, { schemas: [USER], userName: other.userName, displayName: 'Taken over' }),
          await A.patch(other.id, { op: 'replace', value: { active: false } }),
          await A.del(other.id),
        ]) {
          expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: scimError(404) });
        }
        expect((await A.get('/Users', { filter: `userName eq "${other.userName}"` })).body.totalResults).toBe(0);
        expect((await A.get('/Users', { filter: `id eq "${other.id}"` })).body.totalResults).toBe(0);
      }
      expect((await A2.get(`/Users/${neighbour.id}`)).body).toEqual(neighbour);
      expect((await B.get(`/Users/${stranger.id}`)).body).toEqual(stranger);
      // Ids that name no user at all.
      for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
        const res = await A.get(`/Users/${id}`);
        expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: scimError(404) });
      }
    });

    it('answers 404 for another tenant’s sector id with this tenant’s token', async () => {
      const stranger = await provision(B, { userName: unique('far') });
      for (const req of [
        t.http().get(`/scim/v2/${B.sector}/Users`),
        t.http().get(`/scim/v2/${B.sector}/Users/${stranger.id}`),
        t.http().post(`/scim/v2/${B.sector}/Users`).send({ schemas: [USER], userName: unique('intruder') }),
        t.http().delete(`/scim/v2/${B.sector}/Users/${stranger.id}`),
      ]) {
        const res = await req.set(bearer(A.token)).set('Content-Type', 'application/scim+json');
        expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: scimError(404) });
      }
      expect((await B.get(`/Users/${stranger.id}`)).body).toEqual(stranger);
      // And a sector id that does not exist anywhere.
      const none = await t.http().get('/scim/v2/00000000-0000-4000-8000-000000000000/Users').set(bearer(A.token));
      expect({ status: none.status, body: none.body }).toEqual({ status: 404, body: scimError(404) });
    });
  });

  describe('bounds', () => {
    it('reads an admin of the service but refuses to change them (403)', async () => {
      const username = unique('root');
      const sub = await createUser(t, a.adminToken, A.sector, { username, email: `${username}@example.com`, password: PASSWORD, isAdmin: true });
      const got = await A.get(`/Users/${sub}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual({
        schemas: [USER],
        id: sub,
        userName: username,
        active: true,
        emails: [{ value: `${username}@example.com`, primary: true }],
        meta: { resourceType: 'User', created: ISO, lastModified: ISO, location: `${A.base}/Users/${sub}`, version: VERSION },
      });
      for (const res of [
        await A.put(sub, { schemas: [USER], userName: username, displayName: 'Provisioned', active: false }),
        await A.patch(sub, { op: 'replace', value: { active: false } }),
        await A.patch(sub, { op: 'replace', path: 'displayName', value: 'Provisioned' }),
        await A.del(sub),
      ]) {
        expect({ status: res.status, body: res.body }).toEqual({ status: 403, body: scimError(403) });
      }
      expect((await A.get(`/Users/${sub}`)).body).toEqual(got.body);
      expect((await signIn(A.sector, username)).body.status).toBe('SUCCESS');
    });

    it('refuses a write with a stale If-Match version (412) and accepts the current one', async () => {
      const user = await provision(A, { userName: unique('etag'), displayName: 'Version one' });
      const stale = await A.put(user.id, { schemas: [USER], userName: user.userName, displayName: 'Version two' }).set('If-Match', 'W/"stale"');
      expect({ status: stale.status, body: stale.body }).toEqual({ status: 412, body: scimError(412) });
      expect((await A.get(`/Users/${user.id}`)).body).toEqual(user);

      await new Promise((resolve) => setTimeout(resolve, 5));
      const current = await A.put(user.id, { schemas: [USER], userName: user.userName, displayName: 'Version two' }).set('If-Match', user.meta.version);
      expect(current.status).toBe(200);
      expect(current.body.displayName).toBe('Version two');
      expect(current.body.meta.version).not.toBe(user.meta.version);
      // The first version is stale now: PATCH and DELETE with it are 412 too, and change nothing.
      for (const res of [
        await A.patch(user.id, { op: 'replace', path: 'displayName', value: 'Version three' }).set('If-Match', user.meta.version),
        await A.del(user.id).set('If-Match', user.meta.version),
      ]) {
        expect({ status: res.status, body: res.body }).toEqual({ status: 412, body: scimError(412) });
      }
      expect((await A.get(`/Users/${user.id}`)).body).toEqual(current.body);
      // "*" matches any version.
      expect((await A.patch(user.id, { op: 'replace', path: 'displayName', value: 'Version three' }).set('If-Match', '*')).status).toBe(200);
    });

    it('refuses malformed requests with SCIM’s error and the right scimType', async () => {
      const user = await provision(A, { userName: unique('bad') });
      const cases: Array<[request.Test, number, string]> = [
        [A.patch(user.id, { op: 'move', path: 'displayName', value: 'x' }), 400, 'invalidSyntax'],
        [A.patch(user.id, { op: 'remove' }), 400, 'noTarget'],
        [t.http().patch(A.path(`/Users/${user.id}`)).set(A.headers()).send({ Operations: [{ op: 'replace', path: 'displayName', value: 'x' }] }), 400, 'invalidSyntax'],
        [A.patch(user.id, { op: 'replace', path: 'emails[type eq', value: 'x' }), 400, 'invalidPath'],
        [A.patch(user.id, { op: 'replace', path: 'active', value: 'maybe' }), 400, 'invalidValue'],
        [A.post({ schemas: [USER], displayName: 'No userName' }), 400, 'invalidValue'],
        [A.post({ schemas: [USER], userName: '' }), 400, 'invalidValue'],
        [A.post({ userName: unique('noschemas') }), 400, 'invalidSyntax'],
        [A.post({ schemas: [USER], userName: unique('bademail'), emails: [{ value: 'not an email', primary: true }] }), 400, 'invalidValue'],
        [A.put(user.id, { schemas: [USER], displayName: 'No userName' }), 400, 'invalidValue'],
        [A.get('/Users', { count: 'many' }), 400, 'invalidValue'],
      ];
      for (const [req, status, scimType] of cases) {
        const res = await req;
        expect({ status: res.status, body: res.body }).toEqual({ status, body: scimError(status, scimType) });
      }
      expect((await A.get(`/Users/${user.id}`)).body).toEqual(user);
    });

    it('answers 409 uniqueness for a userName taken in another case, on POST, PUT and PATCH', async () => {
      const name = unique('Unique.Person');
      const first = await provision(A, { userName: `${name}@example.com` });
      const other = await provision(A, { userName: unique('other') });
      for (const res of [
        await A.post({ schemas: [USER], userName: `${name.toUpperCase()}@EXAMPLE.COM` }),
        await A.put(other.id, { schemas: [USER], userName: `${name.toLowerCase()}@example.com` }),
        await A.patch(other.id, { op: 'replace', path: 'userName', value: `${name.toUpperCase()}@example.com` }),
      ]) {
        expect({ status: res.status, body: res.body }).toEqual({ status: 409, body: scimError(409, 'uniqueness') });
      }
      expect((await A.get(`/Users/${other.id}`)).body).toEqual(other);
      expect((await A.get('/Users', { filter: `userName eq "${name}@example.com"` })).body.Resources).toEqual([first]);
      // The same userName in another sector is another user.
      expect((await A2.post({ schemas: [USER], userName: `${name}@example.com` })).status).toBe(201);
    });

    it('stores every attribute of the contract, and PUT clears what it leaves out', async () => {
      const userName = unique('full');
      const full = {
        schemas: [USER, ENTERPRISE],
        userName,
        externalId: 'Ext-Full-1',
        name: { givenName: 'Barbara', familyName: 'Jensen', middleName: 'Jane', formatted: 'Ms. Barbara J Jensen' },
        displayName: 'Babs Jensen',
        nickName: 'Babs',
        // The primary email is the user's email, wherever it is in the list.
        emails: [
          { value: `${userName}@home.example`, type: 'home' },
          { value: `${userName}@work.example`, type: 'work', primary: true },
        ],
        phoneNumbers: [{ value: '+14155550100', type: 'work', primary: true }],
        locale: 'en-US',
        timezone: 'America/Los_Angeles',
        active: true,
        [ENTERPRISE]: { employeeNumber: '701984', department: 'Tour Operations', manager: { value: '26118915-6090-4610-87e4-49d8ca9f808d' } },
      };
      // groups is read-only: what is sent is ignored.
      const created = await provision(A, { ...full, groups: [{ value: 'c0ffee00-0000-4000-8000-000000000000', display: 'Admins' }] });
      const id = created.id as string;
      const meta = { resourceType: 'User', created: ISO, lastModified: ISO, location: `${A.base}/Users/${id}`, version: VERSION };
      expect(created).toEqual({ ...full, id, meta });
      expect((await profile(id)).body).toMatchObject({
        sub: id,
        name: 'Babs Jensen',
        givenName: 'Barbara',
        familyName: 'Jensen',
        middleName: 'Jane',
        nickname: 'Babs',
        email: `${userName}@work.example`,
        emailVerified: false,
        phoneNumber: '+14155550100',
        phoneNumberVerified: false,
        locale: 'en-US',
        zoneinfo: 'America/Los_Angeles',
      });

      const cleared = await A.put(id, { schemas: [USER], userName });
      expect(cleared.status).toBe(200);
      expect(cleared.body).toEqual({ schemas: [USER], id, userName, active: true, meta });
      expect((await A.get(`/Users/${id}`)).body).toEqual(cleared.body);
      expect((await profile(id)).body).toMatchObject({ sub: id, name: '', givenName: '', familyName: '', middleName: '', nickname: '', email: '', phoneNumber: '', locale: '', zoneinfo: '' });
    });

    it('leaves an email changed over SCIM unverified', async () => {
      const username = unique('verified');
      const sub = await createUser(t, a.adminToken, A.sector, { username, email: `${username}@example.com`, password: PASSWORD, profile: { emailVerified: true } });
      expect((await profile(sub)).body).toMatchObject({ email: `${username}@example.com`, emailVerified: true });
      // A change that leaves the email alone keeps it verified.
      expect((await A.patch(sub, { op: 'replace', path: 'displayName', value: 'Vera' })).status).toBe(200);
      expect((await profile(sub)).body).toMatchObject({ email: `${username}@example.com`, emailVerified: true, name: 'Vera' });
      // A new email is not.
      const changed = await A.patch(sub, { op: 'Replace', path: 'emails', value: [{ value: `${username}@elsewhere.example`, type: 'work', primary: true }] });
      expect(changed.status).toBe(200);
      expect(changed.body.emails).toEqual([{ value: `${username}@elsewhere.example`, type: 'work', primary: true }]);
      expect((await profile(sub)).body).toMatchObject({ email: `${username}@elsewhere.example`, emailVerified: false });
    });
  });

  it('patches in the forms directories send: paths, filtered paths, path-less values, add, replace, remove', async () => {
    const userName = unique('patchy');
    const user = await provision(A, {
      schemas: [USER, ENTERPRISE],
      userName,
      name: { givenName: 'Pat', middleName: 'Q', familyName: 'Chee' },
      displayName: 'Pat Chee',
      emails: [
        { value: `${userName}@work.example`, type: 'work', primary: true },
        { value: `${userName}@home.example`, type: 'home' },
      ],
      [ENTERPRISE]: { department: 'Sales', employeeNumber: '7' },
    });
    const res = await A.patch(
      user.id,
      { op: 'Remove', path: 'name.middleName' },
      { op: 'remove', path: 'emails[type eq "home"]' },
      { op: 'Add', path: 'phoneNumbers', value: [{ value: '+14155550100', type: 'mobile', primary: true }] },
      { op: 'Add', path: 'phoneNumbers', value: [{ value: '+14155550100', type: 'mobile', primary: true }] },
      { op: 'Replace', path: `${ENTERPRISE}:manager`, value: 'the-boss' },
      { op: 'Add', value: { nickName: 'P', [`${ENTERPRISE}:department`]: 'Marketing', 'name.familyName': 'Chee-Smith' } },
      { op: 'replace', path: 'externalId', value: 'ext-patchy' },
      { op: 'remove', path: `${ENTERPRISE}:employeeNumber` },
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      schemas: [USER, ENTERPRISE],
      id: user.id,
      externalId: 'ext-patchy',
      userName,
      name: { givenName: 'Pat', familyName: 'Chee-Smith' },
      displayName: 'Pat Chee',
      nickName: 'P',
      active: true,
      emails: [{ value: `${userName}@work.example`, type: 'work', primary: true }],
      phoneNumbers: [{ value: '+14155550100', type: 'mobile', primary: true }],
      [ENTERPRISE]: { department: 'Marketing', manager: { value: 'the-boss' } },
      meta: { ...user.meta, lastModified: ISO, version: VERSION },
    });
    expect((await A.get(`/Users/${user.id}`)).body).toEqual(res.body);
    expect((await profile(user.id)).body).toMatchObject({ middleName: '', familyName: 'Chee-Smith', nickname: 'P', phoneNumber: '+14155550100', phoneNumberVerified: false });
    // A PATCH is validated like a PUT: what a PUT could not store, a PATCH cannot either (and nothing is applied).
    const bad = await A.patch(user.id, { op: 'replace', path: 'displayName', value: 'Fine' }, { op: 'replace', path: 'emails', value: [{ value: 'not an email' }] });
    expect({ status: bad.status, body: bad.body }).toEqual({ status: 400, body: scimError(400, 'invalidValue') });
    expect((await A.get(`/Users/${user.id}`)).body).toEqual(res.body);
  });

  it('answers errors as application/scim+json too (400, 401, 403, 404, 409, 412)', async () => {
    const user = await provision(A, { userName: unique('errors') });
    const username = unique('admin');
    const admin = await createUser(t, a.adminToken, A.sector, { username, email: `${username}@example.com`, password: PASSWORD, isAdmin: true });
    const cases: Array<[request.Test, number]> = [
      [A.get('/Users', { filter: 'userName eq' }), 400],
      [A.post({ schemas: [USER] }), 400],
      [t.http().get(A.path('/Users')).set(bearer(A2.token)), 401],
      [t.http().get(A.path('/Users')), 401],
      [A.patch(admin, { op: 'replace', path: 'displayName', value: 'x' }), 403],
      [A.get('/Users/00000000-0000-4000-8000-000000000000'), 404],
      [A.post({ schemas: [USER], userName: user.userName }), 409],
      [A.put(user.id, { schemas: [USER], userName: user.userName }).set('If-Match', 'W/"stale"'), 412],
    ];
    const answers = [];
    for (const [req, status] of cases) {
      const res = await req;
      expect(res.status).toBe(status);
      answers.push({ status: res.status, contentType: res.headers['content-type'], schemas: res.body.schemas });
    }
    expect(answers).toEqual(cases.map(([, status]) => ({ status, contentType: expect.stringMatching(SCIM_JSON), schemas: [ERROR] })));
  });

  it('accepts application/json on POST and PATCH, answering application/scim+json', async () => {
    const userName = unique('plainjson');
    const created = await t
      .http()
      .post(A.path('/Users'))
      .set(bearer(A.token))
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ schemas: [USER], userName, displayName: 'Plain JSON' }));
    expect(created.status).toBe(201);
    expect(created.headers['content-type']).toMatch(SCIM_JSON);
    expect(created.headers.location).toBe(`${A.base}/Users/${created.body.id}`);
    expect(created.body).toEqual({
      schemas: [USER],
      id: created.body.id,
      userName,
      displayName: 'Plain JSON',
      active: true,
      meta: { resourceType: 'User', created: ISO, lastModified: ISO, location: `${A.base}/Users/${created.body.id}`, version: VERSION },
    });
    const patched = await t
      .http()
      .patch(A.path(`/Users/${created.body.id}`))
      .set(bearer(A.token))
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'displayName', value: 'Still JSON' }] }));
    expect(patched.status).toBe(200);
    expect(patched.body.displayName).toBe('Still JSON');
    // And application/scim+json with a charset.
    const charset = await t
      .http()
      .post(A.path('/Users'))
      .set(bearer(A.token))
      .set('Content-Type', 'application/scim+json; charset=utf-8')
      .send(JSON.stringify({ schemas: [USER], userName: unique('charset') }));
    expect(charset.status).toBe(201);
  });
});
