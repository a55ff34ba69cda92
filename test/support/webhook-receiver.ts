import { createServer, IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { eventually } from './wait';

/** One request as the receiver got it. */
export interface ReceivedRequest {
  /** 1-based, in order of arrival. */
  n: number;
  method: string;
  /** The path and query. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as sent (UTF-8). */
  body: string;
  /** `Date.now()` when the request line and headers arrived. */
  at: number;
  /** The `webhook-id` header ('' when absent). */
  id: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: WebhookBody | undefined;
}

/** A delivery body per Standard Webhooks: `{type, timestamp, data}`. */
export interface WebhookBody {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/**
 * How to answer one request. Default: 200 with an empty JSON object.
 * - `status`, `headers`, `body`: the answer;
 * - `delayMs`: wait this long before answering (longer than the sender's timeout: a timeout);
 * - `hang`: never answer (the connection stays open until the client gives up or the receiver closes);
 * - `redirectTo`: a 302 (or `status`) with this Location.
 */
export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
  hang?: boolean;
  redirectTo?: string;
}

export interface ReceiverOptions {
  /** Address to listen on (default 127.0.0.1; `0.0.0.0` catches a connection to any local address). */
  host?: string;
  /** Listen on this port (default: a free one); e.g. to come back on the port a URL names. */
  port?: number;
}

/**
 * A real HTTP receiver for webhook deliveries in e2e specs (node:http on
 * 127.0.0.1). It records every request (headers, raw body, arrival time) and
 * every TCP connection, and answers each request with the next of the answers
 * queued by `answerNext` (status sequences, delays to force timeouts, hangs,
 * redirects), then with `fallback` (200 unless changed).
 */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  /** TCP connections accepted (also counts connections that never sent a request, e.g. a TLS hello). */
  connections = 0;
  /** The answer once the queued ones are used up. */
  fallback: Answer = { status: 200 };
  private readonly queued: Answer[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly server: Server,
    readonly host: string,
  ) {}

  static async start(options: ReceiverOptions = {}): Promise<WebhookReceiver> {
    const host = options.host ?? '127.0.0.1';
    const server = createServer((req, res) => receiver.handle(req, res));
    const receiver = new WebhookReceiver(server, host);
    server.on('connection', (socket: Socket) => {
      receiver.connections++;
      receiver.sockets.add(socket);
      socket.on('close', () => receiver.sockets.delete(socket));
    });
    // Malformed requests (a TLS hello on plain HTTP, say) are not requests: dropped, counted as connections.
    server.on('clientError', (_err, socket: Socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => resolve());
    });
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** `http://127.0.0.1:<port>/<path>` (the loopback address also when listening on all addresses). */
  url(path = 'hook'): string {
    const host = this.host === '0.0.0.0' || this.host === '::' ? '127.0.0.1' : this.host.includes(':') ? `[${this.host}]` : this.host;
    return `http://${host}:${this.port}/${path.replace(/^\//, '')}`;
  }

  /** Queues answers for the next requests, in order (after any already queued). */
  answerNext(...answers: Answer[]): this {
    this.queued.push(...answers);
    return this;
  }

  /** Answers every request from now on with `answer` (queued answers are dropped). */
  answerAlways(answer: Answer): this {
    this.queued.length = 0;
    this.fallback = answer;
    return this;
  }

  /** Forgets the requests and connections seen so far (queued answers stay). */
  clear(): void {
    this.requests.length = 0;
    this.connections = 0;
  }

  /** The delivery bodies received, in order. */
  get bodies(): WebhookBody[] {
    return this.requests.flatMap((r) => (r.json ? [r.json] : []));
  }

  /** The requests of one event (by `webhook-id`), in order. */
  attemptsOf(id: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.id === id);
  }

  /** The requests whose body matches. */
  find(match: (body: WebhookBody, request: ReceivedRequest) => boolean): ReceivedRequest[] {
    return this.requests.filter((r) => r.json !== undefined && match(r.json, r));
  }

  /** Waits until at least `n` requests came; answers the first `n`. */
  async waitForCount(n: number, timeoutMs = 15_000): Promise<ReceivedRequest[]> {
    await eventually(() => this.requests.length >= n, timeoutMs, `${n} request(s) at ${this.url()} (got ${this.requests.length})`);
    return this.requests.slice(0, n);
  }

  /** Waits for the first request whose body matches. */
  async waitFor(match: (body: WebhookBody, request: ReceivedRequest) => boolean, timeoutMs = 15_000, what = 'a matching delivery'): Promise<ReceivedRequest> {
    return eventually(() => this.find(match)[0], timeoutMs, `${what} at ${this.url()} (got: ${this.summary()})`);
  }

  /** Waits for an event of `type` (and, when given, whose data has these values). */
  waitForEvent(type: string, data: Record<string, unknown> = {}, timeoutMs = 15_000): Promise<ReceivedRequest> {
    return this.waitFor(
      (b) => b.type === type && Object.entries(data).every(([k, v]) => b.data[k] === v),
      timeoutMs,
      `a ${type} delivery with ${JSON.stringify(data)}`,
    );
  }

  /** Waits until an event (by `webhook-id`) was attempted `n` times; answers those attempts. */
  async waitForAttempts(id: string, n: number, timeoutMs = 15_000): Promise<ReceivedRequest[]> {
    await eventually(() => this.attemptsOf(id).length >= n, timeoutMs, `${n} attempt(s) of ${id} (got ${this.attemptsOf(id).length})`);
    return this.attemptsOf(id).slice(0, n);
  }

  /** The types and ids received so far, for failure messages. */
  summary(): string {
    return JSON.stringify(this.requests.map((r) => `${r.json?.type ?? r.path} ${r.id}`));
  }

  /** Stops listening and drops every open connection (hanging answers included). */
  close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    return closed;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const at = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: WebhookBody | undefined;
      try {
        json = JSON.parse(body) as WebhookBody;
      } catch {
        json = undefined;
      }
      const id = req.headers['webhook-id'];
      this.requests.push({
        n: this.requests.length + 1,
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        at,
        id: typeof id === 'string' ? id : '',
        json,
      });
      this.respond(res, this.queued.shift() ?? this.fallback);
    });
  }

  private respond(res: ServerResponse, answer: Answer): void {
    if (answer.hang) return;
    const send = () => {
      if (res.destroyed) return;
      const headers = { ...(answer.redirectTo ? { location: answer.redirectTo } : {}), ...(answer.headers ?? {}) };
      const status = answer.status ?? (answer.redirectTo ? 302 : 200);
      const body = answer.body ?? (status >= 200 && status < 300 ? '{}' : `answer ${status}`);
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body);
    };
    if (!answer.delayMs) return send();
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      send();
    }, answer.delayMs);
    this.timers.add(timer);
  }
}

/** The Standard Webhooks headers of a request, for `Webhook.verify`. */
export function webhookHeaders(r: ReceivedRequest): Record<string, string> {
  const pick = (name: string) => {
    const v = r.headers[name];
    return typeof v === 'string' ? v : '';
  };
  return { 'webhook-id': pick('webhook-id'), 'webhook-timestamp': pick('webhook-timestamp'), 'webhook-signature': pick('webhook-signature') };
}

/** Verifies a received delivery with the `standardwebhooks` package and `secret`; answers the parsed body (throws when it does not verify). */
export function verifyDelivery(secret: string, r: ReceivedRequest): unknown {
  return new Webhook(secret).verify(r.body, webhookHeaders(r));
}
