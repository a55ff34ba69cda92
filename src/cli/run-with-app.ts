import { INestApplicationContext, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../app.module';
import { loadConfigOrExit } from '../config/app-config';
import { MaintenanceModule } from './maintenance.module';
import { openDatabaseServer } from '../database/embedded-database';

/** A command's result line on standard output. */
export function report(line: string): void {
  process.stdout.write(`${line}\n`);
}

/**
 * Runs a maintenance command inside the application context (no HTTP): starting
 * it takes care of the schema like the service's own start (MIGRATE_ON_START).
 * `maintenance` boots only configuration, the main database and tenancy, for the
 * schema commands, which must run on databases that are not migrated yet. With
 * the embedded database, a cluster already running (the service's) is used and
 * left running. The work's number, if any, is the exit code.
 */
export async function runWithApp(
  name: string,
  work: (app: INestApplicationContext) => Promise<void | number>,
  options: { maintenance?: boolean } = {},
): Promise<void> {
  const logger = new Logger(name);
  const config = loadConfigOrExit((m) => logger.error(m));
  Logger.overrideLogger(['fatal', 'error', 'warn']);
  const database = await openDatabaseServer(config, new Logger('Database'), { stopAdoptedOnExit: false });
  let app: INestApplicationContext | undefined;
  let code = 0;
  try {
    const root = options.maintenance ? MaintenanceModule.forRoot(config, database.url) : AppModule.forRoot(config, database.url);
    app = await NestFactory.createApplicationContext(root, { logger: ['fatal', 'error', 'warn'] });
    code = (await work(app)) ?? 0;
  } catch (err) {
    logger.error((err as Error).message);
    code = 1;
  } finally {
    await app?.close().catch(() => undefined);
    await database.stop().catch(() => undefined);
  }
  process.exit(code);
}
