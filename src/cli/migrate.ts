#!/usr/bin/env node
import { MigrationService } from '../tenancy/migration.service';
import { report, runWithApp } from './run-with-app';

/** `iam-migrate` (`npm run migration:run`): migrates the main database, the template and every tenant database or schema. */
void runWithApp(
  'Migrate',
  async (app) => {
    await app.get(MigrationService).migrateAll();
    report('All databases are up to date');
  },
  { maintenance: true },
);
