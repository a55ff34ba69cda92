import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { expectWireError, SECTOR_SETTINGS_FIELDS } from './support/contract';
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

describe('role matrix', () => {
  let t: TestApp;
  let T: ProvisionedTenant;
  let U: ProvisionedTenant;
  let platformTenantID: string;
  let S1: string;
  let S2: string;
  let s1UserID: string;
  let s1UserToken: string;
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
  }, 60_000);
  afterAll(() => t?.close(), 60_000);

  /** Sends with the principal's credential (if any). */
  function send(principal: Principal, build: (agent: ReturnType<TestApp['http']>) => request.Test): request.Test {
    const req = build(t.http());
    const token = tokens.get(principal);
    return token === undefined ? req : req.set('Authorization', `Bearer ${token}`);
  }

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
