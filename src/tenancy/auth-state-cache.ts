import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { TenantEntity } from './tenant.entity';
import { TenantStorageService } from './tenant-storage';

/** The channel the tenant schema's triggers notify on (migration AuthChangeNotifications). */
const AUTH_CHANNEL = 'iam_auth';

/** Entries of one database before its cache is emptied and refilled. */
const MAX_ENTRIES_PER_DATABASE = 20_000;
/** A database whose listener failed is read through, without a cache, for this long. */
const RETRY_AFTER_MS = 5_000;
const SWEEP_MS = 15_000;
/** A database earns a listener once it has been read this often within one sweep period: lightly used ones are read through. */
const ADMIT_AFTER_READS = 10;
/** Idle time before the kernel probes a listener's TCP connection (keepalive; the heartbeat is what bounds trust). */
const KEEPALIVE_IDLE_MS = 10_000;
/**
 * A heartbeat not back by the heartbeat tick after next (two intervals after it
 * was sent) fails its listener; 1.5 intervals so a timer a little late or early
 * still decides at that tick.
 */
const HEARTBEAT_DEADLINE_INTERVALS = 1.5;

interface Entry {
  value: unknown;
  tag: string;
  at: number;
}

/** One listened-to database: its LISTEN connection and what was cached under it. */
interface Channel {
  url: string;
  client: Client | undefined;
  /** True once LISTEN has answered: only then may reads be cached. */
  live: boolean;
  /** Bumped by every notification: a read that started before one is not cached. */
  generation: number;
  /** This listener's own heartbeat channel (`iam_auth_hb_<random>`): nobody else listens on it, the triggers never notify it. */
  beat: string;
  /** When the heartbeat awaited now was sent; 0 once any notification (the heartbeat or another) has arrived since. */
  awaitedSince: number;
  /** A heartbeat NOTIFY is on the wire (at most one per listener). */
  beating: boolean;
  lastUsed: number;
  entries: Map<string, Entry>;
  tags: Map<string, Set<string>>;
}

/**
 * Caches authorization state (a user's id, sector, admin flag, credential version
 * and session state; an API token's id and sector) so that the hot path —
 * bearer authentication and introspection — does not read the database on every
 * request, without weakening revocation:
 *
 *  - A database's state is cached only while this instance holds a live LISTEN
 *    connection on it. Triggers in the tenant schema notify on commit of any
 *    change that matters (user deleted, moved, renamed, demoted or promoted,
 *    password changed; session ended; API token revoked), and the named entries
 *    are dropped when the notification arrives — on every instance.
 *  - A read that started before a notification is not cached (generation check),
 *    so a value read just before a commit never outlives it.
 *  - When a listener fails, everything cached under it is dropped at once and the
 *    database is read through until a new listener is live. Entries also expire
 *    after AUTH_CACHE_TTL_MS as a last resort.
 *  - A listener that fails silently (a connection nobody closes but that carries
 *    nothing any more: a dropped route, a stuck firewall or NAT state) is found by
 *    its heartbeat: every AUTH_CACHE_HEARTBEAT_MS each live listener NOTIFYs its
 *    own channel over its own connection — the notification comes back on the
 *    listening socket at commit — and one whose heartbeat has not come back two
 *    intervals after it was sent fails as above. At most one heartbeat is in
 *    flight per listener. TCP keepalive is on too, but it cannot bound this:
 *    Node offers no TCP user timeout, and a connection with unacknowledged data
 *    (a heartbeat) is retransmitted for many minutes before the kernel gives up.
 *  - A database is listened to (one connection each) once it is busy — read
 *    ADMIT_AFTER_READS times within a sweep period — and at most
 *    AUTH_CACHE_DATABASES at once; the others are read through. Listeners unused
 *    for TENANT_IDLE_TIMEOUT_MS close.
 *
 * Nothing negative is cached: a token or user created a moment ago is found.
 */
@Injectable()
export class AuthStateCache implements OnApplicationShutdown {
  private readonly logger = new Logger('AuthStateCache');
  private readonly channels = new Map<string, Channel>();
  private readonly failedAt = new Map<string, number>();
  /** Reads per not-yet-listened database since the last sweep (see ADMIT_AFTER_READS). */
  private readonly heat = new Map<string, number>();
  /** Each tenant's database URL (building one parses a URL; tenants never move). */
  private readonly urls = new Map<string, string>();
  private readonly sweeper: NodeJS.Timeout | undefined;
  private readonly heartbeat: NodeJS.Timeout | undefined;
  private stopped = false;
  hits = 0;
  misses = 0;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly storage: TenantStorageService,
  ) {
    if (config.authCacheDatabases > 0) {
      this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
      this.sweeper.unref();
      this.heartbeat = setInterval(() => this.beatAll(), config.authCacheHeartbeatMs);
      this.heartbeat.unref();
    }
  }

  /**
   * `load()`'s answer, from the cache when a live one holds it under `key` (in the
   * tenant's database); a non-null answer is cached under `key` and invalidated by
   * notifications naming `tagOf(value)`.
   */
  async read<T>(tenant: TenantEntity, key: string, load: () => Promise<T | null>, tagOf: (value: T) => string): Promise<T | null> {
    const channel = this.channelFor(tenant);
    if (!channel) return load();
    const hit = this.hitIn<T>(channel, key);
    if (hit !== undefined) return hit;
    const now = Date.now();
    this.misses++;
    const cacheable = channel.live;
    const generation = channel.generation;
    const value = await load();
    if (value !== null && cacheable && channel.live && channel.generation === generation && this.channels.get(channel.url) === channel) {
      if (channel.entries.size >= MAX_ENTRIES_PER_DATABASE) this.clear(channel);
      const tag = tagOf(value);
      channel.entries.set(key, { value, tag, at: now });
      let keys = channel.tags.get(tag);
      if (!keys) channel.tags.set(tag, (keys = new Set()));
      keys.add(key);
    }
    return value;
  }

  /**
   * What `read` would answer from the cache, synchronously: the cached value, or
   * undefined when `read` would go to the database (the hot path's way to skip
   * promises on a hit).
   */
  peek<T>(tenant: TenantEntity, key: string): T | undefined {
    // Only a database already listened to (admitting one is `read`'s business).
    const channel = this.stopped ? undefined : this.channels.get(this.urlOf(tenant));
    return channel ? this.hitIn<T>(channel, key) : undefined;
  }

  private hitIn<T>(channel: Channel, key: string): T | undefined {
    const now = Date.now();
    channel.lastUsed = now;
    const hit = channel.entries.get(key);
    if (hit === undefined) return undefined;
    if (now - hit.at < this.config.authCacheTtlMs) {
      this.hits++;
      return hit.value as T;
    }
    this.dropEntry(channel, key, hit.tag);
    return undefined;
  }

  /**
   * Drops what this instance cached under `tag` in the tenant's database, at once —
   * called by the service that just committed a change, so the instance that made
   * it never answers from the old state, not even before its own notification
   * arrives. (Every other instance drops it on the notification.)
   */
  forget(tenant: { id: string }, tag: string): void {
    // A tenant whose database URL was never worked out here has nothing cached here.
    const url = this.urls.get(tenant.id);
    const channel = url === undefined ? undefined : this.channels.get(url);
    if (channel) this.notified(channel, tag);
  }

  /** Drops everything this instance cached from the tenant's database (a change whose tags are not known here). */
  flush(tenant: { id: string }): void {
    this.forget(tenant, '*');
  }

  /** How many databases are listened to now (for tests and metrics). */
  get listening(): number {
    let n = 0;
    for (const c of this.channels.values()) if (c.live) n++;
    return n;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweeper);
    clearInterval(this.heartbeat);
    const channels = [...this.channels.values()];
    this.channels.clear();
    await Promise.all(channels.map((c) => c.client?.end().catch(() => undefined)));
  }

  private channelFor(tenant: TenantEntity): Channel | undefined {
    if (this.config.authCacheDatabases === 0 || this.stopped) return undefined;
    const url = this.urlOf(tenant);
    const existing = this.channels.get(url);
    if (existing) return existing;
    if (this.channels.size >= this.config.authCacheDatabases) return undefined;
    const reads = (this.heat.get(url) ?? 0) + 1;
    this.heat.set(url, reads);
    if (reads < ADMIT_AFTER_READS) return undefined;
    this.heat.delete(url);
    const failed = this.failedAt.get(url);
    if (failed !== undefined && Date.now() - failed < RETRY_AFTER_MS) return undefined;
    const channel: Channel = {
      url,
      client: undefined,
      live: false,
      generation: 0,
      beat: `${AUTH_CHANNEL}_hb_${randomBytes(8).toString('hex')}`,
      awaitedSince: 0,
      beating: false,
      lastUsed: Date.now(),
      entries: new Map(),
      tags: new Map(),
    };
    this.channels.set(url, channel);
    void this.listen(channel);
    return channel;
  }

  private urlOf(tenant: TenantEntity): string {
    let url = this.urls.get(tenant.id);
    if (url === undefined) {
      url = this.storage.sessionUrlFor(tenant);
      if (this.urls.size >= MAX_ENTRIES_PER_DATABASE) this.urls.clear();
      this.urls.set(tenant.id, url);
    }
    return url;
  }

  private async listen(channel: Channel): Promise<void> {
    const client = new Client({ connectionString: channel.url, application_name: 'iam-auth-listener', keepAlive: true, keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS });
    channel.client = client;
    client.on('notification', (n) => {
      // Any notification proves the listening socket still receives; a heartbeat is only that.
      channel.awaitedSince = 0;
      if (n.channel !== channel.beat) this.notified(channel, n.payload ?? '*');
    });
    client.on('error', (err) => this.drop(channel, err));
    client.on('end', () => this.drop(channel));
    try {
      await client.connect();
      await client.query(`LISTEN ${AUTH_CHANNEL}; LISTEN ${channel.beat}`);
      if (this.channels.get(channel.url) === channel) {
        channel.live = true;
        this.failedAt.delete(channel.url);
      }
    } catch (err) {
      this.drop(channel, err as Error);
    }
  }

  /**
   * The heartbeat tick: fails every live listener whose heartbeat has not come
   * back two intervals after it was sent, and sends the next one where none is in
   * flight. Only live listeners (at most AUTH_CACHE_DATABASES) beat.
   */
  private beatAll(): void {
    const now = Date.now();
    const deadline = this.config.authCacheHeartbeatMs * HEARTBEAT_DEADLINE_INTERVALS;
    for (const channel of this.channels.values()) {
      const client = channel.client;
      if (!channel.live || !client) continue;
      if (channel.awaitedSince !== 0 && now - channel.awaitedSince > deadline) {
        this.overdue(channel);
        continue;
      }
      if (channel.beating) continue;
      channel.beating = true;
      if (channel.awaitedSince === 0) channel.awaitedSince = now;
      client.query(`NOTIFY ${channel.beat}`).then(
        () => (channel.beating = false),
        (err: Error) => {
          // A listener closed on purpose (idle, shutdown) fails its heartbeat too: nothing to report then.
          if (this.channels.get(channel.url) === channel) this.drop(channel, err);
        },
      );
    }
  }

  /**
   * Fails a listener whose heartbeat is overdue — after the event loop has read
   * what is waiting on the sockets (a check callback runs after I/O), so a loop
   * that was merely busy does not fail a listener whose heartbeat is there unread.
   */
  private overdue(channel: Channel): void {
    const since = channel.awaitedSince;
    setImmediate(() => {
      if (channel.awaitedSince === since && this.channels.get(channel.url) === channel) {
        this.drop(channel, new Error(`no heartbeat back within ${2 * this.config.authCacheHeartbeatMs} ms`));
      }
    });
  }

  private notified(channel: Channel, payload: string): void {
    channel.generation++;
    if (payload === '*') {
      this.clear(channel);
      return;
    }
    const keys = channel.tags.get(payload);
    if (!keys) return;
    channel.tags.delete(payload);
    for (const key of keys) channel.entries.delete(key);
  }

  /** Stops caching for this database: its entries go at once, reads go to the database until a new listener is live. */
  private drop(channel: Channel, err?: Error): void {
    if (this.channels.get(channel.url) === channel) this.channels.delete(channel.url);
    channel.live = false;
    channel.generation++;
    this.clear(channel);
    if (err && !this.stopped) {
      this.failedAt.set(channel.url, Date.now());
      this.logger.warn(`Listening for authorization changes failed (${err.message}); reading through until it is back`);
    }
    const client = channel.client;
    channel.client = undefined;
    void client?.end().catch(() => undefined);
  }

  private clear(channel: Channel): void {
    channel.entries.clear();
    channel.tags.clear();
  }

  private dropEntry(channel: Channel, key: string, tag: string): void {
    channel.entries.delete(key);
    const keys = channel.tags.get(tag);
    keys?.delete(key);
    if (keys?.size === 0) channel.tags.delete(tag);
  }

  /** Closes listeners nobody used for TENANT_IDLE_TIMEOUT_MS and drops expired entries. */
  private sweep(): void {
    const now = Date.now();
    this.heat.clear();
    for (const channel of [...this.channels.values()]) {
      if (now - channel.lastUsed > this.config.tenantIdleMs) {
        this.drop(channel);
        continue;
      }
      for (const [key, entry] of channel.entries) {
        if (now - entry.at >= this.config.authCacheTtlMs) this.dropEntry(channel, key, entry.tag);
      }
    }
  }
}
