import { Injectable } from '@nestjs/common';
import { SecretBox } from '../common/crypto/secret-box';
import { TenantDb } from '../tenancy/tenant-db';

/** Seal purpose of OpenID Provider client secrets (listed in SEALED_COLUMNS, src/cli/reseal-secrets.ts). */
export const OIDC_CLIENT_SECRET_SEAL = 'oidc-client-secret';

/** An artifact of the provider library: its JSON payload, as the library stored it. */
export type OidcPayload = Record<string, unknown>;

/** Who registered a client: an admin credential makes it first-party. */
export interface ClientRegistrant {
  firstParty: boolean;
  /** `user:<id>` or `apiToken:<id>`, for the record. */
  createdBy: string | null;
  /** An admin's replace sets `firstParty` on an existing client too (otherwise an update keeps it). */
  replacesFirstParty?: boolean;
}

/** A registered client as stored, its secret opened. */
export interface StoredOidcClient {
  metadata: OidcPayload;
  firstParty: boolean;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Which provider sessions end: those the given service sessions logged in, or a user's (all, or all but one service session's). */
export type EndedSessionsQuery =
  | { kind: 'sessions'; serviceSessionIds: string[] }
  | { kind: 'account'; accountId: string; exceptServiceSessionId: string | null; everything: boolean };

/** A provider session that ended: its sector and the library's payload of it. */
export interface EndedProviderSession {
  sectorId: string;
  payload: OidcPayload;
}

/** A user's grant to an app as stored: the library's payload and the app's metadata. */
export interface StoredGrant {
  clientId: string;
  grant: OidcPayload;
  metadata: OidcPayload;
  firstParty: boolean;
  expiresAt: Date | null;
}

/** Lookups the library makes besides by id. */
export type OidcLookup = 'uid' | 'user_code';

/** One in this many writes also deletes a batch of long-expired rows of the tenant (no sweeper visits idle tenants). */
const SWEEP_EVERY = 64;
const SWEEP_BATCH = 500;

const CLIENT_COLUMNS = `metadata, client_secret_sealed AS sealed, first_party AS "firstParty", created_by AS "createdBy", created_at AS "createdAt", updated_at AS "updatedAt"`;

interface ClientRow {
  metadata: OidcPayload;
  sealed: string | null;
  firstParty: boolean;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

interface PayloadRow {
  payload: OidcPayload;
  consumed: boolean;
}

/**
 * The OpenID Provider's storage in the tenant's own database, scoped to one sector:
 * every statement names the sector, so an issuer never reads another sector's
 * clients, codes or tokens. Clients live in `oidc_clients` (the secret sealed);
 * every other artifact in `oidc_payloads`.
 */
@Injectable()
export class OidcStorageRepository {
  constructor(private readonly box: SecretBox) {}

  /**
   * Stores an artifact. `serviceSessionId` (a provider session's origin, when the
   * request that saves it logged the session in) is kept when a later save does
   * not name one; a token's provider session (`sessionUid`) gets its own column.
   */
  async upsert(db: TenantDb, sectorId: string, model: string, id: string, payload: OidcPayload, expiresIn: number | undefined, serviceSessionId?: string): Promise<void> {
    const text = (key: string): string | null => (typeof payload[key] === 'string' ? (payload[key] as string) : null);
    await db.rows(
      `INSERT INTO oidc_payloads (model, id, sector_id, payload, grant_id, uid, user_code, account_id, expires_at, service_session_id, session_uid)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, CASE WHEN $9::int IS NULL THEN NULL ELSE now() + make_interval(secs => $9::int) END, $10, $11)
       ON CONFLICT (model, id) DO UPDATE
         SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, uid = EXCLUDED.uid, user_code = EXCLUDED.user_code,
             account_id = EXCLUDED.account_id, expires_at = EXCLUDED.expires_at,
             service_session_id = COALESCE(EXCLUDED.service_session_id, oidc_payloads.service_session_id), session_uid = EXCLUDED.session_uid
       WHERE oidc_payloads.sector_id = EXCLUDED.sector_id`,
      [
        model, id, sectorId, payload, text('grantId'), text('uid'), text('userCode'), text('accountId'),
        expiresIn === undefined ? null : Math.ceil(expiresIn), serviceSessionId ?? null, text('sessionUid'),
      ],
    );
    if (Math.random() * SWEEP_EVERY < 1) await this.sweep(db);
  }

  async find(db: TenantDb, sectorId: string, model: string, id: string): Promise<OidcPayload | undefined> {
    return this.one(db, `model = $1 AND id = $2 AND sector_id = $3`, [model, id, sectorId]);
  }

  async findBy(db: TenantDb, sectorId: string, model: string, column: OidcLookup, value: string): Promise<OidcPayload | undefined> {
    return this.one(db, `model = $1 AND ${column === 'uid' ? 'uid' : 'user_code'} = $2 AND sector_id = $3`, [model, value, sectorId]);
  }

  /** Marks a code, refresh token or device code used: one conditional UPDATE, so two racing redemptions cannot both see it unused. */
  async consume(db: TenantDb, sectorId: string, model: string, id: string): Promise<void> {
    await db.rows(`UPDATE oidc_payloads SET consumed_at = now() WHERE model = $1 AND id = $2 AND sector_id = $3 AND consumed_at IS NULL`, [model, id, sectorId]);
  }

  async destroy(db: TenantDb, sectorId: string, model: string, id: string): Promise<void> {
    await db.rows(`DELETE FROM oidc_payloads WHERE model = $1 AND id = $2 AND sector_id = $3`, [model, id, sectorId]);
  }

  /** Everything a grant issued (codes, access and refresh tokens), of every model. */
  async revokeByGrantId(db: TenantDb, sectorId: string, grantId: string): Promise<void> {
    await db.rows(`DELETE FROM oidc_payloads WHERE grant_id = $1 AND sector_id = $2`, [grantId, sectorId]);
  }

  /** The id of the newest live grant a user gave an app (consent is remembered across browsers and sessions). */
  async newestGrantId(db: TenantDb, sectorId: string, accountId: string, clientId: string): Promise<string | undefined> {
    const [row] = await db.read<{ id: string }>(
      `SELECT id FROM oidc_payloads
        WHERE model = 'Grant' AND account_id = $1 AND sector_id = $2 AND payload->>'clientId' = $3 AND (expires_at IS NULL OR expires_at > now())
        ORDER BY (payload->>'iat')::bigint DESC LIMIT 1`,
      [accountId, sectorId, clientId],
    );
    return row?.id;
  }

  /** A user's live grants to the sector's apps, with the app's metadata and whether it is first-party (oldest first). */
  async listGrants(db: TenantDb, sectorId: string, accountId: string): Promise<StoredGrant[]> {
    return db.read<StoredGrant>(
      `SELECT p.payload->>'clientId' AS "clientId", p.payload AS grant, c.metadata, COALESCE(c.first_party, false) AS "firstParty", p.expires_at AS "expiresAt"
         FROM oidc_payloads p JOIN oidc_clients c ON c.client_id = p.payload->>'clientId' AND c.sector_id = p.sector_id
        WHERE p.model = 'Grant' AND p.account_id = $1 AND p.sector_id = $2 AND (p.expires_at IS NULL OR p.expires_at > now())
        ORDER BY (p.payload->>'iat')::bigint, p.id`,
      [accountId, sectorId],
    );
  }

  /**
   * Revokes everything a user granted an app: the grants and every code and
   * token issued under them, in one statement. Answers how many grants went.
   */
  async revokeGrants(db: TenantDb, sectorId: string, accountId: string, clientId: string): Promise<number> {
    const [row] = await db.rows<{ n: number }>(
      `WITH grants AS (DELETE FROM oidc_payloads WHERE model = 'Grant' AND account_id = $1 AND sector_id = $2 AND payload->>'clientId' = $3 RETURNING id),
            issued AS (DELETE FROM oidc_payloads WHERE grant_id IN (SELECT id FROM grants) AND sector_id = $2 RETURNING 1)
       SELECT count(*)::int AS n FROM grants`,
      [accountId, sectorId, clientId],
    );
    return row?.n ?? 0;
  }

  /**
   * Ends provider sessions and what was issued in them (codes, access and refresh
   * tokens, device codes), in one statement: the sessions the given service
   * sessions logged in, or every session of a user but those `exceptServiceSessionId`
   * logged in. A deleted user loses everything stored for them, grants included.
   * Answers the ended sessions (their sector and payload: who, and which apps with
   * which `sid`), for back-channel logout.
   */
  async endSessions(db: TenantDb, which: EndedSessionsQuery): Promise<EndedProviderSession[]> {
    const [where, params] =
      which.kind === 'sessions'
        ? ['service_session_id = ANY($1::uuid[])', [which.serviceSessionIds]]
        : ['account_id = $1 AND service_session_id IS DISTINCT FROM $2::uuid', [which.accountId, which.exceptServiceSessionId]];
    const everything = which.kind === 'account' && which.everything;
    return db.rows<EndedProviderSession>(
      `WITH ended AS (DELETE FROM oidc_payloads WHERE model = 'Session' AND ${where} RETURNING sector_id, uid, payload),
            issued AS (DELETE FROM oidc_payloads WHERE session_uid IN (SELECT uid FROM ended)${everything ? ' OR account_id = $1' : ''} RETURNING 1)
       SELECT sector_id AS "sectorId", payload FROM ended`,
      params,
    );
  }

  /**
   * Records a poll of the token endpoint for a device code and answers the time of
   * the one before (null for the first): one statement, so racing polls each see
   * the other.
   */
  async notePoll(db: TenantDb, sectorId: string, deviceCode: string): Promise<Date | null | undefined> {
    const [row] = await db.rows<{ previous: Date | null }>(
      `UPDATE oidc_payloads p SET last_polled_at = now()
         FROM (SELECT model, id, last_polled_at FROM oidc_payloads WHERE model = 'DeviceCode' AND id = $1 AND sector_id = $2 FOR UPDATE) before
        WHERE p.model = before.model AND p.id = before.id
       RETURNING before.last_polled_at AS previous`,
      [deviceCode, sectorId],
    );
    return row ? row.previous : undefined;
  }

  // ---- clients ----------------------------------------------------------------

  /**
   * Stores a client's metadata, its secret sealed. A new client records who
   * registered it; an update (RFC 7592) keeps that. A client id of another sector
   * is never overwritten.
   */
  async upsertClient(db: TenantDb, sectorId: string, metadata: OidcPayload, registrant: ClientRegistrant): Promise<void> {
    const { client_secret: secret, ...rest } = metadata;
    const sealed = typeof secret === 'string' ? this.box.seal(OIDC_CLIENT_SECRET_SEAL, secret) : null;
    const rows = await db.rows(
      `INSERT INTO oidc_clients (client_id, sector_id, metadata, client_secret_sealed, first_party, created_by)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (client_id) DO UPDATE
         SET metadata = EXCLUDED.metadata, client_secret_sealed = EXCLUDED.client_secret_sealed, updated_at = now(),
             first_party = CASE WHEN $7 THEN EXCLUDED.first_party ELSE oidc_clients.first_party END
       WHERE oidc_clients.sector_id = EXCLUDED.sector_id
       RETURNING client_id`,
      [metadata.client_id, sectorId, rest, sealed, registrant.firstParty, registrant.createdBy, registrant.replacesFirstParty ?? false],
    );
    if (rows.length === 0) throw new Error('client id taken in another sector');
  }

  async findClient(db: TenantDb, sectorId: string, clientId: string): Promise<StoredOidcClient | undefined> {
    const [row] = await db.read<ClientRow>(`SELECT ${CLIENT_COLUMNS} FROM oidc_clients WHERE client_id = $1 AND sector_id = $2`, [clientId, sectorId]);
    return row ? this.opened(row) : undefined;
  }

  /** Deletes a client and everything issued to it (run it in a transaction). */
  async deleteClient(db: TenantDb, sectorId: string, clientId: string): Promise<boolean> {
    const deleted = await db.rows(`DELETE FROM oidc_clients WHERE client_id = $1 AND sector_id = $2 RETURNING client_id`, [clientId, sectorId]);
    await db.rows(`DELETE FROM oidc_payloads WHERE sector_id = $1 AND payload->>'clientId' = $2`, [sectorId, clientId]);
    return deleted.length > 0;
  }

  /** The sector's clients, oldest first (at most 1,000), without their secrets (a list never shows them). */
  async listClients(db: TenantDb, sectorId: string): Promise<StoredOidcClient[]> {
    const rows = await db.read<ClientRow>(`SELECT ${CLIENT_COLUMNS} FROM oidc_clients WHERE sector_id = $1 ORDER BY created_at, client_id LIMIT 1000`, [sectorId]);
    return rows.map((row) => this.opened({ ...row, sealed: null }));
  }

  private opened(row: ClientRow): StoredOidcClient {
    const metadata = row.sealed === null ? row.metadata : { ...row.metadata, client_secret: this.box.open(OIDC_CLIENT_SECRET_SEAL, row.sealed).toString('utf8') };
    return { metadata, firstParty: row.firstParty, createdBy: row.createdBy, createdAt: row.createdAt, updatedAt: row.updatedAt };
  }

  /**
   * One artifact, expired or not: the library checks expiry itself and asks for
   * expired ones on purpose (a device code past its lifetime answers
   * `expired_token`, not `invalid_grant`). Rows go an hour after they expire.
   */
  private async one(db: TenantDb, where: string, params: unknown[]): Promise<OidcPayload | undefined> {
    const [row] = await db.read<PayloadRow>(`SELECT payload, consumed_at IS NOT NULL AS consumed FROM oidc_payloads WHERE ${where}`, params);
    if (!row) return undefined;
    return row.consumed ? { ...row.payload, consumed: true } : row.payload;
  }

  private async sweep(db: TenantDb): Promise<void> {
    await db.rows(
      `DELETE FROM oidc_payloads WHERE ctid IN (SELECT ctid FROM oidc_payloads WHERE expires_at < now() - interval '1 hour' LIMIT ${SWEEP_BATCH})`,
    );
  }
}
