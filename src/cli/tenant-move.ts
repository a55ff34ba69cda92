#!/usr/bin/env node
import { TenantMover } from '../tenancy/tenant-move';
import { report, runWithApp } from './run-with-app';

const USAGE = 'Usage: iam-tenant-move <tenant slug> <server>   (npm run tenant:move -- <slug> <server>)\n       iam-tenant-move --abort <tenant slug>';

/**
 * `iam-tenant-move <slug> <server>` (`npm run tenant:move -- <slug> <server>`): moves
 * a pooled tenant's database to another of TENANT_DATABASE_SERVERS (`main`: the main
 * database's server) while the service runs; the tenant's writes pause for about as
 * long as its data takes to copy, reads go on, and every instance follows the move
 * at once. Run it again to resume an interrupted move; `--abort <slug>` rolls an
 * interrupted move back.
 */
void runWithApp(
  'TenantMove',
  async (app) => {
    const args = process.argv.slice(2);
    const mover = app.get(TenantMover);
    if (args[0] === '--abort' && args.length === 2) {
      const done = await mover.abort(args[1]);
      report(done ? `Tenant "${args[1]}": the interrupted move is over; its database is on "${done.to}"` : `Tenant "${args[1]}" has no move under way`);
      return;
    }
    if (args.length !== 2 || args[0].startsWith('-')) throw new Error(USAGE);
    const [slug, server] = args;
    const done = await mover.move(slug, server);
    if (done.outcome === 'finished') {
      report(`Tenant "${slug}" was already switched to "${done.to}"; its old database on "${done.from}" is dropped`);
    } else {
      const rows = Object.values(done.rows ?? {}).reduce((a, b) => a + b, 0);
      report(`Moved tenant "${slug}" from "${done.from}" to "${done.to}": ${rows} rows, writes paused ${done.writePauseMs} ms`);
    }
  },
  { maintenance: true },
);
