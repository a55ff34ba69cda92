import { INestApplication } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { withDatabase } from '../../src/database/data-source-options';
import { createApp } from '../../src/main';
import { freePort } from './global-setup';

export const ADMIN_EMAIL = 'root@platform.test';
export const ADMIN_PASSWORD = 'platform-admin-pw';

/** Keeps the attempt throttle and the rate limits out of the way of specs that try many wrong codes or passwords, flows or sends. */
export const NO_THROTTLE = {
  THROTTLE_ACCOUNT_FREE_ATTEMPTS: '1000',
  THROTTLE_ADDRESS_FREE_ATTEMPTS: '1000000',
  THROTTLE_FLOW_ADDRESS_FREE: '1000000',
  THROTTLE_SIGNUP_ADDRESS_FREE: '1000000',
  THROTTLE_SEND_USER_FREE: '1000000',
  THROTTLE_SEND_ADDRESS_FREE: '1000000',
};

export interface TestAppOptions {
  tenancyMode?: 'pooled' | 'schema';
  env?: Record<string, string>;
  /** Reuse this main database (to restart the app on the same data); a new one of this run by default. */
  databaseName?: string;
  /** Listen on this port (e.g. so PUBLIC_URL can name it); a free one by default. */
  port?: number;
}

export interface TestApp {
  app: INestApplication;
  config: AppConfig;
  baseUrl: string;
  databaseUrl: string;
  databaseName: string;
  http: () => request.Agent;
  /** Signs in and returns the access token (fails the test otherwise). */
  login(username: string, password: string, sectorID?: string): Promise<string>;
  platformToken(): Promise<string>;
  /** Runs SQL on the main database. */
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** Stops the app; its databases stay until the end of the run (dropRunDatabases). */
  close(): Promise<void>;
}

/** The PostgreSQL server the run uses (set by global-setup). */
export function serverUrl(): string {
  const url = process.env.IAM_TEST_PG_URL;
  if (!url) throw new Error('IAM_TEST_PG_URL is not set: run the tests through jest (global-setup)');
  return url;
}

export async function adminQuery<T = Record<string, unknown>>(text: string, params: unknown[] = [], database?: string): Promise<T[]> {
  const client = new Client({ connectionString: database ? withDatabase(serverUrl(), database) : serverUrl() });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** The prefix of every main database this test run makes (set by global-setup, one per run). */
function runPrefix(): string {
  return `e2e_${process.env.IAM_TEST_RUN ?? 'run'}_`;
}

/** A new main database name of this run (its tenants' databases and template are named after it). */
export function testDatabaseName(): string {
  return `${runPrefix()}${randomBytes(4).toString('hex')}`;
}

/** Drops these databases, a few at a time (PostgreSQL makes one checkpoint serve the drops that wait together). */
async function dropDatabases(names: string[]): Promise<void> {
  const queue = [...names];
  const dropper = async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  };
  await Promise.all(Array.from({ length: Math.min(8, queue.length) }, dropper));
}

/**
 * Drops every database this run made (global-teardown). Spec files leave theirs to this:
 * each DROP DATABASE forces a checkpoint of the whole server, which made every spec
 * file running beside it wait for the others' writes to reach the disk.
 */
export async function dropRunDatabases(): Promise<void> {
  const rows = await adminQuery<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [runPrefix()]);
  await dropDatabases(rows.map((r) => r.datname));
}

/** The configuration e2e apps boot with: on `databaseUrl`, a fresh data directory, pooled tenancy, cheap bcrypt, the run's HTTP adapter; `env` on top. */
export function testConfig(databaseUrl: string, env: Record<string, string> = {}): AppConfig {
  return loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'iam-e2e-')),
    TENANCY_MODE: 'pooled',
    PUBLIC_URL: 'http://iam.test',
    MASTER_KEY: 'test-master-key-0123456789abcdef0123456789',
    BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL,
    BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
    BCRYPT_COST: '4',
    LOG_LEVEL: 'error',
    // Back-channel logout receivers in tests listen on loopback over http.
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    // The jest project picks the adapter (e2e: Express, e2e-fastify: Fastify; see jest.config.js).
    HTTP_ADAPTER: process.env.HTTP_ADAPTER ?? 'express',
    ...env,
  });
}

/**
 * An app (without throttling) whose PUBLIC_URL is its own address: the addresses it
 * writes (logos, favicons, links) then load on its pages under their strict policy.
 */
export async function startAppAtOwnAddress(env: Record<string, string> = {}): Promise<TestApp> {
  const port = await freePort();
  return startTestApp({ port, env: { ...NO_THROTTLE, ...env, PUBLIC_URL: `http://127.0.0.1:${port}` } });
}

/** Boots the real application on its own fresh main database on the test server, listening on a free port. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const databaseName = options.databaseName ?? testDatabaseName();
  if (!options.databaseName) await adminQuery(`CREATE DATABASE "${databaseName}"`);
  const databaseUrl = withDatabase(serverUrl(), databaseName);
  const config = testConfig(databaseUrl, { TENANCY_MODE: options.tenancyMode ?? 'pooled', ...options.env });
  const app = await createApp(config, databaseUrl);
  await app.listen(options.port ?? 0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  const baseUrl = `http://127.0.0.1:${address.port}`;
  const http = () => request(baseUrl);
  let platformToken: string | undefined;
  const testApp: TestApp = {
    app,
    config,
    baseUrl,
    databaseUrl,
    databaseName,
    http,
    async login(username, password, sectorID) {
      const res = await http().post('/api/v1/login/password').send({ username, password, sectorID });
      if (res.status !== 200 || !res.body.token) throw new Error(`login of ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.token as string;
    },
    async platformToken() {
      platformToken ??= await testApp.login(ADMIN_EMAIL, ADMIN_PASSWORD);
      return platformToken;
    },
    sql: (text, params) => adminQuery(text, params, databaseName),
    async close() {
      await app.close();
    },
  };
  return testApp;
}
