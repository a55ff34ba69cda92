import { Inject, Injectable, Logger } from '@nestjs/common';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { databaseNameOf, tenantDataSourceOptions, withDatabase, EntityLists } from '../database/data-source-options';
import { MAIN_DATABASE_URL, ENTITY_LISTS } from '../database/tokens';
import { DirectoryRepository } from './directory.repository';
import type { TenantLocation } from './tenant.entity';

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Creates and drops the physical storage of tenants: a database cloned from a
 * migrated template (pooled mode) or a schema of the main database (schema mode).
 * Names carry a prefix derived from the main database, so several deployments can
 * share one server and the orphan sweep only ever touches its own.
 */
@Injectable()
export class TenantStorageService {
  private readonly logger = new Logger('TenantStorage');
  private readonly prefix: string;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ENTITY_LISTS) private readonly entities: EntityLists,
    @Inject(MAIN_DATABASE_URL) private readonly mainUrl: string,
    private readonly directory: DirectoryRepository,
  ) {
    const main = databaseNameOf(mainUrl).toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 24);
    this.prefix = main;
  }

  get mode(): 'pooled' | 'schema' {
    return this.config.tenancyMode;
  }

  get templateDatabase(): string {
    return `${this.prefix}_tpl`;
  }

  /** The database-name prefix of this deployment's tenant databases. */
  get databasePrefix(): string {
    return `${this.prefix}_t_`;
  }

  locationFor(tenantId: string): TenantLocation {
    const hex = tenantId.replace(/-/g, '').toLowerCase();
    return this.mode === 'pooled'
      ? { storage: 'pooled', databaseName: `${this.databasePrefix}${hex}`, schemaName: null }
      : { storage: 'schema', databaseName: null, schemaName: `t_${hex}` };
  }

  /** Connection URL of a tenant's database (the main one for schema tenants and the platform). */
  urlFor(location: TenantLocation): string {
    return location.storage === 'pooled' && location.databaseName ? withDatabase(this.mainUrl, location.databaseName) : this.mainUrl;
  }

  /** A key for the advisory lock that guards a tenant's storage while it is being provisioned. */
  lockKey(location: TenantLocation): string {
    return `tenant-storage:${location.databaseName ?? location.schemaName}`;
  }

  private async withAdminClient<T>(work: (client: Client) => Promise<T>): Promise<T> {
    const client = new Client({ connectionString: this.mainUrl, application_name: 'iam-admin' });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /**
   * Makes sure the pooled-mode template database exists and carries every tenant
   * migration. Runs at start, under the migration lock.
   */
  async prepareTemplate(): Promise<void> {
    if (this.mode !== 'pooled') return;
    const name = this.templateDatabase;
    await this.withAdminClient(async (client) => {
      const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (exists.rowCount === 0) {
        await client.query(`CREATE DATABASE ${quoteIdent(name)}`).catch((err: { code?: string }) => {
          if (err.code !== '42P04') throw err;
        });
      }
    });
    const ds = new DataSource(
      tenantDataSourceOptions(this.entities, withDatabase(this.mainUrl, name), { max: 1, idleTimeoutMillis: 1000, applicationName: 'iam-template' }),
    );
    await ds.initialize();
    try {
      await ds.runMigrations({ transaction: 'all' });
    } finally {
      await ds.destroy();
    }
  }

  /** Creates the empty storage of a new tenant (committed at once: DDL of databases is not transactional). */
  async create(location: TenantLocation): Promise<void> {
    await this.withAdminClient(async (client) => {
      if (location.storage === 'pooled' && location.databaseName) {
        await this.createFromTemplate(client, location.databaseName);
      } else if (location.storage === 'schema' && location.schemaName) {
        await client.query(`CREATE SCHEMA ${quoteIdent(location.schemaName)}`);
      }
    });
  }

  private async createFromTemplate(client: Client, database: string): Promise<void> {
    // The template may be briefly in use while an instance migrates it at start.
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE ${quoteIdent(database)} TEMPLATE ${quoteIdent(this.templateDatabase)}`);
        return;
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code !== '55006' || attempt >= 20) throw err;
        await new Promise((r) => setTimeout(r, 50 + attempt * 50));
      }
    }
  }

  /** Removes a tenant's storage and everything in it. */
  async drop(location: TenantLocation): Promise<void> {
    await this.withAdminClient(async (client) => {
      if (location.storage === 'pooled' && location.databaseName) {
        await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(location.databaseName)} WITH (FORCE)`);
      } else if (location.storage === 'schema' && location.schemaName) {
        await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(location.schemaName)} CASCADE`);
      }
    });
  }

  /**
   * Removes storage that a provisioning left behind when its process died midway:
   * a tenant database or schema of this deployment with no tenant row. Storage whose
   * provisioning is still running is skipped (its advisory lock is held).
   */
  async sweepOrphans(main: DataSource): Promise<number> {
    const candidates: TenantLocation[] =
      this.mode === 'pooled'
        ? (await this.directory.databasesWithoutTenant(this.databasePrefix)).map((datname) => ({
            storage: 'pooled',
            databaseName: datname,
            schemaName: null,
          }))
        : (await this.directory.schemasWithoutTenant()).map((nspname) => ({ storage: 'schema', databaseName: null, schemaName: nspname }));
    let swept = 0;
    for (const location of candidates) {
      const runner = main.createQueryRunner();
      await runner.connect();
      try {
        await runner.startTransaction();
        const [{ locked }] = await runner.query('SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked', [
          this.lockKey(location),
        ]);
        if (locked) {
          const count = await this.directory.countTenantsUsingStorage(runner.manager, location);
          if (count === 0) {
            await this.drop(location);
            swept++;
            this.logger.warn(`Removed storage left by an interrupted provisioning: ${location.databaseName ?? location.schemaName}`);
          }
        }
        await runner.commitTransaction();
      } catch (err) {
        await runner.rollbackTransaction().catch(() => undefined);
        this.logger.warn(`Could not sweep ${location.databaseName ?? location.schemaName}: ${(err as Error).message}`);
      } finally {
        await runner.release();
      }
    }
    return swept;
  }
}
