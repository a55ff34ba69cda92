import { Inject, Injectable, Logger } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { TENANT_SCHEMA_VERSION } from '../../migrations/tenant';
import { ApiTokenRepository } from '../api-token/api-token.repository';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { DirectoryRepository } from '../tenancy/directory.repository';
import { TenantConnections } from '../tenancy/tenant-connections';
import { TenantDb } from '../tenancy/tenant-db';
import { TenantDirectory } from '../tenancy/tenant-directory';
import { TenantStorageService } from '../tenancy/tenant-storage';
import { MAIN_DATA_SOURCE } from '../database/tokens';
import { KeyService } from '../keys/key.service';
import { toSectorResponse } from '../sector/sector.mapper';
import { SectorRepository } from '../sector/sector.repository';
import { SectorService } from '../sector/sector.service';
import { SettingsRepository } from '../settings/settings.repository';
import { newUser } from '../user/new-user';
import { PasswordHasher } from '../user/password-hasher';
import { passwordViolation } from '../user/password-policy';
import { UserRepository } from '../user/user.repository';
import { isUsableRelyingParty, resolveRelyingParty } from '../settings/relying-party';
import { GetTenantQuery, GetTenantResponse, ListTenantsQuery, ListTenantsResponse, ProvisionTenantDto, ProvisionTenantResponse, TenantStats } from './dto/tenant.dto';
import { pageInfo, paging } from '../common/wire/paging';
import { ConcurrencyLimit } from '../common/async/concurrency-limit';
import { toTenantListItem, toTenantResponse, toTenantSectorSummary } from './tenant.mapper';
import { TenantEntity } from '../tenancy/tenant.entity';

const DEFAULT_SECTOR_SLUG = 'admin';

const EMPTY_STATS: TenantStats = {
  userCount: 0,
  pendingInviteCount: 0,
  adminCount: 0,
  apiTokenCount: 0,
  mfaRequired: false,
  selfSignupAllowed: false,
  webauthnConfigured: false,
};

export interface NewTenantInput {
  slug: string;
  name: string;
  adminEmail?: string;
  adminPassword?: string;
  isPlatform?: boolean;
  /** Pooled mode: the server for its database (a configured name); default: the least used. */
  databaseServer?: string;
}

/**
 * Provisionings one instance runs at once: each holds a main-database connection for
 * its directory transaction and briefly needs a second (creating storage, reloading
 * keys), so a quarter of the main pool keeps half of it for everything else. Further
 * provisionings wait their turn without holding a connection.
 */
function provisioningConcurrency(mainPoolMax: number): number {
  return Math.max(1, Math.floor(mainPoolMax / 4));
}

@Injectable()
export class TenantService {
  private readonly logger = new Logger('Tenants');
  private readonly provisioning: ConcurrencyLimit;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(MAIN_DATA_SOURCE) private readonly main: DataSource,
    private readonly directoryRepo: DirectoryRepository,
    private readonly directory: TenantDirectory,
    private readonly storage: TenantStorageService,
    private readonly connections: TenantConnections,
    private readonly keys: KeyService,
    private readonly sectors: SectorService,
    private readonly settings: SettingsRepository,
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly apiTokens: ApiTokenRepository,
    private readonly sectorRows: SectorRepository,
    private readonly audit: AuditService,
  ) {
    this.provisioning = new ConcurrencyLimit(provisioningConcurrency(config.mainPoolMax));
  }

  async provision(dto: ProvisionTenantDto): Promise<ProvisionTenantResponse> {
    if (dto.adminPassword !== undefined && dto.adminEmail === undefined) {
      throw DomainError.invalidField('adminEmail', 'is required when adminPassword is given');
    }
    if (dto.adminEmail !== undefined && dto.adminPassword === undefined) {
      throw DomainError.invalidField('adminPassword', 'is required when adminEmail is given');
    }
    const violation = dto.adminPassword !== undefined ? passwordViolation('adminPassword', dto.adminPassword, dto.adminEmail) : undefined;
    if (violation) throw DomainError.invalidArgument(`Invalid request: adminPassword: ${violation.description}`, [violation]);
    if (dto.databaseServer !== undefined) {
      if (this.storage.mode !== 'pooled') throw DomainError.invalidField('databaseServer', 'applies to pooled mode only (TENANCY_MODE=pooled)');
      if (!this.storage.serverNames.includes(dto.databaseServer)) {
        throw DomainError.invalidField('databaseServer', `must be one of the configured database servers: ${this.storage.serverNames.join(', ')}`);
      }
    }
    const { tenant, sector } = await this.create(dto);
    return { tenantID: tenant.id, slug: tenant.slug, kid: tenant.kid, databaseServer: this.storage.serverOf(tenant), sector: toSectorResponse(sector) };
  }

  /**
   * Creates a tenant, all or nothing: directory row, storage (database from the
   * template, or schema), default sector with its settings, first admin, signing
   * key and routing entry. The directory row is inserted first, in a main-database
   * transaction held open until the end: concurrent requests for one slug get
   * ALREADY_EXISTS but the first (DirectoryRepository.insertTenant). A pooled tenant's
   * database goes to the server the input names, else to the one with the fewest
   * tenants. Any failure rolls
   * the transaction back and drops the storage; a process killed midway leaves only
   * storage without a row, which the next start sweeps (TenantStorageService).
   */
  async create(input: NewTenantInput) {
    return this.provisioning.run(() => this.createNow(input));
  }

  /** The tenant database server holding the fewest tenants (the first listed among equals). */
  private async leastUsedServer(): Promise<string> {
    const names = this.storage.serverNames;
    if (names.length === 1) return names[0];
    const counts = await this.directoryRepo.tenantsPerServer();
    return names.reduce((best, name) => ((counts.get(name) ?? 0) < (counts.get(best) ?? 0) ? name : best));
  }

  private async createNow(input: NewTenantInput) {
    const tenantId = randomUUID();
    const sectorId = randomUUID();
    const location = input.isPlatform
      ? { storage: 'main' as const, databaseName: null, schemaName: null, databaseServer: null }
      : this.storage.locationFor(tenantId, input.databaseServer ?? (await this.leastUsedServer()));
    const [key, adminHash] = await Promise.all([
      this.keys.generate(tenantId),
      input.adminPassword !== undefined ? this.hasher.hash(input.adminPassword) : Promise.resolve(null),
    ]);
    const tenant = Object.assign(new TenantEntity(), {
      id: tenantId,
      slug: input.slug,
      name: input.name,
      isPlatform: input.isPlatform ?? false,
      ...location,
      kid: key.kid,
      rsaKid: null,
      rootSectorId: sectorId,
      schemaVersion: TENANT_SCHEMA_VERSION,
    });
    const publicUrl = new URL(this.config.publicUrl);
    const runner = this.main.createQueryRunner();
    await runner.connect();
    let storageCreated = false;
    let tenantDs: DataSource | undefined;
    try {
      await runner.startTransaction();
      await this.directoryRepo.insertTenant(runner.manager, tenant);
      await runner.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [this.storage.lockKey(location)]);
      let db: TenantDb;
      if (location.storage === 'main') {
        db = new TenantDb(tenant, runner.manager);
      } else {
        await this.storage.create(location);
        storageCreated = true;
        tenantDs = await this.connections.connect(tenant, 1);
        if (location.storage === 'schema') await tenantDs.runMigrations({ transaction: 'all' });
        db = new TenantDb(tenant, tenantDs.manager);
      }
      const sector = await db.transaction(async (tx) => {
        const s = await this.sectors.insertWithSettings(tx, {
          id: sectorId,
          name: input.name,
          slug: DEFAULT_SECTOR_SLUG,
          domain: publicUrl.hostname,
          allowedOrigins: [publicUrl.origin],
          isDefault: true,
        });
        if (input.adminEmail !== undefined) {
          await this.users.insert(tx, newUser({ sectorId, email: input.adminEmail, passwordHash: adminHash, isAdmin: true, emailAdminSet: true }));
        }
        return s;
      });
      await this.keys.insert(runner.manager, key);
      await this.directoryRepo.insertSectorEntry(tenant.id, sector, runner.manager);
      // A platform event: recorded in the platform tenant's audit table (the main database) in the directory transaction.
      const platform = tenant.isPlatform ? tenant : await this.directory.platform();
      await this.audit.record(new TenantDb(platform, runner.manager), {
        type: 'tenant.provisioned',
        sectorId: platform.rootSectorId,
        target: { kind: 'tenant', id: tenant.id },
        details: { slug: tenant.slug, storage: location.storage, withAdmin: input.adminEmail !== undefined },
      });
      await runner.commitTransaction();
      this.directory.remember(tenant);
      await this.keys.reload();
      return { tenant, sector };
    } catch (err) {
      await runner.rollbackTransaction().catch(() => undefined);
      await tenantDs?.destroy().catch(() => undefined);
      tenantDs = undefined;
      if (storageCreated) {
        await this.storage.drop(location).catch((e: Error) => this.logger.warn(`Could not drop storage of failed tenant ${tenantId}: ${e.message}`));
      }
      throw err;
    } finally {
      await tenantDs?.destroy().catch(() => undefined);
      await runner.release();
    }
  }

  /** The platform's tenants, oldest first, with search and paging (platform admins). */
  async list(query: ListTenantsQuery): Promise<ListTenantsResponse> {
    const p = paging(query.pageSize, query.page);
    const { items, total } = await this.directoryRepo.listTenants(query.searchTerm, p.pageSize, p.offset);
    return { tenants: items.map((t) => toTenantListItem(t, t.sectorCount)), ...pageInfo(total, p) };
  }

  async get(tenantId: string, query: GetTenantQuery): Promise<GetTenantResponse> {
    const tenant = await this.directory.tenantById(tenantId);
    if (!tenant) throw DomainError.notFound(Reason.TENANT_NOT_FOUND, 'No such tenant.');
    const fresh = (await this.directoryRepo.findTenant(tenant.id)) ?? tenant;
    const entries = await this.directoryRepo.sectorEntries(fresh.id);
    const response: GetTenantResponse = {
      tenant: toTenantResponse(fresh, entries.length),
      sectors: entries.map(toTenantSectorSummary),
      reachable: false,
      reachError: '',
    };
    if (query.ping) {
      try {
        const db = await this.connections.db(fresh);
        await db.manager.query('SELECT 1');
        response.reachable = true;
      } catch (err) {
        response.reachError = ((err as Error).message || 'unreachable').slice(0, 300);
      }
    }
    if (query.includeStats) {
      // An unreachable database was already reported by the ping; its stats stay at zero.
      response.stats = query.ping && !response.reachable ? EMPTY_STATS : await this.stats(fresh);
      if (!query.ping) response.reachable = true;
    }
    return response;
  }

  /** Counts from the tenant's own tables, in a read-only transaction. */
  private async stats(tenant: TenantEntity): Promise<TenantStats> {
    const db = await this.connections.db(tenant);
    return db.manager.transaction(async (em) => {
      await em.query('SET TRANSACTION READ ONLY');
      const tx = new TenantDb(db.tenant, em);
      const counts = await this.users.counts(tx);
      const apiTokenCount = await this.apiTokens.count(tx);
      const rootSettings = await this.settings.find(tx, tenant.rootSectorId);
      const rootSector = await this.sectorRows.findById(tx, tenant.rootSectorId);
      return {
        ...counts,
        apiTokenCount,
        mfaRequired: rootSettings?.mfaRequired ?? false,
        selfSignupAllowed: rootSettings?.selfSignUpAllowed ?? false,
        // The default sector has a relying party browsers accept (docs/adr/0015-passkeys.md).
        webauthnConfigured: Boolean(rootSettings && rootSector && isUsableRelyingParty(resolveRelyingParty(rootSector, rootSettings))),
      };
    });
  }
}
