import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Client } from 'pg';
import { MAIN_SERVER } from '../config/app-config';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { MAIN_DATABASE_URL } from '../database/tokens';
import { copyDatabase, CopyCounts } from './database-copy';
import { DirectoryRepository, TenantMove } from './directory.repository';
import { TenantConnections } from './tenant-connections';
import { TenantDirectory } from './tenant-directory';
import { TenantStorageService } from './tenant-storage';
import { TenantEntity, TenantLocation } from './tenant.entity';

/** After the switch, how long instances get to re-point the tenant (they hear of it within milliseconds) before the source database goes. */
const SWITCH_GRACE_MS = 2_000;

/** What a move did. */
export interface MoveOutcome {
  /** `moved`; `finished` when an interrupted move had already switched and only its clean-up was left. */
  outcome: 'moved' | 'finished';
  from: string;
  to: string;
  /** How long the tenant's writes were held (ms), for a move that copied. */
  writePauseMs?: number;
  rows?: CopyCounts;
}

/**
 * Moves a pooled tenant's database to another server (`iam-tenant-move <slug>
 * <server>`), with a short write pause and nothing lost or duplicated:
 *
 *  1. The move is recorded (`tenant_moves`, state `copying`); the target database is
 *     created empty from that server's template.
 *  2. Writes are held: the source database is made read-only for new sessions and
 *     its sessions are ended (a write then answers 503 `TENANT_MOVING` with
 *     Retry-After: 1; reads go on from the source).
 *  3. Every row is copied in one target transaction, counts checked
 *     (copyDatabase).
 *  4. Switch: one main-database transaction places the tenant on the target, marks
 *     the move `switched` and tells every instance, which closes the tenant's pool and
 *     opens the next one on the target — writes resume there.
 *  5. After a grace period the source database is dropped and the move forgotten.
 *
 * Interrupted before the switch, running the command again starts the copy over
 * (the target is emptied in the copy's transaction), and `--abort` rolls back: the
 * source takes writes again and the target is dropped. Interrupted after the switch,
 * running it again (or `--abort`) only drops the source. A session advisory lock per
 * tenant keeps two moves of one tenant apart and the orphan sweep off both databases.
 */
@Injectable()
export class TenantMover implements OnApplicationBootstrap {
  private readonly logger = new Logger('TenantMover');

  constructor(
    @Inject(MAIN_DATABASE_URL) private readonly mainUrl: string,
    private readonly storage: TenantStorageService,
    private readonly repo: DirectoryRepository,
    private readonly directory: TenantDirectory,
    private readonly connections: TenantConnections,
  ) {}

  /** Says at start which tenants an interrupted move left read-only, and what to run. */
  async onApplicationBootstrap(): Promise<void> {
    const moves = await this.repo.unfinishedMoves().catch(() => []);
    for (const m of moves) {
      this.logger.warn(
        m.state === 'copying'
          ? `Tenant "${m.slug}" is read-only: its move to server "${m.targetServer ?? MAIN_SERVER}" was interrupted. Resume with iam-tenant-move ${m.slug} ${m.targetServer ?? MAIN_SERVER}, or roll back with iam-tenant-move --abort ${m.slug}`
          : `Tenant "${m.slug}" moved to server "${m.targetServer ?? MAIN_SERVER}", but its old database is still to be dropped: run iam-tenant-move ${m.slug} ${m.targetServer ?? MAIN_SERVER}`,
      );
    }
  }

  /** Moves the tenant `slug` to `server`, or finishes its interrupted move there. */
  async move(slug: string, server: string): Promise<MoveOutcome> {
    if (!this.storage.serverNames.includes(server)) {
      throw DomainError.invalidArgument(`"${server}" is not a configured database server (${this.storage.serverNames.join(', ')}).`, [{ field: 'server', description: 'not a configured database server' }]);
    }
    const tenant = await this.movable(slug);
    const target = server === MAIN_SERVER ? null : server;
    return this.underLock(tenant, async () => {
      const move = await this.repo.moveOf(tenant.id);
      if (move?.state === 'switched') return this.finish(tenant, move);
      if (move && move.targetServer !== target) {
        throw DomainError.failedPrecondition(
          Reason.TENANT_MOVE_UNDER_WAY,
          `A move of tenant "${slug}" to "${move.targetServer ?? MAIN_SERVER}" is under way: run it again with that server, or roll it back with --abort.`,
        );
      }
      const source = tenant.databaseServer;
      if (!move && source === target) throw DomainError.failedPrecondition(Reason.TENANT_MOVE_UNDER_WAY, `Tenant "${slug}" is already on "${server}".`);
      // The source's schema must be the template's: a tenant behind is migrated first.
      await this.connections.db(tenant);
      await this.repo.beginMove(tenant.id, source, target);
      const from = locationOf(tenant, source);
      const to = locationOf(tenant, target);
      // Leftovers of an interrupted attempt go first (never the source: it is on another server).
      await this.storage.drop(to);
      await this.storage.create(to);
      const paused = Date.now();
      await this.storage.holdWrites(from);
      const rows = await this.copy(from, to);
      if (!(await this.repo.switchMove(tenant.id, source, target))) {
        throw DomainError.failedPrecondition(Reason.TENANT_MOVE_UNDER_WAY, `The directory no longer places tenant "${slug}" on "${source ?? MAIN_SERVER}"; nothing was switched.`);
      }
      const writePauseMs = Date.now() - paused;
      this.directory.forget(tenant.id);
      await this.connections.close(tenant.id);
      await new Promise((r) => setTimeout(r, SWITCH_GRACE_MS));
      await this.finish(tenant, { tenantId: tenant.id, sourceServer: source, targetServer: target, state: 'switched' });
      return { outcome: 'moved', from: source ?? MAIN_SERVER, to: server, writePauseMs, rows };
    });
  }

  /** Rolls back the interrupted move of `slug` (its source takes writes again, the target goes), or finishes one that had switched. */
  async abort(slug: string): Promise<MoveOutcome | undefined> {
    const tenant = await this.movable(slug);
    return this.underLock(tenant, async () => {
      const move = await this.repo.moveOf(tenant.id);
      if (!move) return undefined;
      if (move.state === 'switched') return this.finish(tenant, move);
      await this.storage.releaseWrites(locationOf(tenant, move.sourceServer));
      await this.storage.drop(locationOf(tenant, move.targetServer));
      await this.repo.endMove(tenant.id);
      return { outcome: 'finished', from: move.targetServer ?? MAIN_SERVER, to: move.sourceServer ?? MAIN_SERVER };
    });
  }

  private async movable(slug: string): Promise<TenantEntity> {
    const tenant = await this.directory.tenantBySlug(slug);
    if (!tenant) throw DomainError.notFound(Reason.TENANT_NOT_FOUND, `No tenant with slug "${slug}".`);
    if (tenant.storage !== 'pooled' || !tenant.databaseName) {
      throw DomainError.failedPrecondition(Reason.TENANT_MOVE_UNDER_WAY, `Tenant "${slug}" has no database of its own (only pooled-mode tenants move between servers).`);
    }
    return tenant;
  }

  private async copy(from: TenantLocation, to: TenantLocation): Promise<CopyCounts> {
    const source = new Client({ connectionString: this.storage.sessionUrlFor(from), application_name: 'iam-tenant-move' });
    const target = new Client({ connectionString: this.storage.sessionUrlFor(to), application_name: 'iam-tenant-move' });
    await source.connect();
    try {
      await target.connect();
      try {
        return await copyDatabase(source, target);
      } finally {
        await target.end().catch(() => undefined);
      }
    } finally {
      await source.end().catch(() => undefined);
    }
  }

  /** The clean-up after the switch: the source database goes, the move is forgotten. */
  private async finish(tenant: TenantEntity, move: TenantMove): Promise<MoveOutcome> {
    await this.storage.drop(locationOf(tenant, move.sourceServer));
    await this.repo.endMove(tenant.id);
    return { outcome: 'finished', from: move.sourceServer ?? MAIN_SERVER, to: move.targetServer ?? MAIN_SERVER };
  }

  /**
   * Runs `work` holding, on a main-database session of its own, the tenant's move lock
   * (a second move of it fails at once) and its storage lock (the orphan sweep skips
   * its databases on every server meanwhile).
   */
  private async underLock<T>(tenant: TenantEntity, work: () => Promise<T>): Promise<T> {
    const lock = new Client({ connectionString: this.mainUrl, application_name: 'iam-tenant-move' });
    await lock.connect();
    try {
      const { rows } = await lock.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok', [`tenant-move:${tenant.id}`]);
      if (!rows[0].ok) throw DomainError.failedPrecondition(Reason.TENANT_MOVE_UNDER_WAY, `Another move of tenant "${tenant.slug}" is running.`);
      await lock.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [this.storage.lockKey(tenant)]);
      return await work();
    } finally {
      await lock.end().catch(() => undefined);
    }
  }
}

function locationOf(tenant: TenantEntity, server: string | null): TenantLocation {
  return { storage: 'pooled', databaseName: tenant.databaseName, schemaName: null, databaseServer: server };
}
