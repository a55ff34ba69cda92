import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An app's redirect URI for browser specs: records every query it receives at `/cb` and answers a plain page. */
export interface RedirectTarget {
  url: string;
  received: URL[];
  close(): Promise<void>;
}

export async function serveRedirectTarget(): Promise<RedirectTarget> {
  const received: URL[] = [];
  let base = '';
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (url.pathname === '/cb') received.push(url);
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end('<!doctype html><html><head><meta charset="utf-8"><title>app</title></head><body><h1>The app got an answer</h1></body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/cb`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
