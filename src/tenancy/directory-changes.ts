import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Client } from 'pg';
import { MAIN_DATABASE_URL } from '../database/tokens';

const RECONNECT_MS = 2_000;

/** The channel on which the directory announces changes to every instance (delivered at commit). */
export const DIRECTORY_CHANNEL = 'iam_directory';
/** The directory announcement of a changed tenant row (a move to another server): `tenant:<id>`. */
export const TENANT_CHANGE = 'tenant:';
/**
 * The directory announcement of a tenant's new signing key: `keys:<tenant id>`. An
 * instance reads that tenant's keys again, not every tenant's (provisioning ten
 * thousand tenants would otherwise read the whole key table ten thousand times).
 * A bare `keys` (an older instance) still means every tenant's.
 */
export const KEYS_CHANGE = 'keys:';

/**
 * Every instance learns of directory changes made by any instance: one
 * connection per process LISTENs on the directory's channel (the repository
 * NOTIFYs in the writing transaction, so the news arrives after the commit), and
 * subscribers drop what they cached. While the connection is down (it reconnects
 * on its own) subscribers are told to drop everything once it is back, so nothing
 * stays stale past a reconnect; caches keep a time limit of their own as well.
 */
@Injectable()
export class DirectoryChanges implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('DirectoryChanges');
  private readonly subscribers = new Set<(what: string) => void>();
  private client: Client | undefined;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(@Inject(MAIN_DATABASE_URL) private readonly mainUrl: string) {}

  /** Calls `onChange` with what changed (e.g. 'sectors'), or '*' after a reconnect. */
  subscribe(onChange: (what: string) => void): void {
    this.subscribers.add(onChange);
  }

  /** Listens once the whole application has started (a start that fails leaves no connection behind). */
  async onApplicationBootstrap(): Promise<void> {
    if (this.stopped) return;
    await this.connect().catch((err: Error) => this.scheduleReconnect(err));
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new Client({ connectionString: this.mainUrl, application_name: 'iam-directory-listener' });
    client.on('notification', (n) => this.emit(n.payload ?? '*'));
    client.on('error', (err) => this.scheduleReconnect(err));
    await client.connect();
    await client.query(`LISTEN ${DIRECTORY_CHANNEL}`);
    this.client = client;
  }

  private scheduleReconnect(err: Error): void {
    if (this.stopped || this.retry) return;
    this.logger.warn(`Listening for directory changes failed (${err.message}); retrying`);
    void this.client?.end().catch(() => undefined);
    this.client = undefined;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.connect()
        .then(() => this.emit('*'))
        .catch((e: Error) => this.scheduleReconnect(e));
    }, RECONNECT_MS);
    this.retry.unref();
  }

  /** Tells this instance's subscribers of a change (the announcement's own notification reaches them again, harmlessly). */
  emit(what: string): void {
    for (const s of this.subscribers) s(what);
  }
}
