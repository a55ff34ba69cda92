import 'reflect-metadata';
import { ENTITIES } from './src/entities';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/config/app-config';
import { mainDataSourceOptions } from './src/database/data-source-options';

/**
 * The DataSource the TypeORM CLI uses (e.g. `npx typeorm migration:show -d dist/ormconfig.js`)
 * for the main database named by DATABASE_URL. Tenant databases are migrated by the
 * service at start and by `npm run migration:run`, which also covers the platform
 * tenant, the template and every tenant database or schema.
 */
const config = loadConfig();
if (!config.databaseUrl) throw new Error('Set DATABASE_URL to use the TypeORM CLI (the embedded database is started by npm start)');

export default new DataSource(mainDataSourceOptions(ENTITIES, config.databaseUrl, { max: 2, idleTimeoutMillis: 1000, applicationName: 'typeorm-cli' }));
