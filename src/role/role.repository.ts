import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { TenantDb } from '../tenancy/tenant-db';

/** A role as stored (migration Roles). */
export interface RoleRow {
  id: string;
  sectorId: string;
  name: string;
  description: string;
  permissions: string[];
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = `id, sector_id AS "sectorId", name, description, permissions, created_at AS "createdAt", updated_at AS "updatedAt"`;

/** A role as a SCIM group. */
export interface GroupRow {
  id: string;
  sectorId: string;
  name: string;
  /** The name the directory gave the group ('' for a role made by an admin: its name serves). */
  displayName: string;
  externalId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const GROUP_COLUMNS = `id, sector_id AS "sectorId", name, display_name AS "displayName", external_id AS "externalId", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** Roles of a tenant's sectors and who holds them; every method takes the tenant's database handle first. */
@Injectable()
export class RoleRepository {
  /** The sector's roles by name (byte order, so the same on every server). */
  list(db: TenantDb, sectorId: string): Promise<RoleRow[]> {
    return db.read<RoleRow>(`SELECT ${COLUMNS} FROM roles WHERE sector_id = $1 ORDER BY name COLLATE "C"`, [sectorId]);
  }

  /** Serialises the writes that create or delete roles of a sector, for the rest of the caller's transaction (the per-sector bound). */
  async lockSector(tx: TenantDb, sectorId: string): Promise<void> {
    await tx.rows(`SELECT pg_advisory_xact_lock(hashtextextended('roles:' || $1, 0))`, [sectorId]);
  }

  async count(tx: TenantDb, sectorId: string): Promise<number> {
    const [row] = await tx.rows<{ n: number }>('SELECT count(*)::int AS n FROM roles WHERE sector_id = $1', [sectorId]);
    return row.n;
  }

  async find(tx: TenantDb, sectorId: string, name: string): Promise<RoleRow | null> {
    return (await tx.rows<RoleRow>(`SELECT ${COLUMNS} FROM roles WHERE sector_id = $1 AND name = $2`, [sectorId, name]))[0] ?? null;
  }

  /** Creates the role, or replaces the description and permissions of the one of that name. */
  async upsert(tx: TenantDb, sectorId: string, name: string, description: string, permissions: string[]): Promise<RoleRow> {
    const [row] = await tx.rows<RoleRow>(
      `INSERT INTO roles (id, sector_id, name, description, permissions) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (sector_id, name) DO UPDATE SET description = EXCLUDED.description, permissions = EXCLUDED.permissions, updated_at = now()
       RETURNING ${COLUMNS}`,
      [randomUUID(), sectorId, name, description, permissions],
    );
    return row;
  }

  /** Deletes the role (its holdings go with it); the deleted row, or null when there was none. */
  async delete(tx: TenantDb, sectorId: string, name: string): Promise<RoleRow | null> {
    return (await tx.rows<RoleRow>(`DELETE FROM roles WHERE sector_id = $1 AND name = $2 RETURNING ${COLUMNS}`, [sectorId, name]))[0] ?? null;
  }

  /** Up to `limit` ids of the users holding the role. */
  async holders(tx: TenantDb, roleId: string, limit: number): Promise<string[]> {
    const rows = await tx.rows<{ userId: string }>('SELECT user_id AS "userId" FROM user_roles WHERE role_id = $1 LIMIT $2', [roleId, limit]);
    return rows.map((r) => r.userId);
  }

  /**
   * The roles of the sector with these names, locked against deletion until the
   * caller's transaction ends (so a holding is never added to a role being deleted).
   */
  resolve(tx: TenantDb, sectorId: string, names: string[]): Promise<Array<{ id: string; name: string }>> {
    return tx.rows('SELECT id, name FROM roles WHERE sector_id = $1 AND name = ANY($2::text[]) FOR SHARE', [sectorId, names]);
  }

  /** A group as SCIM sees a role: its row with the directory's display name and external id. */
  async findGroup(db: TenantDb, sectorId: string, id: string): Promise<GroupRow | null> {
    return (await db.read<GroupRow>(`SELECT ${GROUP_COLUMNS} FROM roles WHERE sector_id = $1 AND id = $2`, [sectorId, id]))[0] ?? null;
  }

  /** Groups of the sector by id, in the order of `ids`. */
  async groupsById(db: TenantDb, ids: string[]): Promise<GroupRow[]> {
    const rows = await db.read<GroupRow>(`SELECT ${GROUP_COLUMNS} FROM roles WHERE id = ANY($1::uuid[])`, [ids]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** Creates a role for a SCIM group (no permissions until an admin adds some). */
  async insertGroup(tx: TenantDb, sectorId: string, name: string, displayName: string, externalId: string | null): Promise<string> {
    const id = randomUUID();
    await tx.rows(`INSERT INTO roles (id, sector_id, name, display_name, external_id) VALUES ($1, $2, $3, $4, $5)`, [id, sectorId, name, displayName, externalId]);
    return id;
  }

  async updateGroup(tx: TenantDb, id: string, name: string, displayName: string, externalId: string | null): Promise<void> {
    await tx.rows(
      `UPDATE roles SET name = $2, display_name = $3, external_id = $4, updated_at = now()
        WHERE id = $1 AND (name, display_name, external_id) IS DISTINCT FROM ($2, $3, $4)`,
      [id, name, displayName, externalId],
    );
  }

  /** Marks the role changed now (its SCIM version follows its membership). */
  async touch(tx: TenantDb, id: string): Promise<void> {
    await tx.rows('UPDATE roles SET updated_at = now() WHERE id = $1', [id]);
  }

  /** Whether another role of the sector already has this name, or this display name (case-insensitively). */
  async groupNameTaken(tx: TenantDb, sectorId: string, name: string, displayName: string, exceptId: string | null): Promise<{ name: boolean; displayName: boolean }> {
    const [row] = await tx.rows<{ name: boolean; displayName: boolean }>(
      `SELECT coalesce(bool_or(name = $2), false) AS name, coalesce(bool_or(lower(coalesce(nullif(display_name, ''), name)) = lower($3)), false) AS "displayName"
         FROM roles WHERE sector_id = $1 AND id IS DISTINCT FROM $4::uuid`,
      [sectorId, name, displayName, exceptId],
    );
    return row;
  }

  /** The holders of each role (user ids), with their usernames. */
  async membersOf(db: TenantDb, roleIds: string[]): Promise<Map<string, Array<{ id: string; username: string }>>> {
    const rows = await db.read<{ roleId: string; id: string; username: string }>(
      `SELECT ur.role_id AS "roleId", u.id, u.username FROM user_roles ur JOIN users u ON u.id = ur.user_id
        WHERE ur.role_id = ANY($1::uuid[]) ORDER BY u.created_at, u.id`,
      [roleIds],
    );
    return groupBy(rows, (r) => r.roleId, (r) => ({ id: r.id, username: r.username }));
  }

  /** Makes exactly `userIds` hold the role, in one statement; the ids added and removed. */
  async setMembers(tx: TenantDb, roleId: string, userIds: string[]): Promise<{ added: string[]; removed: string[] }> {
    const [row] = await tx.rows<{ added: string[] | null; removed: string[] | null }>(
      `WITH gone AS (
         DELETE FROM user_roles ur WHERE ur.role_id = $1 AND NOT (ur.user_id = ANY($2::uuid[])) RETURNING ur.user_id
       ), added AS (
         INSERT INTO user_roles (user_id, role_id) SELECT u, $1 FROM unnest($2::uuid[]) u ON CONFLICT DO NOTHING RETURNING user_id
       )
       SELECT (SELECT array_agg(user_id::text) FROM added) AS added, (SELECT array_agg(user_id::text) FROM gone) AS removed`,
      [roleId, userIds],
    );
    return { added: row.added ?? [], removed: row.removed ?? [] };
  }

  /** The roles each of these users holds (id and name, by name). */
  async heldBy(db: TenantDb, userIds: string[]): Promise<Map<string, Array<{ id: string; name: string }>>> {
    const rows = await db.read<{ userId: string; id: string; name: string }>(
      `SELECT ur.user_id AS "userId", r.id, r.name FROM user_roles ur JOIN roles r ON r.id = ur.role_id
        WHERE ur.user_id = ANY($1::uuid[]) ORDER BY r.name COLLATE "C"`,
      [userIds],
    );
    return groupBy(rows, (r) => r.userId, (r) => ({ id: r.id, name: r.name }));
  }

  /** Makes the user hold exactly `roleIds`, in one statement; the names of the roles added and removed. */
  async setHoldings(tx: TenantDb, userId: string, roleIds: string[]): Promise<{ added: string[]; removed: string[] }> {
    const [row] = await tx.rows<{ added: string[] | null; removed: string[] | null }>(
      `WITH gone AS (
         DELETE FROM user_roles ur WHERE ur.user_id = $1 AND NOT (ur.role_id = ANY($2::uuid[])) RETURNING ur.role_id
       ), added AS (
         INSERT INTO user_roles (user_id, role_id) SELECT $1, r FROM unnest($2::uuid[]) r ON CONFLICT DO NOTHING RETURNING role_id
       )
       SELECT (SELECT array_agg(r.name ORDER BY r.name COLLATE "C") FROM added a JOIN roles r ON r.id = a.role_id) AS added,
              (SELECT array_agg(r.name ORDER BY r.name COLLATE "C") FROM gone g JOIN roles r ON r.id = g.role_id) AS removed`,
      [userId, roleIds],
    );
    return { added: row.added ?? [], removed: row.removed ?? [] };
  }
}

/** Rows grouped by `keyOf`, each as `valueOf` makes it, in the rows' order. */
function groupBy<R, V>(rows: R[], keyOf: (row: R) => string, valueOf: (row: R) => V): Map<string, V[]> {
  const out = new Map<string, V[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const list = out.get(key);
    if (list) list.push(valueOf(row));
    else out.set(key, [valueOf(row)]);
  }
  return out;
}
