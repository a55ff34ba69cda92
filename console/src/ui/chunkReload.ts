/**
 * Recovery from a failed load of one of the app's code files. After a redeploy the
 * hashed file names this page knows are gone, and only a fresh index.html names the
 * new ones: the page reloads itself once. During an outage a reload would only show
 * the browser's own error page, so the service is asked first and the page stays
 * (the screen's error panel offers to try again). At most one automatic reload per
 * minute, remembered in sessionStorage, so a broken deployment never loops.
 */

const RELOADED_AT_KEY = 'iam.console.chunkReloadAt';
const RELOAD_WINDOW_MS = 60_000;

/** The messages browsers give a failed `import()` (Chromium, Firefox, Safari) and Vite a failed CSS preload. */
const CHUNK_ERROR = /Failed to fetch dynamically imported module|error loading dynamically imported module|Importing a module script failed|Unable to preload CSS/i;

let reloading = false;
let pending: Promise<boolean> | null = null;

/** Whether `error` is a code file that could not be fetched (rather than a bug in the screen). */
export function isChunkLoadError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  return CHUNK_ERROR.test(message);
}

function reloadedRecently(): boolean {
  try {
    const at = Number(sessionStorage.getItem(RELOADED_AT_KEY) ?? '0');
    return Number.isFinite(at) && Date.now() - at < RELOAD_WINDOW_MS;
  } catch {
    // No storage: never reload automatically (nothing would stop a loop).
    return true;
  }
}

/** The page's own address answers: the service is up, so a reload brings the current index.html. */
async function serviceAnswers(): Promise<boolean> {
  try {
    const response = await fetch(window.location.href, { cache: 'no-store', credentials: 'same-origin', headers: { Accept: 'text/html' } });
    return response.ok;
  } catch {
    return false;
  }
}

async function tryReload(): Promise<boolean> {
  if (reloadedRecently() || !(await serviceAnswers()) || reloadedRecently()) return false;
  try {
    sessionStorage.setItem(RELOADED_AT_KEY, String(Date.now()));
  } catch {
    return false;
  }
  reloading = true;
  window.location.reload();
  return true;
}

/**
 * Reloads the page once to fetch the newest version, when the service answers and
 * no automatic reload happened in the last minute. Resolves true when the page is
 * reloading (the caller waits for it), false when the caller should show the error.
 */
export function reloadForNewVersion(): Promise<boolean> {
  if (reloading) return Promise.resolve(true);
  pending ??= tryReload().finally(() => {
    pending = null;
  });
  return pending;
}

/**
 * Listens for Vite's `vite:preloadError` (a code or style file of a lazily loaded
 * screen failed): starts the reload. The error still reaches the import, whose
 * screen waits for the reload or shows its error panel.
 */
export function installChunkReload(): void {
  window.addEventListener('vite:preloadError', () => {
    void reloadForNewVersion();
  });
}
