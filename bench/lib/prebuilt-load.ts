import { connect, Socket } from 'node:net';
import { LoadFigures, percentile, round, RPS_DIGITS } from './load';

/** One request of a prebuilt load: everything but the target, which the load gives. */
interface PrebuiltRequest {
  method: string;
  /** Path and query. */
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface PrebuiltLoadOptions {
  /** The target's origin and default path, e.g. `http://127.0.0.1:3000/api/v1/introspect`. */
  url: string;
  connections: number;
  /** Seconds. */
  duration: number;
  /** The requests, sent in turn across all connections (one shared counter). */
  requests: PrebuiltRequest[];
  /** Seconds a request may take before it counts as failed and its connection is replaced. */
  timeout?: number;
}

const DEFAULT_TIMEOUT_SECONDS = 10;
/** Pause before a lost connection is replaced (a refused one is not retried in a tight loop). */
const REOPEN_DELAY_MS = 10;
const HEADER_END = Buffer.from('\r\n\r\n');
const CHUNKED_END = Buffer.from('\r\n0\r\n\r\n');

/** The bytes of one HTTP/1.1 keep-alive request to `host`. */
function requestBytes(host: string, r: PrebuiltRequest): Buffer {
  const body = r.body === undefined ? undefined : Buffer.from(r.body);
  const lines = [`${r.method} ${r.path} HTTP/1.1`, `host: ${host}`, 'connection: keep-alive'];
  for (const [name, value] of Object.entries(r.headers ?? {})) lines.push(`${name}: ${value}`);
  if (body) lines.push(`content-length: ${body.length}`);
  const head = Buffer.from(lines.join('\r\n') + '\r\n\r\n');
  return body ? Buffer.concat([head, body]) : head;
}

/**
 * Where the answer that starts `buf` ends (its byte count), or -1 while it is
 * incomplete; its status is `status`. Knows Content-Length and chunked bodies,
 * which is all the service sends.
 */
function answerLength(buf: Buffer): { length: number; status: number } {
  const headEnd = buf.indexOf(HEADER_END);
  if (headEnd < 0) return { length: -1, status: 0 };
  const head = buf.toString('latin1', 0, headEnd);
  const status = Number(head.slice(9, 12));
  const contentLength = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (contentLength) {
    const total = headEnd + 4 + Number(contentLength[1]);
    return { length: buf.length >= total ? total : -1, status };
  }
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
    const end = buf.indexOf(CHUNKED_END, headEnd + 2);
    return { length: end < 0 ? -1 : end + CHUNKED_END.length, status };
  }
  return { length: headEnd + 4, status };
}

/**
 * A closed-loop HTTP/1.1 load over keep-alive connections whose requests are built
 * into bytes once, before the load starts: each connection sends the next request
 * as soon as the previous answer is complete. A load that rotates over thousands
 * of different requests (one token each) costs the generator what a load of one
 * fixed request does; autocannon rebuilds a request from its parts each time
 * (`setupRequest`), which on two shared cores takes more CPU than the service
 * spends answering it and so measures the generator. Figures as `figures()` gives
 * them for autocannon: throughput over the load, latency percentiles in ms, failed
 * requests (non-2xx, connection errors, timeouts).
 */
export async function runPrebuiltLoad(opts: PrebuiltLoadOptions): Promise<LoadFigures> {
  const target = new URL(opts.url);
  const port = Number(target.port || 80);
  const requests = opts.requests.map((r) => requestBytes(target.host, r));
  if (!requests.length) throw new Error('runPrebuiltLoad: no requests');
  const timeoutMs = (opts.timeout ?? DEFAULT_TIMEOUT_SECONDS) * 1000;
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  const deadline = started + opts.duration * 1000;

  const connection = () =>
    new Promise<void>((resolve) => {
      let socket: Socket;
      let pending: Buffer = Buffer.alloc(0);
      let sentAt = 0;
      let timer: NodeJS.Timeout | undefined;
      const open = () => {
        pending = Buffer.alloc(0);
        socket = connect({ host: target.hostname, port, noDelay: true });
        socket.on('connect', send);
        socket.on('data', (chunk: Buffer) => {
          pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
          const { length, status } = answerLength(pending);
          if (length < 0) return;
          clearTimeout(timer);
          latencies.push(performance.now() - sentAt);
          if (status < 200 || status > 299) errors++;
          pending = pending.subarray(length);
          send();
        });
        // A connection that fails before its request went out counts once here; one with a request in flight, at its close.
        socket.on('error', () => {
          if (!sentAt) errors++;
        });
        socket.on('close', () => {
          clearTimeout(timer);
          if (sentAt) errors++;
          sentAt = 0;
          if (performance.now() < deadline) setTimeout(open, REOPEN_DELAY_MS);
          else resolve();
        });
      };
      const send = () => {
        sentAt = 0;
        if (performance.now() >= deadline) {
          socket.end();
          return;
        }
        sentAt = performance.now();
        timer = setTimeout(() => socket.destroy(), timeoutMs);
        socket.write(requests[next++ % requests.length]);
      };
      open();
    });

  await Promise.all(Array.from({ length: opts.connections }, connection));
  const seconds = (performance.now() - started) / 1000;
  return {
    rps: round(latencies.length / seconds, RPS_DIGITS),
    p50: round(percentile(latencies, 50), 1),
    p99: round(percentile(latencies, 99), 1),
    errors,
    requests: latencies.length,
    seconds: round(seconds, 2),
  };
}
