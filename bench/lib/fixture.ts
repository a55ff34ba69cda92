import * as bcrypt from 'bcrypt';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { withDatabase } from '../../src/database/data-source-options';
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

/**
 * The hash of the bench's user password at cost 4, for users seeded straight into a
 * tenant's storage: the service verifies a hash at the hash's own cost (and does not
 * rehash on login), so such users sign in cheaply whatever BCRYPT_COST is.
 */
export function userPasswordHash(): Promise<string> {
  return bcrypt.hash(USER_PASSWORD, 4);
}

/** Signs in a user that has the bench's user password (created by userWithToken, or seeded with userPasswordHash). */
export function userLogin(base: string, username: string, sectorID: string): Promise<string> {
  return login(base, username, USER_PASSWORD, sectorID);
}

/** Where a (non-platform) tenant's tables live, as the main database's directory says. */
export interface TenantStorageRef {
  id: string;
  storage: 'pooled' | 'schema';
  databaseName: string | null;
  schemaName: string | null;
  rootSectorId: string;
}

/** The storage of every tenant of a deployment but the platform, by tenant id (read from its main database). */
export async function tenantStorages(mainUrl: string): Promise<Map<string, TenantStorageRef>> {
  const client = new Client({ connectionString: mainUrl, application_name: 'iam-bench' });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; storage: 'pooled' | 'schema'; database_name: string | null; schema_name: string | null; root_sector_id: string }>(
      'SELECT id, storage, database_name, schema_name, root_sector_id FROM tenants WHERE NOT is_platform',
    );
    return new Map(rows.map((r) => [r.id, { id: r.id, storage: r.storage, databaseName: r.database_name, schemaName: r.schema_name, rootSectorId: r.root_sector_id }]));
  } finally {
    await client.end();
  }
}

/**
 * The database a tenant's tables are in, on the deployment's server: its own
 * database (pooled mode; the bench's tenants are on the main database's server) or
 * the main database (schema mode; see useStorage).
 */
export function storageUrl(mainUrl: string, ref: TenantStorageRef): string {
  if (ref.storage === 'schema') return mainUrl;
  if (!ref.databaseName) throw new Error(`tenant ${ref.id}: pooled, but no database_name`);
  return withDatabase(mainUrl, ref.databaseName);
}

/** Points a session on storageUrl(ref) at the tenant's tables: in schema mode its search_path, as the service sets it. */
export async function useStorage(client: Client, ref: TenantStorageRef): Promise<void> {
  if (ref.storage !== 'schema') return;
  if (!ref.schemaName) throw new Error(`tenant ${ref.id}: schema mode, but no schema_name`);
  await client.query(`SET search_path TO ${client.escapeIdentifier(ref.schemaName)}`);
}

/** A session on a tenant's storage (close it with `end()`). */
export async function storageClient(mainUrl: string, ref: TenantStorageRef, applicationName = 'iam-bench'): Promise<Client> {
  const client = new Client({ connectionString: storageUrl(mainUrl, ref), application_name: applicationName });
  await client.connect();
  try {
    await useStorage(client, ref);
  } catch (err) {
    await client.end().catch(() => undefined);
    throw err;
  }
  return client;
}
