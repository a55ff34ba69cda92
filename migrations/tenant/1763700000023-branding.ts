import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A sector's own look and language.
 *
 *  - `sector_settings` gains the branding settings (display name, light and dark
 *    colours as `#rrggbb`, terms and privacy links, a support address; '' = not set),
 *    `default_language` (a shipped language's code), `localized_templates` (language →
 *    { template setting name → template }: the sector's mail templates in other languages
 *    than its default one) and the versions of its uploaded logo and favicon ('' = none),
 *    which make their public addresses change whenever the image does.
 *  - `sector_assets`: the uploaded images themselves, one row per sector and kind,
 *    with the type detected from their bytes and their size in pixels.
 */
export class Branding1763700000023 implements MigrationInterface {
  name = 'Branding1763700000023';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE sector_settings
        ADD COLUMN brand_display_name text NOT NULL DEFAULT '',
        ADD COLUMN brand_primary_color text NOT NULL DEFAULT '',
        ADD COLUMN brand_background_color text NOT NULL DEFAULT '',
        ADD COLUMN brand_primary_color_dark text NOT NULL DEFAULT '',
        ADD COLUMN brand_background_color_dark text NOT NULL DEFAULT '',
        ADD COLUMN terms_url text NOT NULL DEFAULT '',
        ADD COLUMN privacy_url text NOT NULL DEFAULT '',
        ADD COLUMN support_email text NOT NULL DEFAULT '',
        ADD COLUMN default_language text NOT NULL DEFAULT 'en',
        ADD COLUMN localized_templates jsonb NOT NULL DEFAULT '{}',
        ADD COLUMN brand_logo_version text NOT NULL DEFAULT '',
        ADD COLUMN brand_favicon_version text NOT NULL DEFAULT ''`);
    await q.query(`
      CREATE TABLE sector_assets (
        sector_id uuid NOT NULL REFERENCES sectors (id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('logo', 'favicon')),
        content_type text NOT NULL,
        bytes bytea NOT NULL,
        width integer NOT NULL,
        height integer NOT NULL,
        version text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (sector_id, kind)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE sector_assets');
    await q.query(`
      ALTER TABLE sector_settings
        DROP COLUMN brand_display_name, DROP COLUMN brand_primary_color, DROP COLUMN brand_background_color,
        DROP COLUMN brand_primary_color_dark, DROP COLUMN brand_background_color_dark, DROP COLUMN terms_url,
        DROP COLUMN privacy_url, DROP COLUMN support_email, DROP COLUMN default_language, DROP COLUMN localized_templates,
        DROP COLUMN brand_logo_version, DROP COLUMN brand_favicon_version`);
  }
}
