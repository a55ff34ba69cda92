import { randomBytes } from 'node:crypto';
import { jwtClaims, ok } from './http';
import { PLATFORM_ADMIN, PLATFORM_PASSWORD } from './service';

export const TENANT_ADMIN_PASSWORD = 'tenant-admin-password';
const USER_PASSWORD = 'bench-user-password';

/** A provisioned tenant with its first admin (an admin of the default sector) signed in. */
export interface TenantFixture {
  slug: string;
  tenantID: string;
  sectorID: string;
  adminEmail: string;
  adminToken: string;
  adminSub: string;
}

export async function login(base: string, username: string, password: string, sectorID?: string): Promise<string> {
  const body = await ok('POST', `${base}/api/v1/login/password`, { username, password, ...(sectorID ? { sectorID } : {}) });
  if (typeof body.token !== 'string') throw new Error(`login of ${username}: no token (${JSON.stringify(body)})`);
  return body.token;
}

export function platformLogin(base: string): Promise<string> {
  return login(base, PLATFORM_ADMIN, PLATFORM_PASSWORD);
}

/** Provisions a tenant with a first admin; signs the admin in unless `signIn` is false. */
export async function provisionTenant(base: string, platformToken: string, prefix = 'bench', signIn = true): Promise<TenantFixture> {
  const slug = `${prefix}-${randomBytes(4).toString('hex')}`;
  const adminEmail = `admin@${slug}.test`;
  const tenant = await ok('POST', `${base}/api/v1/tenants`, { slug, name: slug, adminEmail, adminPassword: TENANT_ADMIN_PASSWORD }, platformToken);
  const sectorID = (tenant.sector as { sectorID: string }).sectorID;
  const adminToken = signIn ? await login(base, adminEmail, TENANT_ADMIN_PASSWORD, sectorID) : '';
  return { slug, tenantID: tenant.tenantID as string, sectorID, adminEmail, adminToken, adminSub: signIn ? String(jwtClaims(adminToken).sub) : '' };
}

/** Creates a user with a password in a sector (as its admin) and signs them in. */
export async function userWithToken(base: string, t: TenantFixture, isAdmin = false): Promise<{ sub: string; email: string; token: string }> {
  const email = `u-${randomBytes(5).toString('hex')}@${t.slug}.test`;
  const user = await ok('POST', `${base}/api/v1/sectors/${t.sectorID}/users`, { email, password: USER_PASSWORD, ...(isAdmin ? { isAdmin: true } : {}) }, t.adminToken);
  const token = await login(base, email, USER_PASSWORD, t.sectorID);
  return { sub: String(user.sub), email, token };
}

/** Creates an API token of the sector; answers its id and the plaintext `iam_…` value. */
export async function apiToken(base: string, t: TenantFixture): Promise<{ id: string; token: string }> {
  const body = await ok('POST', `${base}/api/v1/sectors/${t.sectorID}/tokens`, { name: `bench-${randomBytes(3).toString('hex')}` }, t.adminToken);
  const meta = body.apiToken as { id: string };
  return { id: meta.id, token: body.token as string };
}
