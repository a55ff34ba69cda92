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

  /** The roles each of these users holds (id and name, by name). */
  async heldBy(db: TenantDb, userIds: string[]): Promise<Map<string, Array<{ id: string; name: string }>>> {
    const rows = await db.read<{ userId: string; id: string; name: string }>(
      `SELECT ur.user_id AS "userId", r.id, r.name FROM user_roles ur JOIN roles r ON r.id = ur.role_id
        WHERE ur.user_id = ANY($1::uuid[]) ORDER BY r.name COLLATE "C"`,
      [userIds],
    );
    const out = new Map<string, Array<{ id: string; name: string }>>();
    for (const r of rows) {
      const list = out.get(r.userId) ?? [];
      list.push({ id: r.id, name: r.name });
      out.set(r.userId, list);
    }
    return out;
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
