/**
 * A TCP proxy in front of the test PostgreSQL server that can make connections go
 * silently dead: `silence(applicationName)` stops carrying bytes, in either
 * direction, on the connections open at that moment whose startup message named
 * that application — without closing them. Both ends stay connected and the
 * kernel keeps acknowledging, so neither side hears a thing: the failure of a
 * dropped route or a stuck firewall or NAT state, which no `pg_terminate_backend`
 * (a loud death: the client sees the connection end) can imitate. Connections
 * opened later are carried normally. `delay(applicationName, ms)` instead holds
 * what the server sends those connections back by `ms` (in order): a listener
 * that hears late.
 */
import { AddressInfo, connect, createServer, Server, Socket } from 'node:net';

interface Link {
  client: Socket;
  upstream: Socket;
  /** The connection's first bytes from the client: its startup message, where application_name travels. */
  startup: Buffer;
  silent: boolean;
  /** What the server sends is handed to the client this much later. */
  delayMs: number;
}

export interface SilencingProxy {
  /** `postgres://…` on the proxy: the same credentials and database as `targetUrl`. */
  url(targetUrl: string): string;
  /** Silences the open connections of this application; answers how many. */
  silence(applicationName: string): number;
  /** Holds back by `ms` what the server sends the open connections of this application (0: no more); answers how many. */
  delay(applicationName: string, ms: number): number;
  close(): Promise<void>;
}

export async function startSilencingProxy(targetUrl: string): Promise<SilencingProxy> {
  const target = new URL(targetUrl);
  const links = new Set<Link>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    const link: Link = { client, upstream, startup: Buffer.alloc(0), silent: false, delayMs: 0 };
    links.add(link);
    const end = () => {
      links.delete(link);
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk: Buffer) => {
      if (link.startup.length < 1024) link.startup = Buffer.concat([link.startup, chunk]);
      if (!link.silent) upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (link.silent) return;
      // Timers of one delay fire in the order they were set: the bytes keep their order.
      if (link.delayMs > 0) setTimeout(() => link.silent || client.destroyed || client.write(chunk), link.delayMs);
      else client.write(chunk);
    });
    for (const socket of [client, upstream]) {
      socket.on('error', end);
      socket.on('close', end);
    }
  });
  const linksOf = (applicationName: string) => [...links].filter((link) => link.startup.includes(Buffer.from(`application_name\0${applicationName}\0`)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url(url: string) {
      const proxied = new URL(url);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(port);
      return proxied.toString();
    },
    silence(applicationName: string) {
      const named = linksOf(applicationName);
      for (const link of named) link.silent = true;
      return named.length;
    },
    delay(applicationName: string, ms: number) {
      const named = linksOf(applicationName);
      for (const link of named) link.delayMs = ms;
      return named.length;
    },
    async close() {
      for (const link of links) {
        link.client.destroy();
        link.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
