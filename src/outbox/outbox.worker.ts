import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { setTimeout as sleep } from 'node:timers/promises';
import { DirectoryRepository } from '../tenancy/directory.repository';
import { TenantConnections } from '../tenancy/tenant-connections';
import { TenantDirectory } from '../tenancy/tenant-directory';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { TenantEntity } from '../tenancy/tenant.entity';
import { describeDeliveryError } from './delivery-error';
import { ExactTime, HintVersion, NextLook, OutboxPendingRepository } from './outbox-pending.repository';
import { earliest, OutboxQueue } from './outbox-queue';
import { Metrics } from '../metrics/metrics.service';

/** How long a claim holds its rows (and a take its hint); past it, another worker may take them. */
export const LEASE_MS = 120_000;
/** No delivery of a batch starts later than this after its claim (+ SEND_TIMEOUT_MS stays inside the lease). */
export const BATCH_BUDGET_MS = 60_000;
/** A single delivery never takes longer than this (connect, greeting, data, or an HTTP answer). */
export const SEND_TIMEOUT_MS = 30_000;
/** Tenants whose outboxes are worked on at once (each holds one of its pool's connections). */
const PARALLEL_TENANTS = 4;
/**
 * The sweep of every tenant visits at least this many tenants a second, and no
 * more than it takes to end within half the sweep interval: ten thousand tenants
 * are looked at over half an hour, not in one burst that competes with requests.
 */
const SWEEP_MIN_RATE = 5;
/**
 * Sends what the tenants' outboxes hold: every registered queue (mail and SMS,
 * webhook deliveries; see OutboxQueue). Which outboxes it looks at:
 * - a tenant whose transaction just queued a message (`kick`, after its hint in
 *   the main database's `outbox_pending` was written), at once;
 * - tenants whose hint is due, taken from `outbox_pending` every
 *   MAIL_POLL_INTERVAL_MS: mail queued through any instance, and retries, which
 *   the hint is set to after each pass (deleted when nothing is pending);
 * - every tenant in the directory once at start and every MAIL_SWEEP_INTERVAL_MS
 *   (an hour), which only matters for a hint lost to a crash between a commit and
 *   its kick; the sweep writes the hints of the tenants it finds with pending rows.
 *   It visits one tenant at a time, paced over half the interval (SWEEP_MIN_RATE).
 * Each queue reschedules its own failed deliveries (mail with exponential
 * backoff, never dropped; webhooks on WEBHOOK_RETRY_SCHEDULE). Queues claim rows
 * with SKIP LOCKED and a lease, so any number of instances can run this.
 */
@Injectable()
export class OutboxWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('OutboxWorker');
  /** Consecutive failures to reach a tenant's outbox at all (its database down, say), for the backoff of its hint. */
  private readonly unreachable = new Map<string, number>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly rerun = new Set<string>();
  private readonly waiting: Array<() => void> = [];
  private busy = 0;
  private started = false;
  private stopping = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  /** The last poll took as many hints as it asked for: more may be due, so the next pass to end polls again. */
  private backlog = false;
  private sweeping: Promise<void> | undefined;
  /** Aborted at shutdown: ends the sweep's pause between tenants. */
  private readonly stopped = new AbortController();
  private readonly queues: OutboxQueue[] = [];

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly directoryRepo: DirectoryRepository,
    private readonly directory: TenantDirectory,
    private readonly connections: TenantConnections,
    private readonly pending: OutboxPendingRepository,
    private readonly adapterHost: HttpAdapterHost,
    metrics: Metrics,
  ) {
    metrics.gauge('iam_outbox_tenants_pending', 'Tenants whose outbox holds mail, SMS or webhook deliveries not delivered yet (from the pending hints).', [], async (set) => {
      set({}, (await this.pending.depth()).tenants);
    });
    metrics.gauge('iam_outbox_oldest_due_seconds', 'How long the most overdue outbox delivery has been due (0 when none is overdue).', [], async (set) => {
      set({}, (await this.pending.depth()).oldestDueSeconds);
    });
  }

  /** Adds a kind of outbox row to what every pass delivers (from its module's `onModuleInit`). */
  register(queue: OutboxQueue): void {
    if (!this.queues.includes(queue)) this.queues.push(queue);
  }

  /**
   * Starts with the service. Maintenance commands (an application context without
   * HTTP) do not send mail: the running service does.
   */
  onApplicationBootstrap(): void {
    if (!this.adapterHost.httpAdapter) return;
    this.started = true;
    this.pollTimer = setInterval(() => this.poll(), this.config.mailPollIntervalMs);
    this.sweepTimer = setInterval(() => void this.sweep(), this.config.mailSweepIntervalMs);
    void this.sweep();
  }

  /** Stops looking and waits for the batches in flight (a batch releases its undelivered rows). */
  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    clearInterval(this.pollTimer);
    clearInterval(this.sweepTimer);
    for (const wake of this.waiting.splice(0)) wake();
    this.stopped.abort();
    const inFlight = Promise.allSettled([...this.running.values(), this.sweeping, this.polling]);
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, SEND_TIMEOUT_MS + 5_000)));
    await Promise.race([inFlight, limit]);
    clearTimeout(timer);
  }

  /** Looks at a tenant's outbox now (after a transaction that queued a message committed and its hint was written). */
  kick(tenantId: string): void {
    if (!this.started || this.stopping) return;
    void this.run(tenantId);
  }

  /** Takes as many due hints as there are free slots, and works on those tenants. */
  private poll(): void {
    const free = PARALLEL_TENANTS - this.running.size;
    if (this.polling || this.stopping || free <= 0) return;
    this.polling = (async () => {
      try {
        const due = await this.pending.claimDue(free, LEASE_MS);
        this.backlog = due.length === free;
        for (const tenantId of due) if (!this.stopping) void this.run(tenantId);
      } catch (err) {
        this.backlog = false;
        this.logger.warn(`Outbox hints unreadable: ${describeDeliveryError(err)}`);
      } finally {
        this.polling = undefined;
      }
    })();
  }

  /**
   * Every tenant of the directory, one at a time and paced (SWEEP_MIN_RATE); one
   * tenant's failure does not stop the others.
   */
  private sweep(): Promise<void> {
    this.sweeping ??= (async () => {
      try {
        const tenants = await this.directoryRepo.allTenants();
        const rate = Math.max(SWEEP_MIN_RATE, tenants.length / (this.config.mailSweepIntervalMs / 2 / 1000));
        const started = Date.now();
        for (const [i, tenant] of tenants.entries()) {
          if (this.stopping) break;
          await this.run(tenant.id, tenant, true);
          await this.pause(started + ((i + 1) * 1000) / rate - Date.now());
        }
      } catch (err) {
        this.logger.warn(`Outbox sweep failed: ${describeDeliveryError(err)}`);
      } finally {
        this.sweeping = undefined;
      }
    })();
    return this.sweeping;
  }

  /** Waits `ms` (nothing when not positive), ended early by shutdown. */
  private async pause(ms: number): Promise<void> {
    if (ms <= 0 || this.stopping) return;
    await sleep(ms, undefined, { signal: this.stopped.signal }).catch(() => undefined);
  }

  /**
   * One pass over a tenant's outbox at a time; a kick during a pass causes
   * one more pass. A sweep pass also purges old delivered rows.
   */
  private run(tenantId: string, tenant?: TenantEntity, sweep = false): Promise<void> {
    const current = this.running.get(tenantId);
    if (current) {
      if (!sweep) this.rerun.add(tenantId);
      return current;
    }
    const pass = this.withSlot(() => this.processTenant(tenantId, tenant, sweep)).finally(() => {
      this.running.delete(tenantId);
      if (this.rerun.delete(tenantId) && !this.stopping) void this.run(tenantId);
      if (this.backlog) this.poll();
    });
    this.running.set(tenantId, pass);
    return pass;
  }

  /**
   * Takes the tenant's hint, sends what is due, and leaves the hint at the next
   * due row (or deletes it). Never throws: an unreachable tenant's hint is backed
   * off without holding up the others.
   */
  private async processTenant(tenantId: string, known: TenantEntity | undefined, sweep: boolean): Promise<void> {
    if (this.stopping) return;
    let seen: HintVersion = undefined;
    try {
      seen = await this.pending.take(tenantId, LEASE_MS);
    } catch (err) {
      // The main database: the outbox may still be reachable; the hint stays as it is and is looked at again.
      this.logger.warn(`Outbox hint of tenant ${tenantId} unreadable (${describeDeliveryError(err)})`);
    }
    let next: NextLook | null;
    try {
      const tenant = known ?? (await this.directory.tenantById(tenantId));
      // Not (or no longer) in the directory: its hint went with it.
      if (!tenant) return;
      const db = await this.connections.db(tenant);
      let dueAt: ExactTime | null = null;
      for (const queue of this.queues) {
        await queue.drain(db, () => this.stopping);
        if (sweep) await queue.purge(db);
        dueAt = earliest(dueAt, await queue.nextDueAt(db));
      }
      next = dueAt === null ? null : { at: dueAt };
      this.unreachable.delete(tenantId);
    } catch (err) {
      if (sweep && !seen) {
        // Not known to hold mail: the next sweep looks again.
        this.logger.warn(`Outbox of tenant ${tenantId} unreachable (${describeDeliveryError(err)}); next look at the next sweep`);
        return;
      }
      const failures = (this.unreachable.get(tenantId) ?? 0) + 1;
      this.unreachable.set(tenantId, failures);
      const delay = this.backoff(failures);
      next = { inMs: delay };
      const when = seen === undefined ? '' : `; next look in ${delay} ms`;
      this.logger.warn(`Outbox of tenant ${tenantId} unreachable (${describeDeliveryError(err)})${when}`);
    }
    if (seen === undefined) return;
    try {
      await this.pending.settle(tenantId, seen, next);
    } catch (err) {
      // The hint stays taken (due again when the take's lease ends).
      this.logger.warn(`Outbox hint of tenant ${tenantId} not updated (${describeDeliveryError(err)})`);
    }
  }

  /** How long an unreachable tenant waits: MAIL_RETRY_BASE_MS · 2^(failures-1), at most MAIL_RETRY_MAX_MS. */
  private backoff(attempt: number): number {
    const exponent = Math.min(Math.max(attempt, 1) - 1, 30);
    return Math.min(this.config.mailRetryBaseMs * 2 ** exponent, this.config.mailRetryMaxMs);
  }

  /** At most PARALLEL_TENANTS passes at once; the rest wait their turn. */
  private async withSlot<T>(work: () => Promise<T>): Promise<T> {
    while (this.busy >= PARALLEL_TENANTS && !this.stopping) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.busy++;
    try {
      return await work();
    } finally {
      this.busy--;
      this.waiting.shift()?.();
    }
  }
}
