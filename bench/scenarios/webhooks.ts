import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { BenchContext, Target } from '../lib/context';
import { provisionTenant, platformLogin, userWithToken } from '../lib/fixture';
import { ok } from '../lib/http';
import { figures, LoadFigures, percentile, rotating, runLoad } from '../lib/load';
import { fmt, log, times } from '../lib/report';

/** Users whose profiles the load updates in turn (one user would serialize the updates on its row). */
const USERS = 20;
/** Endpoints each event fans out to. */
const ENDPOINTS = 3;
/** How long the deliveries may trail the load before the run counts what is missing. */
const DRAIN_LIMIT_MS = 120_000;

interface Arrival {
  at: number;
  /** The event's own time (its `timestamp`): when the change was made. */
  emittedAt: number;
  /** The event and the endpoint (its `webhook-id` and path). */
  id: string;
}

/** A local receiver answering 204 at once and noting each delivery's arrival. */
async function receiver(): Promise<{ server: Server; url: string; arrivals: Arrival[] }> {
  const arrivals: Arrival[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: string };
        arrivals.push({ at, emittedAt: Date.parse(body.timestamp), id: `${String(req.headers['webhook-id'])} ${req.url ?? ''}` });
      } catch {
        /* not a delivery */
      }
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, arrivals };
}

/**
 * Webhook fan-out on the main instance (bench instances run with
 * OUTBOUND_ALLOW_PRIVATE_NETWORKS, so they may POST to 127.0.0.1): a tenant with 3 endpoints taking
 * `user.updated`, all on a local receiver. Profile updates at BENCH_CONNECTIONS
 * first with the endpoints disabled (no deliveries: the baseline of the change
 * rate), then enabled; figures: deliveries per second from the start of the load
 * until the last arrived, the change rate beside the baseline, and how long a
 * delivery trails its change (p50, p99).
 */
export async function webhooksScenario(ctx: BenchContext, main: Target): Promise<void> {
  const { config, report } = ctx;
  const sink = await receiver();
  try {
    const A = main.instance.base;
    const t = await provisionTenant(A, await platformLogin(A), 'hooks');
    const users: string[] = [];
    for (let i = 0; i < USERS; i++) users.push((await userWithToken(A, t)).sub);
    const hooks: string[] = [];
    for (let i = 0; i < ENDPOINTS; i++) {
      const hook = await ok('POST', `${A}/api/v1/sectors/${t.sectorID}/webhooks`, { url: `${sink.url}?n=${i}`, events: ['user.updated'], enabled: false }, t.adminToken);
      hooks.push(String(hook.id));
    }
    const setEnabled = async (enabled: boolean) => {
      for (let i = 0; i < hooks.length; i++) {
        await ok('PUT', `${A}/api/v1/sectors/${t.sectorID}/webhooks/${hooks[i]}`, { url: `${sink.url}?n=${i}`, events: ['user.updated'], enabled }, t.adminToken);
      }
    };
    let n = 0;
    const load = (): Promise<LoadFigures> =>
      runLoad({
        url: `${A}/api/v1/users/${users[0]}`,
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${t.adminToken}` },
        connections: config.connections,
        duration: config.seconds,
        requests: rotating(users, (sub) => ({ path: `/api/v1/users/${sub}`, body: JSON.stringify({ givenName: `G${n++}` }) })),
      }).then(figures);

    log('webhooks: profile updates with the endpoints disabled, then enabled (3 endpoints per event)');
    const baseline = await load();
    await setEnabled(true);
    sink.arrivals.length = 0;
    const started = Date.now();
    const loaded = await load();
    const expected = (loaded.requests - loaded.errors) * ENDPOINTS;
    const deadline = Date.now() + DRAIN_LIMIT_MS;
    while (new Set(sink.arrivals.map((a) => a.id)).size < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    // At least once: a repeat (a delivery whose answer was not recorded in time) counts once.
    const arrived = new Set(sink.arrivals.map((a) => a.id)).size;
    const last = Math.max(...sink.arrivals.map((a) => a.at));
    const perSecond = arrived / Math.max(0.001, (last - started) / 1000);
    const lag = sink.arrivals.map((a) => a.at - a.emittedAt);
    const repeats = sink.arrivals.length - arrived;
    report.set('webhooks', { endpoints: ENDPOINTS, baseline, loaded, expected, arrived, repeats, perSecond, lagP50: percentile(lag, 50), lagP99: percentile(lag, 99) });
    report.row({
      metric: `webhook deliveries to a local receiver (${ENDPOINTS} endpoints per event)`,
      value: `${fmt(perSecond)} deliveries/s (${arrived} of ${expected})`,
      baseline: `changes made ${fmt(loaded.rps)}/s`,
      ratio: times(perSecond, loaded.rps * ENDPOINTS),
      goal: 'every delivery arrives',
      pass: arrived >= expected,
    });
    report.row({
      metric: 'profile updates with 3 webhooks subscribed / none',
      value: `${fmt(loaded.rps)} req/s, p99 ${loaded.p99} ms`,
      baseline: `without ${fmt(baseline.rps)} req/s, p99 ${baseline.p99} ms`,
      ratio: times(loaded.rps, baseline.rps),
      goal: '',
      pass: null,
    });
    report.row({
      metric: 'delivery after its change',
      value: `p50 ${fmt(percentile(lag, 50))} ms, p99 ${fmt(percentile(lag, 99))} ms`,
      baseline: '',
      ratio: '',
      goal: '',
      pass: null,
    });
    if (arrived < expected) report.fail(`webhooks: ${expected - arrived} of ${expected} deliveries missing after ${DRAIN_LIMIT_MS / 1000} s`);
    log(`webhooks: ${fmt(perSecond)} deliveries/s, ${arrived}/${expected}; changes ${fmt(loaded.rps)}/s vs ${fmt(baseline.rps)}/s without`);
  } finally {
    sink.server.close();
  }
}
