import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';

/** An SMS as the service posts it to the gateway. */
export interface Sms {
  to: string;
  body: string;
}

/**
 * A stand-in HTTP SMS gateway on 127.0.0.1 for e2e specs (the service's
 * SMS_WEBHOOK_URL is `url`). Every POST to /sms is recorded in `requests` (its
 * content type, its Authorization header and its body, parsed as JSON or kept as text); while `failures`
 * lasts the gateway answers 500 (an outage), otherwise it takes the JSON
 * {to, body} into `received` and answers 200, or 400 when the body is not JSON.
 * Anything else is 404.
 */
export class SmsGateway {
  readonly requests: Array<{ contentType: string; body: unknown; authorization?: string }> = [];
  readonly received: Sms[] = [];
  /** How many of the next POSTs to answer with 500. */
  failures = 0;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<SmsGateway> {
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => gateway.answer(req, Buffer.concat(chunks).toString('utf8'), res));
    });
    const gateway = new SmsGateway(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return gateway;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}/sms`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private answer(req: IncomingMessage, text: string, res: ServerResponse): void {
    if (req.method !== 'POST' || req.url !== '/sms') {
      res.writeHead(404).end();
      return;
    }
    let body: unknown = text;
    let json = true;
    try {
      body = JSON.parse(text);
    } catch {
      json = false; // kept as text
    }
    this.requests.push({ contentType: String(req.headers['content-type']), body, authorization: req.headers.authorization });
    if (this.failures > 0) {
      this.failures--;
      res.writeHead(500).end('gateway down');
    } else if (!json) {
      res.writeHead(400).end();
    } else {
      this.received.push(body as Sms);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    }
  }
}
