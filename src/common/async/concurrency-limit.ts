/**
 * Runs at most `limit` tasks at once and queues the rest in arrival order, holding
 * nothing while they wait (in particular no pooled database connection).
 */
export class ConcurrencyLimit {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`ConcurrencyLimit needs a positive integer, got ${limit}`);
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resume) => this.waiting.push(resume));
    else this.running++;
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next task in line, or free it.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
