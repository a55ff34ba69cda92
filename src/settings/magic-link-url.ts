/**
 * Where a sector's mail links (invitations, sign-in links, password resets,
 * email verification) point: the sector's MagicLinkURL when it is usable, the
 * service's own page under PUBLIC_URL otherwise. These links carry one-time
 * tokens, so MagicLinkURL must be https (http only for localhost, 127.0.0.1 or
 * [::1] outside production) on an origin the service already trusts: the
 * origin of PUBLIC_URL or one of the sector's allowedOrigins.
 */

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** An origin as compared here: lowercase, without a trailing slash (undefined when not an http(s) origin). */
function originOf(value: string): string | undefined {
  try {
    const url = new URL(value.trim());
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
    return url.origin.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * Why `value` cannot be a sector's MagicLinkURL (undefined: it can; empty
 * means the default and always can).
 */
export function magicLinkUrlProblem(value: string, publicUrl: string, allowedOrigins: readonly string[], production: boolean): string | undefined {
  if (value === '') return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute https URL, or empty';
  }
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  const local = LOCAL_HOSTS.has(url.hostname.toLowerCase());
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local && !production)) {
    return production ? 'must use https' : 'must use https (http only for localhost, 127.0.0.1 or [::1])';
  }
  const trusted = new Set([publicUrl, ...allowedOrigins].map(originOf).filter((o): o is string => o !== undefined));
  if (!trusted.has(url.origin.toLowerCase())) return "must be on PUBLIC_URL's origin or one of the sector's allowedOrigins";
  return undefined;
}

/**
 * The base of a mail link: the sector's MagicLinkURL when it passes
 * `magicLinkUrlProblem` today (a stored value the rules or the sector's origins
 * no longer allow is not used), otherwise `${publicUrl}${defaultPath}`.
 */
export function linkBase(settings: { magicLinkUrl: string }, publicUrl: string, defaultPath: string, allowedOrigins: readonly string[], production: boolean): string {
  const configured = settings.magicLinkUrl;
  if (configured && magicLinkUrlProblem(configured, publicUrl, allowedOrigins, production) === undefined) return configured;
  return `${publicUrl}${defaultPath}`;
}

/**
 * The address of one of a sector's public pages on this service: under
 * `/t/{tenant}/{sector}`, so a page opened from a mail knows its sector (the
 * sign-in steps it leads to, MFA included, and its follow-up links stay there).
 */
export function sectorPagePath(tenantSlug: string, sectorSlug: string, page: string): string {
  return `/t/${encodeURIComponent(tenantSlug)}/${encodeURIComponent(sectorSlug)}${page}`;
}
