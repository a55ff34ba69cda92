/**
 * What the console offers a signed-in user, from the role matrix (docs/api.md, Roles):
 * platform admins provision and read tenants; default-sector admins list and create
 * their tenant's sectors and administer every sector of it; a sector admin
 * administers their own sector only (settings, users, their roles, API tokens,
 * social login, the apps of its OpenID Provider, webhooks; its dashboard and audit log).
 * The API still decides: a hidden link is a convenience, never the protection.
 */
import type { Me } from '../auth/AuthContext';

export interface Abilities {
  tenants: boolean;
  sectors: boolean;
  /** May administer sectors other than their own (default-sector admins). */
  anySector: boolean;
  sectorAdmin: boolean;
}

export function abilitiesOf(me: Me | null): Abilities {
  const admin = !!me?.isAdmin;
  return {
    tenants: !!me?.isPlatformAdmin,
    sectors: !!me?.isDefaultSectorAdmin,
    anySector: !!me?.isDefaultSectorAdmin,
    sectorAdmin: admin,
  };
}

export type SectorScreen = 'dashboard' | 'users' | 'roles' | 'settings' | 'tokens' | 'oauth' | 'clients' | 'webhooks' | 'audit';

/** The sector screens in menu order; their names are the `admin` catalogue's `nav.<screen>`. */
export const SECTOR_SCREENS: Array<{ screen: SectorScreen }> = [
  { screen: 'dashboard' },
  { screen: 'users' },
  { screen: 'roles' },
  { screen: 'settings' },
  { screen: 'tokens' },
  { screen: 'oauth' },
  { screen: 'clients' },
  { screen: 'webhooks' },
  { screen: 'audit' },
];

export const sectorPath = (sectorID: string, screen: SectorScreen): string => `/console/sectors/${encodeURIComponent(sectorID)}/${screen}`;
