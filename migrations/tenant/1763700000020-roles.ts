import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Roles: a sector's named sets of permission strings, and which users hold them.
 *
 *  - `roles` (unique name per sector; at most 1,000 a sector, enforced by the
 *    service under a per-sector lock) and `user_roles` (a user holds a role of their
 *    own sector). Deleting a role or a user deletes the holdings.
 *  - Introspection answers a user's roles and permissions as stored now, through the
 *    authorization-state cache, so every change that alters what a user holds is
 *    announced like the changes of migration AuthChangeNotifications, naming the
 *    users it touches (`u:<id>`): a holding added or removed, and a role's name or
 *    permissions edited (each of its holders). A role deleted removes its holdings,
 *    which announce themselves. Past 500 users in one statement the announcement is
 *    `*` (everything of the tenant), as for the other tables.
 */
export class Roles1763700000020 implements MigrationInterface {
  name = 'Roles1763700000020';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE roles (
        id uuid PRIMARY KEY,
        sector_id uuid NOT NULL REFERENCES sectors(id) ON DELETE CASCADE,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        permissions text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT roles_sector_name_key UNIQUE (sector_id, name)
      )`);
    await q.query(`
      CREATE TABLE user_roles (
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        role_id uuid NOT NULL REFERENCES roles(id) ON DELETE CASCADE,
        PRIMARY KEY (user_id, role_id)
      )`);
    await q.query(`CREATE INDEX user_roles_role_idx ON user_roles (role_id, user_id)`);
    await q.query(`
      CREATE FUNCTION iam_role_notify() RETURNS trigger LANGUAGE plpgsql AS $fn$
      DECLARE
        ids text[];
      BEGIN
        IF TG_TABLE_NAME = 'user_roles' THEN
          IF TG_OP = 'INSERT' THEN
            SELECT array_agg(DISTINCT 'u:' || n.user_id) INTO ids FROM new_rows n;
          ELSE
            SELECT array_agg(DISTINCT 'u:' || o.user_id) INTO ids FROM old_rows o;
          END IF;
        ELSE
          -- The holders, in this trigger's own schema (whatever the session's search_path).
          EXECUTE format(
            'SELECT array_agg(DISTINCT ''u:'' || ur.user_id) FROM old_rows o JOIN new_rows n ON n.id = o.id JOIN %I.user_roles ur ON ur.role_id = n.id
              WHERE (o.name, o.permissions, o.sector_id) IS DISTINCT FROM (n.name, n.permissions, n.sector_id)',
            TG_TABLE_SCHEMA) INTO ids;
        END IF;
        IF ids IS NULL THEN
          RETURN NULL;
        ELSIF cardinality(ids) > 500 THEN
          ids := ARRAY['*'];
        END IF;
        PERFORM iam_auth_relay(TG_TABLE_SCHEMA, ids);
        RETURN NULL;
      END
      $fn$`);
    await q.query(`CREATE TRIGGER user_roles_auth_insert AFTER INSERT ON user_roles REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION iam_role_notify()`);
    await q.query(`CREATE TRIGGER user_roles_auth_delete AFTER DELETE ON user_roles REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION iam_role_notify()`);
    await q.query(
      `CREATE TRIGGER roles_auth_update AFTER UPDATE ON roles REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION iam_role_notify()`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE user_roles`);
    await q.query(`DROP TABLE roles`);
    await q.query(`DROP FUNCTION iam_role_notify()`);
  }
}
