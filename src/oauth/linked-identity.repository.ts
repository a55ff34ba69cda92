import { randomUUID } from 'node:crypto';
import { TenantDb } from '../tenancy/tenant-db';
import { LinkedIdentityEntity } from './linked-identity.entity';

/** A provider identity as the callback verified it: who issued it, its subject, the email reported. */
export interface IdentityKey {
  provider: string;
  issuer: string;
  subject: string;
  email: string;
}

/**
 * Provider identities linked to users, keyed by (sector, issuer, subject).
 * Stateless (plain SQL on the handle it is given), so the social strategy in
 * src/auth can use its own instance.
 */
export class LinkedIdentityRepository {
  findBySubject(db: TenantDb, sectorId: string, issuer: string, subject: string): Promise<LinkedIdentityEntity | null> {
    return db.manager.getRepository(LinkedIdentityEntity).findOneBy({ sectorId, issuer, subject });
  }

  listForUser(db: TenantDb, userId: string): Promise<LinkedIdentityEntity[]> {
    return db.manager.getRepository(LinkedIdentityEntity).find({ where: { userId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /**
   * Links an identity; a link of the same issuer and subject made meanwhile wins
   * (nothing is overwritten). Answers the link as it stands (its owner may be another user).
   */
  async link(db: TenantDb, sectorId: string, userId: string, identity: IdentityKey): Promise<LinkedIdentityEntity> {
    const rows = await db.rows<{ id: string }>(
      `WITH ins AS (
         INSERT INTO linked_identities (id, user_id, sector_id, provider, issuer, subject, email) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (sector_id, issuer, subject) DO NOTHING RETURNING id)
       SELECT id FROM ins
       UNION ALL SELECT id FROM linked_identities WHERE sector_id = $3 AND issuer = $5 AND subject = $6
       LIMIT 1`,
      [randomUUID(), userId, sectorId, identity.provider, identity.issuer, identity.subject, identity.email],
    );
    const repo = db.manager.getRepository(LinkedIdentityEntity);
    // A racing link committed after this statement's snapshot is found by a new one.
    return rows[0] ? repo.findOneByOrFail({ id: rows[0].id }) : repo.findOneByOrFail({ sectorId, issuer: identity.issuer, subject: identity.subject });
  }

  async touch(db: TenantDb, id: string): Promise<void> {
    await db.manager.query('UPDATE linked_identities SET last_used_at = now() WHERE id = $1', [id]);
  }

  async delete(db: TenantDb, userId: string, id: string): Promise<boolean> {
    const rows = await db.rows('DELETE FROM linked_identities WHERE user_id = $1 AND id = $2 RETURNING id', [userId, id]);
    return rows.length > 0;
  }
}
