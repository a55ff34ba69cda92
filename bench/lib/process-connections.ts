import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/**
 * TCP connections a process holds to the database server's port, read from /proc
 * (its socket inodes matched against /proc/net/tcp{,6}): a per-instance count even
 * when several instances share one database and one application name.
 *
 * @public The worker of `ConnectionCounter` requires it by name.
 */
export function processConnections(pid: number, port: number): number | null {
  try {
    const inodes = new Set<string>();
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.add(m[1]);
      } catch {
        /* closed meanwhile */
      }
    }
    const portHex = port.toString(16).toUpperCase().padStart(4, '0');
    let n = 0;
    for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
      let text = '';
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        continue;
      }
      for (const line of text.split('\n').slice(1)) {
        const cols = line.trim().split(/\s+/);
        // cols: sl local_address rem_address st ... inode(9); state 01 = ESTABLISHED
        if (cols.length > 9 && cols[2].endsWith(`:${portHex}`) && cols[3] === '01' && inodes.has(cols[9])) n++;
      }
    }
    return n;
  } catch {
    return null;
  }
}

/**
 * `processConnections` on a thread of its own, for samplers that run beside a load.
 * Reading /proc this way is synchronous, and its cost grows with the deployment: with
 * a thousand tenant databases the instance holds over a thousand sockets, each
 * looked up with a `readlink`, and /proc/net/tcp lists each connection twice. On the
 * benchmark's thread it stalled the load generator's event loop every sample, and
 * every request in flight then counted the stall as latency (so p99 grew with the
 * number of tenants deployed, not with anything the service did).
 */
export class ConnectionCounter {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, (n: number | null) => void>();

  count(pid: number, port: number): Promise<number | null> {
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      worker.postMessage({ id, pid, port });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
    for (const resolve of this.pending.values()) resolve(null);
    this.pending.clear();
  }

  private start(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { module: __filename } });
    worker.on('message', ({ id, n }: { id: number; n: number | null }) => {
      this.pending.get(id)?.(n);
      this.pending.delete(id);
    });
    worker.on('error', () => void this.close());
    // A counter left open never keeps the benchmark alive.
    worker.unref();
    return worker;
  }
}

/** The worker: this module's `processConnections`, answered by message. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { processConnections } = require(workerData.module);
parentPort.on('message', ({ id, pid, port }) => parentPort.postMessage({ id, n: processConnections(pid, port) }));
`;
