import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { translatingUniqueViolations } from '../common/errors/db-errors';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { likeEscape } from '../common/wire/paging';
import { countedPage } from '../database/counted-page';
import { MAIN_DATA_SOURCE } from '../database/tokens';
import { SectorDirectoryEntity } from './sector-directory.entity';
import { PublishedKey, RotatedKeys, SigningAlg, SigningKeyEntity } from './signing-key.entity';
import { TenantEntity } from './tenant.entity';
import { rowsOf } from './tenant-db';
import { DIRECTORY_CHANNEL, DirectoryChanges, KEYS_CHANGE, TENANT_CHANGE } from './directory-changes';
import type { TenantLocation } from './tenant.entity';

/** A tenant move under way (servers by name; null: the main database's server). */
export interface TenantMove {
  tenantId: string;
  sourceServer: string | null;
  targetServer: string | null;
  state: 'copying' | 'switched';
}

/** What the routing entry of a sector is made from (a tenant's `SectorEntity` fits). */
export interface SectorEntryInput {
  id: string;
  slug: string;
  name: string;
  isDefault: boolean;
  allowedOrigins: string[];
}


/**
 * The main database's directory tables — `tenants`, `signing_keys` and
 * `sector_directory` — for everything but the cached reads of TenantDirectory.
 * No other module touches these tables: they call this repository (or
 * TenantDirectory). Methods taking an EntityManager run in the caller's
 * main-database transaction.
 */
@Injectable()
export class DirectoryRepository {
  constructor(
    @Inject(MAIN_DATA_SOURCE) private readonly main: DataSource,
    private readonly changes: DirectoryChanges,
  ) {}

  // ---- tenants ----------------------------------------------------------------

  /**
   * Inserts the tenant row in `em`'s transaction; a taken slug is ALREADY_EXISTS. So is
   * a slug another transaction is provisioning right now (its row not yet committed):
   * the slug's advisory lock, tried without waiting, tells at once, where the insert
   * would wait on the unique index for the whole provisioning while holding a pooled
   * connection (twenty such waiters once starved the winner of the connections it
   * needed, and someone got a 503).
   */
  async insertTenant(em: EntityManager, tenant: TenantEntity): Promise<void> {
    const [{ claimed }] = rowsOf<{ claimed: boolean }>(
      await em.query('SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS claimed', [`tenant-slug:${tenant.slug}`]),
    );
    if (!claimed) throw slugTaken(tenant.slug);
    await translatingUniqueViolations(() => em.getRepository(TenantEntity).insert(tenant), { tenants_slug_key: () => slugTaken(tenant.slug) });
  }

  /** The stored tenant row, uncached (TenantDirectory caches). */
  findTenant(id: string): Promise<TenantEntity | null> {
    return this.main.getRepository(TenantEntity).findOneBy({ id });
  }

  /** Does the platform tenant exist yet (uncached)? */
  /**
   * One page of tenants (oldest first) whose slug or name contains `searchTerm`
   * (case-insensitive), with how many match, in one statement.
   */
  async listTenants(searchTerm: string | undefined, limit: number, offset: number): Promise<{ items: Array<TenantEntity & { sectorCount: number }>; total: number }> {
    const params: unknown[] = [];
    let where = '';
    if (searchTerm) {
      params.push(`%${likeEscape(searchTerm)}%`);
      where = `WHERE t.slug ILIKE $1 ESCAPE '\\' OR t.name ILIKE $1 ESCAPE '\\'`;
    }
    return countedPage<TenantEntity & { sectorCount: number }>((sql, values) => this.main.query(sql, values), {
      select: `t.id, t.slug, t.name, t.is_platform AS "isPlatform", t.kid, t.root_sector_id AS "rootSectorId", t.created_at AS "createdAt",
              (SELECT count(*) FROM sector_directory d WHERE d.tenant_id = t.id)::int AS "sectorCount"`,
      from: 'tenants t',
      where,
      params,
      orderBy: 't.created_at, t.id',
      limit,
      offset,
    });
  }

  platformExists(): Promise<boolean> {
    return this.main.getRepository(TenantEntity).existsBy({ isPlatform: true });
  }

  /** Every tenant of the directory, oldest first. */
  allTenants(): Promise<TenantEntity[]> {
    return this.main.getRepository(TenantEntity).find({ order: { createdAt: 'ASC' } });
  }

  /** Tenants with their own storage whose recorded schema version is not `version`. */
  tenantsBehind(version: string): Promise<TenantEntity[]> {
    return this.main
      .getRepository(TenantEntity)
      .createQueryBuilder('t')
      .where('t.storage <> :main AND t.schema_version <> :version', { main: 'main', version })
      .getMany();
  }

  /** Records `version` for the tenants stored in the main database (migrated with it). */
  async setMainStorageSchemaVersion(version: string): Promise<void> {
    await this.main.getRepository(TenantEntity).update({ storage: 'main' }, { schemaVersion: version });
  }

  /** Records the tenant migration a tenant's storage is at. */
  async setSchemaVersion(tenantId: string, version: string): Promise<void> {
    await this.main.getRepository(TenantEntity).update({ id: tenantId }, { schemaVersion: version });
  }

  /** Pooled tenants per database server (`main`: the main database's server). */
  async tenantsPerServer(): Promise<Map<string, number>> {
    const rows: Array<{ server: string; count: number }> = await this.main.query(
      `SELECT coalesce(database_server, 'main') AS server, count(*)::int AS count FROM tenants WHERE storage = 'pooled' GROUP BY 1`,
    );
    return new Map(rows.map((r) => [r.server, r.count]));
  }

  /** Which of `names` tenant rows place on `server` (`main`: the main database's server). */
  async databasesPlacedOn(server: string, names: string[]): Promise<Set<string>> {
    if (names.length === 0) return new Set();
    const rows: Array<{ database_name: string }> = await this.main.query(
      `SELECT database_name FROM tenants WHERE database_name = ANY($1::text[]) AND coalesce(database_server, 'main') = $2`,
      [names, server],
    );
    return new Set(rows.map((r) => r.database_name));
  }

  /** Tenant schemas (`t_<hex>`) of the main database that no tenant row names (orphan sweep candidates). */
  async schemasWithoutTenant(): Promise<string[]> {
    const rows: Array<{ nspname: string }> = await this.main.query(
      `SELECT nspname FROM pg_namespace WHERE nspname ~ '^t_[0-9a-f]{32}$'
               AND nspname NOT IN (SELECT schema_name FROM tenants WHERE schema_name IS NOT NULL)`,
    );
    return rows.map((r) => r.nspname);
  }

  /** How many tenant rows name this storage, read in `em`'s transaction. */
  async countTenantsUsingStorage(em: EntityManager, location: Pick<TenantLocation, 'databaseName' | 'schemaName' | 'databaseServer'>): Promise<number> {
    const [{ count }] = await em.query(
      `SELECT count(*)::int AS count FROM tenants
        WHERE (database_name = $1 AND coalesce(database_server, 'main') = $3) OR schema_name = $2`,
      [location.databaseName, location.schemaName, location.databaseServer ?? 'main'],
    );
    return count as number;
  }

  // ---- tenant moves -------------------------------------------------------------

  /** The move under way of a tenant, if any. */
  async moveOf(tenantId: string): Promise<TenantMove | undefined> {
    const [row] = await this.main.query(`SELECT source_server, target_server, state FROM tenant_moves WHERE tenant_id = $1`, [tenantId]);
    return row ? { tenantId, sourceServer: row.source_server, targetServer: row.target_server, state: row.state } : undefined;
  }

  /** Every move under way (their tenants stay read-only until the moves are resumed or rolled back). */
  async unfinishedMoves(): Promise<Array<TenantMove & { slug: string }>> {
    const rows: Array<{ tenant_id: string; slug: string; source_server: string | null; target_server: string | null; state: TenantMove['state'] }> = await this.main.query(
      `SELECT m.tenant_id, t.slug, m.source_server, m.target_server, m.state FROM tenant_moves m JOIN tenants t ON t.id = m.tenant_id ORDER BY m.started_at`,
    );
    return rows.map((r) => ({ tenantId: r.tenant_id, slug: r.slug, sourceServer: r.source_server, targetServer: r.target_server, state: r.state }));
  }

  /** Records that a tenant's move from `sourceServer` to `targetServer` begins (null: the main database's server). */
  async beginMove(tenantId: string, sourceServer: string | null, targetServer: string | null): Promise<void> {
    await this.main.query(
      `INSERT INTO tenant_moves (tenant_id, source_server, target_server, state) VALUES ($1, $2, $3, 'copying')
       ON CONFLICT (tenant_id) DO UPDATE SET updated_at = now() WHERE tenant_moves.state = 'copying'`,
      [tenantId, sourceServer, targetServer],
    );
  }

  /**
   * Places the tenant on the move's target server, in one transaction with the move's
   * state, and tells every instance (which re-point the tenant's pool at once). Only
   * from the source: answers false when the directory no longer places it there.
   */
  async switchMove(tenantId: string, sourceServer: string | null, targetServer: string | null): Promise<boolean> {
    return this.main.transaction(async (em) => {
      const moved = rowsOf(
        await em.query(`UPDATE tenants SET database_server = $3 WHERE id = $1 AND storage = 'pooled' AND database_server IS NOT DISTINCT FROM $2 RETURNING id`, [
          tenantId,
          sourceServer,
          targetServer,
        ]),
      );
      if (moved.length === 0) return false;
      await em.query(`UPDATE tenant_moves SET state = 'switched', updated_at = now() WHERE tenant_id = $1`, [tenantId]);
      await this.announce(em, `${TENANT_CHANGE}${tenantId}`);
      return true;
    });
  }

  /** Forgets a finished or rolled-back move. */
  async endMove(tenantId: string): Promise<void> {
    await this.main.query(`DELETE FROM tenant_moves WHERE tenant_id = $1`, [tenantId]);
  }

  // ---- signing keys -----------------------------------------------------------

  /** Stores a signing key in `em`'s transaction; every instance hears of it (`keys:<tenant id>`) once that commits. */
  async insertSigningKey(em: EntityManager, row: SigningKeyEntity): Promise<void> {
    await em.getRepository(SigningKeyEntity).insert(row);
    await this.announce(em, `${KEYS_CHANGE}${row.tenantId}`);
  }

  /**
   * The keys to publish, oldest first: current ones, and retired ones until
   * `retired_at + max_token_ttl_seconds + retiredMarginSeconds`.
   */
  publishedSigningKeys(retiredMarginSeconds: number, tenantId?: string): Promise<PublishedKey[]> {
    // Public halves only, as plain rows: every instance reads every tenant's keys on a schedule, so neither the sealed
    // private halves nor the ORM's hydration of ten thousand rows belong in this read.
    return this.main.query(
      `SELECT kid, tenant_id AS "tenantId", public_jwk AS "publicJwk" FROM signing_keys
       WHERE (retired_at IS NULL OR retired_at + make_interval(secs => max_token_ttl_seconds + $1) > now())
         AND ($2::uuid IS NULL OR tenant_id = $2::uuid)
       ORDER BY created_at`,
      [Math.trunc(retiredMarginSeconds), tenantId ?? null],
    );
  }

  /** The stored key `kid` (its private half sealed); fails when there is none. */
  signingKey(kid: string): Promise<SigningKeyEntity> {
    return this.main.getRepository(SigningKeyEntity).findOneByOrFail({ kid });
  }

  /** Raises the longest token lifetime recorded for `kid` to at least `ttlSeconds`. */
  async raiseMaxTokenTtl(kid: string, ttlSeconds: number): Promise<void> {
    await this.main.query('UPDATE signing_keys SET max_token_ttl_seconds = GREATEST(max_token_ttl_seconds, $2) WHERE kid = $1', [kid, ttlSeconds]);
  }

  /**
   * Gives the tenant a new current key of each algorithm it uses, in one
   * transaction: the tenant row is locked, `generate` makes each new key, the new
   * keys are stored, the old ones retired and the tenant pointed at the new ones.
   */
  rotateSigningKeys(
    tenantId: string,
    generate: (alg: SigningAlg) => Promise<SigningKeyEntity>,
    within?: (em: EntityManager, rotated: RotatedKeys) => Promise<void>,
  ): Promise<RotatedKeys> {
    return this.main.transaction(async (em) => {
      const [tenant] = await em.query('SELECT kid, rsa_kid AS "rsaKid" FROM tenants WHERE id = $1 FOR UPDATE', [tenantId]);
      if (!tenant) throw new Error(`No tenant ${tenantId}`);
      const rotated: RotatedKeys = { oldKid: tenant.kid as string, newKid: await this.replaceKey(em, tenantId, 'kid', tenant.kid, await generate('ES256')) };
      if (tenant.rsaKid) {
        rotated.oldRsaKid = tenant.rsaKid as string;
        rotated.newRsaKid = await this.replaceKey(em, tenantId, 'rsa_kid', tenant.rsaKid, await generate('RS256'));
      }
      await within?.(em, rotated);
      return rotated;
    });
  }

  private async replaceKey(em: EntityManager, tenantId: string, column: 'kid' | 'rsa_kid', oldKid: string, row: SigningKeyEntity): Promise<string> {
    await this.insertSigningKey(em, row);
    await em.query('UPDATE signing_keys SET retired_at = now() WHERE kid = $1 AND retired_at IS NULL', [oldKid]);
    await em.query(`UPDATE tenants SET ${column} = $2 WHERE id = $1`, [tenantId, row.kid]);
    return row.kid;
  }

  /**
   * Makes `row` the tenant's RSA key unless it has one already (another instance
   * may have made one a moment ago): the tenant's RSA kid afterwards, either way.
   */
  async addRsaKey(tenantId: string, row: SigningKeyEntity): Promise<string> {
    return this.main.transaction(async (em) => {
      const rows = rowsOf<{ rsaKid: string | null }>(await em.query('SELECT rsa_kid AS "rsaKid" FROM tenants WHERE id = $1 FOR UPDATE', [tenantId]));
      if (rows.length === 0) throw new Error(`No tenant ${tenantId}`);
      if (rows[0].rsaKid) return rows[0].rsaKid;
      await this.insertSigningKey(em, row);
      await em.query('UPDATE tenants SET rsa_kid = $2 WHERE id = $1', [tenantId, row.kid]);
      return row.kid;
    });
  }

  // ---- sector directory -------------------------------------------------------

  /** Adds the routing entry of a sector (in `em`'s transaction when given). */
  async insertSectorEntry(tenantId: string, sector: SectorEntryInput, em: EntityManager = this.main.manager): Promise<void> {
    await em.getRepository(SectorDirectoryEntity).insert({
      sectorId: sector.id,
      tenantId,
      slug: sector.slug,
      name: sector.name,
      isDefault: sector.isDefault,
      allowedOrigins: sector.allowedOrigins,
    });
    await this.announce(em, 'sectors');
  }

  async deleteSectorEntry(sectorId: string): Promise<void> {
    await this.main.getRepository(SectorDirectoryEntity).delete({ sectorId });
    await this.announce(this.main.manager, 'sectors');
  }

  /** Every origin some sector allows (for CORS). */
  async allowedOrigins(): Promise<string[]> {
    const rows: Array<{ origin: string }> = await this.main.query(
      `SELECT DISTINCT unnest(allowed_origins) AS origin FROM sector_directory WHERE allowed_origins IS NOT NULL`,
    );
    return rows.map((r) => r.origin);
  }

  /** Tenants with routing entries written before the directory kept allowed origins. */
  async tenantsWithUncopiedOrigins(): Promise<TenantEntity[]> {
    return this.main
      .getRepository(TenantEntity)
      .createQueryBuilder('t')
      .where('EXISTS (SELECT 1 FROM sector_directory d WHERE d.tenant_id = t.id AND d.allowed_origins IS NULL)')
      .getMany();
  }

  /** Records a sector's allowed origins in its routing entry. */
  async setSectorOrigins(sectorId: string, origins: string[]): Promise<void> {
    await this.main.getRepository(SectorDirectoryEntity).update({ sectorId }, { allowedOrigins: origins });
    await this.announce(this.main.manager, 'sectors');
  }

  /**
   * Tells every instance (LISTEN on DIRECTORY_CHANNEL) that part of the directory
   * changed, when `em`'s transaction commits. Outside a transaction the change is
   * committed once this returns, so this instance's subscribers hear of it at once,
   * without waiting for the notification to come back.
   */
  private async announce(em: EntityManager, what: string): Promise<void> {
    await em.query('SELECT pg_notify($1, $2)', [DIRECTORY_CHANNEL, what]);
    if (!em.queryRunner?.isTransactionActive) this.changes.emit(what);
  }


  /** A tenant's sectors as the directory lists them, default first, then by slug. */
  sectorEntries(tenantId: string): Promise<SectorDirectoryEntity[]> {
    return this.main.getRepository(SectorDirectoryEntity).find({ where: { tenantId }, order: { isDefault: 'DESC', slug: 'ASC' } });
  }
}

function slugTaken(slug: string): DomainError {
  return DomainError.alreadyExists(Reason.TENANT_SLUG_TAKEN, `A tenant with slug "${slug}" already exists.`);
}
