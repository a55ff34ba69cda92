import type { DatabaseServer } from '../../src/database/embedded-database';

export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as { __IAM_TEST_PG__?: DatabaseServer }).__IAM_TEST_PG__;
  if (server) await server.stop();
}
