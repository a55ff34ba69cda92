#!/usr/bin/env node
import { MigrationService } from '../tenancy/migration.service';
import { report, runWithApp } from './run-with-app';

/**
 * `iam-migration-status` (`npm run migration:status`): lists the migrations not
 * applied yet to the main database, the platform tenant, the pooled-mode
 * template and each tenant, applying nothing. Exits 0 when everything is up to
 * date and 3 when something is pending.
 */
void runWithApp(
  'MigrationStatus',
  async (app) => {
    const pending = await app.get(MigrationService).pending();
    const line = (what: string, list: string[]) => report(`${what}: ${list.length === 0 ? 'up to date' : `${list.length} pending (${list.join(', ')})`}`);
    line('main database', pending.main);
    line('platform tenant', pending.platform);
    line('tenant template', pending.template);
    if (pending.main.length > 0) report('tenants: not checked until the main database is migrated');
    else if (pending.tenants.length === 0) report('tenants: all up to date');
    for (const t of pending.tenants) line(`tenant ${t.slug}`, t.pending);
    const behind = pending.main.length + pending.platform.length + pending.template.length + pending.tenants.length;
    return behind > 0 ? 3 : 0;
  },
  { maintenance: true },
);
