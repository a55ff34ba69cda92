import { createElement, use, type ComponentType } from 'react';
import { isChunkLoadError, reloadForNewVersion } from './chunkReload';

/** The forgetters of the screens whose import failed; a ScreenBoundary's retry calls them. */
const failed = new Set<() => void>();

/** Lets every screen whose import failed import again on its next render (a ScreenBoundary resets). */
export function retryFailedScreens(): void {
  for (const forget of failed) forget();
  failed.clear();
}

/**
 * A lazily imported screen (like `React.lazy`, suspending while its code loads).
 * Unlike `React.lazy`, a failed import is not kept for ever: the failure reaches
 * the nearest ScreenBoundary, and once that boundary retries (its button, or a
 * navigation) the next render imports again. A code file missing after a redeploy
 * first reloads the page once (see chunkReload); meanwhile the screen keeps waiting.
 */
export function lazyScreen<P extends object>(load: () => Promise<{ default: ComponentType<P> }>): ComponentType<P> {
  let loading: Promise<ComponentType<P>> | null = null;
  const start = (): Promise<ComponentType<P>> =>
    load().then(
      (module) => module.default,
      async (error: unknown) => {
        if (isChunkLoadError(error) && (await reloadForNewVersion())) return new Promise<never>(() => undefined);
        failed.add(() => {
          loading = null;
        });
        throw error;
      },
    );
  function LazyScreen(props: P) {
    loading ??= start();
    return createElement(use(loading), props);
  }
  return LazyScreen;
}
