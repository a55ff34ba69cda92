import { JwtService } from '@nestjs/jwt';
import { randomUUID } from 'node:crypto';
import { KeyService } from '../src/keys/key.service';
import { expectWireError } from './support/contract';
import { createSector, ProvisionedTenant, provisionTenant, seedUser } from './support/factories';
import { adminQuery, startTestApp, TestApp } from './support/test-app';

/**
 * Tenant isolation (docs/api.md, Roles): one tenant's credentials reach nothing of
 * another tenant, whatever path they try, and a tenant's rows live only in its own
 * storage. Run under both tenancy modes.
 */

type Mode = 'pooled' | 'schema';
type Res = { status: number; body: any; headers: Record<string, string> };

const SHARED_EMAIL = 'shared.person@example.com';

interface SeededUser {
  id: string;
  email: string;
  password: string;
  token: string;
}

interface World {
  tenant: ProvisionedTenant;
  subSectorID: string;
  subSlug: string;
  /** Admin of the sub-sector (not of the default sector). */
  subAdmin: SeededUser;
  /** A non-admin of the sub-sector whose email exists in the other tenant too, with another password. */
  shared: SeededUser;
}

/** The error body with its per-request id blanked, to compare two answers. */
function normalized(res: Res) {
  return {
    status: res.status,
    body: {
      ...res.body,
      details: (res.body.details as Array<Record<string, unknown>>).map((d) => ('requestId' in d ? { ...d, requestId: '<id>' } : d)),
    },
  };
}

describe.each<Mode>(['pooled', 'schema'])('tenant isolation (%s mode)', (mode) => {
  let t: TestApp;
  let A: World;
  let B: World;

  async function seeded(tenantID: string, sectorID: string, email: string, password: string, isAdmin: boolean): Promise<SeededUser> {
    const id = await seedUser(t, tenantID, sectorID, { email, password, isAdmin });
    return { id, email, password, token: await t.login(email, password, sectorID) };
  }

  async function world(label: string): Promise<World> {
    const tenant = await provisionTenant(t);
    const subSlug = `${label}-sub`;
    const subSectorID = await createSector(t, tenant.adminToken, subSlug);
    return {
      tenant,
      subSectorID,
      subSlug,
      subAdmin: await seeded(tenant.tenantID, subSectorID, `sub-admin@${label}.test`, `sub-admin-${label}-pw`, true),
      shared: await seeded(tenant.tenantID, subSectorID, SHARED_EMAIL, `shared-${label}-password`, false),
    };
  }

  /** Strings that identify tenant B's data; none may appear in an answer to tenant A. */
  function secretsOf(w: World): string[] {
    return [
      w.tenant.tenantID,
      w.tenant.slug,
      w.tenant.kid,
      w.tenant.rootSectorID,
      w.tenant.adminEmail,
      w.subSectorID,
      w.subSlug,
      w.subAdmin.id,
      w.subAdmin.email,
      w.shared.id,
    ];
  }

  const as = (token: string | undefined) => {
    const auth = (r: ReturnType<ReturnType<TestApp['http']>['get']>) => (token ? r.set('Authorization', `Bearer ${token}`) : r);
    return {
      getSettings: (sectorID: string) => auth(t.http().get(`/api/v1/sectors/${sectorID}/settings`)),
      putSettings: (sectorID: string, body: Record<string, unknown>) => auth(t.http().put(`/api/v1/sectors/${sectorID}/settings`)).send(body),
      listSectors: (query = '') => auth(t.http().get(`/api/v1/sectors${query}`)),
      introspect: (token2: string) => auth(t.http().post('/api/v1/introspect')).send({ token: token2 }),
    };
  };

  const login = (username: string, password: string, sectorID: string) =>
    t.http().post('/api/v1/login/password').send({ username, password, sectorID });

  /** Reads tenant rows straight from a tenant's own storage (its database, or its schema of the main database). */
  async function storageRows(w: World, table: 'users' | 'sectors' | 'sector_settings', column: string): Promise<string[]> {
    const [row] = await t.sql<{ database_name: string | null; schema_name: string | null }>(
      'SELECT database_name, schema_name FROM tenants WHERE id = $1',
      [w.tenant.tenantID],
    );
    const rows =
      mode === 'pooled'
        ? await adminQuery<Record<string, string>>(`SELECT ${column} AS v FROM ${table}`, [], row.database_name!)
        : await t.sql<Record<string, string>>(`SELECT ${column} AS v FROM "${row.schema_name}".${table}`);
    return rows.map((r) => String(r.v)).sort();
  }

  beforeAll(async () => {
    t = await startTestApp({ tenancyMode: mode });
    A = await world('a');
    B = await world('b');
  }, 60_000);
  afterAll(() => t?.close(), 60_000);

  describe("sector settings of another tenant answer exactly like a sector that doesn't exist", () => {
    const targets: Array<[string, () => string]> = [
      ["B's default sector", () => B.tenant.rootSectorID],
      ["B's sub-sector", () => B.subSectorID],
    ];
    const callers: Array<[string, () => string]> = [
      ["A's default-sector admin", () => A.tenant.adminToken],
      ["A's sub-sector admin", () => A.subAdmin.token],
      ["A's non-admin user", () => A.shared.token],
    ];

    describe.each(callers)('%s', (_caller, token) => {
      it.each(targets)('GET settings of %s: 404 SECTOR_NOT_FOUND, same body as a random id', async (_target, sector) => {
        const res = await as(token()).getSettings(sector());
        expectWireError(res, 404, 5, 'SECTOR_NOT_FOUND');
        const random = await as(token()).getSettings(randomUUID());
        expect(normalized(res)).toEqual(normalized(random));
        for (const secret of secretsOf(B)) expect(JSON.stringify(res.body)).not.toContain(secret);
      });

      it.each(targets)('PUT settings of %s: 404 SECTOR_NOT_FOUND, same body as a random id, nothing changed', async (_target, sector) => {
        const res = await as(token()).putSettings(sector(), { MFARequired: true, OTPEmailSubject: 'hijacked', AccessTokenDuration: '31536000' });
        expectWireError(res, 404, 5, 'SECTOR_NOT_FOUND');
        const random = await as(token()).putSettings(randomUUID(), { MFARequired: true, OTPEmailSubject: 'hijacked', AccessTokenDuration: '31536000' });
        expect(normalized(res)).toEqual(normalized(random));

        const own = await as(B.tenant.adminToken).getSettings(sector());
        expect(own.status).toBe(200);
        expect(own.body).toEqual(expect.objectContaining({ sectorID: sector(), MFARequired: false, OTPEmailSubject: '', AccessTokenDuration: '3600' }));
      });
    });
  });

  it("A's admin lists only A's sectors, whatever the filter", async () => {
    const all = await as(A.tenant.adminToken).listSectors();
    expect(all.status).toBe(200);
    expect(all.body).toEqual({
      sectors: expect.any(Array),
      totalCount: 2,
      totalPages: 1,
      currentPage: 1,
    });
    expect(all.body.sectors.map((s: { sectorID: string }) => s.sectorID).sort()).toEqual([A.tenant.rootSectorID, A.subSectorID].sort());

    for (const query of [`?searchTerm=${B.subSlug}`, `?filterDomain=${B.subSlug}.example.com`, '?pageSize=100&searchTerm=sector']) {
      const res = await as(A.tenant.adminToken).listSectors(query);
      expect(res.status).toBe(200);
      for (const secret of secretsOf(B)) expect(JSON.stringify(res.body)).not.toContain(secret);
    }
    const byB = await as(A.tenant.adminToken).listSectors(`?filterDomain=${B.subSlug}.example.com`);
    expect(byB.body).toEqual({ sectors: [], totalCount: 0, totalPages: 0, currentPage: 1 });
  });

  describe('introspection across tenants: 403 TENANT_MISMATCH and no data of the other tenant', () => {
    const cases: Array<[string, () => string, () => string, () => World]> = [
      ["A's admin inspects B's admin token", () => A.tenant.adminToken, () => B.tenant.adminToken, () => B],
      ["A's admin inspects B's user token", () => A.tenant.adminToken, () => B.shared.token, () => B],
      ["A's non-admin inspects B's sub-admin token", () => A.shared.token, () => B.subAdmin.token, () => B],
      ["B's admin inspects A's admin token", () => B.tenant.adminToken, () => A.tenant.adminToken, () => A],
    ];
    it.each(cases)('%s', async (_label, caller, inspected, owner) => {
      const res = await as(caller()).introspect(inspected());
      expectWireError(res, 403, 7, 'TENANT_MISMATCH');
      const text = JSON.stringify(res.body);
      for (const secret of secretsOf(owner())) expect(text).not.toContain(secret);
    });

    it('the same introspection within one tenant works (control)', async () => {
      const res = await as(A.tenant.adminToken).introspect(A.shared.token);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        sub: A.shared.id,
        username: SHARED_EMAIL,
        sectorID: A.subSectorID,
        isAdmin: false,
        roles: [],
        permissions: [],
        exp: expect.stringMatching(/^\d+$/),
        iat: expect.stringMatching(/^\d+$/),
        tenantID: A.tenant.tenantID,
      });
    });
  });

  describe("signing in with another tenant's sector", () => {
    it("B's user with B's password cannot sign in to A's sector where the same email exists: same body as a wrong password", async () => {
      const cross = await login(SHARED_EMAIL, B.shared.password, A.subSectorID);
      expectWireError(cross, 401, 16, 'INVALID_CREDENTIALS');
      expect(cross.headers['www-authenticate']).toBe('Bearer');
      expect(cross.body).not.toHaveProperty('token');
      const wrong = await login(SHARED_EMAIL, 'definitely-wrong-password', A.subSectorID);
      expect(normalized(cross)).toEqual(normalized(wrong));
    });

    it("B's admin cannot sign in to A's default sector: same body as an unknown user", async () => {
      const cross = await login(B.tenant.adminEmail, B.tenant.adminPassword, A.tenant.rootSectorID);
      expectWireError(cross, 401, 16, 'INVALID_CREDENTIALS');
      const unknown = await login('nobody@nowhere.test', 'whatever-password', A.tenant.rootSectorID);
      expect(normalized(cross)).toEqual(normalized(unknown));
    });

    it("B's sub-sector admin cannot sign in to A's sub-sector", async () => {
      const cross = await login(B.subAdmin.email, B.subAdmin.password, A.subSectorID);
      expectWireError(cross, 401, 16, 'INVALID_CREDENTIALS');
    });

    it('one email in both tenants with different passwords: each password opens only its own tenant', async () => {
      const inA = await login(SHARED_EMAIL, A.shared.password, A.subSectorID);
      const inB = await login(SHARED_EMAIL, B.shared.password, B.subSectorID);
      expect([inA.status, inA.body.status, inB.status, inB.body.status]).toEqual([200, 'SUCCESS', 200, 'SUCCESS']);
      expectWireError(await login(SHARED_EMAIL, A.shared.password, B.subSectorID), 401, 16, 'INVALID_CREDENTIALS');
      expectWireError(await login(SHARED_EMAIL, B.shared.password, A.subSectorID), 401, 16, 'INVALID_CREDENTIALS');

      const aInfo = await as(A.tenant.adminToken).introspect(inA.body.token);
      const bInfo = await as(B.tenant.adminToken).introspect(inB.body.token);
      expect(aInfo.body).toEqual(expect.objectContaining({ sub: A.shared.id, sectorID: A.subSectorID, tenantID: A.tenant.tenantID }));
      expect(bInfo.body).toEqual(expect.objectContaining({ sub: B.shared.id, sectorID: B.subSectorID, tenantID: B.tenant.tenantID }));
      expect(A.shared.id).not.toBe(B.shared.id);
    });
  });

  describe('the platform admin has no rights inside a tenant', () => {
    let platform: string;
    beforeAll(async () => {
      platform = await t.platformToken();
    });

    it.each([
      ['GET', "A's default sector", () => A.tenant.rootSectorID],
      ['GET', "A's sub-sector", () => A.subSectorID],
      ['PUT', "A's default sector", () => A.tenant.rootSectorID],
      ['PUT', "A's sub-sector", () => A.subSectorID],
    ] as Array<[string, string, () => string]>)('%s settings of %s: 404 SECTOR_NOT_FOUND', async (method, _label, sector) => {
      const res = method === 'GET' ? await as(platform).getSettings(sector()) : await as(platform).putSettings(sector(), { SelfSignUpAllowed: true });
      expectWireError(res, 404, 5, 'SECTOR_NOT_FOUND');
      const own = await as(A.tenant.adminToken).getSettings(sector());
      expect(own.body.SelfSignUpAllowed).toBe(false);
    });

    it("lists only the platform tenant's sectors", async () => {
      const res = await as(platform).listSectors('?pageSize=100');
      expect(res.status).toBe(200);
      const [{ id }] = await t.sql<{ id: string }>('SELECT id FROM tenants WHERE is_platform');
      const own = await t.sql<{ sector_id: string }>('SELECT sector_id FROM sector_directory WHERE tenant_id = $1', [id]);
      expect(res.body.sectors.map((s: { sectorID: string }) => s.sectorID).sort()).toEqual(own.map((r) => r.sector_id).sort());
      for (const secret of [...secretsOf(A), ...secretsOf(B)]) expect(JSON.stringify(res.body)).not.toContain(secret);
    });

    it("cannot introspect a tenant's tokens: 403 TENANT_MISMATCH", async () => {
      const res = await as(platform).introspect(A.tenant.adminToken);
      expectWireError(res, 403, 7, 'TENANT_MISMATCH');
      for (const secret of secretsOf(A)) expect(JSON.stringify(res.body)).not.toContain(secret);
    });
  });

  describe('forged tokens do not cross tenants', () => {
    async function forge(signer: World, claims: Record<string, unknown>): Promise<string> {
      const privateKey = await t.app.get(KeyService).privateKey(signer.tenant.kid);
      const iat = Math.floor(Date.now() / 1000);
      return new JwtService().signAsync(
        { iat, exp: iat + 600, jti: randomUUID(), iss: 'http://iam.test', isAdmin: true, ...claims },
        { privateKey: privateKey as unknown as string, algorithm: 'ES256', keyid: signer.tenant.kid },
      );
    }

    it("a token signed with A's key that claims tenant B is TOKEN_INVALID", async () => {
      const token = await forge(A, {
        sub: B.shared.id,
        tenantID: B.tenant.tenantID,
        sectorID: B.subSectorID,
        username: SHARED_EMAIL,
      });
      expectWireError(await as(token).listSectors(), 401, 16, 'TOKEN_INVALID');
      expectWireError(await as(token).getSettings(B.subSectorID), 401, 16, 'TOKEN_INVALID');
      expectWireError(await as(B.tenant.adminToken).introspect(token), 401, 16, 'TOKEN_INVALID');
    });

    it("a token of tenant A naming B's user is TOKEN_INVALID", async () => {
      const token = await forge(A, { sub: B.subAdmin.id, tenantID: A.tenant.tenantID, sectorID: B.subSectorID, username: B.subAdmin.email });
      expectWireError(await as(token).getSettings(B.subSectorID), 401, 16, 'TOKEN_INVALID');
      expectWireError(await as(token).getSettings(A.subSectorID), 401, 16, 'TOKEN_INVALID');
      expectWireError(await as(A.tenant.adminToken).introspect(token), 401, 16, 'TOKEN_INVALID');
    });

    it('a correctly forged token is accepted (control: the forging itself is sound)', async () => {
      const token = await forge(A, { sub: A.subAdmin.id, tenantID: A.tenant.tenantID, sectorID: A.subSectorID, username: A.subAdmin.email });
      const res = await as(token).getSettings(A.subSectorID);
      expect(res.status).toBe(200);
      expect(res.body.sectorID).toBe(A.subSectorID);
    });
  });

  describe('physical separation', () => {
    it("A's storage holds A's users and sectors and none of B's", async () => {
      const aUsers = await storageRows(A, 'users', 'id');
      const aUserIds = [A.shared.id, A.subAdmin.id];
      expect(aUsers).toEqual(expect.arrayContaining(aUserIds));
      expect(aUsers).toHaveLength(3); // the first admin, the sub-sector admin and the shared user
      for (const id of [B.shared.id, B.subAdmin.id]) expect(aUsers).not.toContain(id);

      const aEmails = await storageRows(A, 'users', 'email');
      expect(aEmails).not.toContain(B.tenant.adminEmail);
      expect(aEmails).not.toContain(B.subAdmin.email);

      expect(await storageRows(A, 'sectors', 'id')).toEqual([A.tenant.rootSectorID, A.subSectorID].sort());
      expect(await storageRows(A, 'sector_settings', 'sector_id')).toEqual([A.tenant.rootSectorID, A.subSectorID].sort());
      expect(await storageRows(B, 'sectors', 'id')).toEqual([B.tenant.rootSectorID, B.subSectorID].sort());
    });

    it("the platform tenant's tables in the main database hold none of A's or B's users", async () => {
      const main = (await t.sql<{ id: string; email: string }>('SELECT id, email FROM public.users')).map((r) => r.id);
      for (const id of [A.shared.id, A.subAdmin.id, B.shared.id, B.subAdmin.id]) expect(main).not.toContain(id);
      const sectors = (await t.sql<{ id: string }>('SELECT id FROM public.sectors')).map((r) => r.id);
      for (const id of [A.tenant.rootSectorID, A.subSectorID, B.tenant.rootSectorID, B.subSectorID]) expect(sectors).not.toContain(id);
    });

    it("each tenant's storage is its own database or schema", async () => {
      const rows = await t.sql<{ id: string; database_name: string | null; schema_name: string | null }>(
        'SELECT id, database_name, schema_name FROM tenants WHERE id = ANY($1::uuid[])',
        [[A.tenant.tenantID, B.tenant.tenantID]],
      );
      const names = rows.map((r) => (mode === 'pooled' ? r.database_name : r.schema_name));
      expect(new Set(names).size).toBe(2);
      for (const n of names) expect(n).toEqual(expect.any(String));
    });
  });
});
