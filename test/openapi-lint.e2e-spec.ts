/**
 * The served OpenAPI document is one clients can trust: Redocly's recommended lint
 * rules find no error in it (every path parameter declared, the bearer scheme on
 * every protected operation and none on public ones, the error body on every
 * operation, summaries), and a TypeScript client generated from it with
 * openapi-typescript compiles and types a real call.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ts from 'typescript';
import { startTestApp, TestApp } from './support/test-app';

const ROOT = join(__dirname, '..');
const QUIET = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

describe('the served OpenAPI document', () => {
  let t: TestApp;
  let dir: string;
  let file: string;
  let document: { paths: Record<string, Record<string, { security?: unknown[] }>> };

  beforeAll(async () => {
    t = await startTestApp();
    const res = await t.http().get('/api/docs-json');
    expect(res.status).toBe(200);
    document = res.body;
    dir = mkdtempSync(join(tmpdir(), 'iam-openapi-'));
    file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(res.body));
  });
  afterAll(() => t?.close());

  it('lints clean with Redocly’s recommended rules (no error, no warning)', () => {
    const run = spawnSync(process.execPath, [join(ROOT, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', file, '--format=json'], { encoding: 'utf8', env: QUIET, timeout: 120_000 });
    const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as { totals: Record<string, number>; problems: Array<{ ruleId: string; message: string }> };
    expect({ status: run.status, totals: report.totals, problems: report.problems.map((p) => `${p.ruleId}: ${p.message}`) }).toEqual({
      status: 0,
      totals: { errors: 0, warnings: 0, ignored: 0 },
      problems: [],
    });
  });

  it('declares the bearer scheme on protected operations and none on public ones', () => {
    expect(document.paths['/api/v1/login/password'].post.security).toEqual([]);
    expect(document.paths['/healthz'].get.security).toEqual([]);
    expect(document.paths['/api/v1/sectors'].get.security).toEqual([{ bearer: [] }]);
    expect(document.paths['/api/v1/users/{sub}'].get.security).toEqual([{ bearer: [] }]);
  });

  it('generates a TypeScript client (openapi-typescript) that compiles and types a call', () => {
    const types = join(dir, 'api.d.ts');
    const gen = spawnSync(process.execPath, [join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'), file, '-o', types], { encoding: 'utf8', env: QUIET, timeout: 120_000 });
    expect({ status: gen.status, stderr: gen.stderr.includes('✨') ? '' : gen.stderr.trim().split('\n').filter((l) => /error/i.test(l)).join('\n') }).toEqual({ status: 0, stderr: '' });
    const client = join(dir, 'client.ts');
    writeFileSync(
      client,
      [
        "import type { paths, components } from './api';",
        "type Login = paths['/api/v1/login/password']['post'];",
        "type Body = NonNullable<Login['requestBody']>['content']['application/json'];",
        "type Result = Login['responses'][200]['content']['application/json'];",
        "type ErrorBody = components['schemas']['ErrorResponse'];",
        'export async function login(base: string, body: Body): Promise<Result | ErrorBody> {',
        "  const res = await fetch(`${base}/api/v1/login/password`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });",
        '  return (await res.json()) as Result | ErrorBody;',
        '}',
        "export const example: Body = { username: 'admin@localhost', password: 'secret', sectorID: '' };",
        "export const token = (r: Result): string | undefined => r.token;",
        '',
      ].join('\n'),
    );
    const program = ts.createProgram([client], { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'], skipLibCheck: true });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(problems).toEqual([]);
  });
});
