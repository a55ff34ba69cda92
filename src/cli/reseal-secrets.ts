#!/usr/bin/env node
import { INestApplicationContext } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { SecretBox } from '../common/crypto/secret-box';
import { MAIN_DATA_SOURCE } from '../database/tokens';
import { TOTP_SECRET_SEAL } from '../otp/otp-codes';
import { OIDC_CLIENT_SECRET_SEAL } from '../oidc/oidc-storage.repository';
import { OAUTH_PROVIDER_SECRET_SEAL } from '../oauth/oauth-provider.repository';
import { DirectoryRepository } from '../tenancy/directory.repository';
import { WEBHOOK_SECRET_SEAL } from '../webhook/webhook-secret';
import { SealedColumn, SealedColumns, SealedValue } from '../tenancy/sealed-columns';
import { TenantConnections } from '../tenancy/tenant-connections';
import { report, runWithApp } from './run-with-app';
import { SIGNING_KEY_SEAL } from '../keys/key.service';

/**
 * Every column holding sealed secrets. A new sealed column (the social-login
 * providers' client secrets, when that issue lands) is one more entry here —
 * `{ scope: 'tenant', table: …, idColumn: 'id', column: …_sealed, purpose: … }` —
 * and nothing else in this command changes.
 */
export const SEALED_COLUMNS: readonly SealedColumn[] = [
  // Tenants' private signing keys, in the main database (the purpose is KeyService's SEAL_PURPOSE).
  { scope: 'main', table: 'signing_keys', idColumn: 'kid', column: 'private_key_sealed', purpose: SIGNING_KEY_SEAL },
  // Users' TOTP secrets, in every tenant's storage.
  { scope: 'tenant', table: 'otp_registrations', idColumn: 'id', column: 'secret_sealed', purpose: TOTP_SECRET_SEAL },
  // Social-login providers' client secrets and private keys (Apple, GitHub App), in every tenant's storage.
  { scope: 'tenant', table: 'oauth_providers', idColumn: 'id', column: 'client_secret_sealed', purpose: OAUTH_PROVIDER_SECRET_SEAL },
  { scope: 'tenant', table: 'oauth_providers', idColumn: 'id', column: 'private_key_sealed', purpose: OAUTH_PROVIDER_SECRET_SEAL },
  // OpenID Provider clients' secrets, in every tenant's storage.
  { scope: 'tenant', table: 'oidc_clients', idColumn: 'client_id', column: 'client_secret_sealed', purpose: OIDC_CLIENT_SECRET_SEAL },
  // Webhook signing secrets (the current one, and the previous one for a day after a rotation), in every tenant's storage.
  { scope: 'tenant', table: 'webhooks', idColumn: 'id', column: 'secret_sealed', purpose: WEBHOOK_SECRET_SEAL },
  { scope: 'tenant', table: 'webhooks', idColumn: 'id', column: 'previous_secret_sealed', purpose: WEBHOOK_SECRET_SEAL },
];

export interface ResealOptions {
  /** Rows read per page, and re-sealed per transaction. */
  batchSize?: number;
  /** Where progress lines go (standard output by default). */
  log?: (line: string) => void;
  targets?: readonly SealedColumn[];
}

export interface ResealTotals {
  /** Values moved to the newest key by this run. */
  resealed: number;
  /** Values that already were under the newest key (a previous, perhaps interrupted, run; or written since the key was added). */
  alreadyCurrent: number;
  /** Values that could not be opened (a key not configured, a damaged value) or kept changing; left as they were. */
  failed: number;
  /** Values not under the newest key when the walk of their column ended (the failed ones, and any written meanwhile under an older key). */
  remaining: number;
}

export interface ResealSummary extends ResealTotals {
  keyId: string;
  /** Tenants walked, and tenants skipped because their storage could not be opened. */
  tenants: number;
  tenantsSkipped: number;
  /** One line per failure (row or tenant), for the operator. */
  failures: string[];
}

const DEFAULT_BATCH = 500;
/** A row that changes under us this many times in a row is left for the next run. */
const MAX_TRIES = 3;

const zero = (): ResealTotals => ({ resealed: 0, alreadyCurrent: 0, failed: 0, remaining: 0 });

function add(into: ResealTotals, from: ResealTotals): void {
  into.resealed += from.resealed;
  into.alreadyCurrent += from.alreadyCurrent;
  into.failed += from.failed;
  into.remaining += from.remaining;
}

const totalsLine = (t: ResealTotals) => `${t.resealed} re-sealed, ${t.alreadyCurrent} already current, ${t.failed} failed, ${t.remaining} not under the newest key`;

/**
 * Re-seals every sealed secret under the newest master key: the main database's
 * columns first, then every tenant's, tenant by tenant. Rows are read in id order
 * in pages; each value not yet under the newest key is opened (with whichever
 * configured key sealed it), sealed again and written back with one conditional
 * UPDATE (`WHERE id = … AND column = <old value>`), one transaction per page, so a
 * concurrent change is never overwritten (the row is read again and retried) and a
 * crashed run loses at most its page: run again, it skips what is done and
 * finishes the rest. Values that cannot be opened are reported and left alone.
 * An unexpected error (a database gone midway) ends the run; a tenant whose
 * storage cannot be opened is reported and skipped.
 */
export async function resealSecrets(app: INestApplicationContext, options: ResealOptions = {}): Promise<ResealSummary> {
  const box = app.get(SecretBox);
  const main = app.get<DataSource>(MAIN_DATA_SOURCE);
  const directory = app.get(DirectoryRepository);
  const connections = app.get(TenantConnections);
  const batchSize = options.batchSize ?? DEFAULT_BATCH;
  const log = options.log ?? report;
  const targets = options.targets ?? SEALED_COLUMNS;
  const summary: ResealSummary = { ...zero(), keyId: box.keyId, tenants: 0, tenantsSkipped: 0, failures: [] };

  log(`Re-sealing every secret under master key ${box.keyId} (configured, newest first: ${box.keyIds.join(', ')})`);

  const walk = async (where: string, manager: EntityManager, scope: SealedColumn['scope']): Promise<ResealTotals> => {
    const totals = zero();
    for (const target of targets.filter((t) => t.scope === scope)) {
      const column = await resealColumn(box, new SealedColumns(manager, target), batchSize, where, log, summary.failures);
      log(`${where}: ${target.table}.${target.column}: ${totalsLine(column)}`);
      add(totals, column);
    }
    return totals;
  };

  add(summary, await walk('main database', main.manager, 'main'));

  const tenants = await directory.allTenants();
  for (const [i, tenant] of tenants.entries()) {
    const where = `tenant ${tenant.slug} (${i + 1}/${tenants.length})`;
    let manager: EntityManager;
    try {
      manager = (await connections.db(tenant)).manager;
    } catch (err) {
      summary.failures.push(`${where}: storage cannot be opened: ${(err as Error).message}`);
      summary.tenantsSkipped += 1;
      log(`${where}: skipped, its storage cannot be opened: ${(err as Error).message}`);
      continue;
    }
    const totals = await walk(where, manager, 'tenant');
    add(summary, totals);
    summary.tenants += 1;
    log(`${where}: done: ${totalsLine(totals)}`);
  }

  log(`Total over the main database and ${summary.tenants} of ${tenants.length} tenants: ${totalsLine(summary)}${summary.tenantsSkipped ? `, ${summary.tenantsSkipped} tenant(s) skipped` : ''}`);
  return summary;
}

/** One column of one database: page by page, each page re-sealed in one transaction. */
async function resealColumn(
  box: SecretBox,
  columns: SealedColumns,
  batchSize: number,
  where: string,
  log: (line: string) => void,
  failures: string[],
): Promise<ResealTotals> {
  const totals = zero();
  let after: string | undefined;
  let read = 0;
  for (;;) {
    const page = await columns.page(after, batchSize);
    if (page.length === 0) break;
    after = page[page.length - 1].id;
    read += page.length;
    const stale = page.filter((row) => !box.isCurrent(row.sealed));
    totals.alreadyCurrent += page.length - stale.length;
    if (stale.length > 0) {
      await columns.transaction(async (tx) => {
        for (const row of stale) {
          const outcome = await resealRow(box, tx, row);
          if (outcome === 'resealed') totals.resealed += 1;
          else if (outcome === 'current') totals.alreadyCurrent += 1;
          else if (outcome !== 'gone') {
            totals.failed += 1;
            failures.push(`${where}: ${columns.name} row ${row.id}: ${outcome.error}`);
            log(`${where}: ${columns.name} row ${row.id} left as it is: ${outcome.error}`);
          }
        }
      });
    }
    if (page.length === batchSize) log(`${where}: ${columns.name}: ${read} rows read, ${totals.resealed} re-sealed so far`);
    if (page.length < batchSize) break;
  }
  totals.remaining = await columns.countWithoutPrefix(box.currentPrefix);
  return totals;
}

type RowOutcome = 'resealed' | 'current' | 'gone' | { error: string };

/** Re-seals one value with a conditional UPDATE; when the row changed meanwhile, reads it again and retries. */
async function resealRow(box: SecretBox, columns: SealedColumns, row: SealedValue): Promise<RowOutcome> {
  let sealed: string | null = row.sealed;
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    if (sealed === null) return 'gone';
    if (box.isCurrent(sealed)) return 'current';
    let next: string;
    try {
      next = box.reseal(columns.target.purpose, sealed);
    } catch (err) {
      return { error: (err as Error).message };
    }
    if (await columns.replace(row.id, sealed, next)) return 'resealed';
    sealed = await columns.current(row.id);
  }
  return { error: `changed ${MAX_TRIES} times while being re-sealed; run the command again` };
}

/**
 * `npm run secrets:reseal` (built: `node dist/src/cli/reseal-secrets.js`): moves
 * every sealed secret to the newest master key. Rotation: put the new key first
 * (`MASTER_KEYS=new,old`, or `MASTER_KEY=new` + `MASTER_KEY_PREVIOUS=old`) on every
 * instance, run this command, then drop the old key. Exit code 0 only when every
 * sealed value is under the newest key; safe to run again at any time.
 */
if (require.main === module) {
  void runWithApp('ResealSecrets', async (app) => {
    const summary = await resealSecrets(app);
    if (summary.remaining > 0 || summary.failed > 0 || summary.tenantsSkipped > 0) {
      throw new Error(
        `Not everything is under master key ${summary.keyId} yet: ${summary.remaining} value(s) remain, ${summary.failed} failed, ` +
          `${summary.tenantsSkipped} tenant(s) skipped; fix the causes above (a previous key missing from the configuration?) and run the command again`,
      );
    }
    report(`Every sealed secret is under master key ${summary.keyId}; older keys may now be removed from the configuration`);
  });
}
