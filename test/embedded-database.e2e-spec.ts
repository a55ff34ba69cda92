/**
 * The embedded PostgreSQL of `npm start`, locked down: its superuser password is
 * generated on the first start and kept in DATA_DIR (mode 0600) — the old fixed
 * password no longer logs in, also on a cluster made before passwords were
 * generated — and as root a DATA_DIR the postgres user cannot reach stops the
 * start with a message that says what to do. The password's verifier is stored
 * with one SCRAM iteration: every new connection checks it.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DatabaseServer, startEmbeddedPostgres } from '../src/database/embedded-database';
import { freePort } from './support/global-setup';

async function canLogIn(url: string): Promise<true | string> {
  const client = new Client({ connectionString: url });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The SCRAM iteration count of the superuser's stored password verifier. */
async function verifierIterations(url: string): Promise<number> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ rolpassword: string }>(`SELECT rolpassword FROM pg_authid WHERE rolname = 'postgres'`);
    return Number(/^SCRAM-SHA-256\$(\d+):/.exec(rows[0].rolpassword)?.[1]);
  } finally {
    await client.end();
  }
}

describe('the embedded PostgreSQL', () => {
  const dirs: string[] = [];
  const servers: DatabaseServer[] = [];
  const newDataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'iam-embedded-'));
    chmodSync(dir, 0o755);
    dirs.push(dir);
    return dir;
  };

  afterAll(async () => {
    for (const s of servers) await s.stop().catch(() => undefined);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('generates its superuser password on the first start, keeps it in DATA_DIR (0600), and refuses the old fixed one', async () => {
    const dataDir = newDataDir();
    const port = await freePort();
    const server = await startEmbeddedPostgres({ dataDir, port, database: 'iam' });
    servers.push(server);
    const file = join(dataDir, 'pg-password');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const password = readFileSync(file, 'utf8').trim();
    expect(password).toMatch(/^[\w-]{32}$/);
    expect(server.url).toBe(`postgres://postgres:${password}@127.0.0.1:${port}/iam`);
    expect(await canLogIn(server.url)).toBe(true);
    expect(await canLogIn(`postgres://postgres:postgres@127.0.0.1:${port}/iam`)).toBe('28P01');

    // A cluster made before passwords were generated (the fixed password, no file) gets a generated one on its next start.
    const admin = new Client({ connectionString: server.url });
    await admin.connect();
    await admin.query(`ALTER ROLE postgres PASSWORD 'postgres'`);
    await admin.end();
    await server.stop();
    servers.pop();
    unlinkSync(file);
    const again = await startEmbeddedPostgres({ dataDir, port, database: 'iam' });
    servers.push(again);
    const renewed = readFileSync(file, 'utf8').trim();
    expect(renewed).not.toBe(password);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await canLogIn(again.url)).toBe(true);
    expect(await canLogIn(`postgres://postgres:postgres@127.0.0.1:${port}/iam`)).toBe('28P01');
    // The generated password's verifier is stored with one SCRAM iteration (every new connection checks it).
    expect(await verifierIterations(again.url)).toBe(1);
  });

  it('stores the superuser verifier with one SCRAM iteration, also on an adopted cluster whose verifier has the default', async () => {
    const dataDir = newDataDir();
    const port = await freePort();
    const server = await startEmbeddedPostgres({ dataDir, port, database: 'iam' });
    servers.push(server);
    expect(await verifierIterations(server.url)).toBe(1);
    const password = readFileSync(join(dataDir, 'pg-password'), 'utf8').trim();
    const admin = new Client({ connectionString: server.url });
    await admin.connect();
    await admin.query(`SET scram_iterations = 4096`);
    await admin.query(`ALTER ROLE postgres PASSWORD '${password}'`);
    await admin.end();
    expect(await verifierIterations(server.url)).toBe(4096);
    // A second process adopts the running cluster and renews the verifier; the password stays the same.
    await startEmbeddedPostgres({ dataDir, port, database: 'iam', stopAdoptedOnExit: false });
    expect(await verifierIterations(server.url)).toBe(1);
    expect(readFileSync(join(dataDir, 'pg-password'), 'utf8').trim()).toBe(password);
  });

  const asRoot = process.getuid?.() === 0 ? it : it.skip;
  asRoot('as root, stops with a message that says what to do when DATA_DIR lies in a folder the postgres user cannot enter', async () => {
    const privateParent = mkdtempSync(join(tmpdir(), 'iam-private-')); // mode 0700, like a home folder
    dirs.push(privateParent);
    const dataDir = join(privateParent, 'data');
    await expect(startEmbeddedPostgres({ dataDir, port: await freePort() })).rejects.toThrow(
      `The embedded PostgreSQL runs as the 'postgres' user when the service runs as root, and that user cannot enter ${privateParent} ` +
        `(on the way to DATA_DIR ${dataDir}). Choose a DATA_DIR outside private folders (for example /var/lib/iam), ` +
        `let other users enter the folder (chmod o+x ${privateParent}), run the service as a non-root user, or set DATABASE_URL to a PostgreSQL server.`,
    );
    expect(existsSync(join(dataDir, 'pg', 'PG_VERSION'))).toBe(false);
  });
});
