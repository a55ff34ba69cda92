import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { TenantConnections } from '../../tenancy/tenant-connections';
import { TenantEntity } from '../../tenancy/tenant.entity';
import { AuthTransactionRepository } from './auth-transaction.repository';
import { FactorRegistry } from './factor-registry';
import { SessionRepository } from '../../session/session.repository';
import { AuditRepository } from '../../audit/audit.repository';

const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Keeps the sign-in tables bounded on a schedule: every ten minutes it removes,
 * in each tenant that started sign-in flows on this instance since the last
 * sweep, the transactions that expired over an hour ago, the factors' stale
 * records (each registered strategy's `sweep`: e.g. one-time-code registrations
 * left unverified past OTP_PENDING_REGISTRATION_TTL_SECONDS), the
 * sessions that ended (expired, idle or revoked) over a day ago with their
 * refresh tokens, account links (reset, magic, verification) expired over an hour ago,
 * and audit events older than their sector's AuditRetentionDays. Only
 * tenants with activity are visited, so idle tenants' pools are never opened.
 */
@Injectable()
export class TransactionJanitor implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('TransactionJanitor');
  private readonly active = new Map<string, TenantEntity>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly connections: TenantConnections,
    private readonly transactions: AuthTransactionRepository,
    private readonly factors: FactorRegistry,
    private readonly sessions: SessionRepository,
    private readonly audit: AuditRepository,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Notes that a tenant started a sign-in flow (its tables will be swept). */
  noteActivity(tenant: TenantEntity): void {
    this.active.set(tenant.id, tenant);
  }

  /** Sweeps every tenant noted since the last sweep; a failing tenant is logged and noted again. */
  async sweep(): Promise<void> {
    const tenants = [...this.active.values()];
    this.active.clear();
    for (const tenant of tenants) {
      try {
        const db = await this.connections.db(tenant);
        const transactions = await this.transactions.purgeExpired(db);
        let registrations = 0;
        for (const strategy of this.factors.all()) registrations += (await strategy.sweep?.(db)) ?? 0;
        const sessions = await this.sessions.purgeExpired(db);
        const links = (await db.rows(`DELETE FROM account_links WHERE expires_at < now() - interval '1 hour' RETURNING 1`)).length;
        const events = await this.audit.purgeExpired(db);
        if (transactions + registrations + sessions + links + events > 0) {
          this.logger.debug(
            `Tenant ${tenant.slug}: removed ${transactions} expired transactions, ${registrations} stale factor registrations, ${sessions} ended sessions, ${links} expired account links, ${events} audit events past retention`,
          );
        }
      } catch (err) {
        this.active.set(tenant.id, tenant);
        this.logger.warn(`Sweeping tenant ${tenant.slug} failed: ${(err as Error).message}`);
      }
    }
  }
}
