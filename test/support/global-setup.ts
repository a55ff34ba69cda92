import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '../../src/database/embedded-database';

/** A free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * One PostgreSQL server for the whole run: the one TEST_DATABASE_URL names, or an
 * embedded one in a temporary directory. Each test file then makes its own main
 * database on it (test/support/test-app.ts), dropped with the others of the run at its end.
 */
export default async function globalSetup(): Promise<void> {
  Logger.overrideLogger(['error', 'warn']);
  // Names this run's databases (test/support/test-app.ts), so that the teardown drops exactly those.
  process.env.IAM_TEST_RUN = randomBytes(3).toString('hex');
  if (process.env.TEST_DATABASE_URL) {
    process.env.IAM_TEST_PG_URL = process.env.TEST_DATABASE_URL;
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'iam-test-pg-'));
  chmodSync(dir, 0o755); // the cluster runs as the postgres user, which must reach it
  const server = await startEmbeddedPostgres({ dataDir: dir, port: await freePort(), database: 'postgres' });
  (globalThis as { __IAM_TEST_PG__?: unknown }).__IAM_TEST_PG__ = server;
  process.env.IAM_TEST_PG_URL = server.url;
}
