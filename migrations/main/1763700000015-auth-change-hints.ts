import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The one channel on which every instance hears of authorization changes in any
 * tenant (see src/tenancy/auth-state-cache.ts).
 *
 * A tenant's triggers (tenant migration AuthChangeRelay) insert a row here naming
 * where the change happened (`location`: the database of a pooled tenant, the schema
 * of a schema-mode tenant, `public` for the platform) and what changed (`tags`). The
 * BEFORE INSERT trigger finds the tenant and NOTIFYs `iam_auth_changes` with
 * `<tenant id> <xid or -> <tags, comma-separated, or *>`:
 *
 *  - From the main database itself (the platform, schema-mode tenants) the insert is
 *    part of the changing transaction, so the notification leaves exactly at its
 *    commit; the row is not kept (`xid` is null, nothing to resolve later).
 *  - From a tenant's own database the insert arrives through dblink, in a transaction
 *    of its own that commits before the change does. The row keeps the changing
 *    transaction's id (`xid`, in that tenant's database) so that listeners treat the
 *    named state as unsettled until that transaction has ended, and so that a listener
 *    that connects later finds the changes still unsettled. Rows older than ten
 *    minutes are swept by the instances.
 */
export class AuthChangeHints1763700000015 implements MigrationInterface {
  name = 'AuthChangeHints1763700000015';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE auth_change_hints (
        id bigserial PRIMARY KEY,
        location text NOT NULL,
        remote boolean NOT NULL,
        tenant_id uuid,
        tags text[] NOT NULL,
        xid text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX auth_change_hints_created_at_idx ON auth_change_hints (created_at)`);
    await q.query(`CREATE INDEX tenants_database_name_idx ON tenants (database_name) WHERE database_name IS NOT NULL`);
    await q.query(`CREATE INDEX tenants_schema_name_idx ON tenants (schema_name) WHERE schema_name IS NOT NULL`);
    await q.query(`
      CREATE FUNCTION iam_auth_hint() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
      DECLARE
        what text;
      BEGIN
        IF NEW.remote THEN
          SELECT id INTO NEW.tenant_id FROM tenants WHERE storage = 'pooled' AND database_name = NEW.location;
        ELSIF NEW.location = 'public' THEN
          SELECT id INTO NEW.tenant_id FROM tenants WHERE storage = 'main';
        ELSE
          SELECT id INTO NEW.tenant_id FROM tenants WHERE storage = 'schema' AND schema_name = NEW.location;
        END IF;
        -- A database or schema that is no tenant's (a template, a tenant being dropped): nothing to tell.
        IF NEW.tenant_id IS NULL THEN
          RETURN NULL;
        END IF;
        what := array_to_string(NEW.tags, ',');
        IF length(what) > 7000 OR '*' = ANY (NEW.tags) THEN
          what := '*';
        END IF;
        PERFORM pg_notify('iam_auth_changes', NEW.tenant_id || ' ' || coalesce(NEW.xid, '-') || ' ' || what);
        IF NEW.xid IS NULL THEN
          RETURN NULL;
        END IF;
        RETURN NEW;
      END
      $fn$`);
    await q.query(`CREATE TRIGGER auth_change_hints_notify BEFORE INSERT ON auth_change_hints FOR EACH ROW EXECUTE FUNCTION iam_auth_hint()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE auth_change_hints`);
    await q.query(`DROP FUNCTION iam_auth_hint()`);
    await q.query(`DROP INDEX tenants_database_name_idx`);
    await q.query(`DROP INDEX tenants_schema_name_idx`);
  }
}
