/**
 * The console's API types are generated from the OpenAPI document
 * (`npm run generate:api`: src/cli/openapi.ts builds the document without a
 * database or a server, openapi-typescript turns it into
 * console/src/api/schema.d.ts). This spec fails when the committed types are
 * stale, and proves the document built that way is the one the service serves.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildStaticOpenApiDocument } from '../src/cli/openapi';
import { startTestApp, TestApp } from './support/test-app';

const ROOT = join(__dirname, '..');
const SCHEMA = join(ROOT, 'console', 'src', 'api', 'schema.d.ts');
const QUIET = { ...process.env, NO_COLOR: '1' };

/** The parts of a document that name where it is served (PUBLIC_URL). */
function withoutServer(doc: Record<string, unknown>): Record<string, unknown> {
  const { servers: _servers, info, ...rest } = doc;
  const { license: _license, ...infoRest } = info as Record<string, unknown>;
  return { ...rest, info: infoRest };
}

describe('the console’s generated API types', () => {
  let t: TestApp;
  let document: Record<string, unknown>;

  beforeAll(async () => {
    t = await startTestApp();
    document = (await buildStaticOpenApiDocument()) as unknown as Record<string, unknown>;
  });
  afterAll(() => t?.close());

  it('the document built without a server is the one the service serves', async () => {
    const res = await t.http().get('/api/docs-json');
    expect(res.status).toBe(200);
    expect(withoutServer(document)).toEqual(withoutServer(res.body as Record<string, unknown>));
  });

  it('console/src/api/schema.d.ts is what openapi-typescript generates from it (else run `npm run generate:api`)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'iam-console-api-'));
    const file = join(dir, 'openapi.json');
    const out = join(dir, 'schema.d.ts');
    writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
    const gen = spawnSync(process.execPath, [join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'), file, '-o', out], { encoding: 'utf8', env: QUIET, timeout: 120_000 });
    expect(gen.status).toBe(0);
    expect(readFileSync(SCHEMA, 'utf8') === readFileSync(out, 'utf8')).toBe(true);
  });
});
