import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { OpenAPIObject } from '@nestjs/swagger';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { AppModule } from '../app.module';
import { loadConfig } from '../config/app-config';
import { buildOpenApiDocument } from '../openapi';

/** The server the generated document names: the default PUBLIC_URL, so the document does not depend on where it is built. */
export const DOCUMENT_PUBLIC_URL = 'http://localhost:3000';

/**
 * The OpenAPI document the service serves at /api/docs-json, built without a
 * database or a server: Nest's preview mode registers the modules and their
 * controllers (which is all the document reads) without instantiating any
 * provider, so nothing connects anywhere. The configuration is the defaults with
 * a throw-away master key (nothing is encrypted) and no data directory use.
 */
export async function buildStaticOpenApiDocument(): Promise<OpenAPIObject> {
  const config = loadConfig({ PUBLIC_URL: DOCUMENT_PUBLIC_URL, MASTER_KEY: randomBytes(32).toString('hex'), DATA_DIR: tmpdir() });
  const app = await NestFactory.create(AppModule.forRoot(config, 'postgres://unused.invalid/none'), { preview: true, logger: false, abortOnError: false });
  try {
    return buildOpenApiDocument(app, config.publicUrl);
  } finally {
    await app.close();
  }
}

/** `node dist/src/cli/openapi.js <file>`: writes the document as JSON (stable, two-space indented) to `<file>`. */
async function main(): Promise<void> {
  const target = process.argv[2];
  if (!target) throw new Error('usage: openapi <output.json>');
  writeFileSync(target, `${JSON.stringify(await buildStaticOpenApiDocument(), null, 2)}\n`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
