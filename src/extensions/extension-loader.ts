import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PendingSlot } from '../auth/engine/factor-strategy';
import { DomainError } from '../common/errors/domain-error';
import { EXTENSION_API_VERSION, ExtensionApi, ExtensionDefinition, ExtensionModule } from './extension-api';
import { ExtensionHost } from './extension-host';
import { ExtensionsModule } from './extensions.module';

/** An extension module that cannot be loaded: the start stops, and the message names it. */
export class ExtensionLoadError extends Error {
  constructor(
    readonly extension: string,
    problem: string,
    cause?: unknown,
  ) {
    super(`Extension module "${extension}" failed to load: ${problem}`, cause === undefined ? undefined : { cause });
    this.name = 'ExtensionLoadError';
  }
}

/**
 * Loads the extension modules EXTENSION_MODULES names, in its order, and answers
 * their Nest modules (docs/extending.md): each entry is a package name or a path,
 * resolved from `cwd` as Node resolves them, and loaded with `import()` (CommonJS
 * and ES modules alike). The first that fails to load throws ExtensionLoadError.
 */
export async function loadExtensions(specs: readonly string[], cwd: string = process.cwd()): Promise<ExtensionModule[]> {
  const modules: ExtensionModule[] = [];
  for (const spec of specs) modules.push(await loadExtension(spec, cwd));
  return modules;
}

async function loadExtension(spec: string, cwd: string): Promise<ExtensionModule> {
  let exported: Record<string, unknown>;
  try {
    exported = (await import(pathToFileURL(entryOf(spec, cwd)).href)) as Record<string, unknown>;
  } catch (err) {
    throw new ExtensionLoadError(spec, messageOf(err), err);
  }
  const definition = definitionOf(exported);
  if (!definition) throw new ExtensionLoadError(spec, 'it exports no extension: `extension` (or a default export) with `apiVersion` and `module(api)`');
  if (definition.apiVersion !== EXTENSION_API_VERSION) {
    throw new ExtensionLoadError(spec, `it was written for extension API version ${String(definition.apiVersion)}; this service offers version ${EXTENSION_API_VERSION}`);
  }
  let module: unknown;
  try {
    module = await definition.module(apiFor(spec));
  } catch (err) {
    throw new ExtensionLoadError(spec, `its module(api) failed: ${messageOf(err)}`, err);
  }
  if (!isModule(module)) throw new ExtensionLoadError(spec, 'its module(api) must answer a Nest module class or a dynamic module ({ module, imports, providers, … })');
  return module;
}

function apiFor(name: string): ExtensionApi {
  return Object.freeze({ version: EXTENSION_API_VERSION, name, ExtensionsModule, ExtensionHost, DomainError, PendingSlot });
}

/** ES modules: `export const extension` or `export default`; CommonJS: `exports.extension`, or `module.exports = …` (the namespace's default). */
function definitionOf(exported: Record<string, unknown>): ExtensionDefinition | undefined {
  const fallback = exported.default as Record<string, unknown> | undefined;
  return [exported.extension, fallback?.extension, fallback].find((candidate): candidate is ExtensionDefinition => typeof (candidate as ExtensionDefinition | undefined)?.module === 'function');
}

function isModule(value: unknown): value is ExtensionModule {
  return typeof value === 'function' || (typeof value === 'object' && value !== null && typeof (value as { module?: unknown }).module === 'function');
}

/**
 * The file `import(spec)` would load if it ran in `cwd`: a path (`./…`, `../…`,
 * absolute) from `cwd`, a package from the `node_modules` folders of `cwd` and its
 * parents. A package's or folder's entry is its `exports` (conditions `import`,
 * `node`, `default`, `require`), else its `main`, else `index.js`.
 */
function entryOf(spec: string, cwd: string): string {
  const requireHere = createRequire(join(cwd, 'package.json'));
  if (spec.startsWith('.') || isAbsolute(spec)) {
    const path = resolve(cwd, spec);
    return isDirectory(path) ? packageEntry(path) : requireHere.resolve(path);
  }
  const name = /^(@[^/]+\/)?[^/]+$/.test(spec) ? spec : undefined;
  if (name !== undefined) {
    for (let dir = cwd; ; dir = resolve(dir, '..')) {
      const candidate = join(dir, 'node_modules', name);
      if (isDirectory(candidate)) return packageEntry(candidate);
      if (resolve(dir, '..') === dir) break;
    }
  }
  return requireHere.resolve(spec);
}

function packageEntry(dir: string): string {
  const manifest = join(dir, 'package.json');
  const pkg = existsSync(manifest) ? (JSON.parse(readFileSync(manifest, 'utf8')) as { exports?: unknown }) : {};
  const target = exportTarget(pkg.exports);
  return target !== undefined ? join(dir, target) : createRequire(manifest).resolve(dir);
}

/** The target of a package's `exports` for its main entry ('.'), under the conditions `import()` meets first. */
function exportTarget(exports: unknown): string | undefined {
  if (typeof exports === 'string') return exports;
  if (Array.isArray(exports)) return exports.map(exportTarget).find((t) => t !== undefined);
  if (typeof exports !== 'object' || exports === null) return undefined;
  const map = exports as Record<string, unknown>;
  if ('.' in map) return exportTarget(map['.']);
  for (const condition of ['import', 'node', 'default', 'require']) {
    const target = condition in map ? exportTarget(map[condition]) : undefined;
    if (target !== undefined) return target;
  }
  return undefined;
}

function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
