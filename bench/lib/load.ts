import autocannon from 'autocannon';

/** What one load run gives: throughput over the whole run, latency percentiles (ms), failed requests. */
export interface LoadFigures {
  /**
   * Requests a second, to RPS_DIGITS decimals: ratios are computed from it, so it is
   * kept finer than any table prints it (a login load's 7.24/s rounded to 7.2 moved
   * its ratio to raw bcrypt from 0.905× to 0.899×).
   */
  rps: number;
  p50: number;
  p99: number;
  /** Connection errors, timeouts and non-2xx answers. */
  errors: number;
  requests: number;
  seconds: number;
}

export type LoadOptions = autocannon.Options;

/** Decimals kept in LoadFigures.rps. */
export const RPS_DIGITS = 3;

/** Runs autocannon and resolves with its result (no progress output). */
export function runLoad(opts: LoadOptions): Promise<autocannon.Result> {
  return new Promise((res, rej) => {
    autocannon(opts, (err, result) => (err ? rej(err) : res(result)));
  });
}

/** A running load that can be stopped early (e.g. background load while something else is measured). */
export function startLoad(opts: LoadOptions): { done: Promise<autocannon.Result>; stop(): void } {
  let instance: autocannon.Instance | undefined;
  const done = new Promise<autocannon.Result>((res, rej) => {
    instance = autocannon(opts, (err, result) => (err ? rej(err) : res(result)));
  });
  return { done, stop: () => instance?.stop() };
}

export function figures(r: autocannon.Result): LoadFigures {
  const seconds = r.duration || 1;
  return {
    rps: round(r.requests.total / seconds, RPS_DIGITS),
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.non2xx,
    requests: r.requests.total,
    seconds: round(seconds, 2),
  };
}

/** Loads several targets at once (one autocannon per target) and sums them: throughput added, worst p99, summed errors. */
export async function splitLoad(opts: LoadOptions[]): Promise<{ total: LoadFigures; each: LoadFigures[] }> {
  const each = (await Promise.all(opts.map(runLoad))).map(figures);
  const total: LoadFigures = {
    rps: round(each.reduce((s, f) => s + f.rps, 0), RPS_DIGITS),
    p50: Math.max(...each.map((f) => f.p50)),
    p99: Math.max(...each.map((f) => f.p99)),
    errors: each.reduce((s, f) => s + f.errors, 0),
    requests: each.reduce((s, f) => s + f.requests, 0),
    seconds: Math.max(...each.map((f) => f.seconds)),
  };
  return { total, each };
}

/** Cycles through `values` across requests of every connection (one shared counter). */
export function rotating<T>(values: T[], make: (value: T) => { headers?: Record<string, string>; body?: string; path?: string }): LoadOptions['requests'] {
  let i = 0;
  return [
    {
      setupRequest: (req: Record<string, unknown>) => {
        const next = make(values[i++ % values.length]);
        return { ...req, ...next, headers: { ...(req.headers as Record<string, string>), ...next.headers } };
      },
    },
  ] as unknown as LoadOptions['requests'];
}

export function round(n: number, digits = 0): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

export function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
