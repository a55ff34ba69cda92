import { Logger } from '@nestjs/common';
import { Worker } from 'node:worker_threads';

type Job = { op: 'hash'; password: string; cost: number } | { op: 'compare'; password: string; hash: string };

interface Pending {
  job: Job;
  resolve: (value: string | boolean) => void;
  reject: (err: Error) => void;
}

/**
 * The worker's source. It hashes synchronously on its own thread, so each worker
 * is one core's worth of bcrypt, and first lowers that thread's scheduling
 * priority (Linux: niceness is per thread; the thread id is read from
 * /proc/thread-self). Elsewhere the priority call fails and the worker runs at
 * normal priority.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const bcrypt = require(workerData.bcrypt);
if (workerData.nice > 0) {
  try {
    const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
    require('node:os').setPriority(tid, workerData.nice);
  } catch {}
}
parentPort.on('message', (job) => {
  try {
    const value = job.op === 'hash' ? bcrypt.hashSync(job.password, job.cost) : bcrypt.compareSync(job.password, job.hash);
    parentPort.postMessage({ value });
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message || err) });
  }
});
`;

/**
 * bcrypt on a few dedicated worker threads at a lower scheduling priority than
 * the event loop. A login storm then uses every spare cycle for hashing, yet the
 * event loop (introspection, every other request) and PostgreSQL win the CPU
 * whenever they need it, so hashing cannot starve them; and libuv's thread pool
 * stays free for file, DNS and zlib work. Jobs queue when every worker is busy.
 */
export class BcryptWorkers {
  private readonly logger = new Logger('BcryptWorkers');
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Pending>();
  private readonly queue: Pending[] = [];
  private closed = false;

  constructor(
    private readonly size: number,
    private readonly nice: number,
  ) {}

  hash(password: string, cost: number): Promise<string> {
    return this.run({ op: 'hash', password, cost }) as Promise<string>;
  }

  compare(password: string, hash: string): Promise<boolean> {
    return this.run({ op: 'compare', password, hash }) as Promise<boolean>;
  }

  async close(): Promise<void> {
    this.closed = true;
    const workers = [...this.idle, ...this.busy.keys()];
    this.idle.length = 0;
    for (const p of [...this.queue, ...this.busy.values()]) p.reject(new Error('The password hasher is shutting down'));
    this.queue.length = 0;
    this.busy.clear();
    await Promise.all(workers.map((w) => w.terminate()));
  }

  private run(job: Job): Promise<string | boolean> {
    if (this.closed) return Promise.reject(new Error('The password hasher is shut down'));
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? (this.busy.size < this.size ? this.spawn() : undefined);
      if (!worker) return;
      const next = this.queue.shift() as Pending;
      this.busy.set(worker, next);
      worker.postMessage(next.job);
    }
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { bcrypt: require.resolve('bcrypt'), nice: this.nice } });
    worker.unref();
    worker.on('message', (msg: { value?: string | boolean; error?: string }) => {
      const pending = this.busy.get(worker);
      this.busy.delete(worker);
      if (!this.closed) this.idle.push(worker);
      if (pending) {
        if (msg.error !== undefined) pending.reject(new Error(msg.error));
        else pending.resolve(msg.value as string | boolean);
      }
      this.dispatch();
    });
    worker.on('error', (err) => {
      this.logger.error(`A bcrypt worker failed: ${err.message}`);
      this.busy.get(worker)?.reject(err);
      this.busy.delete(worker);
      const i = this.idle.indexOf(worker);
      if (i >= 0) this.idle.splice(i, 1);
      this.dispatch();
    });
    return worker;
  }
}
