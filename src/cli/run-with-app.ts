import { INestApplicationContext, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../app.module';
import { loadConfigOrExit } from '../config/app-config';
import { openDatabaseServer } from '../database/embedded-database';

/**
 * Runs a maintenance command inside the application context (no HTTP): starting
 * it runs every migration, like the service's own start. With the embedded
 * database, a cluster already running (the service's) is used and left running.
 */
/** A command's result line on standard output. */
export function report(line: string): void {
  process.stdout.write(`${line}\n`);
}

export async function runWithApp(name: string, work: (app: INestApplicationContext) => Promise<void>): Promise<void> {
  const logger = new Logger(name);
  const config = loadConfigOrExit((m) => logger.error(m));
  Logger.overrideLogger(['fatal', 'error', 'warn']);
  const database = await openDatabaseServer(config, new Logger('Database'), { stopAdoptedOnExit: false });
  let app: INestApplicationContext | undefined;
  let code = 0;
  try {
    app = await NestFactory.createApplicationContext(AppModule.forRoot(config, database.url), { logger: ['fatal', 'error', 'warn'] });
    await work(app);
  } catch (err) {
    logger.error((err as Error).message);
    code = 1;
  } finally {
    await app?.close().catch(() => undefined);
    await database.stop().catch(() => undefined);
  }
  process.exit(code);
}
