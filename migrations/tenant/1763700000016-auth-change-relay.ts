import { MigrationInterface, QueryRunner } from 'typeorm';

/** The changed rows' tags, as AuthChangeNotifications worked them out (unchanged). */
const TAGS_OF_CHANGE = `
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
        END IF;`;

/**
 * Authorization changes are relayed to the main database's change channel instead
 * of being NOTIFYed in the tenant's own database, so that an instance hears every
 * tenant on one connection (see the main migration AuthChangeHints and
 * src/tenancy/auth-state-cache.ts). The statement-level triggers stay as they were;
 * their function now calls `iam_auth_relay(schema, tags)`:
 *
 *  - in the main database (the platform, schema-mode tenants) it inserts the hint
 *    there, in the changing transaction;
 *  - in a tenant's own database it sends the hint, with this transaction's id, over a
 *    dblink connection to the foreign server `iam_main` (set up by the service next to
 *    the migrations, see src/tenancy/auth-relay.ts) and kept for the session. The hint
 *    reaches the main database before this transaction commits; a hint that cannot be
 *    sent fails the change, so no change ever goes unannounced.
 *
 * The function runs as its owner (the service's role, whose user mapping it uses), so
 * a change made by hand by any role is relayed too.
 */
export class AuthChangeRelay1763700000016 implements MigrationInterface {
  name = 'AuthChangeRelay1763700000016';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION iam_auth_relay(here text, ids text[]) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $fn$
      DECLARE
        hint text;
      BEGIN
        IF to_regclass('public.auth_change_hints') IS NOT NULL THEN
          INSERT INTO public.auth_change_hints (location, remote, tags) VALUES (here, false, ids);
          RETURN;
        END IF;
        hint := format('INSERT INTO public.auth_change_hints (location, remote, tags, xid) VALUES (%L, true, %L, %L)', current_database(), ids, pg_current_xact_id()::text);
        IF NOT coalesce('iam_relay' = ANY (public.dblink_get_connections()), false) THEN
          PERFORM public.dblink_connect('iam_relay', 'iam_main');
        END IF;
        BEGIN
          PERFORM public.dblink_exec('iam_relay', hint);
        EXCEPTION WHEN OTHERS THEN
          -- A kept connection the main database has since closed (a restart, an idle timeout): once more on a new one.
          PERFORM public.dblink_disconnect('iam_relay');
          PERFORM public.dblink_connect('iam_relay', 'iam_main');
          PERFORM public.dblink_exec('iam_relay', hint);
        END;
      END
      $fn$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION iam_auth_notify() RETURNS trigger LANGUAGE plpgsql AS $fn$
      DECLARE
        ids text[];
      BEGIN
        ${TAGS_OF_CHANGE}
        IF ids IS NULL THEN
          RETURN NULL;
        ELSIF cardinality(ids) > 500 THEN
          ids := ARRAY['*'];
        END IF;
        PERFORM iam_auth_relay(TG_TABLE_SCHEMA, ids);
        RETURN NULL;
      END
      $fn$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION iam_auth_notify() RETURNS trigger LANGUAGE plpgsql AS $fn$
      DECLARE
        ids text[];
      BEGIN
        ${TAGS_OF_CHANGE}
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
    await q.query(`DROP FUNCTION iam_auth_relay(text, text[])`);
  }
}
