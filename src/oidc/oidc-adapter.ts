import type { TenantDb } from '../tenancy/tenant-db';
import { currentOidcCall } from './oidc-call';
import type { OidcClientStore } from './oidc-client-store';
import { OidcPayload, OidcStorageRepository } from './oidc-storage.repository';

/** The storage interface `oidc-provider` asks of an adapter, one instance per model. */
export interface OidcAdapter {
  upsert(id: string, payload: OidcPayload, expiresIn?: number): Promise<void>;
  find(id: string): Promise<OidcPayload | undefined>;
  findByUserCode(userCode: string): Promise<OidcPayload | undefined>;
  findByUid(uid: string): Promise<OidcPayload | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

/** Where one issuer's storage is: its tenant's database (looked up per call: a tenant can move) and its sector. */
export interface OidcStorageScope {
  sectorId: string;
  db(): Promise<TenantDb>;
}

const NOT_STORED = Promise.resolve(undefined);

/** The key of a finished interaction's result that names the service session behind its login (see OidcInteractionService). */
export const SERVICE_SESSION_RESULT_KEY = 'serviceSessionId';

/** Remembers, for the rest of the request, the service session a finished interaction's login came from. */
function noteServiceSession(payload: OidcPayload | undefined): void {
  const result = payload?.result as Record<string, unknown> | undefined;
  const id = result?.[SERVICE_SESSION_RESULT_KEY];
  if (typeof id === 'string') {
    const call = currentOidcCall();
    call.serviceSessionId = id;
  }
}

/**
 * The adapter factory of one issuer: every model in PostgreSQL, in the tenant's own
 * database, scoped to the sector. Clients are their own table (secrets sealed, the
 * registrant recorded); everything else is one payload table.
 */
export function oidcAdapterFactory(
  storage: OidcStorageRepository,
  clients: OidcClientStore,
  scope: OidcStorageScope,
  /** Throws the library's client metadata error for a registration the service refuses beyond the library's own rules. */
  checkClient: (metadata: OidcPayload) => void,
): (model: string) => OidcAdapter {
  const { sectorId } = scope;
  return (model: string): OidcAdapter => {
    if (model === 'Client') {
      return {
        upsert: async (_id, payload) => {
          checkClient(payload);
          await clients.save(await scope.db(), sectorId, payload, currentOidcCall().registrant ?? { firstParty: false, createdBy: null });
        },
        find: async (id) => (await clients.find(await scope.db(), sectorId, id))?.metadata,
        findByUserCode: () => NOT_STORED,
        findByUid: () => NOT_STORED,
        consume: async () => undefined,
        destroy: async (id) => void (await clients.remove(await scope.db(), sectorId, id)),
        revokeByGrantId: async () => undefined,
      };
    }
    return {
      upsert: async (id, payload, expiresIn) =>
        storage.upsert(await scope.db(), sectorId, model, id, payload, expiresIn, model === 'Session' ? currentOidcCall().serviceSessionId : undefined),
      find: async (id) => {
        const payload = await storage.find(await scope.db(), sectorId, model, id);
        if (model === 'Interaction') noteServiceSession(payload);
        return payload;
      },
      findByUserCode: async (userCode) => storage.findBy(await scope.db(), sectorId, model, 'user_code', userCode),
      findByUid: async (uid) => storage.findBy(await scope.db(), sectorId, model, 'uid', uid),
      consume: async (id) => storage.consume(await scope.db(), sectorId, model, id),
      destroy: async (id) => storage.destroy(await scope.db(), sectorId, model, id),
      revokeByGrantId: async (grantId) => storage.revokeByGrantId(await scope.db(), sectorId, grantId),
    };
  };
}
