import type { DatabaseServer } from '../../src/database/embedded-database';
import { dropRunDatabases } from './test-app';

/** Drops the run's databases on the test server named by TEST_DATABASE_URL, or stops the embedded server the run started for itself. */
export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as { __IAM_TEST_PG__?: DatabaseServer }).__IAM_TEST_PG__;
  if (server) await server.stop();
  else await dropRunDatabases();
}
