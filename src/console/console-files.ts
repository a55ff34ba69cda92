import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';

/** Content types of the files Vite emits. */
const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};

export interface ConsoleFile {
  path: string;
  type: string;
  size: number;
}

/**
 * The built browser app (`npm run build` → dist/console: index.html and hashed
 * files under assets/). Found next to the compiled service (dist/src/console →
 * dist/console) or, when the service runs from source (the tests), under dist/ of
 * the checkout. Only files inside the build directory are ever answered.
 */
export class ConsoleFiles {
  readonly root: string | undefined;
  private readonly index: Buffer | undefined;

  /** `root`: the build directory; null when there is none (nothing is served). */
  constructor(root: string | null = ConsoleFiles.locate() ?? null) {
    this.root = root ?? undefined;
    this.index = root ? readFileSync(join(root, 'index.html')) : undefined;
  }

  static locate(): string | undefined {
    const base = resolve(__dirname, '..', '..');
    const candidates = [join(base, 'console'), join(base, 'dist', 'console')];
    return candidates.find((dir) => existsSync(join(dir, 'index.html')) && existsSync(join(dir, 'assets')));
  }

  /** The SPA's entry page (every deep link under /console and /account), or undefined when not built. */
  indexHtml(): Buffer | undefined {
    return this.index;
  }

  /** A file under assets/ by its URL path below /console/assets/, or undefined (missing, a directory, outside the build). */
  asset(relative: string): ConsoleFile | undefined {
    if (!this.root) return undefined;
    let decoded: string;
    try {
      decoded = decodeURIComponent(relative);
    } catch {
      return undefined;
    }
    if (decoded.includes('\0')) return undefined;
    const assets = join(this.root, 'assets');
    const path = resolve(assets, decoded);
    if (!path.startsWith(assets + sep)) return undefined;
    try {
      const stat = statSync(path);
      if (!stat.isFile()) return undefined;
      return { path, type: TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream', size: stat.size };
    } catch {
      return undefined;
    }
  }
}
