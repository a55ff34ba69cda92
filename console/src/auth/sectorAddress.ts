/**
 * A tenant's pages live under `/t/{tenant}/` (its default sector) and
 * `/t/{tenant}/{sector}/` (any sector), e.g. `/t/acme/console`,
 * `/t/acme/staff/account/sign-in`, `/t/acme/staff/reset-password?token=…`. The
 * prefix is read once from the address the app was loaded at and becomes the
 * router's basename, so every page and link inside stays in that sector; the
 * sector's id comes from `GET /api/v1/sign-in-options?tenant=…&sector=…`.
 */
export interface SectorAddress {
  tenant: string;
  /** The sector's slug; undefined: the tenant's default sector. */
  sector?: string;
  /** The router's basename: `/t/{tenant}` or `/t/{tenant}/{sector}`. */
  basename: string;
}

/** The app's top-level pages: what follows `/t/{tenant}/` when no sector slug is there. */
const PAGES = new Set(['console', 'account', 'invite', 'reset-password', 'magic-link', 'verify-email', 'confirm-email']);

/**
 * The sector an address names, or undefined outside `/t/`. After the tenant, a
 * page name means the default sector, unless a page name follows it too (a
 * sector whose slug is a page name: `/t/acme/account/account/sign-in`).
 */
function sectorAddressOf(pathname: string): SectorAddress | undefined {
  const parts = pathname.split('/');
  if (parts[1] !== 't' || !parts[2]) return undefined;
  const [, , tenantPart, second, third] = parts;
  const tenant = decodeURIComponent(tenantPart);
  if (!second || (PAGES.has(second) && !(third && PAGES.has(third)))) return { tenant, basename: `/t/${tenantPart}` };
  return { tenant, sector: decodeURIComponent(second), basename: `/t/${tenantPart}/${second}` };
}

/** The address this app was loaded at (fixed for the page's life: changing sector is a new page load). */
export const loadedAddress: SectorAddress | undefined = sectorAddressOf(window.location.pathname);

/** An app path as a full path on this origin (for addresses given to others: social return URLs, copied links). */
export function absolutePath(path: string): string {
  return `${loadedAddress?.basename ?? ''}${path}`;
}

/** The address of a sector's page: the short form for a default sector's console, else `/t/{tenant}/{sector}{page}`. */
export function sectorPageURL(origin: string, tenantSlug: string, sectorSlug: string, isDefault: boolean, page: string): string {
  const tenant = encodeURIComponent(tenantSlug);
  return isDefault && page.startsWith('/console') ? `${origin}/t/${tenant}${page}` : `${origin}/t/${tenant}/${encodeURIComponent(sectorSlug)}${page}`;
}
