/** Waiting in e2e specs: a plain delay, and polling a probe until a deadline. */

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface EventuallyOptions {
  /** Treat a probe that throws as "not yet" (the last error is named if the deadline passes); by default it fails at once. */
  retryOnError?: boolean;
}

/** Polls `probe` every 50 ms until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 10_000,
  what = 'condition',
  options: EventuallyOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      if (!options.retryOnError) throw err;
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs} ms${last ? `: ${(last as Error).message}` : ''}`);
    await sleep(50);
  }
}

/**
 * Waits until a change made by hand in SQL, bypassing the services, is enforced.
 * The service hears of such a change through the notification PostgreSQL sends
 * when it commits (docs/performance.md, "Caching and revocation"): a request that arrives
 * before the notification may still be answered from the authorization-state
 * cache. The notification takes milliseconds; the probe answers true once the
 * change shows.
 */
export function untilNotified(probe: () => Promise<boolean>): Promise<true> {
  return eventually(async () => (await probe()) || undefined, 3_000, "the hand-made change's notification");
}
