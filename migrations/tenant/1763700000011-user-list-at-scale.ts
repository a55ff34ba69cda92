import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Listing a million users with an exact `totalCount` (docs/adr/0033-listing-at-scale.md):
 *
 * - `user_list_counts`: per sector, how many users and how many with a verified
 *   email, kept by triggers in the changing transaction, so the count of an
 *   unsearched list (all users, or `filterVerified`) is one row read.
 * - `user_search_docs`: per user, the lowercased search document
 *   `name ‖ chr(1) ‖ email ‖ chr(1) ‖ username`, with the trigram index that
 *   served search on `users` before. The count of a broad search rechecks every
 *   candidate row; here that recheck reads a narrow table and compares a stored
 *   string instead of rebuilding and lowercasing it from the wide `users` row.
 *
 * Insert and delete use statement-level triggers with transition tables (a bulk
 * insert pays one statement, not one call per row); updates use a row-level trigger
 * whose WHEN clause makes it free unless a searched field, the verified flag or the
 * sector changed. Existing users are backfilled.
 */
/** Adds a statement's inserted users to their sectors' counters (transition table `new_rows`). */
export const COUNT_INSERTED = `
        INSERT INTO user_list_counts AS c (sector_id, users, verified)
        SELECT n.sector_id, count(*), count(*) FILTER (WHERE n.email_verified) FROM new_rows n GROUP BY n.sector_id ORDER BY n.sector_id
        ON CONFLICT (sector_id) DO UPDATE SET users = c.users + excluded.users, verified = c.verified + excluded.verified;`;

/** Moves one updated user (OLD → NEW) between its sectors' counters when the sector or the verified flag changed. */
export const COUNT_UPDATED = `
        IF (OLD.sector_id, OLD.email_verified) IS DISTINCT FROM (NEW.sector_id, NEW.email_verified) THEN
          UPDATE user_list_counts SET users = users - 1, verified = verified - OLD.email_verified::int WHERE sector_id = OLD.sector_id;
          INSERT INTO user_list_counts AS c (sector_id, users, verified) VALUES (NEW.sector_id, 1, NEW.email_verified::int)
          ON CONFLICT (sector_id) DO UPDATE SET users = c.users + 1, verified = c.verified + excluded.verified;
        END IF;`;

/** The insert trigger's function as this migration defines it (NarrowSearchDocs puts it back on the way down). */
export const LIST_INSERT_FUNCTION = `
      CREATE OR REPLACE FUNCTION iam_user_list_insert() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        INSERT INTO user_search_docs (user_id, sector_id, doc)
        SELECT n.id, n.sector_id, lower(n.name || chr(1) || n.email || chr(1) || n.username) FROM new_rows n;${COUNT_INSERTED}
        RETURN NULL;
      END
      $fn$`;

/** The update trigger's function as this migration defines it. */
export const LIST_UPDATE_FUNCTION = `
      CREATE OR REPLACE FUNCTION iam_user_list_update() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        IF (OLD.name, OLD.email, OLD.username, OLD.sector_id) IS DISTINCT FROM (NEW.name, NEW.email, NEW.username, NEW.sector_id) THEN
          UPDATE user_search_docs SET sector_id = NEW.sector_id, doc = lower(NEW.name || chr(1) || NEW.email || chr(1) || NEW.username)
           WHERE user_id = NEW.id;
        END IF;${COUNT_UPDATED}
        RETURN NULL;
      END
      $fn$`;

export class UserListAtScale1763700000011 implements MigrationInterface {
  name = 'UserListAtScale1763700000011';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE user_list_counts (
        sector_id uuid PRIMARY KEY REFERENCES sectors(id) ON DELETE CASCADE,
        users bigint NOT NULL DEFAULT 0,
        verified bigint NOT NULL DEFAULT 0
      )`);
    await q.query(`
      CREATE TABLE user_search_docs (
        user_id uuid PRIMARY KEY,
        sector_id uuid NOT NULL,
        doc text NOT NULL
      )`);
    await q.query(`
      INSERT INTO user_list_counts (sector_id, users, verified)
      SELECT sector_id, count(*), count(*) FILTER (WHERE email_verified) FROM users GROUP BY sector_id`);
    await q.query(`
      INSERT INTO user_search_docs (user_id, sector_id, doc)
      SELECT id, sector_id, lower(name || chr(1) || email || chr(1) || username) FROM users`);
    await q.query(`DROP INDEX users_search_trgm_idx`);
    await q.query(`CREATE INDEX user_search_docs_trgm_idx ON user_search_docs USING gin (doc public.gin_trgm_ops)`);

    await q.query(LIST_INSERT_FUNCTION);
    await q.query(`
      CREATE FUNCTION iam_user_list_delete() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        DELETE FROM user_search_docs d USING old_rows o WHERE d.user_id = o.id;
        UPDATE user_list_counts c SET users = c.users - o.n, verified = c.verified - o.v
          FROM (SELECT sector_id, count(*) AS n, count(*) FILTER (WHERE email_verified) AS v FROM old_rows GROUP BY sector_id) o
         WHERE c.sector_id = o.sector_id;
        RETURN NULL;
      END
      $fn$`);
    await q.query(LIST_UPDATE_FUNCTION);
    await q.query(`CREATE TRIGGER users_list_insert AFTER INSERT ON users REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION iam_user_list_insert()`);
    await q.query(`CREATE TRIGGER users_list_delete AFTER DELETE ON users REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION iam_user_list_delete()`);
    await q.query(`
      CREATE TRIGGER users_list_update AFTER UPDATE OF name, email, username, email_verified, sector_id ON users FOR EACH ROW
        WHEN ((OLD.name, OLD.email, OLD.username, OLD.email_verified, OLD.sector_id) IS DISTINCT FROM (NEW.name, NEW.email, NEW.username, NEW.email_verified, NEW.sector_id))
        EXECUTE FUNCTION iam_user_list_update()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER users_list_update ON users`);
    await q.query(`DROP TRIGGER users_list_delete ON users`);
    await q.query(`DROP TRIGGER users_list_insert ON users`);
    await q.query(`DROP FUNCTION iam_user_list_update(), iam_user_list_delete(), iam_user_list_insert()`);
    await q.query(`DROP TABLE user_search_docs, user_list_counts`);
    await q.query(
      `CREATE INDEX users_search_trgm_idx ON users USING gin ((lower(name || chr(1) || email || chr(1) || username)) public.gin_trgm_ops)`,
    );
  }
}
