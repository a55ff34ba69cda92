import { Client } from 'pg';

/** The foreign server a tenant database's triggers reach the main database through (tenant migration AuthChangeRelay). */
const RELAY_SERVER = 'iam_main';

/**
 * Points a tenant database (or a template, whose clones inherit it) at the main
 * database's change channel: the dblink extension, the foreign server `iam_main`
 * with the main database's address, and a user mapping for the role the service
 * connects as (its credentials are readable by superusers and that role only).
 * Idempotent (and a no-op when already so); run after every migration of a tenant
 * database, under its migration lock, on a session of that database. `relayUrl` is the main database as the
 * tenant's server reaches it (AUTH_RELAY_URL, by default DATABASE_URL).
 *
 * Needs the right to create the dblink extension (a superuser, or dblink already
 * installed in the server's template1 by one); the error says so.
 */
export async function configureRelay(session: Client, relayUrl: string): Promise<void> {
  const url = new URL(relayUrl);
  const serverOptions: Array<[string, string]> = [
    ['dbname', decodeURIComponent(url.pathname.slice(1))],
    ['application_name', 'iam-auth-relay'],
  ];
  const host = url.searchParams.get('host') ?? decodeURIComponent(url.hostname);
  if (host) serverOptions.push(['host', host.replace(/^\[(.*)\]$/, '$1')]);
  if (url.port) serverOptions.push(['port', url.port]);
  const sslmode = url.searchParams.get('sslmode');
  if (sslmode) serverOptions.push(['sslmode', sslmode]);
  const mappingOptions: Array<[string, string]> = [];
  if (url.username) mappingOptions.push(['user', decodeURIComponent(url.username)]);
  if (url.password) mappingOptions.push(['password', decodeURIComponent(url.password)]);
  const sql = (list: Array<[string, string]>) => list.map(([k, v]) => `${k} ${session.escapeLiteral(v)}`).join(', ');
  try {
    await session.query('CREATE EXTENSION IF NOT EXISTS dblink WITH SCHEMA public');
  } catch (err) {
    throw new Error(
      `Cannot create the dblink extension in tenant database "${session.database}" (${(err as Error).message}): the service relays authorization changes ` +
        `from tenant databases to the main one through it. Connect as a role that may create it, or install it in the server's template1 (CREATE EXTENSION dblink).`,
    );
  }
  // Already pointed there (every start prepares the templates): nothing to redo, the template stays free for clones.
  const { rows } = await session.query<{ server: string[] | null; mapped: boolean; mapping: string[] | null }>(
    `SELECT s.srvoptions AS server, m.umid IS NOT NULL AS mapped, m.umoptions AS mapping FROM pg_foreign_server s
       LEFT JOIN pg_user_mappings m ON m.srvid = s.oid AND m.usename = current_user WHERE s.srvname = $1`,
    [RELAY_SERVER],
  );
  const same = (want: Array<[string, string]>, have: string[] | null) => want.map(([k, v]) => `${k}=${v}`).sort().join('\n') === [...(have ?? [])].sort().join('\n');
  if (rows.length === 1 && rows[0].mapped && same(serverOptions, rows[0].server) && same(mappingOptions, rows[0].mapping)) return;
  await session.query('BEGIN');
  try {
    await session.query(`DROP SERVER IF EXISTS ${RELAY_SERVER} CASCADE`);
    await session.query(`CREATE SERVER ${RELAY_SERVER} FOREIGN DATA WRAPPER dblink_fdw OPTIONS (${sql(serverOptions)})`);
    await session.query(`CREATE USER MAPPING FOR CURRENT_USER SERVER ${RELAY_SERVER}${mappingOptions.length ? ` OPTIONS (${sql(mappingOptions)})` : ''}`);
    // Only the relay (SECURITY DEFINER, owned by the service's role) opens connections with that mapping.
    await session.query(`REVOKE ALL ON FOREIGN SERVER ${RELAY_SERVER} FROM PUBLIC`);
    await session.query('COMMIT');
  } catch (err) {
    await session.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
