import type { TenantEntity } from '../../tenant/tenant.entity';
import type { SectorRoute } from '../tenancy/tenant-directory';
import type { Principal } from './principal';
import { allows, Role } from './role-matrix';

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
    expect(allows(Role.SECTOR_ADMIN, principals[who], s1)).toBe(expected);
  });

  it('SECTOR_ADMIN needs a target', () => {
    expect(allows(Role.SECTOR_ADMIN, principals.defaultAdmin)).toBe(false);
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
    expect(allows(Role.AUTHENTICATED, principals.otherTenantAdmin, s1)).toBe(false);
  });
});
