import { expectWireError, UUID } from './support/contract';
import { provisionTenant, ProvisionedTenant, seedUser, uniqueSlug } from './support/factories';
import { startTestApp, TestApp } from './support/test-app';

type Sector = { sectorID: string; name: string; domain: string; isDefault: boolean; allowedOrigins: string[]; slug: string };
type SectorList = { sectors: Sector[]; totalCount: number; totalPages: number; currentPage: number };

describe('sectors (list, create)', () => {
  let t: TestApp;
  let a: ProvisionedTenant;
  let b: ProvisionedTenant;

  beforeAll(async () => {
    t = await startTestApp();
    [a, b] = await Promise.all([provisionTenant(t), provisionTenant(t)]);
  });
  afterAll(() => t.close());

  const create = (token: string, body: Record<string, unknown>) => t.http().post('/api/v1/sectors').set('Authorization', `Bearer ${token}`).send(body);
  const list = (token: string, query: Record<string, string | number | undefined> = {}) =>
    t.http().get('/api/v1/sectors').query(query).set('Authorization', `Bearer ${token}`);

  /** Creates `n` sectors (a few at a time) and returns their ids in creation order. */
  async function createMany(token: string, n: number, prefix: string): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i += 10) {
      const batch = Array.from({ length: Math.min(10, n - i) }, (_, j) => i + j);
      const created = await Promise.all(
        batch.map(async (k) => {
          const res = await create(token, { name: `${prefix} ${k}`, slug: `${prefix}-${k}`, domain: `${prefix}-${k}.example.com` });
          expect(res.status).toBe(200);
          return res.body.sectorID as string;
        }),
      );
      ids.push(...created);
    }
    return ids;
  }

  /** Every sector of a listing, walking all pages of `pageSize`. */
  async function allPages(token: string, pageSize: number, query: Record<string, string> = {}): Promise<{ pages: SectorList[]; ids: string[] }> {
    const first = await list(token, { ...query, pageSize, page: 1 });
    expect(first.status).toBe(200);
    const pages: SectorList[] = [first.body];
    for (let p = 2; p <= (first.body as SectorList).totalPages; p++) {
      const res = await list(token, { ...query, pageSize, page: p });
      expect(res.status).toBe(200);
      pages.push(res.body);
    }
    return { pages, ids: pages.flatMap((p) => p.sectors.map((s) => s.sectorID)) };
  }

  describe('create', () => {
    it('the default-sector admin creates a sector: 200 and the whole Sector', async () => {
      const slug = uniqueSlug('new');
      const res = await create(a.adminToken, {
        name: 'Customer Portal',
        slug,
        domain: 'portal.example.com',
        allowedOrigins: ['https://portal.example.com', 'http://localhost:5173'],
      });
      expect({ status: res.status, body: res.body }).toEqual({
        status: 200,
        body: {
          sectorID: expect.stringMatching(UUID),
          name: 'Customer Portal',
          domain: 'portal.example.com',
          isDefault: false,
          allowedOrigins: ['https://portal.example.com', 'http://localhost:5173'],
          slug,
        },
      });
      const listed = await list(a.adminToken, { filterDomain: 'portal.example.com' });
      expect(listed.body.sectors).toEqual([res.body]);
      // It has settings of its own right away.
      const settings = await t.http().get(`/api/v1/sectors/${res.body.sectorID}/settings`).set('Authorization', `Bearer ${a.adminToken}`);
      expect({ status: settings.status, sectorID: settings.body.sectorID }).toEqual({ status: 200, sectorID: res.body.sectorID });
    });

    it('domain and allowedOrigins are optional (empty); isDefault in the body is ignored; null is like absent', async () => {
      const slug = uniqueSlug('min');
      const res = await create(a.adminToken, { name: 'Minimal', slug, isDefault: true });
      expect({ status: res.status, body: res.body }).toEqual({
        status: 200,
        body: { sectorID: expect.stringMatching(UUID), name: 'Minimal', domain: '', isDefault: false, allowedOrigins: [], slug },
      });
      const slug2 = uniqueSlug('nul');
      const nulls = await create(a.adminToken, { name: 'Nulls', slug: slug2, domain: null, allowedOrigins: null });
      expect({ status: nulls.status, body: nulls.body }).toEqual({
        status: 200,
        body: { sectorID: expect.stringMatching(UUID), name: 'Nulls', domain: '', isDefault: false, allowedOrigins: [], slug: slug2 },
      });
    });

    it('a duplicate slug in the same tenant is 409 ALREADY_EXISTS / SECTOR_SLUG_TAKEN', async () => {
      const slug = uniqueSlug('dup');
      expect((await create(a.adminToken, { name: 'First', slug })).status).toBe(200);
      expectWireError(await create(a.adminToken, { name: 'Second', slug }), 409, 6, 'SECTOR_SLUG_TAKEN');
      // Concurrent creates of one slug: exactly one wins.
      const race = uniqueSlug('race');
      const results = await Promise.all([1, 2, 3].map((i) => create(a.adminToken, { name: `Race ${i}`, slug: race })));
      expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
      for (const r of results.filter((x) => x.status === 409)) expectWireError(r, 409, 6, 'SECTOR_SLUG_TAKEN');
      const { ids } = await allPages(a.adminToken, 100, { searchTerm: 'Race ' });
      expect(ids).toHaveLength(1);
    });

    it('the same slug in another tenant is fine', async () => {
      const slug = uniqueSlug('shared');
      const inA = await create(a.adminToken, { name: 'Shared A', slug });
      const inB = await create(b.adminToken, { name: 'Shared B', slug });
      expect({ a: inA.status, b: inB.status }).toEqual({ a: 200, b: 200 });
      expect(inA.body.sectorID).not.toBe(inB.body.sectorID);
    });

    it('a bad slug is 400 with a fieldViolation on slug', async () => {
      for (const slug of ['A', 'a', '-ab', 'ab-', 'a'.repeat(64), 'Ab-cd', 'ab_cd', 'ab cd', '', 12]) {
        const res = await create(a.adminToken, { name: 'Bad slug', slug });
        expectWireError(res, 400, 3, 'VALIDATION_FAILED', { fields: ['slug'] });
      }
      // 2 and 63 characters are the bounds.
      expect((await create(a.adminToken, { name: 'Two', slug: uniqueSlug('x').slice(-2) })).status).toBe(200);
      const longest = `${uniqueSlug('l')}-${'a'.repeat(52)}`;
      expect(longest).toHaveLength(63);
      expect((await create(a.adminToken, { name: 'Long', slug: longest })).status).toBe(200);
    });

    it('a missing name or slug is 400 naming them', async () => {
      expectWireError(await create(a.adminToken, {}), 400, 3, 'VALIDATION_FAILED', { fields: ['name', 'slug'] });
      expectWireError(await create(a.adminToken, { slug: uniqueSlug() }), 400, 3, 'VALIDATION_FAILED', { fields: ['name'] });
    });

    it('a bad domain or bad allowedOrigins is 400 naming the field', async () => {
      for (const domain of ['Not A Domain', 'https://x.com', 'x.com/path', 'UPPER.example.com', 42]) {
        expectWireError(await create(a.adminToken, { name: 'Bad domain', slug: uniqueSlug(), domain }), 400, 3, 'VALIDATION_FAILED', { fields: ['domain'] });
      }
      for (const allowedOrigins of [['https://x.com/path'], ['x.com'], ['ftp://x.com'], 'https://x.com', [42]]) {
        expectWireError(await create(a.adminToken, { name: 'Bad origins', slug: uniqueSlug(), allowedOrigins }), 400, 3, 'VALIDATION_FAILED', {
          fields: ['allowedOrigins'],
        });
      }
      expectWireError(
        await create(a.adminToken, { name: 'Both bad', slug: 'B', domain: 'no way', allowedOrigins: ['/x'] }),
        400,
        3,
        'VALIDATION_FAILED',
        { fields: ['slug', 'domain', 'allowedOrigins'] },
      );
    });
  });

  describe('list paging', () => {
    let c: ProvisionedTenant;
    let all: string[];

    beforeAll(async () => {
      c = await provisionTenant(t);
      const created = await createMany(c.adminToken, 24, 'pg');
      all = [c.rootSectorID, ...created];
    });

    it('pageSize 10: right totals on every page, every sector exactly once, the default sector included', async () => {
      const { pages, ids } = await allPages(c.adminToken, 10);
      expect(pages.map((p) => ({ n: p.sectors.length, totalCount: p.totalCount, totalPages: p.totalPages, currentPage: p.currentPage }))).toEqual([
        { n: 10, totalCount: 25, totalPages: 3, currentPage: 1 },
        { n: 10, totalCount: 25, totalPages: 3, currentPage: 2 },
        { n: 5, totalCount: 25, totalPages: 3, currentPage: 3 },
      ]);
      expect(new Set(ids).size).toBe(ids.length);
      expect([...ids].sort()).toEqual([...all].sort());
      const root = pages.flatMap((p) => p.sectors).find((s) => s.sectorID === c.rootSectorID);
      expect(root).toEqual({
        sectorID: c.rootSectorID,
        name: expect.any(String),
        domain: expect.any(String),
        isDefault: true,
        allowedOrigins: expect.any(Array),
        slug: expect.any(String),
      });
      expect(pages.flatMap((p) => p.sectors).filter((s) => s.isDefault)).toHaveLength(1);
    });

    it('a page past the end is an empty list with the right totals', async () => {
      const res = await list(c.adminToken, { pageSize: 10, page: 4 });
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { sectors: [], totalCount: 25, totalPages: 3, currentPage: 4 } });
      const far = await list(c.adminToken, { pageSize: 10, page: 1000 });
      expect(far.body).toEqual({ sectors: [], totalCount: 25, totalPages: 3, currentPage: 1000 });
    });

    it('pageSize unset or below 1 means 20; page below 1 means 1', async () => {
      for (const query of [{}, { pageSize: 0 }, { pageSize: -5 }, { pageSize: 0, page: 0 }, { page: -3 }]) {
        const res = await list(c.adminToken, query);
        expect({ query, status: res.status, n: res.body.sectors.length, totalCount: res.body.totalCount, totalPages: res.body.totalPages, currentPage: res.body.currentPage }).toEqual({
          query,
          status: 200,
          n: 20,
          totalCount: 25,
          totalPages: 2,
          currentPage: 1,
        });
      }
      const second = await list(c.adminToken, { pageSize: 0, page: 2 });
      expect({ n: second.body.sectors.length, currentPage: second.body.currentPage }).toEqual({ n: 5, currentPage: 2 });
    });

    it('a non-integer pageSize or page is 400 naming it', async () => {
      expectWireError(await list(c.adminToken, { pageSize: 'ten' }), 400, 3, 'VALIDATION_FAILED', { fields: ['pageSize'] });
      expectWireError(await list(c.adminToken, { page: '1.5' }), 400, 3, 'VALIDATION_FAILED', { fields: ['page'] });
    });

    it('pageSize above 100 means 100', async () => {
      const d = await provisionTenant(t);
      await createMany(d.adminToken, 104, 'big');
      const res = await list(d.adminToken, { pageSize: 1000 });
      expect({ status: res.status, n: res.body.sectors.length, totalCount: res.body.totalCount, totalPages: res.body.totalPages, currentPage: res.body.currentPage }).toEqual({
        status: 200,
        n: 100,
        totalCount: 105,
        totalPages: 2,
        currentPage: 1,
      });
      const rest = await list(d.adminToken, { pageSize: 1000, page: 2 });
      expect({ n: rest.body.sectors.length, totalPages: rest.body.totalPages, currentPage: rest.body.currentPage }).toEqual({ n: 5, totalPages: 2, currentPage: 2 });
      const ids = [...res.body.sectors, ...rest.body.sectors].map((s: Sector) => s.sectorID);
      expect(new Set(ids).size).toBe(105);
    });
  });

  describe('list search and filters', () => {
    let e: ProvisionedTenant;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      e = await provisionTenant(t);
      const specs: Array<[string, string, string]> = [
        ['mkt', 'Marketing Alpha', 'mkt.example.com'],
        ['sales', 'Sales', 'alpha-sales.example.org'],
        ['growth', '100% Growth', 'growth.example.net'],
        ['pct', '100 Percent', 'pct.example.net'],
        ['under', 'under_score', 'under.example.net'],
        ['underx', 'underXscore', 'underx.example.net'],
        ['back', 'back\\slash', 'back.example.net'],
      ];
      for (const [key, name, domain] of specs) {
        const res = await create(e.adminToken, { name, slug: `${key}-sector`, domain });
        expect(res.status).toBe(200);
        ids[key] = res.body.sectorID;
      }
    });

    const namesOf = (body: SectorList) => body.sectors.map((s) => s.name).sort();

    it('searchTerm is a case-insensitive substring of name or domain', async () => {
      const res = await list(e.adminToken, { searchTerm: 'ALPHA' });
      expect({ status: res.status, names: namesOf(res.body), totalCount: res.body.totalCount, totalPages: res.body.totalPages, currentPage: res.body.currentPage }).toEqual({
        status: 200,
        names: ['Marketing Alpha', 'Sales'],
        totalCount: 2,
        totalPages: 1,
        currentPage: 1,
      });
      expect(namesOf((await list(e.adminToken, { searchTerm: 'keTIN' })).body)).toEqual(['Marketing Alpha']);
      expect(namesOf((await list(e.adminToken, { searchTerm: 'EXAMPLE.NET' })).body)).toEqual(
        ['100% Growth', '100 Percent', 'under_score', 'underXscore', 'back\\slash'].sort(),
      );
    });

    it('LIKE wildcards in searchTerm match literally', async () => {
      expect(namesOf((await list(e.adminToken, { searchTerm: '%' })).body)).toEqual(['100% Growth']);
      expect(namesOf((await list(e.adminToken, { searchTerm: '100%' })).body)).toEqual(['100% Growth']);
      expect(namesOf((await list(e.adminToken, { searchTerm: '_' })).body)).toEqual(['under_score']);
      expect(namesOf((await list(e.adminToken, { searchTerm: 'r_s' })).body)).toEqual(['under_score']);
      expect(namesOf((await list(e.adminToken, { searchTerm: '\\' })).body)).toEqual(['back\\slash']);
      const none = await list(e.adminToken, { searchTerm: 'nothing-like-this' });
      expect({ status: none.status, body: none.body }).toEqual({ status: 200, body: { sectors: [], totalCount: 0, totalPages: 0, currentPage: 1 } });
    });

    it('filterDomain is exact and case-insensitive', async () => {
      const res = await list(e.adminToken, { filterDomain: 'MKT.Example.COM' });
      expect({ status: res.status, ids: res.body.sectors.map((s: Sector) => s.sectorID), totalCount: res.body.totalCount }).toEqual({
        status: 200,
        ids: [ids.mkt],
        totalCount: 1,
      });
      // Not a substring match.
      expect((await list(e.adminToken, { filterDomain: 'example.com' })).body).toEqual({ sectors: [], totalCount: 0, totalPages: 0, currentPage: 1 });
      expect((await list(e.adminToken, { filterDomain: 'mkt.example.co' })).body.totalCount).toBe(0);
    });

    it('searchTerm and filterDomain combine', async () => {
      expect(namesOf((await list(e.adminToken, { searchTerm: 'alpha', filterDomain: 'alpha-sales.example.org' })).body)).toEqual(['Sales']);
      expect((await list(e.adminToken, { searchTerm: 'marketing', filterDomain: 'alpha-sales.example.org' })).body.totalCount).toBe(0);
    });

    it('search pages like the full list', async () => {
      const first = await list(e.adminToken, { searchTerm: 'example.net', pageSize: 2, page: 3 });
      expect({ n: first.body.sectors.length, totalCount: first.body.totalCount, totalPages: first.body.totalPages, currentPage: first.body.currentPage }).toEqual({
        n: 1,
        totalCount: 5,
        totalPages: 3,
        currentPage: 3,
      });
    });
  });

  describe('access', () => {
    let subAdmin: string;
    let subUser: string;
    let rootUser: string;
    let subSector: string;

    beforeAll(async () => {
      const res = await create(a.adminToken, { name: 'Sub', slug: uniqueSlug('sub'), domain: 'sub.example.com' });
      subSector = res.body.sectorID;
      await Promise.all([
        seedUser(t, a.tenantID, subSector, { email: 'admin@sub.test', password: 'sub-admin-pw', isAdmin: true }),
        seedUser(t, a.tenantID, subSector, { email: 'user@sub.test', password: 'sub-user-pw' }),
        seedUser(t, a.tenantID, a.rootSectorID, { email: 'user@root.test', password: 'root-user-pw' }),
      ]);
      [subAdmin, subUser, rootUser] = await Promise.all([
        t.login('admin@sub.test', 'sub-admin-pw', subSector),
        t.login('user@sub.test', 'sub-user-pw', subSector),
        t.login('user@root.test', 'root-user-pw', a.rootSectorID),
      ]);
    });

    it('a sub-sector admin gets 403 ROLE_REQUIRED on GET and POST', async () => {
      expectWireError(await list(subAdmin), 403, 7, 'ROLE_REQUIRED');
      const slug = uniqueSlug('forbidden');
      expectWireError(await create(subAdmin, { name: 'Nope', slug }), 403, 7, 'ROLE_REQUIRED');
      const { pages } = await allPages(a.adminToken, 100);
      expect(pages.flatMap((p) => p.sectors).filter((s) => s.slug === slug)).toEqual([]);
    });

    it('non-admins get 403 on GET and POST, in a sub-sector or the default sector', async () => {
      for (const token of [subUser, rootUser]) {
        expectWireError(await list(token), 403, 7, 'ROLE_REQUIRED');
        expectWireError(await create(token, { name: 'Nope', slug: uniqueSlug('nope') }), 403, 7, 'ROLE_REQUIRED');
      }
    });

    it('a role refusal comes before validation (no probing of the contract without the role)', async () => {
      expectWireError(await create(subAdmin, { slug: 'X' }), 403, 7, 'ROLE_REQUIRED');
    });

    it('without a bearer it is 401', async () => {
      const res = await t.http().get('/api/v1/sectors');
      expectWireError(res, 401, 16, 'CREDENTIAL_MISSING');
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expectWireError(await t.http().post('/api/v1/sectors').send({ name: 'n', slug: uniqueSlug() }), 401, 16, 'CREDENTIAL_MISSING');
    });

    it("the list only holds the caller's tenant's sectors", async () => {
      const [inA, inB] = await Promise.all([allPages(a.adminToken, 100), allPages(b.adminToken, 100)]);
      expect(inA.ids).toContain(a.rootSectorID);
      expect(inA.ids).toContain(subSector);
      expect(inA.ids).not.toContain(b.rootSectorID);
      expect(inB.ids).toContain(b.rootSectorID);
      expect(inB.ids.filter((id) => inA.ids.includes(id))).toEqual([]);
      expect(inB.pages[0].totalCount).toBe(inB.ids.length);
      // A domain filter does not reach across tenants either.
      expect((await list(b.adminToken, { filterDomain: 'sub.example.com' })).body.totalCount).toBe(0);
    });

    it("the platform admin lists only the platform tenant's sectors, and creates sectors there", async () => {
      const platform = await t.platformToken();
      const slug = uniqueSlug('plat');
      const made = await create(platform, { name: 'Platform extra', slug, domain: 'plat-extra.example.com' });
      expect({ status: made.status, isDefault: made.body.isDefault, slug: made.body.slug }).toEqual({ status: 200, isDefault: false, slug });
      const { pages, ids } = await allPages(platform, 100);
      expect(ids).toContain(made.body.sectorID);
      expect(ids).not.toContain(a.rootSectorID);
      expect(ids).not.toContain(b.rootSectorID);
      expect(ids).not.toContain(subSector);
      expect(pages.flatMap((p) => p.sectors).filter((s) => s.isDefault)).toHaveLength(1);
      // ...and the new sector is not in tenant A's list.
      expect((await allPages(a.adminToken, 100)).ids).not.toContain(made.body.sectorID);
    });
  });
});
