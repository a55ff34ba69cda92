import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXTENSION_API_VERSION } from './extension-api';
import { ExtensionHost } from './extension-host';
import { ExtensionLoadError, loadExtensions } from './extension-loader';
import { ExtensionsModule } from './extensions.module';

/** Extension packages written to a scratch folder, loaded the way the service loads EXTENSION_MODULES. */
describe('loadExtensions', () => {
  const dir = mkdtempSync(join(tmpdir(), 'iam-ext-loader-'));
  const file = (path: string, text: string) => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  // module(api) answers what it was given, so the spec can look at it.
  const MODULE = 'module: (api) => ({ module: class X {}, api })';

  beforeAll(() => {
    file('cjs-ext.js', `exports.extension = { apiVersion: 1, ${MODULE} };`);
    file('whole.cjs', `module.exports = { apiVersion: 1, ${MODULE} };`);
    file('esm-ext.mjs', `export default { apiVersion: 1, ${MODULE} };`);
    file('folder/package.json', JSON.stringify({ main: 'lib/entry.js' }));
    file('folder/lib/entry.js', `exports.extension = { apiVersion: 1, ${MODULE} };`);
    // An ES-module-only package (its exports have no `require` condition), found in node_modules by its name.
    file('node_modules/@acme/esm-only/package.json', JSON.stringify({ name: '@acme/esm-only', type: 'module', exports: { '.': { import: './index.js' } } }));
    file('node_modules/@acme/esm-only/index.js', `export const extension = { apiVersion: 1, ${MODULE} };`);
    file('old.js', `exports.extension = { apiVersion: 0, ${MODULE} };`);
    file('nothing.js', 'exports.something = 1;');
    file('broken.js', 'throw new Error("syntax is fine, the top level throws");');
    file('bad-module.js', 'exports.extension = { apiVersion: 1, module: () => { throw new Error("no config"); } };');
    file('not-a-module.js', 'exports.extension = { apiVersion: 1, module: () => 42 };');
  });

  it('loads CommonJS and ES modules by path, folder or package name, handing each the API under its own name', async () => {
    const specs = ['./cjs-ext.js', './whole.cjs', join(dir, 'esm-ext.mjs'), './folder', '@acme/esm-only'];
    const modules = (await loadExtensions(specs, dir)) as unknown as Array<{ api: Record<string, unknown> }>;
    expect(modules.map((m) => m.api.name)).toEqual(specs);
    expect(modules[0].api).toMatchObject({ version: EXTENSION_API_VERSION, ExtensionsModule, ExtensionHost });
    expect(Object.isFrozen(modules[0].api)).toBe(true);
  });

  it.each([
    ['./missing.js', /Cannot find module/],
    ['@acme/not-installed', /Cannot find module/],
    ['./nothing.js', /exports no extension/],
    ['./old.js', /written for extension API version 0; this service offers version 1/],
    ['./broken.js', /the top level throws/],
    ['./bad-module.js', /its module\(api\) failed: no config/],
    ['./not-a-module.js', /must answer a Nest module/],
  ])('refuses %s with an error naming it', async (spec, problem) => {
    const failure = loadExtensions(['./cjs-ext.js', spec], dir);
    await expect(failure).rejects.toThrow(ExtensionLoadError);
    await expect(failure).rejects.toThrow(`Extension module "${spec}" failed to load: `);
    await expect(failure).rejects.toThrow(problem);
  });
});
