/**
 * The user list (op 6; docs/api.md, Endpoints and Limits and defaults): paging, sorting with ties,
 * search, filters and their combinations, the UserListItem shape with
 * inviteStatus, and who may list. Users come into existence through the API.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { expectWireError, INT64 } from './support/contract';
import { createSector, createUser, provisionTenant, ProvisionedTenant, tenantSql } from './support/factories';
import { startTestApp, TestApp } from './support/test-app';

type Res = { status: number; body: any; headers: Record<string, string> };

const ITEM_FIELDS = ['sub', 'email', 'name', 'emailVerified', 'phoneVerified', 'createdAt', 'updatedAt', 'isAdmin', 'disabled', 'inviteStatus'].sort();

/** Runs `fn` over `items` with at most `limit` calls in flight. */
async function pool<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

interface Seed {
  name: string;
  /** Four letters or digits: every email local part has the same length, so email order never depends on the collation's treatment of "@". */
  tag: string;
  username?: string;
  invited?: boolean;
  verified?: boolean;
  phoneVerified?: boolean;
  isAdmin?: boolean;
}

/**
 * Names and emails sort the same under every collation: letters only where two
 * values can first differ, identical names (after lower-casing) for ties.
 */
const SEEDS: Seed[] = [
  { name: 'Annabel', tag: 'Anna', verified: true },
  { name: 'anna', tag: 'anna', verified: true },
  { name: 'ANNA', tag: 'ANNA' },
  { name: 'Hannah', tag: 'hann', invited: true },
  { name: 'Joanna', tag: 'Joan' },
  { name: 'Johanna', tag: 'joha' },
  { name: 'annaLisa', tag: 'Lisa' },
  { name: 'Bob', tag: 'Bobb', verified: true },
  { name: 'bobby', tag: 'bobb' },
  { name: 'BOBBY', tag: 'BOBB' },
  { name: 'Robert', tag: 'robe', isAdmin: true },
  { name: 'Sam', tag: 'samu', verified: true },
  { name: 'Sam', tag: 'Samu', verified: true },
  { name: 'Sam', tag: 'SAMU' },
  { name: 'sam', tag: 'sams' },
  { name: 'Zoe', tag: 'zoee' },
  { name: 'zoey', tag: 'Zoey' },
  { name: 'Chloe', tag: 'chlo', invited: true },
  { name: 'chloe', tag: 'CHLO' },
  { name: 'Mia', tag: 'miam' },
  { name: 'Noah', tag: 'noah', verified: true, phoneVerified: true },
  { name: 'Liam', tag: 'liam' },
  { name: 'Olivia', tag: 'oliv', invited: true },
  { name: 'Emma', tag: 'emma', verified: true },
  { name: 'Ava', tag: 'avaa' },
  { name: '', tag: 'none' },
  { name: '', tag: 'NONE' },
  { name: 'percent%sign', tag: 'perc' },
  { name: 'under_score', tag: 'unde' },
  { name: 'Xavier', tag: 'xavi', username: 'handle-xavier', verified: true },
  { name: 'Yusuf', tag: 'yusu', username: 'Handle-Yusuf' },
  { name: 'Quinn', tag: 'quin', invited: true },
  { name: 'Wanda', tag: 'wand' },
  { name: 'Victor', tag: 'vict', isAdmin: true },
  { name: 'Ursula', tag: 'ursu' },
  { name: 'Tara', tag: 'tara', verified: true },
  { name: 'Theo', tag: 'theo' },
  { name: 'Grace', tag: 'grac' },
  { name: 'Felix', tag: 'feli', invited: true },
  { name: 'Diana', tag: 'dian' },
  { name: 'Ethan', tag: 'etha', verified: true },
  { name: 'Iris', tag: 'iris' },
  { name: 'Kai', tag: 'kaik', invited: true },
  { name: 'Luna', tag: 'luna' },
  { name: 'Max', tag: 'maxi' },
];

const EXPIRED_TAG = 'feli';

interface Known {
  sub: string;
  email: string;
  name: string;
  username: string;
  password?: string;
  emailVerified: boolean;
  phoneVerified: boolean;
  isAdmin: boolean;
  inviteStatus: string;
  createdAt: string;
  updatedAt: string;
  /** Sub-second sort keys from the database (the API shows whole seconds). */
  createdKey: string;
  updatedKey: string;
}

type SortBy = 'name' | 'email' | 'created_at' | 'updated_at';

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The contract's order: by the sort key (name and email case-insensitively), ties by id, all in one direction. */
function sorted(users: Known[], sortBy: SortBy, desc: boolean): Known[] {
  const key = (u: Known) =>
    sortBy === 'name' ? u.name.toLowerCase() : sortBy === 'email' ? u.email.toLowerCase() : sortBy === 'created_at' ? u.createdKey : u.updatedKey;
  const out = [...users].sort((a, b) => cmp(key(a), key(b)) || cmp(a.sub, b.sub));
  return desc ? out.reverse() : out;
}

function item(u: Known) {
  return {
    sub: u.sub,
    email: u.email,
    name: u.name,
    emailVerified: u.emailVerified,
    phoneVerified: u.phoneVerified,
    createdAt: u.createdAt,
    updatedAt: u.updatedAt,
    isAdmin: u.isAdmin,
    disabled: false,
    inviteStatus: u.inviteStatus,
  };
}

describe('user list (operation 6)', () => {
  let t: TestApp;
  let T: ProvisionedTenant;
  let U: ProvisionedTenant;
  let S: string;
  let O: string;
  let known: Known[];
  const bySeed = new Map<string, Known>();

  const bearer = (req: request.Test, token: string | undefined) => (token === undefined ? req : req.set('Authorization', `Bearer ${token}`));
  const list = (token: string | undefined, sectorID: string, query: Record<string, string | number | boolean> = {}): Promise<Res> =>
    bearer(t.http().get(`/api/v1/sectors/${sectorID}/users`).query(query), token);
  const adminList = (query: Record<string, string | number | boolean> = {}) => list(T.adminToken, S, query);

  /** Every page of a query with the given page size, checking the totals on each. */
  async function allPages(query: Record<string, string | number | boolean>, pageSize: number, expectedTotal: number): Promise<any[]> {
    const totalPages = Math.ceil(expectedTotal / pageSize);
    const seen: any[] = [];
    for (let page = 1; page <= totalPages + 1; page++) {
      const res = await adminList({ ...query, pageSize, page });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['currentPage', 'totalCount', 'totalPages', 'users']);
      expect({ totalCount: res.body.totalCount, totalPages: res.body.totalPages, currentPage: res.body.currentPage }).toEqual({
        totalCount: expectedTotal,
        totalPages,
        currentPage: page,
      });
      const expectedLength = page <= totalPages ? Math.min(pageSize, expectedTotal - (page - 1) * pageSize) : 0;
      expect(res.body.users).toHaveLength(expectedLength);
      seen.push(...res.body.users);
    }
    return seen;
  }

  const subs = (items: Array<{ sub: string }>) => items.map((u) => u.sub);

  beforeAll(async () => {
    t = await startTestApp();
    [T, U] = await Promise.all([provisionTenant(t), provisionTenant(t)]);
    [S, O] = await Promise.all([createSector(t, T.adminToken), createSector(t, T.adminToken)]);

    const created = await pool(SEEDS, 8, async (seed, i) => {
      const email = `${seed.tag}${String(i).padStart(2, '0')}@list.test`;
      const password = seed.invited ? undefined : `pw-${seed.tag.toLowerCase()}-${i}-secret`;
      const body: Record<string, unknown> = { email, isAdmin: seed.isAdmin ?? false };
      if (seed.username) body.username = seed.username;
      if (password) body.password = password;
      if (seed.name) body.profile = { name: seed.name };
      return { seed, sub: await createUser(t, T.adminToken, S, body), email, password };
    });

    // Some users verified by an admin (which also moves their updatedAt).
    await pool(
      created.filter((c) => c.seed.verified),
      8,
      async (c) => {
        const profile = c.seed.phoneVerified ? { emailVerified: true, phoneNumber: '+14155550100', phoneNumberVerified: true } : { emailVerified: true };
        const res = await t.http().put(`/api/v1/users/${c.sub}`).set('Authorization', `Bearer ${T.adminToken}`).send({ profile });
        if (res.status !== 200) throw new Error(`verifying ${c.email} failed: ${res.status}`);
      },
    );

    const expiredSub = created.find((c) => c.seed.tag === EXPIRED_TAG)!.sub;
    await tenantSql(t, T.tenantID, "UPDATE users SET invite_expires_at = now() - interval '1 hour' WHERE id = $1", [expiredSub]);

    const keys = await tenantSql(
      t,
      T.tenantID,
      `SELECT id, to_char(created_at AT TIME ZONE 'UTC', 'YYYYMMDDHH24MISSUS') AS c, to_char(updated_at AT TIME ZONE 'UTC', 'YYYYMMDDHH24MISSUS') AS u
       FROM users WHERE sector_id = $1`,
      [S],
    );
    const keyOf = new Map(keys.map((k) => [k.id as string, { c: k.c as string, u: k.u as string }]));
    expect(keyOf.size).toBe(SEEDS.length);

    known = await pool(created, 8, async (c) => {
      const profile = await t.http().get(`/api/v1/users/${c.sub}`).set('Authorization', `Bearer ${T.adminToken}`);
      if (profile.status !== 200) throw new Error(`reading ${c.email} failed: ${profile.status}`);
      const k: Known = {
        sub: c.sub,
        email: c.email,
        name: c.seed.name,
        username: c.seed.username ?? c.email,
        password: c.password,
        emailVerified: c.seed.verified ?? false,
        phoneVerified: c.seed.phoneVerified ?? false,
        isAdmin: c.seed.isAdmin ?? false,
        inviteStatus: c.seed.invited ? (c.seed.tag === EXPIRED_TAG ? 'expired' : 'pending') : '',
        createdAt: profile.body.createdAt,
        updatedAt: profile.body.updatedAt,
        createdKey: keyOf.get(c.sub)!.c,
        updatedKey: keyOf.get(c.sub)!.u,
      };
      expect({ email: profile.body.email, name: profile.body.name, emailVerified: profile.body.emailVerified }).toEqual({
        email: k.email,
        name: k.name,
        emailVerified: k.emailVerified,
      });
      bySeed.set(c.seed.tag, k);
      return k;
    });
  }, 120_000);
  afterAll(() => t?.close(), 60_000);

  describe('items', () => {
    it('each UserListItem has exactly the contract fields, with the stored values', async () => {
      const res = await adminList({ pageSize: 100 });
      expect(res.status).toBe(200);
      expect(res.body.users).toHaveLength(SEEDS.length);
      for (const u of res.body.users) {
        expect(Object.keys(u).sort()).toEqual(ITEM_FIELDS);
        expect(u.createdAt).toMatch(INT64);
        expect(u.updatedAt).toMatch(INT64);
      }
      const expected = known.map(item);
      expect([...res.body.users].sort((a, b) => cmp(a.sub, b.sub))).toEqual([...expected].sort((a, b) => cmp(a.sub, b.sub)));
    });

    it("inviteStatus is '' with a password, 'pending' when invited, 'expired' once the invitation lapsed", async () => {
      const res = await adminList({ pageSize: 100 });
      const statusOf = new Map(res.body.users.map((u: { sub: string; inviteStatus: string }) => [u.sub, u.inviteStatus]));
      expect(statusOf.get(bySeed.get('bobb')!.sub)).toBe('');
      expect(statusOf.get(bySeed.get('hann')!.sub)).toBe('pending');
      expect(statusOf.get(bySeed.get(EXPIRED_TAG)!.sub)).toBe('expired');
      const counts = { '': 0, pending: 0, expired: 0 } as Record<string, number>;
      for (const s of statusOf.values()) counts[s as string]++;
      expect(counts).toEqual({ '': SEEDS.filter((s) => !s.invited).length, pending: SEEDS.filter((s) => s.invited).length - 1, expired: 1 });
    });

    it('the list shows a change at once (isAdmin granted)', async () => {
      const u = bySeed.get('maxi')!;
      const res = await t.http().put(`/api/v1/users/${u.sub}`).set('Authorization', `Bearer ${T.adminToken}`).send({ setAdminExplicitly: true, isAdmin: true });
      expect(res.status).toBe(200);
      const found = (await adminList({ filterEmail: u.email })).body.users;
      expect(found).toEqual([expect.objectContaining({ sub: u.sub, isAdmin: true })]);
      // Back as it was (updatedAt moved; keep the model true).
      await t.http().put(`/api/v1/users/${u.sub}`).set('Authorization', `Bearer ${T.adminToken}`).send({ setAdminExplicitly: true, isAdmin: false });
      const [row] = await tenantSql(t, T.tenantID, "SELECT to_char(updated_at AT TIME ZONE 'UTC', 'YYYYMMDDHH24MISSUS') AS u, floor(extract(epoch from updated_at))::bigint::text AS s FROM users WHERE id = $1", [u.sub]);
      u.updatedKey = row.u as string;
      u.updatedAt = row.s as string;
    });
  });

  describe('paging and sorting', () => {
    const combos: Array<[SortBy, boolean]> = [];
    for (const sortBy of ['name', 'email', 'created_at', 'updated_at'] as SortBy[]) for (const desc of [false, true]) combos.push([sortBy, desc]);

    it.each(combos)('sortBy=%s sortDesc=%s, pageSize 7: every user exactly once, in order', async (sortBy, desc) => {
      const seen = await allPages({ sortBy, sortDesc: desc }, 7, SEEDS.length);
      expect(new Set(subs(seen)).size).toBe(SEEDS.length);
      expect(subs(seen)).toEqual(subs(sorted(known, sortBy, desc)));
    });

    it('identical names (case-insensitively) are ordered by id, in the sort direction', async () => {
      const sams = known.filter((u) => u.name.toLowerCase() === 'sam');
      expect(sams).toHaveLength(4);
      const asc = subs((await adminList({ sortBy: 'name', searchTerm: 'sam', pageSize: 100 })).body.users);
      const desc = subs((await adminList({ sortBy: 'name', sortDesc: true, searchTerm: 'sam', pageSize: 100 })).body.users);
      expect(asc).toEqual(subs(sams).sort());
      expect(desc).toEqual(subs(sams).sort().reverse());
    });

    it('name order is case-insensitive: anna/ANNA before annaLisa before BOBBY', async () => {
      const names = (await adminList({ sortBy: 'name', pageSize: 100 })).body.users.map((u: { name: string }) => u.name);
      const pos = (n: string) => names.indexOf(n);
      expect(pos('anna')).toBeLessThan(pos('annaLisa'));
      expect(pos('ANNA')).toBeLessThan(pos('annaLisa'));
      expect(pos('annaLisa')).toBeLessThan(pos('Bob'));
      expect(pos('Bob')).toBeLessThan(pos('BOBBY'));
      expect(pos('bobby')).toBeLessThan(pos('Chloe'));
      expect(names.slice(0, 2)).toEqual(['', '']);
    });

    it('without sortBy: created_at ascending', async () => {
      const res = await adminList({ pageSize: 100 });
      expect(subs(res.body.users)).toEqual(subs(sorted(known, 'created_at', false)));
    });

    it('pageSize unset or 0 or negative → 20; page 0 → 1', async () => {
      const first20 = subs(sorted(known, 'created_at', false)).slice(0, 20);
      for (const query of [{}, { pageSize: 0 }, { pageSize: -5 }, { pageSize: 0, page: 0 }, { page: -1 }] as Array<Record<string, number>>) {
        const res = await adminList(query);
        expect({ status: res.status, totalCount: res.body.totalCount, totalPages: res.body.totalPages, currentPage: res.body.currentPage }).toEqual({
          status: 200,
          totalCount: SEEDS.length,
          totalPages: Math.ceil(SEEDS.length / 20),
          currentPage: 1,
        });
        expect(subs(res.body.users)).toEqual(first20);
      }
    });

    it('a page past the end is empty with the right totals', async () => {
      const res = await adminList({ pageSize: 10, page: 99 });
      expect({ status: res.status, body: res.body }).toEqual({
        status: 200,
        body: { users: [], totalCount: SEEDS.length, totalPages: Math.ceil(SEEDS.length / 10), currentPage: 99 },
      });
    });

    it.each([
      ['pageSize', 'abc'],
      ['pageSize', '2.5'],
      ['page', 'first'],
      ['sortBy', 'password'],
      ['sortBy', 'NAME'],
      ['sortBy', 'username'],
      ['sortDesc', 'maybe'],
      ['filterVerified', 'yes'],
      ['filterVerified', '1'],
    ])('%s=%s → 400 naming it', async (field, value) => {
      expectWireError(await adminList({ [field]: value }), 400, 3, 'VALIDATION_FAILED', { fields: [field] });
    });

    describe('pageSize above 100 → 100', () => {
      let big: string;
      const BIG = 103;
      beforeAll(async () => {
        big = await createSector(t, T.adminToken);
        await pool(Array.from({ length: BIG }, (_, i) => i), 8, (i) =>
          createUser(t, T.adminToken, big, { email: `big${String(i).padStart(3, '0')}@big.test`, password: 'big-user-password' }),
        );
      }, 120_000);

      it.each([101, 1000])('pageSize=%s', async (pageSize) => {
        const p1 = await list(T.adminToken, big, { pageSize, sortBy: 'email' });
        expect({ status: p1.status, count: p1.body.users.length, totalCount: p1.body.totalCount, totalPages: p1.body.totalPages, currentPage: 1 }).toEqual({
          status: 200,
          count: 100,
          totalCount: BIG,
          totalPages: 2,
          currentPage: 1,
        });
        const p2 = await list(T.adminToken, big, { pageSize, sortBy: 'email', page: 2 });
        expect(p2.body.users.map((u: { email: string }) => u.email)).toEqual(['big100@big.test', 'big101@big.test', 'big102@big.test']);
        expect(p1.body.users[0].email).toBe('big000@big.test');
      });

      it('pageSize=100 is taken as is', async () => {
        const res = await list(T.adminToken, big, { pageSize: 100 });
        expect([res.body.users.length, res.body.totalPages]).toEqual([100, 2]);
      });
    });
  });

  describe('search and filters', () => {
    /** The contract's search: case-insensitive substring of name, email or username. */
    const matches = (term: string) => (u: Known) => [u.name, u.email, u.username].some((v) => v.toLowerCase().includes(term.toLowerCase()));

    it.each(['anna', 'ANNA', 'AnNa', 'sam', 'bob', 'oe', 'list.test', 'Handle', 'xavier', '00@'])(
      'searchTerm=%s: case-insensitive substring of name, email or username',
      async (term) => {
        const expected = sorted(known.filter(matches(term)), 'created_at', false);
        expect(expected.length).toBeGreaterThan(0);
        const res = await adminList({ searchTerm: term, pageSize: 100 });
        expect(res.status).toBe(200);
        expect({ totalCount: res.body.totalCount, subs: subs(res.body.users) }).toEqual({ totalCount: expected.length, subs: subs(expected) });
      },
    );

    it('searchTerm over names alone: "anna" finds Annabel, anna, ANNA, Hannah, Joanna, Johanna and annaLisa', async () => {
      const res = await adminList({ searchTerm: 'anna', pageSize: 100, sortBy: 'name' });
      expect(res.body.users.map((u: { name: string }) => u.name).sort()).toEqual(['ANNA', 'Annabel', 'Hannah', 'Joanna', 'Johanna', 'anna', 'annaLisa'].sort());
    });

    it('searchTerm reaches the username (not shown in the item)', async () => {
      const res = await adminList({ searchTerm: 'HANDLE-' });
      expect(subs(res.body.users).sort()).toEqual([bySeed.get('xavi')!.sub, bySeed.get('yusu')!.sub].sort());
    });

    it.each([
      ['%', ['perc']],
      ['_', ['unde']],
      ['t%s', ['perc']],
      ['r_s', ['unde']],
    ])('searchTerm=%s matches literally', async (term, tags) => {
      const res = await adminList({ searchTerm: term, pageSize: 100 });
      expect(res.status).toBe(200);
      expect(subs(res.body.users).sort()).toEqual(tags.map((tag) => bySeed.get(tag)!.sub).sort());
    });

    it.each(['%%', '__', 'a_n', '\\', 'zzz-nobody'])('searchTerm=%s matching nobody → empty with zero totals', async (term) => {
      const res = await adminList({ searchTerm: term });
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { users: [], totalCount: 0, totalPages: 0, currentPage: 1 } });
    });

    it('an empty searchTerm filters nothing', async () => {
      const res = await adminList({ searchTerm: '', pageSize: 100 });
      expect(res.body.totalCount).toBe(SEEDS.length);
    });

    it('filterEmail is exact and case-insensitive', async () => {
      const u = bySeed.get('Anna')!;
      for (const value of [u.email, u.email.toUpperCase(), u.email.toLowerCase()]) {
        const res = await adminList({ filterEmail: value });
        expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { users: [item(u)], totalCount: 1, totalPages: 1, currentPage: 1 } });
      }
    });

    it.each([
      ['a substring', (e: string) => e.slice(1)],
      ['a prefix', (e: string) => e.split('@')[0]],
      ['the domain', () => 'list.test'],
      ['with a wildcard', (e: string) => e.replace('@', '%')],
      ['an unknown address', () => 'nobody@list.test'],
    ])('filterEmail with %s matches nothing', async (_label, value) => {
      const res = await adminList({ filterEmail: value(bySeed.get('Anna')!.email) });
      expect({ status: res.status, users: res.body.users, totalCount: res.body.totalCount }).toEqual({ status: 200, users: [], totalCount: 0 });
    });

    it.each([
      ['true', true],
      ['false', false],
    ])('filterVerified=%s', async (value, verified) => {
      const expected = sorted(
        known.filter((u) => u.emailVerified === verified),
        'email',
        false,
      );
      const seen = await allPages({ filterVerified: value, sortBy: 'email' }, 7, expected.length);
      expect(subs(seen)).toEqual(subs(expected));
      for (const u of seen) expect(u.emailVerified).toBe(verified);
    });

    it.each([
      ['anna', 'true', 'name', true],
      ['anna', 'false', 'name', false],
      ['sam', 'true', 'created_at', true],
      ['SAM', 'false', 'email', true],
      ['b', 'false', 'updated_at', false],
      ['list.test', 'true', 'email', true],
    ] as Array<[string, string, SortBy, boolean]>)('searchTerm=%s + filterVerified=%s + sortBy=%s sortDesc=%s', async (term, verified, sortBy, desc) => {
      const expected = sorted(
        known.filter((u) => matches(term)(u) && u.emailVerified === (verified === 'true')),
        sortBy,
        desc,
      );
      expect(expected.length).toBeGreaterThan(0);
      const seen = await allPages({ searchTerm: term, filterVerified: verified, sortBy, sortDesc: desc }, 2, expected.length);
      expect(subs(seen)).toEqual(subs(expected));
    });

    it('searchTerm + filterEmail: both must hold', async () => {
      const u = bySeed.get('Joan')!;
      expect(subs((await adminList({ searchTerm: 'anna', filterEmail: u.email.toUpperCase() })).body.users)).toEqual([u.sub]);
      expect((await adminList({ searchTerm: 'bob', filterEmail: u.email })).body).toEqual({ users: [], totalCount: 0, totalPages: 0, currentPage: 1 });
      expect((await adminList({ filterEmail: u.email, filterVerified: 'true' })).body.totalCount).toBe(0);
      expect((await adminList({ filterEmail: u.email, filterVerified: 'false' })).body.totalCount).toBe(1);
    });

    it('only the sector’s own users are listed', async () => {
      const res = await t
        .http()
        .post(`/api/v1/sectors/${O}/users`)
        .set('Authorization', `Bearer ${T.adminToken}`)
        .send({ email: 'annaother@list.test', password: 'other-sector-password', profile: { name: 'anna other' } });
      expect(res.status).toBe(200);
      const inS = await adminList({ searchTerm: 'annaother', pageSize: 100 });
      expect(inS.body.totalCount).toBe(0);
      const inO = await list(T.adminToken, O, { searchTerm: 'annaother' });
      expect(subs(inO.body.users)).toEqual([res.body.sub]);
    });
  });

  describe('who may list', () => {
    let sectorAdminToken: string;
    let memberToken: string;
    let outsiderToken: string;
    let apiToken: string;
    let otherApiToken: string;

    const mint = async (sectorID: string) => {
      const res = await t.http().post(`/api/v1/sectors/${sectorID}/tokens`).set('Authorization', `Bearer ${T.adminToken}`).send({ name: 'list e2e' });
      expect(res.status).toBe(200);
      return res.body.token as string;
    };

    beforeAll(async () => {
      const robert = bySeed.get('robe')!;
      const bob = bySeed.get('Bobb')!;
      sectorAdminToken = await t.login(robert.email, robert.password!, S);
      memberToken = await t.login(bob.email, bob.password!, S);
      await createUser(t, T.adminToken, O, { email: 'outsider@list.test', password: 'outsider-password' });
      outsiderToken = await t.login('outsider@list.test', 'outsider-password', O);
      [apiToken, otherApiToken] = await Promise.all([mint(S), mint(O)]);
    });

    const expectFullList = (res: Res) => {
      expect({ status: res.status, totalCount: res.body.totalCount }).toEqual({ status: 200, totalCount: SEEDS.length });
    };

    it("the tenant's default-sector admin and the sector admin", async () => {
      expectFullList(await list(T.adminToken, S));
      expectFullList(await list(sectorAdminToken, S));
    });

    it('an API token of the sector → 200; of another sector → 403', async () => {
      expectFullList(await list(apiToken, S));
      expectWireError(await list(otherApiToken, S), 403, 7, 'ROLE_REQUIRED');
    });

    it('an ordinary user of the sector → 403 while AllowUserReadForNonAdmins is off', async () => {
      expectWireError(await list(memberToken, S), 403, 7, 'ROLE_REQUIRED');
    });

    it('a user of another sector → 403', async () => {
      expectWireError(await list(outsiderToken, S), 403, 7, 'ROLE_REQUIRED');
    });

    it("another tenant's admin and the platform admin → 404 SECTOR_NOT_FOUND", async () => {
      expectWireError(await list(U.adminToken, S), 404, 5, 'SECTOR_NOT_FOUND');
      expectWireError(await list(await t.platformToken(), S), 404, 5, 'SECTOR_NOT_FOUND');
    });

    it('no credential → 401 CREDENTIAL_MISSING; an unknown sector → 404; a malformed sector id → 400 or 404', async () => {
      expectWireError(await list(undefined, S), 401, 16, 'CREDENTIAL_MISSING');
      expectWireError(await list(T.adminToken, randomUUID()), 404, 5, 'SECTOR_NOT_FOUND');
      const bad = await list(T.adminToken, 'not-a-uuid');
      expect([400, 404]).toContain(bad.status);
    });

    describe('with AllowUserReadForNonAdmins on', () => {
      beforeAll(async () => {
        const res = await t.http().put(`/api/v1/sectors/${S}/settings`).set('Authorization', `Bearer ${T.adminToken}`).send({ AllowUserReadForNonAdmins: true });
        expect(res.status).toBe(200);
      });
      afterAll(async () => {
        await t.http().put(`/api/v1/sectors/${S}/settings`).set('Authorization', `Bearer ${T.adminToken}`).send({ AllowUserReadForNonAdmins: false });
      });

      it('an ordinary user of the sector lists, with search and paging', async () => {
        expectFullList(await list(memberToken, S));
        const res = await list(memberToken, S, { searchTerm: 'anna', sortBy: 'name', pageSize: 3, page: 2 });
        const expected = sorted(known.filter((u) => [u.name, u.email, u.username].some((v) => v.toLowerCase().includes('anna'))), 'name', false);
        expect({ status: res.status, subs: subs(res.body.users), totalCount: res.body.totalCount }).toEqual({
          status: 200,
          subs: subs(expected.slice(3, 6)),
          totalCount: expected.length,
        });
      });

      it('a user of another sector still → 403', async () => {
        expectWireError(await list(outsiderToken, S), 403, 7, 'ROLE_REQUIRED');
      });

      it("another tenant's admin still → 404", async () => {
        expectWireError(await list(U.adminToken, S), 404, 5, 'SECTOR_NOT_FOUND');
      });

      it('the setting of S opens no other sector', async () => {
        expectWireError(await list(memberToken, O), 403, 7, 'ROLE_REQUIRED');
      });
    });

    it('turned off again: the ordinary user → 403 at once', async () => {
      expectWireError(await list(memberToken, S), 403, 7, 'ROLE_REQUIRED');
    });
  });

  /**
   * Listing at scale (docs/adr/0033-listing-at-scale.md): counts come from trigger-kept counters or
   * the narrow search documents, and a page past the middle is read from the other
   * end. Both must stay exact and in order, whatever wrote the rows — the API or a
   * bulk SQL statement — so here the database itself is the oracle.
   */
  describe('exact counts and pages at scale', () => {
    let W: string;
    let V: string;
    const wList = (query: Record<string, string | number | boolean> = {}) => list(T.adminToken, W, query);
    const truth = async (where: string, params: unknown[] = [], order = 'created_at, id'): Promise<string[]> =>
      (await tenantSql(t, T.tenantID, `SELECT id FROM users u WHERE sector_id = $1 AND ${where} ORDER BY ${order}`, [W, ...params])).map((r) => r.id as string);
    const SEARCH = "strpos(lower(u.name || chr(1) || u.email || chr(1) || u.username), lower($2)) > 0";

    /** Every page of `query` (pageSize 7), checked against the ids the database orders itself. */
    async function expectPages(query: Record<string, string | number | boolean>, expected: string[]): Promise<void> {
      const pages = Math.ceil(expected.length / 7);
      const seen: string[] = [];
      for (let page = 1; page <= pages + 1; page++) {
        const res = await wList({ ...query, pageSize: 7, page });
        expect(res.status).toBe(200);
        expect({ totalCount: res.body.totalCount, totalPages: res.body.totalPages }).toEqual({ totalCount: expected.length, totalPages: pages });
        seen.push(...subs(res.body.users));
      }
      expect(seen).toEqual(expected);
    }

    beforeAll(async () => {
      W = await createSector(t, T.adminToken);
      // 150 users in one bulk statement (as an import would write them), a few through the API.
      await tenantSql(
        t,
        T.tenantID,
        `INSERT INTO users (id, sector_id, username, email, email_verified, name, created_at, updated_at)
         SELECT gen_random_uuid(), $1, 'bulk' || i, 'bulk' || i || '@scale' || (i % 7) || '.test', i % 3 = 0,
                (ARRAY['Alice','Bob','Carol','Dave','Eve'])[1 + i % 5] || ' ' || md5(i::text),
                now() - make_interval(secs => i), now() - make_interval(secs => i % 11)
         FROM generate_series(1, 150) AS i`,
        [W],
      );
      V = await createSector(t, T.adminToken);
      // Repeated names and update times, so ties are broken by id.
      await tenantSql(
        t,
        T.tenantID,
        `INSERT INTO users (id, sector_id, username, email, email_verified, name, created_at, updated_at)
         SELECT gen_random_uuid(), $1, 'deep' || i, 'deep' || i || '@deep.test', i % 3 = 0, 'Name ' || (i % 40),
                now() - make_interval(secs => i), now() - make_interval(secs => i % 13)
         FROM generate_series(1, 2400) AS i`,
        [V],
      );
      await pool(['alice', 'malice', 'bob'], 3, (name, i) => createUser(t, T.adminToken, W, { email: `api${i}@scale.test`, password: `pw-scale-${i}-secret`, profile: { name } }));
    }, 60_000);

    it.each([
      ['no filter', {}, 'true', []],
      ['filterVerified=true', { filterVerified: 'true' }, 'email_verified', []],
      ['filterVerified=false', { filterVerified: 'false' }, 'NOT email_verified', []],
      ['searchTerm=alice (broad)', { searchTerm: 'alice' }, SEARCH, ['alice']],
      ['searchTerm=BULK12 (selective)', { searchTerm: 'BULK12' }, SEARCH, ['BULK12']],
      ['searchTerm=scale3 + filterVerified=true', { searchTerm: 'scale3', filterVerified: 'true' }, `${SEARCH} AND email_verified`, ['scale3']],
      ['filterEmail', { filterEmail: 'BULK42@scale0.test' }, "lower(email) = 'bulk42@scale0.test'", []],
    ] as Array<[string, Record<string, string>, string, unknown[]]>)('%s: exact totalCount, every page in order', async (_label, query, where, params) => {
      const expected = await truth(where, params);
      expect(expected.length).toBeGreaterThan(0);
      await expectPages(query, expected);
    });

    it.each([
      ['name', false, 'lower(name), id'],
      ['name', true, 'lower(name) DESC, id DESC'],
      ['updated_at', true, 'updated_at DESC, id DESC'],
      ['email', false, 'lower(email), id'],
    ] as Array<[SortBy, boolean, string]>)('filterVerified=true, sortBy=%s desc=%s: pages past the middle match the forward order', async (sortBy, desc, order) => {
      await expectPages({ filterVerified: 'true', sortBy, sortDesc: desc }, await truth('email_verified', [], order));
    });

    it.each([
      [{}, 'true', 'created_at, id'],
      [{ sortBy: 'name', sortDesc: true }, 'true', 'lower(name) DESC, id DESC'],
      [{ filterVerified: 'false', sortBy: 'email' }, 'NOT email_verified', 'lower(email), id'],
      [{ filterVerified: 'true', sortBy: 'updated_at', sortDesc: true }, 'email_verified', 'updated_at DESC, id DESC'],
    ] as Array<[Record<string, string | boolean>, string, string]>)('past offset 1000 (%j): every page of 2,400 users in order, read from the nearer end', async (query, where, order) => {
      const expected = (await tenantSql(t, T.tenantID, `SELECT id FROM users WHERE sector_id = $1 AND ${where} ORDER BY ${order}`, [V])).map((r) => r.id as string);
      const pages = Math.ceil(expected.length / 100);
      const seen: string[] = [];
      for (let page = 1; page <= pages; page++) {
        const res = await list(T.adminToken, V, { ...query, pageSize: 100, page });
        expect({ status: res.status, totalCount: res.body.totalCount }).toEqual({ status: 200, totalCount: expected.length });
        seen.push(...subs(res.body.users));
      }
      expect(seen).toEqual(expected);
      const past = await list(T.adminToken, V, { ...query, pageSize: 100, page: pages + 1 });
      expect({ users: past.body.users, totalCount: past.body.totalCount }).toEqual({ users: [], totalCount: expected.length });
    });

    it('skipTotalCount=true: a searched list answers the same pages with a lower-bound total; unsearched lists stay exact', async () => {
      const expected = await truth(SEARCH, ['bulk']);
      expect(expected.length).toBeGreaterThan(14);
      const pages = Math.ceil(expected.length / 7);
      const seen: string[] = [];
      for (let page = 1; page <= pages; page++) {
        const res = await wList({ searchTerm: 'bulk', skipTotalCount: true, pageSize: 7, page });
        expect(res.status).toBe(200);
        const upTo = Math.min(page * 7, expected.length);
        const more = page < pages;
        expect({ totalCount: res.body.totalCount, totalPages: res.body.totalPages, currentPage: res.body.currentPage }).toEqual({
          totalCount: upTo + (more ? 1 : 0),
          totalPages: more ? page + 1 : page,
          currentPage: page,
        });
        seen.push(...subs(res.body.users));
      }
      expect(seen).toEqual(expected);
      // Past the end a page proves nothing: counted.
      expect((await wList({ searchTerm: 'bulk', skipTotalCount: true, pageSize: 7, page: pages + 3 })).body).toMatchObject({ users: [], totalCount: expected.length });
      expect((await wList({ skipTotalCount: true, pageSize: 7 })).body.totalCount).toBe((await truth('true')).length);
      expect((await wList({ filterEmail: 'bulk42@scale0.test', skipTotalCount: 'false' })).body.totalCount).toBe(1);
      expectWireError(await wList({ skipTotalCount: 'perhaps' }), 400, 3, 'VALIDATION_FAILED', { fields: ['skipTotalCount'] });
    });

    it('the last, partial page and a page past the end', async () => {
      const all = await truth('true');
      const last = Math.ceil(all.length / 20);
      const res = await wList({ page: last });
      expect(subs(res.body.users)).toEqual(all.slice((last - 1) * 20));
      expect((await wList({ page: last + 1 })).body).toEqual({ users: [], totalCount: all.length, totalPages: last, currentPage: last + 1 });
      expect((await wList({ page: 1_000_000 })).body.users).toEqual([]);
    });

    it('counts and search follow every change: API and SQL updates, deletes, another sector untouched', async () => {
      const count = async (query: Record<string, string> = {}) => (await wList(query)).body.totalCount as number;
      const before = { all: await count(), verified: await count({ filterVerified: 'true' }), unverified: await count({ filterVerified: 'false' }) };
      const otherBefore = (await list(T.adminToken, S, {})).body.totalCount;
      const [target] = await truth("name = 'malice'");

      // An admin verifies the email and renames the user: the verified count and the search follow.
      const put = await t.http().put(`/api/v1/users/${target}`).set('Authorization', `Bearer ${T.adminToken}`).send({ profile: { emailVerified: true, name: 'Mallory', email: 'mallory@scale.test' } });
      expect(put.status).toBe(200);
      expect(await count({ filterVerified: 'true' })).toBe(before.verified + 1);
      expect(await count({ filterVerified: 'false' })).toBe(before.unverified - 1);
      expect(subs((await wList({ searchTerm: 'mallory' })).body.users)).toEqual([target]);
      expect(await count({ searchTerm: 'malice' })).toBe(0);

      // A bulk SQL update of the verified flag and a bulk delete.
      await tenantSql(t, T.tenantID, "UPDATE users SET email_verified = NOT email_verified WHERE sector_id = $1 AND username LIKE 'bulk1%'", [W]);
      await tenantSql(t, T.tenantID, "DELETE FROM users WHERE sector_id = $1 AND username LIKE 'bulk2%'", [W]);
      const all = await truth('true');
      expect(await count()).toBe(all.length);
      expect(await count({ filterVerified: 'true' })).toBe((await truth('email_verified')).length);
      expect(await count({ filterVerified: 'false' })).toBe((await truth('NOT email_verified')).length);
      expect(await count({ searchTerm: 'bulk2' })).toBe(0);
      expect(await count({ searchTerm: 'bulk1' })).toBe((await truth(SEARCH, ['bulk1'])).length);

      // Deleted through the API.
      const del = await t.http().delete(`/api/v1/users/${target}`).set('Authorization', `Bearer ${T.adminToken}`);
      expect(del.status).toBe(200);
      expect(await count()).toBe(all.length - 1);
      expect(await count({ searchTerm: 'mallory' })).toBe(0);
      await expectPages({}, await truth('true'));
      expect((await list(T.adminToken, S, {})).body.totalCount).toBe(otherBefore);
    });
  });
});

describe('user list of a schema-mode tenant: the counters and search documents live in its schema', () => {
  let t: TestApp;
  let T: ProvisionedTenant;
  let S: string;
  beforeAll(async () => {
    t = await startTestApp({ tenancyMode: 'schema' });
    T = await provisionTenant(t);
    S = await createSector(t, T.adminToken);
  }, 120_000);
  afterAll(() => t?.close(), 60_000);

  it('exact totalCount, search and filterVerified after API and SQL writes', async () => {
    const list = (query: Record<string, string | number> = {}) =>
      t.http().get(`/api/v1/sectors/${S}/users`).set('Authorization', `Bearer ${T.adminToken}`).query(query);
    const sub = await createUser(t, T.adminToken, S, { email: 'zelda@schema.test', password: 'pw-zelda-secret-1', profile: { name: 'Zelda' } });
    await tenantSql(
      t,
      T.tenantID,
      `INSERT INTO users (id, sector_id, username, email, email_verified, name)
       SELECT gen_random_uuid(), $1, 'row' || i, 'row' || i || '@schema.test', i % 2 = 0, 'Row ' || i FROM generate_series(1, 40) AS i`,
      [S],
    );
    expect((await list()).body.totalCount).toBe(41);
    expect((await list({ filterVerified: 'true' })).body.totalCount).toBe(20);
    expect((await list({ searchTerm: 'ZELD' })).body).toMatchObject({ totalCount: 1, users: [expect.objectContaining({ sub })] });
    expect((await list({ searchTerm: 'row1' })).body.totalCount).toBe(11);
    await tenantSql(t, T.tenantID, "DELETE FROM users WHERE sector_id = $1 AND username LIKE 'row1%'", [S]);
    expect((await list()).body.totalCount).toBe(30);
    expect((await list({ searchTerm: 'row1' })).body.totalCount).toBe(0);
    expect((await list({ filterVerified: 'false' })).body.totalCount).toBe(30 - (await list({ filterVerified: 'true' })).body.totalCount);
  });
});
