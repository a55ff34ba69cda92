import { AddressObject, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A mail the test SMTP server accepted, parsed. */
export interface ReceivedMail {
  /** The SMTP envelope recipients. */
  envelopeTo: string[];
  /** The To header's addresses. */
  to: string[];
  from: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  raw: string;
}

function addresses(value: AddressObject | AddressObject[] | undefined): string[] {
  const list = value === undefined ? [] : Array.isArray(value) ? value : [value];
  return list.flatMap((a) => a.value.map((v) => v.address ?? '')).filter((a) => a !== '');
}

/**
 * A real SMTP server on 127.0.0.1 for e2e specs: no TLS, no authentication
 * required. Received mail is parsed and kept (across restarts). `stop()` and
 * `start()` again on the same port simulate a mail server outage.
 */
export class TestSmtpServer {
  readonly received: ReceivedMail[] = [];
  private server: SMTPServer | undefined;
  private listeners: Array<() => void> = [];
  private currentPort: number;

  private constructor(port: number) {
    this.currentPort = port;
  }

  /** Starts a server on `port` (0: a free one). */
  static async start(port = 0): Promise<TestSmtpServer> {
    const smtp = new TestSmtpServer(port);
    await smtp.start();
    return smtp;
  }

  get port(): number {
    return this.currentPort;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.currentPort}`;
  }

  get running(): boolean {
    return this.server !== undefined;
  }

  /** Listens (again) on the same port. */
  async start(): Promise<void> {
    if (this.server) return;
    const server = new SMTPServer({
      secure: false,
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      hideSTARTTLS: true,
      logger: false,
      closeTimeout: 1000,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('error', callback);
        stream.on('end', () => {
          const raw = Buffer.concat(chunks);
          simpleParser(raw)
            .then((mail) => {
              this.received.push({
                envelopeTo: session.envelope.rcptTo.map((r) => r.address),
                to: addresses(mail.to),
                from: addresses(mail.from)[0] ?? '',
                subject: mail.subject ?? '',
                text: mail.text ?? '',
                html: typeof mail.html === 'string' ? mail.html : '',
                messageId: mail.messageId ?? '',
                raw: raw.toString('utf8'),
              });
              for (const notify of this.listeners) notify();
              callback();
            })
            .catch((err: Error) => callback(err));
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(this.currentPort, '127.0.0.1', () => {
        server.server.off('error', reject);
        resolve();
      });
    });
    this.currentPort = (server.server.address() as { port: number }).port;
    this.server = server;
  }

  /** Stops listening (connections are closed); received mail is kept. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** All received mail matching `predicate`. */
  find(predicate: (mail: ReceivedMail) => boolean): ReceivedMail[] {
    return this.received.filter(predicate);
  }

  /** The first received mail matching `predicate`, waiting for it up to `timeoutMs`. */
  waitForMail(predicate: (mail: ReceivedMail) => boolean, timeoutMs = 10_000): Promise<ReceivedMail> {
    const found = this.received.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.listeners = this.listeners.filter((l) => l !== check);
      };
      const check = () => {
        const mail = this.received.find(predicate);
        if (mail) {
          done();
          resolve(mail);
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`No matching mail within ${timeoutMs} ms (received ${this.received.length}: ${this.received.map((m) => m.subject).join(' | ')})`));
      }, timeoutMs);
      this.listeners.push(check);
    });
  }
}

/** Starts a test SMTP server on `port` (0: a free one). */
export function startSmtpServer(port = 0): Promise<TestSmtpServer> {
  return TestSmtpServer.start(port);
}

/** Mail worker settings that poll and retry the outbox fast enough for a test. */
export const FAST_WORKER = { MAIL_POLL_INTERVAL_MS: '100', MAIL_RETRY_BASE_MS: '100', MAIL_RETRY_MAX_MS: '500', MAIL_SWEEP_INTERVAL_MS: '1000' };
export const MAIL_FROM = 'no-reply@iam.test';

/** The code in the default one-time-code mail text. */
export const DEFAULT_MAIL_CODE = /verification code is (\d{6})\./;

/** The code a message's text carries (the first group of `pattern`); throws when there is none. */
export function codeIn(text: string, pattern: RegExp = DEFAULT_MAIL_CODE): string {
  const m = pattern.exec(text);
  if (!m) throw new Error(`no code in ${JSON.stringify(text)}`);
  return m[1];
}

/** A different 6-digit code. */
export function wrong(code: string): string {
  return String((Number(code) + 1) % 1_000_000).padStart(6, '0');
}
