import { oidcBasicAuth, oidcToken, startOidcProvider } from '../lib/baselines';
import { BenchContext, Target } from '../lib/context';
import { figures, LoadFigures, percentile, runLoad } from '../lib/load';
import { fmt, log, ratioOf, times } from '../lib/report';

const REDIRECT_URI = 'https://app.bench.test/cb';
const FORM = 'application/x-www-form-urlencoded';

/** A load of `url` at BENCH_CONNECTIONS after a 2 s warm-up. */
async function formLoad(ctx: BenchContext, url: string, authorization: string, body: string): Promise<LoadFigures> {
  const opts = { url, method: 'POST' as const, connections: ctx.config.connections, headers: { 'content-type': FORM, authorization }, body };
  await runLoad({ ...opts, duration: 2 });
  return figures(await runLoad({ ...opts, duration: ctx.config.seconds }));
}

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

async function json(res: Response, what: string): Promise<Record<string, unknown>> {
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${what}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** A browser's cookies, by name (the provider scopes them by path; every one is sent back here, which it accepts). */
class Cookies {
  private readonly jar = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      this.jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1));
    }
  }
  header(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/**
 * One authorization code round trip as an app and a browser make it: authorize →
 * the sign-in page's complete call (with an access token the user already has) →
 * the provider's resume → the app's token request (PKCE). Answers its duration in ms.
 */
async function roundTrip(issuer: string, client: { id: string; secret: string }, userToken: string): Promise<number> {
  const started = performance.now();
  const cookies = new Cookies();
  const verifier = 'v'.repeat(43);
  const { createHash } = await import('node:crypto');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const auth = new URL(`${issuer}/auth`);
  for (const [k, v] of Object.entries({ client_id: client.id, response_type: 'code', scope: 'openid', redirect_uri: REDIRECT_URI, code_challenge: challenge, code_challenge_method: 'S256', state: 's' })) {
    auth.searchParams.set(k, v);
  }
  const first = await fetch(auth, { redirect: 'manual' });
  cookies.take(first);
  const interaction = new URL(first.headers.get('location') ?? '').searchParams.get('interaction');
  if (!interaction) throw new Error(`authorize: ${first.status}, no interaction`);
  const base = new URL(issuer).origin;
  const done = await json(
    await fetch(`${base}/api/v1/oidc/interactions/${interaction}/complete`, { method: 'POST', headers: { authorization: `Bearer ${userToken}`, cookie: cookies.header() } }),
    'complete',
  );
  let next = String(done.redirectTo);
  for (let hop = 0; hop < 5 && !next.startsWith(REDIRECT_URI); hop++) {
    const res = await fetch(next, { redirect: 'manual', headers: { cookie: cookies.header() } });
    cookies.take(res);
    next = new URL(res.headers.get('location') ?? '', next).href;
  }
  const code = new URL(next).searchParams.get('code');
  if (!code) throw new Error(`no code on ${next}`);
  await json(
    await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': FORM, authorization: basic(client.id, client.secret) },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier }),
    }),
    'token',
  );
  return performance.now() - started;
}

/**
 * The OpenID Provider: client-credentials token issuance and RFC 7662 introspection
 * at a sector's issuer (tokens and clients in PostgreSQL) beside the in-memory
 * `oidc-provider` baseline, and authorization code round trips per second
 * (BENCH_CONNECTIONS / 10 browsers at once, at least 2).
 */
export async function oidcScenario(ctx: BenchContext, main: Target): Promise<void> {
  const { config, report } = ctx;
  const base = main.instance.base;
  const issuer = `${base}/oidc/${main.tenant.slug}/admin`;
  const reg = await json(
    await fetch(`${issuer}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${main.tenant.adminToken}` },
      body: JSON.stringify({ client_name: 'bench', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code', 'client_credentials'], response_types: ['code'] }),
    }),
    'registration',
  );
  const client = { id: String(reg.client_id), secret: String(reg.client_secret) };
  const auth = basic(client.id, client.secret);
  const token = String((await json(await fetch(`${issuer}/token`, { method: 'POST', headers: { 'content-type': FORM, authorization: auth }, body: 'grant_type=client_credentials' }), 'token')).access_token);
  const check = await json(await fetch(`${issuer}/token/introspection`, { method: 'POST', headers: { 'content-type': FORM, authorization: auth }, body: `token=${token}` }), 'introspection');
  if (check.active !== true) throw new Error(`introspection answered ${JSON.stringify(check)}`);

  log('oidc: client credentials (service)');
  const issuance = await formLoad(ctx, `${issuer}/token`, auth, 'grant_type=client_credentials');
  log('oidc: introspection (service)');
  const introspection = await formLoad(ctx, `${issuer}/token/introspection`, auth, `token=${encodeURIComponent(token)}`);

  log('oidc: in-memory oidc-provider');
  const op = await startOidcProvider(ctx.runDir, config.root);
  let baseIssuance: LoadFigures;
  let baseIntrospection: LoadFigures;
  try {
    baseIssuance = await formLoad(ctx, `${op.url}/token`, oidcBasicAuth(), 'grant_type=client_credentials');
    baseIntrospection = await formLoad(ctx, `${op.url}/token/introspection`, oidcBasicAuth(), `token=${encodeURIComponent(await oidcToken(op.url))}`);
  } finally {
    await op.stop();
  }

  log('oidc: authorization code round trips');
  const browsers = Math.max(2, Math.floor(config.connections / 10));
  const durations: number[] = [];
  let errors = 0;
  const until = performance.now() + config.seconds * 1000;
  await Promise.all(
    Array.from({ length: browsers }, async () => {
      while (performance.now() < until) {
        try {
          durations.push(await roundTrip(issuer, client, main.member.token));
        } catch (err) {
          if (errors++ === 0) log(`oidc: round trip failed: ${(err as Error).message}`);
        }
      }
    }),
  );
  const perSecond = durations.length / config.seconds;

  report.set('oidc', { issuance, introspection, baseline: { issuance: baseIssuance, introspection: baseIntrospection }, roundTrips: { browsers, perSecond, p50: percentile(durations, 50), p99: percentile(durations, 99), errors } });
  const row = (name: string, f: LoadFigures, b: LoadFigures) =>
    report.row({ metric: `OpenID Provider ${name} (${config.connections} conn)`, value: `${fmt(f.rps)} req/s, p99 ${f.p99} ms, errors ${f.errors}`, baseline: `in-memory oidc-provider ${fmt(b.rps)} req/s`, ratio: times(f.rps, b.rps), goal: '', pass: f.errors === 0 ? null : false });
  row('client credentials tokens', issuance, baseIssuance);
  row('RFC 7662 introspection', introspection, baseIntrospection);
  report.row({ metric: `OpenID Provider authorization code round trips (${browsers} browsers)`, value: `${fmt(perSecond)}/s, p50 ${fmt(percentile(durations, 50))} ms, p99 ${fmt(percentile(durations, 99))} ms, errors ${errors}`, baseline: '', ratio: '', goal: '0 errors', pass: errors === 0 });
  if (issuance.errors || introspection.errors || errors) report.fail(`oidc: failed requests (tokens ${issuance.errors}, introspection ${introspection.errors}, round trips ${errors})`);
  log(`oidc: tokens ${fmt(issuance.rps)}/s (baseline ${fmt(baseIssuance.rps)}, ${ratioOf(issuance.rps, baseIssuance.rps)?.toFixed(2)}×), introspection ${fmt(introspection.rps)}/s (baseline ${fmt(baseIntrospection.rps)}), round trips ${fmt(perSecond)}/s`);
}
