import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { classifyAddress, guardedLookup, isLoopbackHost, outboundFetch, OutboundRefusedError, outboundUrlProblem } from './outbound';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.255', 'shared'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['::10.0.0.1', 'reserved'],
    ['not-an-address', 'reserved'],
    // IPv4 inside IPv6: mapped (both spellings), NAT64, 6to4.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:10.1.2.3', 'private'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['2002:c0a8:0101::1', 'private'],
    // Public.
    ['8.8.8.8', 'public'],
    ['172.32.0.1', 'public'],
    ['100.128.0.1', 'public'],
    ['1.1.1.1', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['::ffff:8.8.8.8', 'public'],
  ])('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });
});

describe('isLoopbackHost', () => {
  it.each([
    ['localhost', true],
    ['LOCALHOST', true],
    ['app.localhost', true],
    ['127.0.0.1', true],
    ['[::1]', true],
    ['example.com', false],
    ['10.0.0.1', false],
    ['localhost.example.com', false],
  ])('%s: %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});

describe('outboundUrlProblem', () => {
  it.each([
    ['https://idp.example.com/', true, undefined],
    ['https://idp.example.com/', false, undefined],
    ['http://127.0.0.1:8080/', true, undefined],
    ['http://localhost:8080/', true, undefined],
    ['http://[::1]:8080/', true, undefined],
    ['http://127.0.0.1:8080/', false, 'must use https'],
    ['https://127.0.0.1/', false, 'must not be a loopback host'],
    ['https://localhost/', false, 'must not be a loopback host'],
    ['http://idp.example.com/', true, 'must use https (http only on a loopback host)'],
    ['http://10.0.0.5/', true, 'must use https (http only on a loopback host)'],
    ['https://169.254.169.254/latest', true, 'must not be a link-local address'],
    ['https://[::ffff:a9fe:a9fe]/', true, 'must not be a link-local address'],
    ['https://10.0.0.5/', true, 'must not be a private address'],
    ['https://100.64.1.1/', true, 'must not be a shared address'],
    ['https://0.0.0.0/', true, 'must not be a unspecified address'],
    ['https://user:pw@idp.example.com/', true, 'must not carry credentials'],
    ['ftp://idp.example.com/', true, 'must use https'],
  ])('%s (loopback allowed: %s): %s', (url, allowLoopback, expected) => {
    expect(outboundUrlProblem(new URL(url), allowLoopback)).toBe(expected);
  });

  it.each([
    ['http://receiver.internal:8080/logout', undefined],
    ['http://10.0.0.5/', undefined],
    ['https://169.254.169.254/', undefined],
    ['http://127.0.0.1:9000/', undefined],
    ['https://0.0.0.0/', 'must not be a unspecified address'],
    ['https://224.0.0.1/', 'must not be a multicast address'],
    ['ftp://receiver.internal/', 'must use https'],
  ])('%s with private networks allowed: %s', (url, expected) => {
    expect(outboundUrlProblem(new URL(url), false, true)).toBe(expected);
  });
});

describe('outboundFetch', () => {
  let server: Server;
  let base: string;
  const hits: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/redirect') res.writeHead(302, { location: `${base}/json` }).end();
      else if (req.url === '/big') res.writeHead(200).end(Buffer.alloc(2048));
      else if (req.url === '/echo') {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method, type: req.headers['content-type'], body: Buffer.concat(chunks).toString() })));
      } else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers a Response (status, headers, body) and sends a form body', async () => {
    const fetch = outboundFetch({ allowLoopback: true });
    const res = await fetch(`${base}/echo`, { method: 'POST', body: new URLSearchParams({ a: '1' }) });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ method: 'POST', type: 'application/x-www-form-urlencoded;charset=UTF-8', body: 'a=1' });
  });

  it('reaches localhost by name when loopback is allowed (checked on the resolved address)', async () => {
    const res = await outboundFetch({ allowLoopback: true })(`${base.replace('127.0.0.1', 'localhost')}/json`);
    expect(res.status).toBe(200);
  });

  it('refuses a redirect without following it', async () => {
    hits.length = 0;
    const err = await outboundFetch({ allowLoopback: true })(`${base}/redirect`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundRefusedError);
    expect(hits).toEqual(['/redirect']);
  });

  it('refuses loopback when it is not allowed, before connecting', async () => {
    hits.length = 0;
    await expect(outboundFetch({ allowLoopback: false })(`${base}/json`)).rejects.toBeInstanceOf(OutboundRefusedError);
    expect(hits).toEqual([]);
  });

  it("checks a name's addresses in the connection's own lookup", async () => {
    const resolve = (allowLoopback: boolean, all: boolean) =>
      new Promise<{ err: unknown; address: unknown }>((done) => guardedLookup(allowLoopback)('localhost', { all }, (err, address) => done({ err, address })));
    expect((await resolve(false, true)).err).toBeInstanceOf(OutboundRefusedError);
    expect((await resolve(false, false)).err).toBeInstanceOf(OutboundRefusedError);
    const allowed = await resolve(true, false);
    expect(allowed.err).toBeNull();
    expect(['127.0.0.1', '::1']).toContain(allowed.address);
  });

  it('refuses an answer larger than the cap', async () => {
    await expect(outboundFetch({ allowLoopback: true, maxBytes: 1024 })(`${base}/big`)).rejects.toThrow(/more than 1024 bytes/);
  });
});
