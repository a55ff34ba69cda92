import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { requestContext } from '../common/http/request-context';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { MAIN_DATABASE_URL } from '../database/tokens';
import { TenantConnections } from './tenant-connections';
import { TenantDirectory } from './tenant-directory';
import { TenantEntity } from './tenant.entity';

/** The main database's channel every tenant's changes are announced on (main migration AuthChangeHints). */
const CHANGES_CHANNEL = 'iam_auth_changes';
/** After the listener failed, the next connection attempt waits this long. */
const RETRY_AFTER_MS = 2_000;
const SWEEP_MS = 15_000;
/** Hints of changes made in tenants' own databases are kept this long (a listener that connects finds the unsettled ones among them). */
const HINT_KEEP = '10 minutes';
/** How often an instance deletes the expired hints. */
const HINT_PURGE_MS = 60_000;
/** Past the entry bound, this share of the oldest entries goes at once. */
const EVICT_SHARE = 0.1;
/** When an unsettled change's transaction is looked at: after 2 ms, then twice as late each time, at most every 250 ms (every second while its database fails). */
const SETTLE_FIRST_MS = 2;
const SETTLE_MAX_MS = 250;
const SETTLE_FAILING_MS = 1_000;
/** Idle time before the kernel probes the listener's TCP connection (keepalive; the heartbeat is what bounds trust). */
const KEEPALIVE_IDLE_MS = 10_000;
/**
 * A barrier not back by the heartbeat tick after next (two intervals after it
 * was sent) fails the listener; 1.5 intervals so a timer a little late or early
 * still decides at that tick.
 */
const HEARTBEAT_DEADLINE_INTERVALS = 1.5;
/**
 * Requests wait at most this long for a barrier; past it they read the database
 * (a listener that stopped hearing is given up by the heartbeat, later).
 */
const BARRIER_WAIT_MS = 500;
const NOT_SYNCED = Promise.resolve(false);
const SYNCED = Promise.resolve(true);

/** A barrier notification on its way: sent at `sentAt`, it answers `waiters` when it comes back. */
interface Barrier {
  seq: number;
  sentAt: number;
  waiters: Array<(heard: boolean) => void>;
  /** Gives up the waiters after BARRIER_WAIT_MS. */
  timer?: NodeJS.Timeout;
}

interface Entry {
  key: string;
  value: unknown;
  tenantId: string;
  tag: string;
  at: number;
  /** Set when the entry leaves the cache, for whoever kept it (`stillServes`). */
  dropped: boolean;
}

/**
 * A cached value as `peekEntry` found it. Whoever keeps it asks `stillServes`
 * before using it again: that answers what `peek` of the same key would, without
 * building the key or looking it up.
 */
export interface CacheHandle<T> {
  readonly value: T;
}

/** What the cache knows of one tenant. */
interface TenantState {
  /** Set (from a counter shared by all tenants) by every change heard of: a read that started before it is not cached. */
  generation: number;
  /** The cached keys by the tag that invalidates them. */
  tags: Map<string, Set<string>>;
  /** Changes announced but whose transaction has not ended yet, by transaction id: the tags they name (or '*') are read through meanwhile. */
  unsettled: Map<string, Set<string> | '*'>;
}

/**
 * Caches authorization state (a user's id, sector, admin flag, credential version
 * and session state; an API token's id and sector; a sector's settings) of every
 * tenant, so that the hot path — bearer authentication and introspection — reads no
 * database on a repeated credential, whichever tenant it belongs to, without
 * weakening revocation. The guarantee: **a cached state is never served after the
 * change that ended it has committed and its announcement could have reached this
 * instance**, whether the change was made by the service or by hand in SQL:
 *
 *  - Every change that matters (user deleted, moved, renamed, demoted or promoted,
 *    password changed; session ended; API token revoked; settings changed) is
 *    announced by triggers in the tenant's schema, on one channel in the main
 *    database that each instance LISTENs to on one connection, whatever the number
 *    of tenants or servers. A tenant in the main database (the platform, schema
 *    mode) announces in its changing transaction (the notification leaves at its
 *    commit). A tenant with a database of its own announces through dblink before
 *    its transaction commits, naming that transaction; each instance drops the
 *    named entries at once and reads them through, caching nothing for them, until
 *    it has seen that transaction end (committed and visible, or aborted) in the
 *    tenant's database. An announcement that cannot be made fails the change itself.
 *  - State is cached only while the listener is live. When it fails — closed, or
 *    silent: its barrier (sent at least every AUTH_CACHE_HEARTBEAT_MS, the
 *    heartbeat) not back within two intervals — everything cached is
 *    dropped at once and every tenant is read through until a new listener is live;
 *    a new listener first takes the still unsettled announcements from the main
 *    database (kept ten minutes), so one made while it was away is not missed.
 *  - A read that started before a change of its tenant was heard of is not cached,
 *    so a value read just before a commit never outlives it.
 *  - A request is answered from the cache only once this instance has heard every
 *    announcement committed before the request arrived (AUTH_CACHE_CONSISTENCY
 *    `strict`, the default): the listener notifies itself, and PostgreSQL delivers
 *    notifications in commit order, so when that barrier comes back every earlier
 *    announcement has been heard. One barrier in flight serves every request that
 *    arrived before it was sent. So a logout answered by one instance is refused by
 *    the next request on any other, not a notification's delivery later.
 *  - The instance that made a change drops its own entries at once (`forget`),
 *    without waiting for the announcement. Entries expire after AUTH_CACHE_TTL_MS
 *    as a last resort.
 *
 * Bounded by entries (AUTH_CACHE_ENTRIES, the oldest tenth dropped past it), not by
 * tenants or databases. Nothing negative is cached: a token or user created a
 * moment ago is found.
 */
@Injectable()
export class AuthStateCache implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('AuthStateCache');
  private readonly entries = new Map<string, Entry>();
  private readonly tenants = new Map<string, TenantState>();
  private readonly enabled: boolean;
  private client: Client | undefined;
  /** True once LISTEN has answered and the unsettled announcements are taken: only then may reads be cached. */
  private live = false;
  /** Bumped whenever the listener goes live or fails: a read that started before is not cached. */
  private epoch = 0;
  /** The counter tenants' generations are taken from. */
  private changes = 0;
  /** This listener's own barrier channel (`iam_auth_hb_<random>`): nobody else listens on it, the triggers never notify it. */
  private readonly beat = `iam_auth_hb_${randomBytes(8).toString('hex')}`;
  /** The barrier on the wire (at most one), and the requests waiting for the next one. */
  private barrier: Barrier | undefined;
  private queued: Array<(heard: boolean) => void> = [];
  private barriers = 0;
  private readonly strict: boolean;
  private retry: NodeJS.Timeout | undefined;
  private readonly sweeper: NodeJS.Timeout | undefined;
  private readonly heartbeat: NodeJS.Timeout | undefined;
  private lastPurge = 0;
  private stopped = false;
  hits = 0;
  misses = 0;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(MAIN_DATABASE_URL) private readonly mainUrl: string,
    private readonly connections: TenantConnections,
    private readonly directory: TenantDirectory,
  ) {
    this.enabled = config.authCacheEntries > 0;
    this.strict = config.authCacheConsistency === 'strict';
    if (this.enabled) {
      this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
      this.sweeper.unref();
      this.heartbeat = setInterval(() => this.beatOnce(), config.authCacheHeartbeatMs);
      this.heartbeat.unref();
    }
  }

  /** Listens once the whole application has started (a start that fails leaves no connection behind). */
  onApplicationBootstrap(): void {
    if (this.enabled && !this.stopped) void this.listen();
  }

  /**
   * `load()`'s answer, from the cache when it holds it under `key` (keys carry their
   * tenant's id); a non-null answer is cached under `key` and invalidated by
   * announcements naming `tagOf(value)` in that tenant.
   */
  async read<T>(tenant: TenantEntity, key: string, load: () => Promise<T | null>, tagOf: (value: T) => string): Promise<T | null> {
    if (!this.enabled) return load();
    const hit = this.hitIn<T>(key);
    if (hit !== undefined) {
      if (this.synced()) return hit.value;
      // Served only once every change committed before this request is heard (and has dropped what it names).
      if (await this.sync()) {
        const still = this.hitIn<T>(key);
        if (still !== undefined) return still.value;
      }
    }
    this.misses++;
    const now = Date.now();
    const epoch = this.epoch;
    const generation = this.tenants.get(tenant.id)?.generation ?? 0;
    const value = await load();
    if (value === null || !this.live || this.epoch !== epoch) return value;
    const state = this.stateOf(tenant.id);
    const tag = tagOf(value);
    if (state.generation !== generation || isUnsettled(state, tag)) return value;
    if (this.entries.size >= this.config.authCacheEntries) this.evictOldest();
    const replaced = this.entries.get(key);
    if (replaced !== undefined) replaced.dropped = true;
    this.entries.set(key, { key, value, tenantId: tenant.id, tag, at: now, dropped: false });
    let keys = state.tags.get(tag);
    if (!keys) state.tags.set(tag, (keys = new Set()));
    keys.add(key);
    return value;
  }

  /**
   * What `read` would answer from the cache, synchronously: the cached value, or
   * undefined when `read` would go to the database or wait for `sync` (the hot
   * path's way to skip promises on a hit).
   */
  peek<T>(tenant: TenantEntity, key: string): T | undefined {
    return this.peekEntry<T>(tenant, key)?.value;
  }

  /** `peek`, answering the entry itself, which the caller may keep and test again with `stillServes`. */
  peekEntry<T>(_tenant: TenantEntity, key: string): CacheHandle<T> | undefined {
    return this.enabled && this.synced() ? this.hitIn<T>(key) : undefined;
  }

  /**
   * Whether an entry `peekEntry` answered is still what `peek` of its key would
   * answer now: the same checks (the request synced, the entry neither dropped by a
   * change nor expired), without the lookup.
   */
  stillServes(handle: CacheHandle<unknown>): boolean {
    const entry = handle as Entry;
    if (entry.dropped || !this.enabled || !this.synced()) return false;
    if (Date.now() - entry.at < this.config.authCacheTtlMs) {
      this.hits++;
      return true;
    }
    this.dropEntry(entry);
    return false;
  }

  /**
   * Waits until this instance has heard every change announced before the call
   * (a barrier notification sent after it has come back), and marks the current
   * request as synced so its cache hits are answered at once. True when so; false
   * when the listener is not live (nothing is served from the cache then).
   * With AUTH_CACHE_CONSISTENCY `bounded`, true at once.
   */
  sync(): Promise<boolean> {
    if (!this.enabled) return NOT_SYNCED;
    if (!this.strict) return SYNCED;
    const client = this.client;
    if (!this.live || !client) return NOT_SYNCED;
    // A barrier that is late already: this listener may have stopped hearing; read through.
    if (this.barrier && Date.now() - this.barrier.sentAt > BARRIER_WAIT_MS) return NOT_SYNCED;
    const context = requestContext.getStore();
    return new Promise<boolean>((resolve) => {
      this.queued.push((heard) => {
        if (heard && context) context.authSynced = true;
        resolve(heard);
      });
      if (!this.barrier) this.sendBarrier(client);
    });
  }

  /** Whether the current request may be answered from the cache without waiting. */
  private synced(): boolean {
    return !this.strict || requestContext.getStore()?.authSynced === true;
  }

  private hitIn<T>(key: string): CacheHandle<T> | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined) return undefined;
    if (Date.now() - hit.at < this.config.authCacheTtlMs) {
      this.hits++;
      return hit as CacheHandle<T>;
    }
    this.dropEntry(hit);
    return undefined;
  }

  /**
   * Drops what this instance cached under `tag` in the tenant, at once — called by
   * the service that just committed a change, so the instance that made it never
   * answers from the old state, not even before the announcement arrives.
   */
  forget(tenant: { id: string }, tag: string): void {
    if (this.enabled) this.changed(tenant.id, tag === '*' ? '*' : [tag]);
  }

  /** Drops everything this instance cached of the tenant (a change whose tags are not known here). */
  flush(tenant: { id: string }): void {
    this.forget(tenant, '*');
  }

  /** How many change listeners are live now: 1, or 0 while the cache reads through (for tests and metrics). */
  get listening(): number {
    return this.live ? 1 : 0;
  }

  /** How many entries are cached now (for metrics). */
  get size(): number {
    return this.entries.size;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweeper);
    clearInterval(this.heartbeat);
    clearTimeout(this.retry);
    this.live = false;
    this.releaseWaiters();
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    const client = new Client({ connectionString: this.mainUrl, application_name: 'iam-auth-listener', keepAlive: true, keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS });
    this.client = client;
    client.on('notification', (n) => {
      if (this.client !== client) return;
      if (n.channel === CHANGES_CHANNEL) this.announced(n.payload ?? '');
      else if (n.channel === this.beat) this.barrierBack(client, n.payload ?? '');
    });
    client.on('error', (err) => this.fail(client, err));
    client.on('end', () => this.fail(client, new Error('connection ended')));
    try {
      await client.connect();
      // A barrier's commit needs no flush to disk: it carries nothing to keep.
      await client.query(`SET synchronous_commit TO off; LISTEN ${CHANGES_CHANNEL}; LISTEN ${this.beat}`);
      // Announced while no listener of this instance was there, and perhaps not settled yet.
      const { rows } = await client.query<{ tenant_id: string; xid: string; tags: string[] }>(
        `SELECT tenant_id, xid, tags FROM auth_change_hints WHERE xid IS NOT NULL AND created_at > now() - interval '${HINT_KEEP}' ORDER BY id`,
      );
      if (this.client !== client) return;
      for (const row of rows) this.changed(row.tenant_id, row.tags.includes('*') ? '*' : row.tags, row.xid);
      this.epoch++;
      this.live = true;
    } catch (err) {
      this.fail(client, err as Error);
    }
  }

  /** A notification on the changes channel: `<tenant id> <xid or -> <tags or *>`. */
  private announced(payload: string): void {
    const [tenantId, xid, what] = payload.split(' ');
    if (!tenantId || !what) {
      // Not ours to read: trust nothing cached.
      this.clearAll();
      return;
    }
    this.changed(tenantId, what === '*' ? '*' : what.split(','), xid === '-' ? undefined : xid);
  }

  /** Drops the entries `tags` name in the tenant; with `xid`, keeps them read through until that transaction has ended. */
  private changed(tenantId: string, tags: string[] | '*', xid?: string): void {
    const state = this.stateOf(tenantId);
    state.generation = ++this.changes;
    if (tags === '*') {
      for (const keys of state.tags.values()) for (const key of keys) this.removeKey(key);
      state.tags.clear();
    } else {
      for (const tag of tags) {
        const keys = state.tags.get(tag);
        if (!keys) continue;
        state.tags.delete(tag);
        for (const key of keys) this.removeKey(key);
      }
    }
    if (xid === undefined) return;
    const had = state.unsettled.get(xid);
    if (had === undefined) {
      state.unsettled.set(xid, tags === '*' ? '*' : new Set(tags));
      this.settleLater(tenantId, xid, SETTLE_FIRST_MS);
    } else if (had !== '*') {
      if (tags === '*') state.unsettled.set(xid, '*');
      else for (const tag of tags) had.add(tag);
    }
  }

  private settleLater(tenantId: string, xid: string, delayMs: number): void {
    const timer = setTimeout(() => void this.settle(tenantId, xid, delayMs), delayMs);
    timer.unref();
  }

  /**
   * Looks in the tenant's database whether an announced change's transaction has
   * ended; once it has (committed and visible to new reads, or aborted, or too old
   * to tell), drops its entries once more and lets them be cached again.
   */
  private async settle(tenantId: string, xid: string, lastDelayMs: number): Promise<void> {
    const state = this.tenants.get(tenantId);
    if (this.stopped || !state?.unsettled.has(xid)) return;
    let ended: boolean;
    try {
      const tenant = await this.directory.tenantById(tenantId);
      if (tenant === undefined) {
        ended = true;
      } else {
        const db = await this.connections.db(tenant);
        const [row] = await db.read<{ status: string | null; visible: boolean | null }>(
          'SELECT pg_xact_status($1::xid8) AS status, pg_visible_in_snapshot($1::xid8, pg_current_snapshot()) AS visible',
          [xid],
        );
        ended = row.status === null || row.status === 'aborted' || (row.status === 'committed' && row.visible === true);
      }
    } catch (err) {
      this.logger.warn(`Could not look whether an announced change of tenant ${tenantId} has committed (${(err as Error).message}); its state is read through meanwhile`);
      this.settleLater(tenantId, xid, SETTLE_FAILING_MS);
      return;
    }
    if (!ended) {
      this.settleLater(tenantId, xid, Math.min(lastDelayMs * 2, SETTLE_MAX_MS));
      return;
    }
    const tags = state.unsettled.get(xid);
    if (tags === undefined) return;
    state.unsettled.delete(xid);
    this.changed(tenantId, tags === '*' ? '*' : [...tags]);
  }

  /** Sends a barrier for the requests queued so far: a notification to this listener alone. */
  private sendBarrier(client: Client): void {
    const barrier: Barrier = { seq: ++this.barriers, sentAt: Date.now(), waiters: this.queued };
    this.queued = [];
    this.barrier = barrier;
    if (barrier.waiters.length > 0) barrier.timer = setTimeout(() => this.stopWaiting(barrier), BARRIER_WAIT_MS);
    client.query(`NOTIFY ${this.beat}, '${barrier.seq}'`).catch((err: Error) => this.fail(client, err));
  }

  /**
   * A barrier came back: every notification committed before it has been handled
   * (they arrive in commit order, each handled as it is read), so its waiters are
   * synced. The next barrier leaves for those who queued meanwhile.
   */
  private barrierBack(client: Client, payload: string): void {
    const barrier = this.barrier;
    if (!barrier || payload !== String(barrier.seq)) return;
    this.barrier = undefined;
    clearTimeout(barrier.timer);
    for (const waiter of barrier.waiters) waiter(true);
    if (this.queued.length > 0 && this.live) this.sendBarrier(client);
  }

  /**
   * The heartbeat tick: fails the listener when its barrier has not come back two
   * intervals after it was sent, and sends one when none is in flight (an idle
   * listener proves it still hears).
   */
  private beatOnce(): void {
    const client = this.client;
    if (!this.live || !client) return;
    const barrier = this.barrier;
    if (barrier === undefined) this.sendBarrier(client);
    else if (Date.now() - barrier.sentAt > this.config.authCacheHeartbeatMs * HEARTBEAT_DEADLINE_INTERVALS) this.overdue(client, barrier);
  }

  /**
   * Fails a listener whose barrier is overdue — after the event loop has read what
   * is waiting on the sockets (a check callback runs after I/O), so a loop that was
   * merely busy does not fail a listener whose barrier is there unread.
   */
  private overdue(client: Client, barrier: Barrier): void {
    setImmediate(() => {
      if (this.barrier === barrier && this.client === client) {
        this.fail(client, new Error(`no heartbeat back within ${2 * this.config.authCacheHeartbeatMs} ms`));
      }
    });
  }

  /** A barrier is late: its waiters and those queued behind it read the database; the heartbeat judges the listener (the barrier stays in flight). */
  private stopWaiting(barrier: Barrier): void {
    if (this.barrier === barrier) this.notSynced(barrier);
  }

  /** The listener is gone: no barrier is in flight any more, and every request waiting for one reads the database. */
  private releaseWaiters(): void {
    const barrier = this.barrier;
    this.barrier = undefined;
    clearTimeout(barrier?.timer);
    this.notSynced(barrier);
  }

  /** Answers the barrier's waiters and those queued behind it: not synced. */
  private notSynced(barrier: Barrier | undefined): void {
    const waiters = [...(barrier?.waiters ?? []), ...this.queued];
    if (barrier) barrier.waiters = [];
    this.queued = [];
    for (const waiter of waiters) waiter(false);
  }

  /** Stops caching: every entry goes at once, every tenant is read through until a new listener is live. */
  private fail(client: Client, err: Error): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.live = false;
    this.epoch++;
    this.clearAll();
    this.releaseWaiters();
    void client.end().catch(() => undefined);
    if (this.stopped) return;
    this.logger.warn(`Listening for authorization changes failed (${err.message}); reading through until it is back`);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (!this.stopped) void this.listen();
    }, RETRY_AFTER_MS);
    this.retry.unref();
  }

  private stateOf(tenantId: string): TenantState {
    let state = this.tenants.get(tenantId);
    if (!state) this.tenants.set(tenantId, (state = { generation: 0, tags: new Map(), unsettled: new Map() }));
    return state;
  }

  private clearAll(): void {
    for (const entry of this.entries.values()) entry.dropped = true;
    this.entries.clear();
    for (const state of this.tenants.values()) {
      state.generation = ++this.changes;
      state.tags.clear();
    }
  }

  /** Drops an entry that is in the cache, with its place among its tag's keys. */
  private dropEntry(entry: Entry): void {
    entry.dropped = true;
    this.entries.delete(entry.key);
    const keys = this.tenants.get(entry.tenantId)?.tags.get(entry.tag);
    keys?.delete(entry.key);
    if (keys?.size === 0) this.tenants.get(entry.tenantId)?.tags.delete(entry.tag);
  }

  /** Drops the entry under `key`, if any (its tag's keys are the caller's to clear). */
  private removeKey(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    entry.dropped = true;
    this.entries.delete(key);
  }

  /** Drops the oldest tenth of the entries (a Map iterates in insertion order). */
  private evictOldest(): void {
    let n = Math.max(1, Math.floor(this.entries.size * EVICT_SHARE));
    for (const entry of this.entries.values()) {
      if (n-- <= 0) break;
      this.dropEntry(entry);
    }
  }

  /** Drops expired entries, and now and then the expired announcements in the main database. */
  private sweep(): void {
    const now = Date.now();
    for (const entry of this.entries.values()) {
      if (now - entry.at >= this.config.authCacheTtlMs) this.dropEntry(entry);
    }
    const client = this.client;
    if (this.live && client && now - this.lastPurge >= HINT_PURGE_MS) {
      this.lastPurge = now;
      client.query(`DELETE FROM auth_change_hints WHERE created_at < now() - interval '${HINT_KEEP}'`).catch((err: Error) => this.logger.warn(`Could not purge old change announcements: ${err.message}`));
    }
  }
}

function isUnsettled(state: TenantState, tag: string): boolean {
  for (const tags of state.unsettled.values()) if (tags === '*' || tags.has(tag)) return true;
  return false;
}
