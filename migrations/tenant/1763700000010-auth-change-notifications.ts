import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Authorization changes announce themselves: statement-level triggers on users,
 * sessions, api_tokens and sector_settings call pg_notify('iam_auth', …) inside the changing
 * transaction, so every listening instance hears of the change exactly when it
 * commits (never before, never for a rolled-back change), whichever code path —
 * or a hand-written SQL statement — made it. Instances drop what they cached for
 * the named user, API token or sector. Payloads: `u:<user id>`, `t:<api token id>`,
 * `s:<sector id>` (its settings), or
 * `*` (drop everything of this database) when one statement touches more than
 * 500 rows, to keep the notification queue small on bulk deletes.
 */
export class AuthChangeNotifications1763700000010 implements MigrationInterface {
  name = 'AuthChangeNotifications1763700000010';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION iam_auth_notify() RETURNS trigger LANGUAGE plpgsql AS $fn$
      DECLARE
        ids text[];
      BEGIN
        IF TG_TABLE_NAME = 'users' THEN
          IF TG_OP = 'DELETE' THEN
            SELECT array_agg('u:' || o.id) INTO ids FROM old_rows o;
          ELSE
            SELECT array_agg('u:' || o.id) INTO ids FROM old_rows o JOIN new_rows n ON n.id = o.id
             WHERE (o.sector_id, o.username, o.is_admin, o.credential_version, o.kept_token_jti, o.credentials_changed_at)
                   IS DISTINCT FROM (n.sector_id, n.username, n.is_admin, n.credential_version, n.kept_token_jti, n.credentials_changed_at);
          END IF;
        ELSIF TG_TABLE_NAME = 'sessions' THEN
          IF TG_OP = 'DELETE' THEN
            SELECT array_agg(DISTINCT 'u:' || o.user_id) INTO ids FROM old_rows o;
          ELSE
            SELECT array_agg(DISTINCT 'u:' || o.user_id) INTO ids FROM old_rows o JOIN new_rows n ON n.id = o.id
             WHERE (o.user_id, o.revoked_at, o.expires_at) IS DISTINCT FROM (n.user_id, n.revoked_at, n.expires_at);
          END IF;
        ELSIF TG_TABLE_NAME = 'sector_settings' THEN
          -- Any settings change: some decide who may read or create users, others where credentials go.
          SELECT array_agg(DISTINCT 's:' || o.sector_id) INTO ids FROM old_rows o;
        ELSE
          IF TG_OP = 'DELETE' THEN
            SELECT array_agg('t:' || o.id) INTO ids FROM old_rows o;
          ELSE
            SELECT array_agg('t:' || o.id) INTO ids FROM old_rows o JOIN new_rows n ON n.id = o.id
             WHERE (o.sector_id, o.token_hash) IS DISTINCT FROM (n.sector_id, n.token_hash);
          END IF;
        END IF;
        IF ids IS NULL THEN
          RETURN NULL;
        ELSIF cardinality(ids) > 500 THEN
          PERFORM pg_notify('iam_auth', '*');
        ELSE
          PERFORM pg_notify('iam_auth', id) FROM unnest(ids) AS id;
        END IF;
        RETURN NULL;
      END
      $fn$`);
    for (const table of ['users', 'sessions', 'api_tokens', 'sector_settings']) {
      await q.query(
        `CREATE TRIGGER ${table}_auth_update AFTER UPDATE ON ${table} REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
           FOR EACH STATEMENT EXECUTE FUNCTION iam_auth_notify()`,
      );
      await q.query(`CREATE TRIGGER ${table}_auth_delete AFTER DELETE ON ${table} REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION iam_auth_notify()`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['users', 'sessions', 'api_tokens', 'sector_settings']) {
      await q.query(`DROP TRIGGER ${table}_auth_update ON ${table}`);
      await q.query(`DROP TRIGGER ${table}_auth_delete ON ${table}`);
    }
    await q.query(`DROP FUNCTION iam_auth_notify()`);
  }
}
