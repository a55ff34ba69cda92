import type { TenantEntity } from '../tenancy/tenant.entity';
import type { SectorRoute } from '../tenancy/tenant-directory';
import type { Principal } from './principal';
import { allows, isAdminOver, isUserAdminOver, Role } from './role-matrix';

const tenant = (id: string, isPlatform = false) => ({ id, isPlatform, rootSectorId: `${id}-root` }) as TenantEntity;
const T = tenant('T');
const P = tenant('P', true);
const U = tenant('U');

const user = (t: TenantEntity, sectorId: string, isAdmin: boolean): Principal => ({
  kind: 'user',
  tenant: t,
  sectorId,
  userId: 'u',
  username: 'u',
  isAdmin,
  isDefaultSector: sectorId === t.rootSectorId,
  tokenId: 'j',
  tokenExp: 0,
});
const apiToken = (t: TenantEntity, sectorId: string): Principal => ({ kind: 'apiToken', tenant: t, sectorId, tokenId: 'k' });
const route = (t: TenantEntity, sectorId: string): SectorRoute => ({ tenant: t, sectorId, isDefault: sectorId === t.rootSectorId });

const principals = {
  platformAdmin: user(P, P.rootSectorId, true),
  platformUser: user(P, P.rootSectorId, false),
  defaultAdmin: user(T, T.rootSectorId, true),
  defaultUser: user(T, T.rootSectorId, false),
  s1Admin: user(T, 'S1', true),
  s1User: user(T, 'S1', false),
  s2Admin: user(T, 'S2', true),
  s1Token: apiToken(T, 'S1'),
  rootToken: apiToken(T, T.rootSectorId),
  otherTenantAdmin: user(U, U.rootSectorId, true),
};

describe('role matrix', () => {
  const s1 = route(T, 'S1');
  it.each([
    ['defaultAdmin', true],
    ['s1Admin', true],
    ['s1Token', true],
    ['s1User', false],
    ['s2Admin', false],
    ['defaultUser', false],
    ['rootToken', false],
    ['otherTenantAdmin', false],
    ['platformAdmin', false],
  ] as const)('SECTOR_ADMIN over sector S1: %s → %s', (who, expected) => {
    expect(allows(Role.SECTOR_ADMIN, principals[who], { sector: s1 })).toBe(expected);
  });

  it.each([
    ['defaultAdmin', true],
    ['s1Admin', true],
    ['s1Token', false],
    ['rootToken', false],
    ['s1User', false],
    ['s2Admin', false],
    ['defaultUser', false],
    ['otherTenantAdmin', false],
    ['platformAdmin', false],
  ] as const)('AUDIT_READER over sector S1 (signed-in admins only, never tokens): %s → %s', (who, expected) => {
    expect(allows(Role.AUDIT_READER, principals[who], { sector: s1 })).toBe(expected);
  });

  it('AUDIT_READER needs a target', () => {
    expect(allows(Role.AUDIT_READER, principals.defaultAdmin)).toBe(false);
  });

  it('SECTOR_ADMIN needs a target', () => {
    expect(allows(Role.SECTOR_ADMIN, principals.defaultAdmin)).toBe(false);
  });

  it.each([
    ['defaultAdmin', true],
    ['s1Admin', true],
    ['s1Token', false],
    ['rootToken', false],
    ['s1User', false],
    ['s2Admin', false],
    ['defaultUser', false],
    ['platformUser', false],
    ['otherTenantAdmin', false],
    ['platformAdmin', false],
  ] as const)("ROLE_ADMIN over sector S1 (defines its roles: signed-in admins only, never tokens): %s → %s", (who, expected) => {
    expect(allows(Role.ROLE_ADMIN, principals[who], { sector: s1 })).toBe(expected);
  });

  it('ROLE_ADMIN needs a target', () => {
    expect(allows(Role.ROLE_ADMIN, principals.defaultAdmin)).toBe(false);
  });

  it.each([
    ['defaultAdmin', true],
    ['s1Admin', true],
    ['s1Token', false],
    ['rootToken', false],
    ['s1User', false],
    ['s2Admin', false],
    ['defaultUser', false],
    ['platformUser', false],
    ['otherTenantAdmin', false],
    ['platformAdmin', false],
  ] as const)('WEBHOOK_ADMIN over sector S1 (manages its webhooks: signed-in admins only, never tokens): %s → %s', (who, expected) => {
    expect(allows(Role.WEBHOOK_ADMIN, principals[who], { sector: s1 })).toBe(expected);
  });

  it('WEBHOOK_ADMIN needs a target, and a transaction proof never holds it', () => {
    expect(allows(Role.WEBHOOK_ADMIN, principals.defaultAdmin)).toBe(false);
    const selfProof: Principal = { kind: 'transaction', tenant: T, sectorId: 'S1', userId: 'me', transactionId: 'x' };
    expect(allows(Role.WEBHOOK_ADMIN, selfProof, { sector: s1 })).toBe(false);
  });

  /** Targets of the user-role rows, users of S1: a non-admin, an admin, and one of no known admin flag (which counts as an admin). */
  const s1Member = { sector: s1, userId: 'member', userIsAdmin: false };
  const s1AdminUser = { sector: s1, userId: 'admin', userIsAdmin: true };
  const s1UnknownFlag = { sector: s1, userId: 'someone' };

  it.each([
    ['defaultAdmin', true],
    ['s1Admin', true],
    ['s1Token', true],
    ['rootToken', false],
    ['s1User', false],
    ['s2Admin', false],
    ['defaultUser', false],
    ['platformUser', false],
    ['otherTenantAdmin', false],
    ['platformAdmin', false],
  ] as const)("USER_ROLE_READER over a user of S1 (admins over the user's sector, its API tokens): %s → %s", (who, expected) => {
    expect(allows(Role.USER_ROLE_READER, principals[who], s1Member)).toBe(expected);
    expect(allows(Role.USER_ROLE_READER, principals[who], s1AdminUser)).toBe(expected);
  });

  it.each([
    ['defaultAdmin', true, true],
    ['s1Admin', true, true],
    ['s1Token', true, false],
    ['rootToken', false, false],
    ['s1User', false, false],
    ['s2Admin', false, false],
    ['defaultUser', false, false],
    ['platformUser', false, false],
    ['otherTenantAdmin', false, false],
    ['platformAdmin', false, false],
  ] as const)('USER_ROLE_ASSIGNER over a user of S1 (signed-in admins; tokens for non-admins only): %s → member %s, admin %s', (who, overMember, overAdmin) => {
    expect(allows(Role.USER_ROLE_ASSIGNER, principals[who], s1Member)).toBe(overMember);
    expect(allows(Role.USER_ROLE_ASSIGNER, principals[who], s1AdminUser)).toBe(overAdmin);
  });

  describe('a user and their own roles', () => {
    const me: Principal = { ...(user(T, 'S1', false) as object), userId: 'me' } as Principal;
    const adminMe: Principal = { ...(user(T, 'S1', true) as object), userId: 'me' } as Principal;
    const defaultAdminMe: Principal = { ...(user(T, T.rootSectorId, true) as object), userId: 'me' } as Principal;
    const selfProof: Principal = { kind: 'transaction', tenant: T, sectorId: 'S1', userId: 'me', transactionId: 'x' };
    const mine = { sector: s1, userId: 'me', userIsAdmin: false };
    const mineAsAdmin = { sector: s1, userId: 'me', userIsAdmin: true };

    it('reads them (a member included), but never by a transaction proof', () => {
      expect(allows(Role.USER_ROLE_READER, me, mine)).toBe(true);
      expect(allows(Role.USER_ROLE_READER, adminMe, mineAsAdmin)).toBe(true);
      expect(allows(Role.USER_ROLE_READER, me, { sector: s1, userId: 'other', userIsAdmin: false })).toBe(false);
      expect(allows(Role.USER_ROLE_READER, selfProof, mine)).toBe(false);
    });

    it('never sets them, not even as an admin over the sector', () => {
      expect(allows(Role.USER_ROLE_ASSIGNER, me, mine)).toBe(false);
      expect(allows(Role.USER_ROLE_ASSIGNER, adminMe, mineAsAdmin)).toBe(false);
      expect(allows(Role.USER_ROLE_ASSIGNER, defaultAdminMe, { sector: route(T, T.rootSectorId), userId: 'me', userIsAdmin: true })).toBe(false);
      expect(allows(Role.USER_ROLE_ASSIGNER, selfProof, mine)).toBe(false);
      // The same admins set everyone else's.
      expect(allows(Role.USER_ROLE_ASSIGNER, adminMe, s1Member)).toBe(true);
    });

    it('a transaction proof defines no roles', () => {
      expect(allows(Role.ROLE_ADMIN, selfProof, { sector: s1 })).toBe(false);
    });
  });

  it('USER_ROLE_ASSIGNER: an API token never sets the roles of a user whose admin flag is unknown', () => {
    expect(allows(Role.USER_ROLE_ASSIGNER, principals.s1Token, s1UnknownFlag)).toBe(false);
    expect(allows(Role.USER_ROLE_ASSIGNER, principals.s1Admin, s1UnknownFlag)).toBe(true);
    expect(allows(Role.USER_ROLE_READER, principals.s1Token, s1UnknownFlag)).toBe(true);
  });

  it('USER_ROLE_READER and USER_ROLE_ASSIGNER need a target', () => {
    expect(allows(Role.USER_ROLE_READER, principals.defaultAdmin)).toBe(false);
    expect(allows(Role.USER_ROLE_ASSIGNER, principals.defaultAdmin)).toBe(false);
    expect(allows(Role.USER_ROLE_ASSIGNER, principals.defaultAdmin, { sector: s1 })).toBe(false);
  });

  it.each([
    ['defaultAdmin', true],
    ['platformAdmin', true],
    ['otherTenantAdmin', true],
    ['s1Admin', false],
    ['defaultUser', false],
    ['rootToken', false],
  ] as const)('DEFAULT_SECTOR_ADMIN (own tenant): %s → %s', (who, expected) => {
    expect(allows(Role.DEFAULT_SECTOR_ADMIN, principals[who])).toBe(expected);
  });

  it.each([
    ['platformAdmin', true],
    ['platformUser', false],
    ['defaultAdmin', false],
    ['otherTenantAdmin', false],
    ['rootToken', false],
  ] as const)('PLATFORM_ADMIN: %s → %s', (who, expected) => {
    expect(allows(Role.PLATFORM_ADMIN, principals[who])).toBe(expected);
  });

  it('AUTHENTICATED admits any credential but never across tenants', () => {
    expect(allows(Role.AUTHENTICATED, principals.s1User)).toBe(true);
    expect(allows(Role.AUTHENTICATED, principals.s1Token)).toBe(true);
    expect(allows(Role.AUTHENTICATED, principals.otherTenantAdmin, { sector: s1 })).toBe(false);
  });

  describe('user roles', () => {
    const selfProof: Principal = { kind: 'transaction', tenant: T, sectorId: 'S1', userId: 'me', transactionId: 'x' };
    const me: Principal = { ...(user(T, 'S1', false) as object), userId: 'me' } as Principal;
    const closed = { allowUserCreationForNonAdmins: false, allowUserReadForNonAdmins: false };
    const open = { allowUserCreationForNonAdmins: true, allowUserReadForNonAdmins: true };

    it('lets members create and list only when the sector allows it', () => {
      expect(allows(Role.USER_CREATOR, principals.s1User, { sector: s1, flags: closed })).toBe(false);
      expect(allows(Role.USER_CREATOR, principals.s1User, { sector: s1, flags: open })).toBe(true);
      expect(allows(Role.USER_LISTER, principals.s1User, { sector: s1, flags: open })).toBe(true);
      expect(allows(Role.USER_LISTER, principals.s2Admin, { sector: s1, flags: open })).toBe(false);
      expect(allows(Role.USER_CREATOR, principals.s1Token, { sector: s1, flags: closed })).toBe(true);
    });

    it('lets a user read and edit themselves, by token or by transaction proof', () => {
      for (const p of [me, selfProof]) {
        expect(allows(Role.USER_READER, p, { sector: s1, userId: 'me', flags: closed })).toBe(true);
        expect(allows(Role.USER_EDITOR, p, { sector: s1, userId: 'me' })).toBe(true);
        expect(allows(Role.USER_EDITOR, p, { sector: s1, userId: 'other' })).toBe(false);
        expect(allows(Role.USER_ADMIN, p, { sector: s1, userId: 'me' })).toBe(false);
      }
      expect(allows(Role.USER_READER, selfProof, { sector: s1, userId: 'other', flags: open })).toBe(false);
      expect(allows(Role.AUTHENTICATED, selfProof)).toBe(false);
    });

    it('lets members read others only when the sector allows it, never edit them', () => {
      expect(allows(Role.USER_READER, principals.s1User, { sector: s1, userId: 'other', flags: closed })).toBe(false);
      expect(allows(Role.USER_READER, principals.s1User, { sector: s1, userId: 'other', flags: open })).toBe(true);
      expect(allows(Role.USER_EDITOR, principals.s1User, { sector: s1, userId: 'other' })).toBe(false);
    });

    it('lets admins (never members) manage credentials of others; users their own', () => {
      expect(allows(Role.USER_CREDENTIALS, principals.s1Admin, { sector: s1, userId: 'other', userIsAdmin: true })).toBe(true);
      expect(allows(Role.USER_CREDENTIALS, principals.defaultAdmin, { sector: s1, userId: 'other', userIsAdmin: false })).toBe(true);
      expect(allows(Role.USER_CREDENTIALS, principals.s1User, { sector: s1, userId: 'other', userIsAdmin: false })).toBe(false);
      expect(allows(Role.USER_CREDENTIALS, me, { sector: s1, userId: 'me', userIsAdmin: false })).toBe(true);
      expect(allows(Role.USER_CREDENTIALS, selfProof, { sector: s1, userId: 'me', userIsAdmin: false })).toBe(true);
      expect(allows(Role.USER_CREDENTIALS, selfProof, { sector: s1, userId: 'other', userIsAdmin: false })).toBe(false);
    });

    it('lets signed-in admins (never the user, a member or an API token) lift a hold on a factor', () => {
      const adminMe: Principal = { ...(user(T, 'S1', true) as object), userId: 'me' } as Principal;
      expect(allows(Role.USER_FACTOR_ADMIN, principals.s1Admin, { sector: s1, userId: 'other', userIsAdmin: false })).toBe(true);
      expect(allows(Role.USER_FACTOR_ADMIN, principals.defaultAdmin, { sector: s1, userId: 'other', userIsAdmin: true })).toBe(true);
      expect(allows(Role.USER_FACTOR_ADMIN, principals.s2Admin, { sector: s1, userId: 'other', userIsAdmin: false })).toBe(false);
      expect(allows(Role.USER_FACTOR_ADMIN, principals.s1User, { sector: s1, userId: 'other', userIsAdmin: false })).toBe(false);
      expect(allows(Role.USER_FACTOR_ADMIN, principals.s1Token, { sector: s1, userId: 'other', userIsAdmin: false })).toBe(false);
      expect(allows(Role.USER_FACTOR_ADMIN, me, { sector: s1, userId: 'me', userIsAdmin: false })).toBe(false);
      expect(allows(Role.USER_FACTOR_ADMIN, adminMe, { sector: s1, userId: 'me', userIsAdmin: true })).toBe(false);
      expect(allows(Role.USER_FACTOR_ADMIN, selfProof, { sector: s1, userId: 'me', userIsAdmin: false })).toBe(false);
      expect(allows(Role.USER_FACTOR_ADMIN, principals.otherTenantAdmin, { sector: s1, userId: 'other', userIsAdmin: false })).toBe(false);
    });

    it('keeps API tokens from managing API tokens', () => {
      expect(allows(Role.TOKEN_MANAGER, principals.s1Token, { sector: s1 })).toBe(false);
      expect(allows(Role.TOKEN_MANAGER, principals.s1Admin, { sector: s1 })).toBe(true);
      expect(allows(Role.TOKEN_MANAGER, principals.defaultAdmin, { sector: s1 })).toBe(true);
    });
  });

  /**
   * Every row of an API token: an admin of its own sector, bounded so that what it
   * creates or changes never exceeds the token (no admins, no passwords, no factors).
   */
  describe('API tokens', () => {
    const platformToken = apiToken(P, P.rootSectorId);
    const closed = { allowUserCreationForNonAdmins: false, allowUserReadForNonAdmins: false };
    const member = { sector: s1, userId: 'member', userIsAdmin: false, flags: closed };
    const admin = { sector: s1, userId: 'admin', userIsAdmin: true, flags: closed };
    const unknownFlag = { sector: s1, userId: 'someone', flags: closed };
    const rootMember = { sector: route(T, T.rootSectorId), userId: 'member', userIsAdmin: false, flags: closed };

    it.each([
      [Role.AUTHENTICATED, {}, true],
      [Role.SECTOR_ADMIN, { sector: s1 }, true],
      [Role.USER_CREATOR, { sector: s1, flags: closed }, true],
      [Role.USER_LISTER, { sector: s1, flags: closed }, true],
      [Role.USER_READER, member, true],
      [Role.USER_READER, admin, true],
      [Role.USER_EDITOR, member, true],
      [Role.USER_EDITOR, admin, false],
      [Role.USER_EDITOR, unknownFlag, false],
      [Role.USER_ADMIN, member, true],
      [Role.USER_ADMIN, admin, false],
      [Role.USER_ADMIN, unknownFlag, false],
      [Role.USER_CREDENTIALS, member, false],
      [Role.USER_CREDENTIALS, admin, false],
      [Role.USER_FACTOR_ADMIN, member, false],
      [Role.TOKEN_MANAGER, { sector: s1 }, false],
      [Role.AUDIT_READER, { sector: s1 }, false],
      [Role.ROLE_ADMIN, { sector: s1 }, false],
      [Role.WEBHOOK_ADMIN, { sector: s1 }, false],
      [Role.USER_ROLE_READER, member, true],
      [Role.USER_ROLE_READER, admin, true],
      [Role.USER_ROLE_ASSIGNER, member, true],
      [Role.USER_ROLE_ASSIGNER, admin, false],
      [Role.USER_ROLE_ASSIGNER, unknownFlag, false],
      [Role.DEFAULT_SECTOR_ADMIN, {}, false],
      [Role.PLATFORM_ADMIN, {}, false],
    ] as const)('a token of S1: %s over %j → %s', (role, target, expected) => {
      expect(allows(role, principals.s1Token, target)).toBe(expected);
    });

    it.each([
      [Role.SECTOR_ADMIN, { sector: s1 }],
      [Role.USER_CREATOR, { sector: s1, flags: closed }],
      [Role.USER_LISTER, { sector: s1, flags: closed }],
      [Role.USER_READER, member],
      [Role.USER_EDITOR, member],
      [Role.USER_ADMIN, member],
      [Role.USER_CREDENTIALS, member],
      [Role.USER_FACTOR_ADMIN, member],
      [Role.TOKEN_MANAGER, { sector: s1 }],
      [Role.AUDIT_READER, { sector: s1 }],
      [Role.ROLE_ADMIN, { sector: s1 }],
      [Role.WEBHOOK_ADMIN, { sector: s1 }],
      [Role.USER_ROLE_READER, member],
      [Role.USER_ROLE_ASSIGNER, member],
      [Role.DEFAULT_SECTOR_ADMIN, {}],
      [Role.PLATFORM_ADMIN, {}],
    ] as const)('a token of the default sector is not default-sector-wide: %s over S1 → false', (role, target) => {
      expect(allows(role, principals.rootToken, target)).toBe(false);
    });

    it('a token of the default sector is bounded in its own sector like any other', () => {
      expect(allows(Role.USER_EDITOR, principals.rootToken, rootMember)).toBe(true);
      expect(allows(Role.USER_CREDENTIALS, principals.rootToken, rootMember)).toBe(false);
      expect(allows(Role.TOKEN_MANAGER, principals.rootToken, { sector: route(T, T.rootSectorId) })).toBe(false);
      expect(allows(Role.DEFAULT_SECTOR_ADMIN, principals.rootToken)).toBe(false);
      expect(allows(Role.USER_ROLE_ASSIGNER, principals.rootToken, rootMember)).toBe(true);
      expect(allows(Role.USER_ROLE_READER, principals.rootToken, rootMember)).toBe(true);
      expect(allows(Role.ROLE_ADMIN, principals.rootToken, { sector: route(T, T.rootSectorId) })).toBe(false);
      expect(allows(Role.WEBHOOK_ADMIN, principals.rootToken, { sector: route(T, T.rootSectorId) })).toBe(false);
    });

    it('a token of the platform default sector holds no platform role', () => {
      expect(allows(Role.PLATFORM_ADMIN, platformToken)).toBe(false);
      expect(allows(Role.DEFAULT_SECTOR_ADMIN, platformToken)).toBe(false);
      expect(allows(Role.SECTOR_ADMIN, platformToken, { sector: s1 })).toBe(false);
      expect(allows(Role.USER_CREDENTIALS, platformToken, { ...member, sector: route(P, P.rootSectorId) })).toBe(false);
    });

    it('only signed-in admins count as user admins (granting admin, verified flags, passwords)', () => {
      expect(isUserAdminOver(principals.s1Token, s1)).toBe(false);
      expect(isAdminOver(principals.s1Token, s1)).toBe(true);
      expect(isUserAdminOver(principals.s1Admin, s1)).toBe(true);
      expect(isUserAdminOver(principals.defaultAdmin, s1)).toBe(true);
      expect(isUserAdminOver(principals.s1User, s1)).toBe(false);
      expect(isUserAdminOver(principals.otherTenantAdmin, s1)).toBe(false);
    });
  });
});
