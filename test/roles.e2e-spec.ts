import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { expectWireError, SECTOR_SETTINGS_FIELDS, UNIX } from './support/contract';
import { createSector, ProvisionedTenant, provisionTenant, seedUser, tenantSql, uniqueSlug } from './support/factories';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestApp, TestApp } from './support/test-app';

/**
 * The role matrix (docs/api.md, Roles):
 * every operation built so far, tried by every kind of principal, each cell its
 * own test. Allowed cells assert the whole success body; forbidden cells the whole
 * error body (status, code, reason).
 */

type Res = { status: number; body: any; headers: Record<string, string> };

type Principal =
  | 'platform admin'
  | "T's default-sector admin"
  | 'S1 admin'
  | 'S1 non-admin user'
  | 'S2 admin'
  | "U's default-sector admin"
  | 'demoted T admin'
  | 'deleted T admin'
  | 'no credential'
  | 'malformed credential';

const PRINCIPALS: Principal[] = [
  'platform admin',
  "T's default-sector admin",
  'S1 admin',
  'S1 non-admin user',
  'S2 admin',
  "U's default-sector admin",
  'demoted T admin',
  'deleted T admin',
  'no credential',
  'malformed credential',
];

type Expected = 200 | { status: number; code: number; reason: string };

const OK = 200 as const;
const DENIED = { status: 403, code: 7, reason: 'ROLE_REQUIRED' };
const NO_SECTOR = { status: 404, code: 5, reason: 'SECTOR_NOT_FOUND' };
const NO_USER = { status: 404, code: 5, reason: 'USER_NOT_FOUND' };
const MISMATCH = { status: 403, code: 7, reason: 'TENANT_MISMATCH' };
const TOKEN_INVALID = { status: 401, code: 16, reason: 'TOKEN_INVALID' };
const MISSING = { status: 401, code: 16, reason: 'CREDENTIAL_MISSING' };

/** What every principal gets that is not about roles: gone users and bad or absent credentials. */
const UNAUTHENTICATED: Record<'deleted T admin' | 'no credential' | 'malformed credential', Expected> = {
  'deleted T admin': TOKEN_INVALID,
  'no credential': MISSING,
  'malformed credential': TOKEN_INVALID,
};

/** The SectorSettings response: the settings fields and sectorID, sorted. */
const SETTINGS_FIELDS = ['sectorID', ...SECTOR_SETTINGS_FIELDS].sort();

/** The role of S1 the role rows read and assign (made by T's default-sector admin), and what holding it answers. */
const MATRIX_ROLE = { name: 'matrix.viewer', description: 'Reads the matrix', permissions: ['matrix:read', 'matrix:list'] };
const MATRIX_GRANTS = { roles: ['matrix.viewer'], permissions: ['matrix:list', 'matrix:read'] };
const NO_GRANTS = { roles: [], permissions: [] };

/** A role name (^[a-z][a-z0-9_.:-]{0,62}$) of a principal, so each principal's write is its own and repeatable. */
const roleNameOf = (prefix: string, who: string) => `${prefix}-${who.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}`;

describe('role matrix', () => {
  let t: TestApp;
  let T: ProvisionedTenant;
  let U: ProvisionedTenant;
  let platformTenantID: string;
  let S1: string;
  let S2: string;
  let s1UserID: string;
  let s1UserToken: string;
  let s1AdminID: string;
  /** MATRIX_ROLE as its PUT answered it. */
  let matrixRole: Record<string, unknown>;
  let demotedBefore: Res;
  const tokens = new Map<Principal, string | undefined>();
  const tenantOf = new Map<Principal, string>();

  async function seededToken(tenantID: string, sectorID: string, email: string, isAdmin: boolean): Promise<{ id: string; token: string }> {
    const password = `${email}-password`;
    const id = await seedUser(t, tenantID, sectorID, { email, password, isAdmin });
    return { id, token: await t.login(email, password, sectorID) };
  }

  beforeAll(async () => {
    t = await startTestApp();
    [{ id: platformTenantID }] = await t.sql<{ id: string }>('SELECT id FROM tenants WHERE is_platform');
    T = await provisionTenant(t);
    U = await provisionTenant(t);
    S1 = await createSector(t, T.adminToken, uniqueSlug('s1'));
    S2 = await createSector(t, T.adminToken, uniqueSlug('s2'));

    const s1Admin = await seededToken(T.tenantID, S1, 's1-admin@t.test', true);
    const s1User = await seededToken(T.tenantID, S1, 's1-user@t.test', false);
    const s2Admin = await seededToken(T.tenantID, S2, 's2-admin@t.test', true);
    s1UserID = s1User.id;
    s1UserToken = s1User.token;
    s1AdminID = s1Admin.id;

    // A default-sector admin who signs in, uses the token once, and is then demoted.
    const demoted = await seededToken(T.tenantID, T.rootSectorID, 'demoted@t.test', true);
    demotedBefore = await t.http().get('/api/v1/sectors').set('Authorization', `Bearer ${demoted.token}`);
    await tenantSql(t, T.tenantID, 'UPDATE users SET is_admin = false WHERE id = $1', [demoted.id]);

    // A default-sector admin whose row is deleted after signing in.
    const deleted = await seededToken(T.tenantID, T.rootSectorID, 'deleted@t.test', true);
    await tenantSql(t, T.tenantID, 'DELETE FROM users WHERE id = $1', [deleted.id]);

    tokens.set('platform admin', await t.platformToken());
    tokens.set("T's default-sector admin", T.adminToken);
    tokens.set('S1 admin', s1Admin.token);
    tokens.set('S1 non-admin user', s1User.token);
    tokens.set('S2 admin', s2Admin.token);
    tokens.set("U's default-sector admin", U.adminToken);
    tokens.set('demoted T admin', demoted.token);
    tokens.set('deleted T admin', deleted.token);
    tokens.set('no credential', undefined);
    tokens.set('malformed credential', 'not-a-token');
    for (const p of PRINCIPALS) tenantOf.set(p, T.tenantID);
    tenantOf.set('platform admin', platformTenantID);
    tenantOf.set("U's default-sector admin", U.tenantID);

    // The role the role rows list and assign, made by T's default-sector admin.
    const made = await asTAdmin((a) => a.put(`/api/v1/sectors/${S1}/roles/${MATRIX_ROLE.name}`)).send({ description: MATRIX_ROLE.description, permissions: MATRIX_ROLE.permissions });
    if (made.status !== 200) throw new Error(`creating ${MATRIX_ROLE.name} failed: ${made.status} ${JSON.stringify(made.body)}`);
    matrixRole = made.body;
  }, 60_000);
  afterAll(() => t?.close(), 60_000);

  /** Sends with the principal's credential (if any). */
  function send(principal: Principal, build: (agent: ReturnType<TestApp['http']>) => request.Test): request.Test {
    return sendWith(tokens.get(principal), build);
  }

  /** Sends with this bearer credential (none when undefined). */
  function sendWith(token: string | undefined, build: (agent: ReturnType<TestApp['http']>) => request.Test): request.Test {
    const req = build(t.http());
    return token === undefined ? req : req.set('Authorization', `Bearer ${token}`);
  }

  /** Sends as T's default-sector admin (set-up and checks around a cell, never the cell itself). */
  const asTAdmin = (build: (agent: ReturnType<TestApp['http']>) => request.Test): request.Test => sendWith(T.adminToken, build);

  async function sectorTenant(sectorID: string): Promise<string | undefined> {
    const rows = await t.sql<{ tenant_id: string }>('SELECT tenant_id FROM sector_directory WHERE sector_id = $1', [sectorID]);
    return rows[0]?.tenant_id;
  }

  interface Operation {
    name: string;
    call: (p: Principal) => Promise<Res>;
    /** Checks the whole body of an allowed call. */
    ok: (res: Res, p: Principal) => Promise<void> | void;
    /** Checks that a refused call changed nothing (optional). */
    unchanged?: (p: Principal) => Promise<void>;
    expected: Record<Principal, Expected>;
  }

  const settingsExpectations = (): Record<Principal, Expected> => ({
    'platform admin': NO_SECTOR,
    "T's default-sector admin": OK,
    'S1 admin': OK,
    'S1 non-admin user': DENIED,
    'S2 admin': DENIED,
    "U's default-sector admin": NO_SECTOR,
    'demoted T admin': DENIED,
    ...UNAUTHENTICATED,
  });

  const settingsOk = (sector: () => string, subject?: (p: Principal) => string) => (res: Res, p: Principal) => {
    expect(Object.keys(res.body).sort()).toEqual(SETTINGS_FIELDS);
    expect(res.body.sectorID).toBe(sector());
    if (subject) expect(res.body.OTPEmailSubject).toBe(subject(p));
  };

  const subjectBy = (p: Principal) => `set by ${p}`;

  const listOk = async (res: Res, p: Principal) => {
    expect(res.body).toEqual({ sectors: expect.any(Array), totalCount: expect.any(Number), totalPages: 1, currentPage: 1 });
    expect(res.body.sectors.length).toBe(res.body.totalCount);
    expect(res.body.sectors.length).toBeGreaterThan(0);
    for (const s of res.body.sectors) expect(await sectorTenant(s.sectorID)).toBe(tenantOf.get(p));
    expect(res.body.sectors.filter((s: { isDefault: boolean }) => s.isDefault)).toHaveLength(1);
  };

  const sectorSlugs = new Map<Principal, string>();
  const tenantSlugs = new Map<Principal, string>();

  /**
   * The role operations, by a bearer credential and the name of who holds it (the
   * matrix's principals, and the API tokens below): the call, the whole-body check
   * of an allowed call, and for writes the check that a refused one changed nothing.
   * Each write is repeatable: a role named after its caller, a role made just
   * before its deletion, a user's roles reset just before they are set.
   */
  interface RoleAttempt {
    call: (token: string | undefined, who: string) => Promise<Res>;
    ok: (res: Res, who: string) => Promise<void> | void;
    unchanged?: (who: string) => Promise<void>;
  }

  /** The names of S1's roles as stored, in the API's order. */
  const storedRoleNames = async () =>
    (await tenantSql(t, T.tenantID, 'SELECT name FROM roles WHERE sector_id = $1 ORDER BY name COLLATE "C"', [S1])).map((r) => r.name as string);
  const listedRoleNames = async () => {
    const res = await asTAdmin((a) => a.get(`/api/v1/sectors/${S1}/roles`));
    expect(res.status).toBe(200);
    return (res.body.roles as Array<{ name: string }>).map((r) => r.name);
  };
  const grantsOf = async (sub: string) => {
    const res = await asTAdmin((a) => a.get(`/api/v1/users/${sub}/roles`));
    expect(res.status).toBe(200);
    return res.body;
  };
  const assign = async (sub: string, roles: string[]) => {
    const res = await asTAdmin((a) => a.put(`/api/v1/users/${sub}/roles`)).send({ roles });
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: roles.length > 0 ? MATRIX_GRANTS : NO_GRANTS });
  };

  const roleDescriptionBy = (who: string) => `made by ${who}`;
  const rolePermissionsBy = (who: string) => ['matrix:write', `by:${roleNameOf('p', who)}`, 'matrix:write'];

  const ROLE_ATTEMPTS = {
    listRoles: {
      call: (token) => sendWith(token, (a) => a.get(`/api/v1/sectors/${S1}/roles`)),
      ok: async (res) => {
        // Every role of S1 as stored, by name; each whole; the matrix's own exactly as made.
        const names = await storedRoleNames();
        expect(res.body).toEqual({
          roles: names.map((name) =>
            name === MATRIX_ROLE.name
              ? matrixRole
              : { name, description: expect.any(String), permissions: expect.any(Array), createdAt: expect.stringMatching(UNIX), updatedAt: expect.stringMatching(UNIX) },
          ),
        });
      },
    },
    putRole: {
      call: (token, who) =>
        sendWith(token, (a) => a.put(`/api/v1/sectors/${S1}/roles/${roleNameOf('by', who)}`)).send({ description: roleDescriptionBy(who), permissions: rolePermissionsBy(who) }),
      ok: async (res, who) => {
        expect(res.body).toEqual({
          name: roleNameOf('by', who),
          description: roleDescriptionBy(who),
          permissions: ['matrix:write', `by:${roleNameOf('p', who)}`],
          createdAt: expect.stringMatching(UNIX),
          updatedAt: expect.stringMatching(UNIX),
        });
        expect(await listedRoleNames()).toContain(roleNameOf('by', who));
      },
      unchanged: async (who) => {
        expect(await listedRoleNames()).not.toContain(roleNameOf('by', who));
      },
    },
    deleteRole: {
      call: async (token, who) => {
        const name = roleNameOf('del', who);
        const made = await asTAdmin((a) => a.put(`/api/v1/sectors/${S1}/roles/${name}`)).send({ permissions: ['doomed'] });
        expect(made.status).toBe(200);
        return sendWith(token, (a) => a.delete(`/api/v1/sectors/${S1}/roles/${name}`));
      },
      ok: async (res, who) => {
        expect(res.body).toEqual({ name: roleNameOf('del', who) });
        expect(await listedRoleNames()).not.toContain(roleNameOf('del', who));
      },
      unchanged: async (who) => {
        expect(await listedRoleNames()).toContain(roleNameOf('del', who));
      },
    },
  } satisfies Record<string, RoleAttempt>;

  /** GET a user's roles: the user holds MATRIX_ROLE (assigned just before), and the answer says so. */
  const readUserRoles = (sub: () => string): RoleAttempt => ({
    call: async (token) => {
      await assign(sub(), [MATRIX_ROLE.name]);
      return sendWith(token, (a) => a.get(`/api/v1/users/${sub()}/roles`));
    },
    ok: (res) => {
      expect(res.body).toEqual(MATRIX_GRANTS);
    },
  });

  /** PUT a user's roles: from none (reset just before) to MATRIX_ROLE; a refusal leaves none. */
  const setUserRoles = (sub: () => string): RoleAttempt => ({
    call: async (token) => {
      await assign(sub(), []);
      return sendWith(token, (a) => a.put(`/api/v1/users/${sub()}/roles`)).send({ roles: [MATRIX_ROLE.name] });
    },
    ok: async (res) => {
      expect(res.body).toEqual(MATRIX_GRANTS);
      expect(await grantsOf(sub())).toEqual(MATRIX_GRANTS);
    },
    unchanged: async () => {
      expect(await grantsOf(sub())).toEqual(NO_GRANTS);
    },
  });

  /** A role attempt as a row of the matrix. */
  const roleOperation = (name: string, attempt: RoleAttempt, expected: Record<Principal, Expected>): Operation => ({
    name,
    call: (p) => attempt.call(tokens.get(p), p),
    ok: (res, p) => attempt.ok(res, p),
    ...(attempt.unchanged ? { unchanged: (p: Principal) => attempt.unchanged!(p) } : {}),
    expected,
  });

  /** Admins (signed-in users) of S1 or of T's default sector; another tenant's sector is not found. */
  const roleAdminExpectations = (): Record<Principal, Expected> => ({
    'platform admin': NO_SECTOR,
    "T's default-sector admin": OK,
    'S1 admin': OK,
    'S1 non-admin user': DENIED,
    'S2 admin': DENIED,
    "U's default-sector admin": NO_SECTOR,
    'demoted T admin': DENIED,
    ...UNAUTHENTICATED,
  });

  /** Admins over the S1 non-admin user's sector; another tenant's user is not found. */
  const userRoleExpectations = (self: Expected): Record<Principal, Expected> => ({
    'platform admin': NO_USER,
    "T's default-sector admin": OK,
    'S1 admin': OK,
    'S1 non-admin user': self,
    'S2 admin': DENIED,
    "U's default-sector admin": NO_USER,
    'demoted T admin': DENIED,
    ...UNAUTHENTICATED,
  });

  const OPERATIONS: Operation[] = [
    {
      name: 'GET /api/v1/sectors/{S1}/settings',
      call: (p) => send(p, (a) => a.get(`/api/v1/sectors/${S1}/settings`)),
      ok: settingsOk(() => S1),
      expected: settingsExpectations(),
    },
    {
      name: 'PUT /api/v1/sectors/{S1}/settings',
      call: (p) => send(p, (a) => a.put(`/api/v1/sectors/${S1}/settings`)).send({ OTPEmailSubject: subjectBy(p) }),
      ok: settingsOk(() => S1, subjectBy),
      unchanged: async (p) => {
        const res = await send("T's default-sector admin", (a) => a.get(`/api/v1/sectors/${S1}/settings`));
        expect(res.body.OTPEmailSubject).not.toBe(subjectBy(p));
      },
      expected: settingsExpectations(),
    },
    {
      name: "GET /api/v1/sectors/{T's default sector}/settings",
      call: (p) => send(p, (a) => a.get(`/api/v1/sectors/${T.rootSectorID}/settings`)),
      ok: settingsOk(() => T.rootSectorID),
      expected: { ...settingsExpectations(), 'S1 admin': DENIED },
    },
    {
      name: "PUT /api/v1/sectors/{T's default sector}/settings",
      call: (p) => send(p, (a) => a.put(`/api/v1/sectors/${T.rootSectorID}/settings`)).send({ OTPEmailSubject: subjectBy(p) }),
      ok: settingsOk(() => T.rootSectorID, subjectBy),
      unchanged: async (p) => {
        const res = await send("T's default-sector admin", (a) => a.get(`/api/v1/sectors/${T.rootSectorID}/settings`));
        expect(res.body.OTPEmailSubject).not.toBe(subjectBy(p));
      },
      expected: { ...settingsExpectations(), 'S1 admin': DENIED },
    },
    {
      name: 'GET /api/v1/sectors',
      call: (p) => send(p, (a) => a.get('/api/v1/sectors?pageSize=100')),
      ok: listOk,
      expected: {
        'platform admin': OK,
        "T's default-sector admin": OK,
        'S1 admin': DENIED,
        'S1 non-admin user': DENIED,
        'S2 admin': DENIED,
        "U's default-sector admin": OK,
        'demoted T admin': DENIED,
        ...UNAUTHENTICATED,
      },
    },
    {
      name: 'POST /api/v1/sectors',
      call: (p) => {
        const slug = uniqueSlug('new');
        sectorSlugs.set(p, slug);
        return send(p, (a) => a.post('/api/v1/sectors')).send({ name: `New ${slug}`, slug, domain: `${slug}.example.com` });
      },
      ok: async (res, p) => {
        const slug = sectorSlugs.get(p)!;
        expect(res.body).toEqual({
          sectorID: expect.any(String),
          name: `New ${slug}`,
          domain: `${slug}.example.com`,
          isDefault: false,
          allowedOrigins: [],
          slug,
        });
        expect(await sectorTenant(res.body.sectorID)).toBe(tenantOf.get(p));
      },
      unchanged: async (p) => {
        expect(await t.sql('SELECT sector_id FROM sector_directory WHERE slug = $1', [sectorSlugs.get(p)])).toEqual([]);
      },
      expected: {
        'platform admin': OK,
        "T's default-sector admin": OK,
        'S1 admin': DENIED,
        'S1 non-admin user': DENIED,
        'S2 admin': DENIED,
        "U's default-sector admin": OK,
        'demoted T admin': DENIED,
        ...UNAUTHENTICATED,
      },
    },
    {
      name: 'GET /api/v1/tenants/{T}',
      call: (p) => send(p, (a) => a.get(`/api/v1/tenants/${T.tenantID}`)),
      ok: (res) => {
        expect(res.body).toEqual({
          tenant: expect.objectContaining({ tenantID: T.tenantID, slug: T.slug, kid: T.kid, isPlatform: false, rootSectorID: T.rootSectorID }),
          sectors: expect.any(Array),
          reachable: false,
          reachError: '',
        });
      },
      expected: {
        'platform admin': OK,
        "T's default-sector admin": DENIED,
        'S1 admin': DENIED,
        'S1 non-admin user': DENIED,
        'S2 admin': DENIED,
        "U's default-sector admin": DENIED,
        'demoted T admin': DENIED,
        ...UNAUTHENTICATED,
      },
    },
    {
      name: "GET /api/v1/tenants/{caller's own tenant}",
      call: (p) => send(p, (a) => a.get(`/api/v1/tenants/${tenantOf.get(p)}?includeStats=true&ping=true`)),
      ok: (res, p) => {
        expect(res.body).toEqual({
          tenant: expect.objectContaining({ tenantID: tenantOf.get(p), isPlatform: p === 'platform admin' }),
          sectors: expect.any(Array),
          reachable: true,
          reachError: '',
          stats: expect.objectContaining({ userCount: expect.any(Number), adminCount: expect.any(Number) }),
        });
      },
      expected: {
        'platform admin': OK,
        "T's default-sector admin": DENIED,
        'S1 admin': DENIED,
        'S1 non-admin user': DENIED,
        'S2 admin': DENIED,
        "U's default-sector admin": DENIED,
        'demoted T admin': DENIED,
        ...UNAUTHENTICATED,
      },
    },
    {
      name: 'POST /api/v1/tenants',
      call: (p) => {
        const slug = uniqueSlug('ten');
        tenantSlugs.set(p, slug);
        return send(p, (a) => a.post('/api/v1/tenants')).send({ slug, name: `Tenant ${slug}`, adminEmail: `boss@${slug}.test`, adminPassword: 'boss-password' });
      },
      ok: (res, p) => {
        expect(res.body).toEqual({
          tenantID: expect.any(String),
          slug: tenantSlugs.get(p),
          kid: expect.any(String),
          databaseServer: 'main',
          sector: expect.objectContaining({ sectorID: expect.any(String), isDefault: true, slug: 'admin' }),
        });
      },
      unchanged: async (p) => {
        expect(await t.sql('SELECT id FROM tenants WHERE slug = $1', [tenantSlugs.get(p)])).toEqual([]);
      },
      expected: {
        'platform admin': OK,
        "T's default-sector admin": DENIED,
        'S1 admin': DENIED,
        'S1 non-admin user': DENIED,
        'S2 admin': DENIED,
        "U's default-sector admin": DENIED,
        'demoted T admin': DENIED,
        ...UNAUTHENTICATED,
      },
    },
    {
      name: "POST /api/v1/introspect (an S1 user's token of T)",
      call: (p) => send(p, (a) => a.post('/api/v1/introspect')).send({ token: s1UserToken }),
      ok: (res) => {
        expect(res.body).toEqual({
          sub: s1UserID,
          username: 's1-user@t.test',
          sectorID: S1,
          isAdmin: false,
          roles: [],
          permissions: [],
          exp: expect.stringMatching(/^\d+$/),
          iat: expect.stringMatching(/^\d+$/),
          tenantID: T.tenantID,
        });
      },
      expected: {
        'platform admin': MISMATCH,
        "T's default-sector admin": OK,
        'S1 admin': OK,
        'S1 non-admin user': OK,
        'S2 admin': OK,
        "U's default-sector admin": MISMATCH,
        'demoted T admin': OK,
        ...UNAUTHENTICATED,
      },
    },
    // The role rows come after the introspection row: that one answers the S1 user's roles as of now (none), and these assign them.
    roleOperation('GET /api/v1/sectors/{S1}/roles', ROLE_ATTEMPTS.listRoles, roleAdminExpectations()),
    roleOperation('PUT /api/v1/sectors/{S1}/roles/{name}', ROLE_ATTEMPTS.putRole, roleAdminExpectations()),
    roleOperation('DELETE /api/v1/sectors/{S1}/roles/{name}', ROLE_ATTEMPTS.deleteRole, roleAdminExpectations()),
    roleOperation('GET /api/v1/users/{S1 non-admin user}/roles', readUserRoles(() => s1UserID), userRoleExpectations(OK)),
    roleOperation('PUT /api/v1/users/{S1 non-admin user}/roles', setUserRoles(() => s1UserID), userRoleExpectations(DENIED)),
  ];

  const describeExpected = (e: Expected) => (e === OK ? '200' : `${e.status} ${e.reason}`);
  const cells = OPERATIONS.flatMap((op) => PRINCIPALS.map((p) => [op.name, p, describeExpected(op.expected[p]), op, op.expected[p]] as const));

  it('covers every principal for every operation', () => {
    for (const op of OPERATIONS) expect(Object.keys(op.expected).sort()).toEqual([...PRINCIPALS].sort());
  });

  it.each(cells)('%s as %s → %s', async (_name, principal, _label, op, expected) => {
    const res = await op.call(principal);
    if (expected === OK) {
      expect({ status: res.status, body: res.status === 200 ? 'ok' : res.body }).toEqual({ status: 200, body: 'ok' });
      await op.ok(res, principal);
    } else {
      expectWireError(res, expected.status, expected.code, expected.reason);
      if (op.unchanged) await op.unchanged(principal);
    }
  });

  /**
   * The API-token cells of the role operations (the matrix's principals are signed-in
   * users): a sector's API token reads its sector's roles but never defines them,
   * reads and sets the roles of its sector's users who are not admins, reads an
   * admin's roles but never sets them; another sector's token is refused everything.
   */
  describe('API tokens and the role operations', () => {
    type TokenPrincipal = 'S1 API token' | 'S2 API token';
    const apiTokens = new Map<TokenPrincipal, string>();

    beforeAll(async () => {
      for (const [who, sector] of [
        ['S1 API token', S1],
        ['S2 API token', S2],
      ] as const) {
        const res = await asTAdmin((a) => a.post(`/api/v1/sectors/${sector}/tokens`)).send({ name: who });
        if (res.status !== 200 && res.status !== 201) throw new Error(`minting ${who} failed: ${res.status} ${JSON.stringify(res.body)}`);
        apiTokens.set(who, res.body.token);
      }
    });

    const attempts: Array<[string, RoleAttempt]> = [
      ['GET /api/v1/sectors/{S1}/roles', ROLE_ATTEMPTS.listRoles],
      ['PUT /api/v1/sectors/{S1}/roles/{name}', ROLE_ATTEMPTS.putRole],
      ['DELETE /api/v1/sectors/{S1}/roles/{name}', ROLE_ATTEMPTS.deleteRole],
      ['GET /api/v1/users/{S1 non-admin user}/roles', readUserRoles(() => s1UserID)],
      ['PUT /api/v1/users/{S1 non-admin user}/roles', setUserRoles(() => s1UserID)],
      ['GET /api/v1/users/{S1 admin}/roles', readUserRoles(() => s1AdminID)],
      ['PUT /api/v1/users/{S1 admin}/roles', setUserRoles(() => s1AdminID)],
    ];
    const expectedOf: Record<TokenPrincipal, Expected[]> = {
      'S1 API token': [OK, DENIED, DENIED, OK, OK, OK, DENIED],
      'S2 API token': [DENIED, DENIED, DENIED, DENIED, DENIED, DENIED, DENIED],
    };
    const tokenCells = (['S1 API token', 'S2 API token'] as const).flatMap((who) =>
      attempts.map(([name, attempt], i) => [name, who, describeExpected(expectedOf[who][i]), attempt, expectedOf[who][i]] as const),
    );

    it.each(tokenCells)('%s as %s → %s', async (_name, who, _label, attempt, expected) => {
      const res = await attempt.call(apiTokens.get(who), who);
      if (expected === OK) {
        expect({ status: res.status, body: res.status === 200 ? 'ok' : res.body }).toEqual({ status: 200, body: 'ok' });
        await attempt.ok(res, who);
      } else {
        expectWireError(res, expected.status, expected.code, expected.reason);
        if (attempt.unchanged) await attempt.unchanged(who);
      }
    });
  });

  describe('stored state beats token claims', () => {
    it('the demoted admin had default-sector rights before the demotion', () => {
      expect(demotedBefore.status).toBe(200);
      expect(demotedBefore.body.sectors.map((s: { sectorID: string }) => s.sectorID)).toEqual(expect.arrayContaining([T.rootSectorID, S1, S2]));
    });

    it("the demoted admin's token still says isAdmin, but introspection reports the stored flag", async () => {
      const token = tokens.get('demoted T admin')!;
      const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
      expect(claims.isAdmin).toBe(true);
      const res = await send("T's default-sector admin", (a) => a.post('/api/v1/introspect')).send({ token });
      expect(res.status).toBe(200);
      expect(res.body.isAdmin).toBe(false);
    });

    it("the deleted admin's token is TOKEN_INVALID to introspection too", async () => {
      const res = await send("T's default-sector admin", (a) => a.post('/api/v1/introspect')).send({ token: tokens.get('deleted T admin') });
      expectWireError(res, 401, 16, 'TOKEN_INVALID');
    });
  });

  describe('public endpoints need no credential', () => {
    it('GET /healthz', async () => {
      const res = await t.http().get('/healthz');
      expect([res.status, res.body]).toEqual([200, { status: 'ok' }]);
    });

    it('GET /readyz', async () => {
      const res = await t.http().get('/readyz');
      expect([res.status, res.body]).toEqual([200, { status: 'ok' }]);
    });

    it('GET /.well-known/jwks.json', async () => {
      const res = await t.http().get('/.well-known/jwks.json');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ keys: expect.any(Array) });
      expect(res.body.keys.map((k: { kid: string }) => k.kid)).toEqual(expect.arrayContaining([T.kid, U.kid]));
      for (const key of res.body.keys) expect(key).not.toHaveProperty('d');
    });

    it('POST /api/v1/login/password', async () => {
      const res = await t.http().post('/api/v1/login/password').send({ username: ADMIN_EMAIL, password: ADMIN_PASSWORD });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ transactionID: expect.any(String), status: 'SUCCESS', challengeType: '', token: expect.any(String), refreshToken: expect.any(String) });
    });

    it('POST /api/v1/login/password with a wrong password is 401 INVALID_CREDENTIALS, not CREDENTIAL_MISSING', async () => {
      const res = await t.http().post('/api/v1/login/password').send({ username: ADMIN_EMAIL, password: 'wrong-password' });
      expectWireError(res, 401, 16, 'INVALID_CREDENTIALS');
    });
  });

  describe('credentials must travel as Authorization: Bearer', () => {
    it.each([
      ['a token without the Bearer scheme', (tok: string) => tok],
      ['Basic scheme', (tok: string) => `Basic ${tok}`],
      ['an empty Bearer', () => 'Bearer '],
    ])('%s → 401 CREDENTIAL_MISSING', async (_label, header) => {
      const res = await t.http().get('/api/v1/sectors').set('Authorization', header(T.adminToken));
      expectWireError(res, 401, 16, 'CREDENTIAL_MISSING');
    });

    it('a token in the query string is not a credential', async () => {
      const res = await t.http().get(`/api/v1/sectors?access_token=${T.adminToken}`);
      expectWireError(res, 401, 16, 'CREDENTIAL_MISSING');
    });

    it('a tampered token is TOKEN_INVALID', async () => {
      const [h, p, s] = T.adminToken.split('.');
      const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
      const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, sectorID: randomUUID() })).toString('base64url')}.${s}`;
      const res = await t.http().get('/api/v1/sectors').set('Authorization', `Bearer ${forged}`);
      expectWireError(res, 401, 16, 'TOKEN_INVALID');
    });
  });
});
