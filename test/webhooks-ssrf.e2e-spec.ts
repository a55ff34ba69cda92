import { randomBytes, randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { isIP } from 'node:net';
import { SecretBox } from '../src/common/crypto/secret-box';
import { classifyAddress } from '../src/common/http/outbound';
import { newWebhookSecret, WEBHOOK_SECRET_SEAL } from '../src/webhook/webhook-secret';
import { expectError, fieldViolations } from './support/contract';
import { createSector, createUser, ProvisionedTenant, provisionTenant, tenantSql } from './support/factories';
import { startTestApp, TestApp } from './support/test-app';
import { eventually, sleep } from './support/wait';
import { WebhookReceiver } from './support/webhook-receiver';

/**
 * Webhook URLs and SSRF (issue 28, "Safety") with OUTBOUND_ALLOW_PRIVATE_NETWORKS
 * off, as in production: registration refuses http and loopback, private and
 * link-local addresses, written as addresses or as names resolving to them; and
 * since a name can resolve differently at delivery time (DNS rebinding), the
 * address connected to is checked again: a URL that slipped past registration
 * (written straight into the tenant's database here) gets no connection at all,
 * and its delivery fails naming the refused address.
 */

jest.setTimeout(90_000);

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/**
 * A host name (not `localhost` or `*.localhost`, which are refused by name) that
 * resolves, through the system resolver the service uses, only to non-public
 * addresses: the machine's own name normally does (/etc/hosts or the local
 * network's DNS). Answers the name and the class of its addresses.
 */
async function nameResolvingLocally(): Promise<{ name: string; kind: string }> {
  const candidates = [hostname(), 'runsc', 'vm', 'ip6-localhost', 'ip6-loopback', '127.0.0.1.nip.io', 'localtest.me'];
  for (const name of candidates) {
    const lower = name.toLowerCase();
    if (!name || isIP(name) !== 0 || lower === 'localhost' || lower.endsWith('.localhost')) continue;
    try {
      const addresses = await lookup(name, { all: true });
      const kinds = new Set(addresses.map((x) => classifyAddress(x.address)));
      if (addresses.length > 0 && !kinds.has('public')) return { name, kind: classifyAddress(addresses[0].address) };
    } catch {
      // does not resolve here: try the next
    }
  }
  throw new Error(`no host name resolving only to local addresses found among ${JSON.stringify(candidates)}; add one to /etc/hosts`);
}

describe('webhook URLs without OUTBOUND_ALLOW_PRIVATE_NETWORKS (SSRF)', () => {
  let t: TestApp;
  let a: ProvisionedTenant;
  let sector: string;
  let local: { name: string; kind: string };
  const create = (url: string, s = sector) =>
    t.http().post(`/api/v1/sectors/${s}/webhooks`).set(bearer(a.adminToken)).send({ url, events: ['*'], description: 'ssrf', enabled: true });

  beforeAll(async () => {
    local = await nameResolvingLocally();
    t = await startTestApp({
      env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'false', WEBHOOK_RETRY_SCHEDULE: '200ms', MAIL_POLL_INTERVAL_MS: '50', MAIL_RETRY_BASE_MS: '100', MAIL_RETRY_MAX_MS: '500' },
    });
    a = await provisionTenant(t);
    sector = await createSector(t, a.adminToken);
  });

  afterAll(() => t?.close());

  /** Asserts a 400 INVALID_ARGUMENT naming `url`, whose description matches; nothing registered. */
  async function expectRefused(url: string, why: RegExp): Promise<void> {
    const res = await create(url);
    expectError(res, 400, 3);
    const violations = fieldViolations(res.body);
    expect({ url, fields: violations.map((v) => v.field) }).toEqual({ url, fields: ['url'] });
    expect({ url, description: violations[0].description }).toEqual({ url, description: expect.stringMatching(why) });
  }

  it.each([
    ['plain http', 'http://example.com/hook', /https/],
    ['a loopback address', 'https://127.0.0.1/hook', /loopback/],
    ['a loopback address, short form', 'https://127.1/hook', /loopback/],
    ['a loopback address, hexadecimal', 'https://0x7f000001/hook', /loopback/],
    ['an IPv6 loopback address', 'https://[::1]/hook', /loopback/],
    ['an IPv4-mapped IPv6 loopback address', 'https://[::ffff:127.0.0.1]/hook', /loopback/],
    ['a private address', 'https://10.1.2.3/hook', /private/],
    ['a private address (192.168/16)', 'https://192.168.1.10/hook', /private/],
    ['the link-local metadata address', 'https://169.254.169.254/latest/meta-data/', /link-local/],
    ['an IPv6 unique local address', 'https://[fd00::1]/hook', /private/],
    ['the unspecified address', 'https://0.0.0.0/hook', /unspecified/],
    ['localhost', 'https://localhost/hook', /loopback/],
  ])('refuses %s at registration (%s)', async (_what, url, why) => {
    await expectRefused(url, why);
  });

  it('refuses a DNS name that resolves to a local address at registration', async () => {
    await expectRefused(`https://${local.name}:8443/hook`, new RegExp(`resolves to a ${local.kind} address`));
  });

  it('refuses the same on update, and registers a public https address', async () => {
    const res = await create('https://1.1.1.1/hook');
    expect(res.status).toBe(200);
    const id = res.body.id as string;
    try {
      const put = await t.http().put(`/api/v1/sectors/${sector}/webhooks/${id}`).set(bearer(a.adminToken)).send({ url: 'https://10.1.2.3/hook', events: ['*'], description: 'ssrf', enabled: true });
      expectError(put, 400, 3);
      expect(fieldViolations(put.body).map((v) => v.field)).toEqual(['url']);
      const listed = await t.http().get(`/api/v1/sectors/${sector}/webhooks`).set(bearer(a.adminToken));
      expect(listed.body.webhooks.find((w: { id: string }) => w.id === id).url).toBe('https://1.1.1.1/hook');
    } finally {
      expect((await t.http().delete(`/api/v1/sectors/${sector}/webhooks/${id}`).set(bearer(a.adminToken))).status).toBe(200);
    }
    const left = await t.http().get(`/api/v1/sectors/${sector}/webhooks`).set(bearer(a.adminToken));
    expect(left.body.webhooks).toEqual([]);
  });

  it('checks the address connected to at delivery (DNS rebinding): no connection is made, and the delivery fails naming the refused address', async () => {
    // Listening on every local address: whatever the name resolves to here, a connection would reach it.
    const receiver = await WebhookReceiver.start({ host: '0.0.0.0' });
    try {
      const target = await createSector(t, a.adminToken);
      const box = t.app.get(SecretBox);
      const secret = newWebhookSecret();
      // What registration would have refused, as if the name had resolved to a public address then:
      // the name resolving locally, and for good measure a loopback address and plain http.
      const urls = {
        rebound: `https://${local.name}:${receiver.port}/hook`,
        loopback: `https://127.0.0.1:${receiver.port}/hook`,
        plain: `http://127.0.0.1:${receiver.port}/hook`,
      };
      const ids: Record<keyof typeof urls, string> = { rebound: randomUUID(), loopback: randomUUID(), plain: randomUUID() };
      for (const key of Object.keys(urls) as Array<keyof typeof urls>) {
        await tenantSql(
          t,
          a.tenantID,
          `INSERT INTO webhooks (id, sector_id, url, events, description, enabled, secret_sealed) VALUES ($1, $2, $3, ARRAY['*'], 'slipped past registration', true, $4)`,
          [ids[key], target, urls[key], box.seal(WEBHOOK_SECRET_SEAL, secret)],
        );
      }
      const sub = await createUser(t, a.adminToken, target, { email: `rebound-${randomBytes(4).toString('hex')}@example.test`, password: 'rebound-password-1' });

      const ended = async (id: string) =>
        eventually(
          async () => {
            const res = await t.http().get(`/api/v1/sectors/${target}/webhooks/${id}/deliveries`).set(bearer(a.adminToken));
            expect(res.status).toBe(200);
            const d = (res.body.deliveries as Array<Record<string, unknown>>).find((x) => x.eventType === 'user.created');
            return d !== undefined && d.status === 'failed' && d;
          },
          15_000,
          `the delivery to webhook ${id} failed`,
        );
      const rebound = await ended(ids.rebound);
      expect(rebound).toMatchObject({ status: 'failed', attempts: 2, lastStatus: 0 });
      expect(rebound.lastError).toMatch(new RegExp(`${local.name.replace(/[.]/g, '\\.')} resolves to a ${local.kind} address`));
      const loopback = await ended(ids.loopback);
      expect(loopback).toMatchObject({ status: 'failed', lastStatus: 0 });
      expect(loopback.lastError).toMatch(/loopback/);
      const plain = await ended(ids.plain);
      expect(plain).toMatchObject({ status: 'failed', lastStatus: 0 });
      expect(plain.lastError).toMatch(/https/);
      // Not a byte reached the receiver.
      await sleep(200);
      expect({ connections: receiver.connections, requests: receiver.requests.length }).toEqual({ connections: 0, requests: 0 });
      // The event itself was real: queued for all three under one webhook-id.
      const queued = await tenantSql(t, a.tenantID, `SELECT DISTINCT event_id FROM webhook_deliveries WHERE webhook_id = ANY($1::uuid[])`, [Object.values(ids)]);
      expect(queued).toHaveLength(1);
      expect(sub).toBeTruthy();
    } finally {
      await receiver.close();
    }
  });
});
