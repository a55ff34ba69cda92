import { Injectable } from '@nestjs/common';
import { TenantDb } from '../tenancy/tenant-db';
import { OAuthProviderEntity } from './oauth-provider.entity';

/** Seal purpose of provider client secrets and private keys (listed in SEALED_COLUMNS, src/cli/reseal-secrets.ts). */
export const OAUTH_PROVIDER_SECRET_SEAL = 'oauth-provider-secret';

/** The social-login providers of a tenant's sectors. */
@Injectable()
export class OAuthProviderRepository {
  listForSector(db: TenantDb, sectorId: string): Promise<OAuthProviderEntity[]> {
    return db.manager.getRepository(OAuthProviderEntity).find({ where: { sectorId }, order: { provider: 'ASC' } });
  }

  find(db: TenantDb, sectorId: string, provider: string): Promise<OAuthProviderEntity | null> {
    return db.manager.getRepository(OAuthProviderEntity).findOneBy({ sectorId, provider });
  }

  /** Locks the sector's provider rows for the rest of the caller's transaction (a merge reads, then writes). */
  async lockSector(db: TenantDb, sectorId: string): Promise<void> {
    await db.manager.query(`SELECT pg_advisory_xact_lock(hashtextextended('oauth-providers:' || $1, 0))`, [sectorId]);
  }

  async upsert(db: TenantDb, row: OAuthProviderEntity): Promise<void> {
    await db.manager.query(
      `INSERT INTO oauth_providers (id, sector_id, provider, enabled, client_id, client_secret_sealed, team_id, key_id, private_key_sealed, redirect_uri, issuer_url, app_id, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, now())
       ON CONFLICT (sector_id, provider) DO UPDATE SET enabled = $4, client_id = $5, client_secret_sealed = $6, team_id = $7, key_id = $8,
         private_key_sealed = $9, redirect_uri = $10, issuer_url = $11, app_id = $12, updated_at = now()`,
      [row.id, row.sectorId, row.provider, row.enabled, row.clientId, row.clientSecretSealed, row.teamId, row.keyId, row.privateKeySealed, row.redirectUri, row.issuerUrl, row.appId],
    );
  }
}
