import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { TenantConnections } from '../../tenancy/tenant-connections';
import { TenantDirectory } from '../../tenancy/tenant-directory';
import { TenantEntity } from '../../tenancy/tenant.entity';
import { AuthTransactionRepository } from './auth-transaction.repository';
import { FactorRegistry } from './factor-registry';
import { SessionRepository } from '../../session/session.repository';
import { AuditRepository } from '../../audit/audit.repository';

/** How often the janitor looks for tenants due a sweep. */
const TICK_MS = 60_000;
/** A tenant that started this many flows since its last sweep is swept at the next tick. */
const BUSY_FLOWS = 1_000;
/** Any other tenant with activity is swept once this long after its first flow since its last sweep. */
const QUIET_SWEEP_MS = 24 * 60 * 60 * 1000;
/** Tenants swept per tick at most (one a second on average): the rest wait for the next tick, most overdue first. */
const SWEEPS_PER_TICK = 60;

/** A tenant's activity since its last sweep. */
interface Noted {
  flows: number;
  /** When its first flow since the last sweep was noted. */
  since: number;
}

/**
 * Keeps the sign-in tables bounded: it removes, in each tenant that started
 * sign-in flows on this instance, the transactions that expired over an hour ago,
 * the factors' stale records (each registered strategy's `sweep`: e.g. one-time-code
 * registrations left unverified past OTP_PENDING_REGISTRATION_TTL_SECONDS), the
 * sessions that ended (expired, idle or revoked) over a day ago with their refresh
 * tokens, account links (reset, magic, verification) expired over an hour ago, and
 * audit events older than their sector's AuditRetentionDays.
 *
 * What it costs follows the activity, not the number of tenants: a busy tenant
 * (BUSY_FLOWS flows since its last sweep) is swept at the next minute's tick, any
 * other tenant with activity once a day, and at most SWEEPS_PER_TICK tenants a tick,
 * most overdue first, so ten thousand tenants that each saw one sign-in are swept
 * over hours, not in one burst that competes with requests. Idle tenants are never
 * opened. What waits is refused all the same (expired rows are checked on use).
 */
@Injectable()
export class TransactionJanitor implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('TransactionJanitor');
  private readonly noted = new Map<string, Noted>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;

  constructor(
    private readonly connections: TenantConnections,
    private readonly directory: TenantDirectory,
    private readonly transactions: AuthTransactionRepository,
    private readonly factors: FactorRegistry,
    private readonly sessions: SessionRepository,
    private readonly audit: AuditRepository,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.sweepDue(), TICK_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Notes that a tenant started a sign-in flow (its tables will be swept). */
  noteActivity(tenant: TenantEntity): void {
    const noted = this.noted.get(tenant.id);
    if (noted) noted.flows++;
    else this.noted.set(tenant.id, { flows: 1, since: Date.now() });
  }

  /** Sweeps every tenant noted since its last sweep, due or not (maintenance, and the tests). */
  async sweep(): Promise<void> {
    await this.ticking;
    await this.sweepTenants([...this.noted.keys()]);
  }

  /**
   * The minute's tick: sweeps the tenants due at `now` (busy, or a day after their
   * first flow), at most SWEEPS_PER_TICK of them, most overdue first.
   */
  sweepDue(now = Date.now()): Promise<void> {
    this.ticking ??= (async () => {
      const due = [...this.noted]
        .filter(([, n]) => n.flows >= BUSY_FLOWS || now - n.since >= QUIET_SWEEP_MS)
        .sort(([, a], [, b]) => overdue(b, now) - overdue(a, now))
        .slice(0, SWEEPS_PER_TICK)
        .map(([id]) => id);
      await this.sweepTenants(due);
    })().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  /** Sweeps these tenants one after the other; a failing tenant is logged and stays noted. */
  private async sweepTenants(ids: string[]): Promise<void> {
    for (const id of ids) {
      const noted = this.noted.get(id);
      this.noted.delete(id);
      try {
        const tenant = await this.directory.tenantById(id);
        if (tenant) await this.sweepTenant(tenant);
      } catch (err) {
        if (noted && !this.noted.has(id)) this.noted.set(id, noted);
        this.logger.warn(`Sweeping tenant ${id} failed: ${(err as Error).message}`);
      }
    }
  }

  private async sweepTenant(tenant: TenantEntity): Promise<void> {
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
  }
}

/** How far past its due time a tenant is: busy ones rank by their flows, quiet ones by their wait. */
function overdue(noted: Noted, now: number): number {
  return noted.flows >= BUSY_FLOWS ? QUIET_SWEEP_MS + noted.flows : now - noted.since;
}
