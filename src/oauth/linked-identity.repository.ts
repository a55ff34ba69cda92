import { randomUUID } from 'node:crypto';
import { TenantDb } from '../tenancy/tenant-db';
import { LinkedIdentityEntity } from './linked-identity.entity';

/**
 * Provider identities linked to users. Stateless (plain SQL on the handle it is
 * given), so the social strategy in src/auth can use its own instance.
 */
export class LinkedIdentityRepository {
  findBySubject(db: TenantDb, sectorId: string, provider: string, subject: string): Promise<LinkedIdentityEntity | null> {
    return db.manager.getRepository(LinkedIdentityEntity).findOneBy({ sectorId, provider, subject });
  }

  listForUser(db: TenantDb, userId: string): Promise<LinkedIdentityEntity[]> {
    return db.manager.getRepository(LinkedIdentityEntity).find({ where: { userId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** Links an identity; a link of the same subject made meanwhile wins (nothing is overwritten). Answers the owner of the link. */
  async link(db: TenantDb, sectorId: string, userId: string, provider: string, subject: string, email: string): Promise<string> {
    const rows = await db.rows<{ user_id: string }>(
      `WITH ins AS (
         INSERT INTO linked_identities (id, user_id, sector_id, provider, subject, email) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (sector_id, provider, subject) DO NOTHING RETURNING user_id)
       SELECT user_id FROM ins
       UNION ALL SELECT user_id FROM linked_identities WHERE sector_id = $3 AND provider = $4 AND subject = $5
       LIMIT 1`,
      [randomUUID(), userId, sectorId, provider, subject, email],
    );
    return rows[0]?.user_id ?? userId;
  }

  async touch(db: TenantDb, id: string): Promise<void> {
    await db.manager.query('UPDATE linked_identities SET last_used_at = now() WHERE id = $1', [id]);
  }

  async delete(db: TenantDb, userId: string, id: string): Promise<boolean> {
    const rows = await db.rows('DELETE FROM linked_identities WHERE user_id = $1 AND id = $2 RETURNING id', [userId, id]);
    return rows.length > 0;
  }
}
