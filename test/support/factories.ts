import * as bcrypt from 'bcrypt';
import { randomBytes, randomUUID } from 'node:crypto';
import { claimsOf } from './contract';
import { TestApp } from './test-app';
import { TenantConnections } from '../../src/tenancy/tenant-connections';
import { TenantDirectory } from '../../src/tenancy/tenant-directory';

export interface ProvisionedTenant {
  tenantID: string;
  slug: string;
  kid: string;
  rootSectorID: string;
  adminEmail: string;
  adminPassword: string;
  adminToken: string;
}

export function uniqueSlug(prefix = 't'): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/** Provisions a tenant through the API as the platform admin and signs its admin in. */
export async function provisionTenant(t: TestApp, slug = uniqueSlug()): Promise<ProvisionedTenant> {
  const adminEmail = `admin@${slug}.test`;
  const adminPassword = `pw-${slug}-secret`;
  const res = await t
    .http()
    .post('/api/v1/tenants')
    .set('Authorization', `Bearer ${await t.platformToken()}`)
    .send({ slug, name: `Tenant ${slug}`, adminEmail, adminPassword });
  if (res.status !== 200) throw new Error(`provisioning ${slug} failed: ${res.status} ${JSON.stringify(res.body)}`);
  const adminToken = await t.login(adminEmail, adminPassword, res.body.sector.sectorID);
  return { tenantID: res.body.tenantID, slug, kid: res.body.kid, rootSectorID: res.body.sector.sectorID, adminEmail, adminPassword, adminToken };
}

/** Creates a sector through the API as a default-sector admin. */
export async function createSector(t: TestApp, adminToken: string, slug = uniqueSlug('s'), extra: Record<string, unknown> = {}): Promise<string> {
  const res = await t
    .http()
    .post('/api/v1/sectors')
    .set('Authorization', `Bearer ${adminToken}`)
    .send({ name: `Sector ${slug}`, slug, domain: `${slug}.example.com`, ...extra });
  if (res.status !== 200) throw new Error(`creating sector ${slug} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.sectorID as string;
}

/** Creates a user through the API (POST /api/v1/sectors/{sectorID}/users as `token`, normally an admin's) and returns its sub. */
export async function createUser(t: TestApp, token: string, sectorID: string, user: Record<string, unknown>): Promise<string> {
  const res = await t.http().post(`/api/v1/sectors/${sectorID}/users`).set('Authorization', `Bearer ${token}`).send(user);
  if (res.status !== 200) throw new Error(`creating ${String(user.email)} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.sub as string;
}

/**
 * Inserts a user straight into a tenant's database (user administration arrives
 * with its own API; until then tests seed users this way) and returns its id.
 */
export async function seedUser(
  t: TestApp,
  tenantID: string,
  sectorID: string,
  user: { email: string; password: string; isAdmin?: boolean; username?: string },
): Promise<string> {
  const tenant = await t.app.get(TenantDirectory).requireTenant(tenantID);
  const db = await t.app.get(TenantConnections).db(tenant);
  const id = randomUUID();
  await db.manager.query(
    'INSERT INTO users (id, sector_id, username, email, password_hash, is_admin) VALUES ($1, $2, $3, $4, $5, $6)',
    [id, sectorID, user.username ?? user.email, user.email, await bcrypt.hash(user.password, 4), user.isAdmin ?? false],
  );
  return id;
}

/** Runs SQL in a tenant's own database or schema. */
export async function tenantSql(t: TestApp, tenantID: string, text: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  const tenant = await t.app.get(TenantDirectory).requireTenant(tenantID);
  const db = await t.app.get(TenantConnections).db(tenant);
  return db.manager.query(text, params);
}

/** The contract error assertion lives in ./contract; re-exported for the specs that import it from here. */
export { expectError } from './contract';

/**
 * Ages a session as if its sign-in was `minutes` ago (its `created_at` moved back)
 * and refreshes it: the new access token carries that old `auth_time`, which is how
 * the step-up specs get a token whose sign-in is no longer recent.
 */
export async function agedSession(
  t: TestApp,
  tenantID: string,
  session: { token: string; refreshToken: string },
  minutes = 10,
): Promise<{ token: string; refreshToken: string }> {
  const { sid } = claimsOf(session.token);
  await tenantSql(t, tenantID, `UPDATE sessions SET created_at = created_at - make_interval(mins => $2) WHERE id = $1`, [sid, minutes]);
  const refreshed = await t.http().post('/api/v1/token/refresh').send({ refreshToken: session.refreshToken });
  if (refreshed.status !== 200) throw new Error(`refreshing the aged session failed: ${refreshed.status} ${JSON.stringify(refreshed.body)}`);
  return { token: refreshed.body.token as string, refreshToken: refreshed.body.refreshToken as string };
}
