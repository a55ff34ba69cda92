import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { TenantDb } from '../tenancy/tenant-db';
import { ClientRegistrant, OidcPayload, OidcStorageRepository, StoredOidcClient } from './oidc-storage.repository';

/** Metadata fields an audit event names when they change (never the secret). */
const AUDITED = ['client_name', 'redirect_uris', 'post_logout_redirect_uris', 'grant_types', 'token_endpoint_auth_method', 'jwks_uri', 'backchannel_logout_uri'];

/**
 * Saving and removing apps (OpenID Provider clients) with their audit events in the
 * same transaction, whoever does it: the admin API, or the provider library for a
 * dynamic registration (RFC 7591) and its management (RFC 7592).
 */
@Injectable()
export class OidcClientStore {
  constructor(
    private readonly storage: OidcStorageRepository,
    private readonly audit: AuditService,
  ) {}

  find(db: TenantDb, sectorId: string, clientId: string): Promise<StoredOidcClient | undefined> {
    return this.storage.findClient(db, sectorId, clientId);
  }

  /** Creates or replaces a client; `oidc_client.created` or `.updated` (with the names of the changed fields), or `.secret_rotated`. */
  async save(db: TenantDb, sectorId: string, metadata: OidcPayload, registrant: ClientRegistrant): Promise<void> {
    const clientId = String(metadata.client_id);
    await db.transaction(async (tx) => {
      const before = await this.storage.findClient(tx, sectorId, clientId);
      await this.storage.upsertClient(tx, sectorId, metadata, registrant);
      const target = { kind: 'oidcClient', id: clientId };
      if (!before) {
        await this.audit.record(tx, { type: 'oidc_client.created', sectorId, target, details: { clientName: metadata.client_name ?? '', firstParty: registrant.firstParty } });
        return;
      }
      const changed = AUDITED.filter((f) => JSON.stringify(before.metadata[f] ?? null) !== JSON.stringify(metadata[f] ?? null));
      if (registrant.replacesFirstParty && registrant.firstParty !== before.firstParty) changed.push('first_party');
      if (changed.length > 0) await this.audit.record(tx, { type: 'oidc_client.updated', sectorId, target, details: { fields: changed } });
      if (before.metadata.client_secret !== metadata.client_secret) await this.audit.record(tx, { type: 'oidc_client.secret_rotated', sectorId, target });
    });
  }

  /** Deletes a client and everything issued to it; `oidc_client.deleted`. False when there was none. */
  async remove(db: TenantDb, sectorId: string, clientId: string): Promise<boolean> {
    return db.transaction(async (tx) => {
      const deleted = await this.storage.deleteClient(tx, sectorId, clientId);
      if (deleted) await this.audit.record(tx, { type: 'oidc_client.deleted', sectorId, target: { kind: 'oidcClient', id: clientId } });
      return deleted;
    });
  }

  list(db: TenantDb, sectorId: string): Promise<StoredOidcClient[]> {
    return this.storage.listClients(db, sectorId);
  }
}
