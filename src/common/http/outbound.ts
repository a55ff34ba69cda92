import { lookup as dnsLookup, LookupAddress, LookupOptions } from 'node:dns';
import { request as httpRequest, IncomingMessage, RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP } from 'node:net';

/**
 * Outbound HTTP to identity providers (discovery, token, user info, keys, the
 * GitHub APIs): a `fetch`-compatible function on node:http/node:https that
 *
 * - speaks https only; http only to a loopback host, and only when loopback is
 *   allowed (outside production), or to any host when private networks are
 *   allowed (OUTBOUND_ALLOW_PRIVATE_NETWORKS, development and tests);
 * - connects only to public addresses: the DNS answer is checked by the
 *   socket's own `lookup`, so the address checked is the address connected to
 *   (a name that resolves again to another address cannot slip through), and an
 *   address written in the URL is checked before connecting. Loopback is
 *   allowed outside production; private, link-local (metadata services),
 *   shared (CGNAT), unspecified, multicast and reserved ranges never are,
 *   IPv4-mapped and NAT64/6to4-embedded forms included (unless private
 *   networks are allowed: then loopback, private, link-local and shared
 *   addresses are reachable too);
 * - follows no redirect (a 3xx answer is a refusal);
 * - gives up after a timeout, and refuses an answer larger than a cap.
 *
 * A refusal (scheme, address, redirect) is an `OutboundRefusedError`.
 */

/** What an address is, for the outbound rules; only `public` is reachable in production. */
export type AddressClass = 'public' | 'loopback' | 'private' | 'link-local' | 'shared' | 'unspecified' | 'multicast' | 'reserved';

export interface OutboundPolicy {
  /** Loopback hosts may be reached (and over http): outside production only. */
  allowLoopback: boolean;
  /** Plain http to any host, and loopback, private, link-local and shared addresses: development and tests only. */
  allowPrivateNetworks?: boolean;
  /** Whole-request timeout (default 10 s). */
  timeoutMs?: number;
  /** Largest answer body read (default 1 MiB). */
  maxBytes?: number;
}

/** A request the outbound rules refuse: a scheme, host or address not allowed, or a redirect. */
export class OutboundRefusedError extends Error {
  readonly code = 'OUTBOUND_REFUSED';
  constructor(message: string) {
    super(message);
    this.name = 'OutboundRefusedError';
  }
}

export type OutboundFetch = (input: string | URL, init?: OutboundRequestInit) => Promise<Response>;

interface OutboundRequestInit {
  method?: string;
  headers?: Record<string, string> | Headers | Array<[string, string]>;
  body?: string | URLSearchParams | Uint8Array | null;
  signal?: AbortSignal | null;
  /** Accepted for compatibility; redirects are never followed whatever it says. */
  redirect?: string;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BYTES = 1024 * 1024;

function blockList(v4: string[], v6: string[]): BlockList {
  const list = new BlockList();
  for (const cidr of v4) {
    const [net, bits] = cidr.split('/');
    list.addSubnet(net, Number(bits), 'ipv4');
  }
  for (const cidr of v6) {
    const [net, bits] = cidr.split('/');
    list.addSubnet(net, Number(bits), 'ipv6');
  }
  return list;
}

/** Checked in this order; the first match names the class. */
const CLASSES: Array<[AddressClass, BlockList]> = [
  ['unspecified', blockList(['0.0.0.0/8'], ['::/128'])],
  ['loopback', blockList(['127.0.0.0/8'], ['::1/128'])],
  ['private', blockList(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'], ['fc00::/7', '64:ff9b:1::/48'])],
  ['link-local', blockList(['169.254.0.0/16'], ['fe80::/10'])],
  ['shared', blockList(['100.64.0.0/10'], [])],
  ['multicast', blockList(['224.0.0.0/4'], ['ff00::/8'])],
  [
    'reserved',
    blockList(
      ['192.0.0.0/24', '192.0.2.0/24', '192.88.99.0/24', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '240.0.0.0/4'],
      ['::/96', '100::/64', '2001::/32', '2001:db8::/32', 'fec0::/10', '3fff::/20', '5f00::/16'],
    ),
  ],
];

/**
 * The class of an IP address (v4 or v6, brackets and a zone allowed). IPv6
 * forms that carry an IPv4 address — mapped (::ffff:a.b.c.d), NAT64
 * (64:ff9b::/96) and 6to4 (2002::/16) — are classed by that IPv4 address.
 * Anything that is not an IP address is `reserved`.
 */
export function classifyAddress(address: string): AddressClass {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return classOf(bare, 'ipv4');
  if (family !== 6) return 'reserved';
  const bytes = ipv6Bytes(bare);
  if (!bytes) return 'reserved';
  const embedded = embeddedIpv4(bytes);
  if (embedded) return classOf(embedded, 'ipv4');
  return classOf(bare, 'ipv6');
}

function classOf(address: string, family: 'ipv4' | 'ipv6'): AddressClass {
  for (const [name, list] of CLASSES) if (list.check(address, family)) return name;
  return 'public';
}

/** The IPv4 address inside an IPv4-mapped, NAT64 (well-known prefix) or 6to4 address. */
function embeddedIpv4(b: number[]): string | undefined {
  const v4 = (i: number) => `${b[i]}.${b[i + 1]}.${b[i + 2]}.${b[i + 3]}`;
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return v4(12);
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12)) return v4(12);
  if (b[0] === 0x20 && b[1] === 0x02) return v4(2);
  return undefined;
}

/** The 16 bytes of an IPv6 address (a trailing dotted quad allowed), or undefined. */
function ipv6Bytes(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const tail: number[] = [];
  const quad = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (quad) {
    tail.push(...quad.slice(1).map(Number));
    text = `${text.slice(0, quad.index)}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const head = groups(halves[0]);
  const rest = halves.length === 2 ? groups(halves[1]) : [];
  const missing = 8 - head.length - rest.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return undefined;
  const all = [...head, ...new Array<number>(missing).fill(0), ...rest];
  if (all.some((g) => Number.isNaN(g) || g < 0 || g > 0xffff)) return undefined;
  const bytes = all.flatMap((g) => [g >> 8, g & 0xff]);
  if (quad) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** Address classes reachable when private networks are allowed. */
const PRIVATE_NETWORKS = new Set<AddressClass>(['loopback', 'private', 'link-local', 'shared']);

/** Whether an address may be connected to under the policy. */
function addressAllowed(address: string, allowLoopback: boolean, allowPrivateNetworks: boolean): boolean {
  const kind = classifyAddress(address);
  return kind === 'public' || (kind === 'loopback' && allowLoopback) || (allowPrivateNetworks && PRIVATE_NETWORKS.has(kind));
}

/** Whether a URL's host is a loopback name or address (`localhost`, `*.localhost`, 127.0.0.0/8, ::1). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isIP(host) !== 0 && classifyAddress(host) === 'loopback';
}

/**
 * Why a URL cannot be requested under the outbound rules, judged from the URL
 * alone (none: it may be tried; the addresses a name resolves to are checked
 * when connecting): https, or http to a loopback host when loopback is
 * allowed; no credentials in it; an address written in it must be allowed, and
 * so must a loopback name.
 */
export function outboundUrlProblem(url: URL, allowLoopback: boolean, allowPrivateNetworks = false): string | undefined {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use https';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === '') return 'must name a host';
  if (allowPrivateNetworks) return isIP(host) !== 0 && !addressAllowed(host, true, true) ? `must not be a ${classifyAddress(host)} address` : undefined;
  const loopback = isLoopbackHost(host);
  if (url.protocol === 'http:' && !(loopback && allowLoopback)) return allowLoopback ? 'must use https (http only on a loopback host)' : 'must use https';
  if (loopback && !allowLoopback) return 'must not be a loopback host';
  if (isIP(host) !== 0 && !addressAllowed(host, allowLoopback, false)) return `must not be a ${classifyAddress(host)} address`;
  return undefined;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A socket `lookup` (what the connection itself resolves its host with) that
 * refuses the name when any address it resolves to is not allowed: the address
 * checked is the address connected to.
 */
export function guardedLookup(allowLoopback: boolean, allowPrivateNetworks = false) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as LookupAddress[];
      const refused = list.find((a) => !addressAllowed(a.address, allowLoopback, allowPrivateNetworks));
      if (refused || list.length === 0) {
        return callback(new OutboundRefusedError(`${hostname} resolves to a ${refused ? classifyAddress(refused.address) : 'missing'} address`), []);
      }
      if (options.all) return callback(null, list);
      return callback(null, list[0].address, list[0].family);
    });
  };
}

const NULL_BODY = new Set([101, 204, 205, 304]);

/** The `fetch` for identity providers under `policy` (see the module comment). */
export function outboundFetch(policy: OutboundPolicy): OutboundFetch {
  const timeoutMs = policy.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = policy.maxBytes ?? DEFAULT_MAX_BYTES;
  const allowPrivateNetworks = policy.allowPrivateNetworks ?? false;
  const lookup = guardedLookup(policy.allowLoopback, allowPrivateNetworks);
  return async (input, init = {}) => {
    const url = new URL(String(input));
    const problem = outboundUrlProblem(url, policy.allowLoopback, allowPrivateNetworks);
    if (problem) throw new OutboundRefusedError(`${url.origin}: ${problem}`);
    const headers: Record<string, string> = {};
    new Headers(init.headers ?? {}).forEach((value, key) => (headers[key] = value));
    let body: Buffer | undefined;
    if (init.body instanceof URLSearchParams) {
      body = Buffer.from(init.body.toString());
      headers['content-type'] ??= 'application/x-www-form-urlencoded;charset=UTF-8';
    } else if (typeof init.body === 'string') body = Buffer.from(init.body);
    else if (init.body) body = Buffer.from(init.body);
    if (body) headers['content-length'] = String(body.length);
    const signal = init.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
    const options: RequestOptions = { method: init.method ?? 'GET', headers, signal, lookup: lookup as RequestOptions['lookup'], agent: false };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = send(url, options, resolve);
      req.on('error', reject);
      req.end(body);
    });
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400) {
      res.destroy();
      throw new OutboundRefusedError(`${url.origin} answered a redirect (${status}), which is not followed`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) {
        res.destroy();
        throw new Error(`${url.origin} answered more than ${maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
    const responseHeaders = new Headers();
    for (const [key, value] of Object.entries(res.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) responseHeaders.append(key, v);
    }
    return new Response(NULL_BODY.has(status) ? null : new Uint8Array(Buffer.concat(chunks)), { status, statusText: res.statusMessage ?? '', headers: responseHeaders });
  };
}

/** The outbound refusal behind an error (its cause chain), if any. */
export function outboundRefusal(err: unknown): OutboundRefusedError | undefined {
  for (let e = err, depth = 0; e && depth < 10; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof OutboundRefusedError) return e;
  }
  return undefined;
}
