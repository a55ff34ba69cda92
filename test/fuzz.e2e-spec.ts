/**
 * Fuzzing every documented operation end to end: for each operation of the served
 * OpenAPI document (GET /api/docs-json), fast-check generates requests with
 * malformed path ids, query values, bodies, content types, credentials and request
 * ids (test/support/fuzz.ts), and the real app on a real PostgreSQL must
 *
 *  - never answer 5xx (503, the documented "unavailable", excepted),
 *  - answer every non-2xx with the error body {code, message, details},
 *  - stay live and ready (GET /healthz, GET /readyz) afterwards.
 *
 * Valid credentials are in play (platform admin, tenant admin, member, API token),
 * so writes only ever target fixtures nobody signs in as (a victim user, token and
 * OTP registration, which are re-created when a case destroys them) and sector
 * settings changed by a case are put back: each case starts from the same state.
 *
 * Run length: FUZZ_RUNS (total cases, default 3000, spread over the operations);
 * FUZZ_SEED (default fixed); FUZZ_OP (only the operation with this key, e.g.
 * "POST /api/v1/signup", or those whose key contains it); FUZZ_PATH (a fast-check replay path, with FUZZ_SEED and
 * FUZZ_OP); FUZZ_LOG (a file every request and response is appended to). A
 * failure names the seed, the path and the exact request to replay.
 */
import { Logger } from '@nestjs/common';
import fc from 'fast-check';
import { appendFileSync } from 'node:fs';
import { claimsOf } from './support/contract';
import { createSector, createUser, provisionTenant, ProvisionedTenant } from './support/factories';
import {
  authHeader,
  bodyWire,
  Credential,
  describeBody,
  OpenApiDoc,
  Operation,
  operationsOf,
  RefName,
  requestSpec,
  RequestSpec,
  requestUrl,
  Resolver,
  RoutedTenant,
} from './support/fuzz';
import { ADMIN_EMAIL, ADMIN_PASSWORD, NO_THROTTLE, startTestApp, TestApp } from './support/test-app';

const RUNS = Number(process.env.FUZZ_RUNS ?? 3000);
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : 0x1a3f_2024;
const ONLY = process.env.FUZZ_OP;
const REPLAY_PATH = process.env.FUZZ_PATH;
/** FUZZ_LOG: a file to append every request and its response to (to see what the generator sends). */
const LOG_FILE = process.env.FUZZ_LOG;
/** A time budget for all operations together (ms), shared equally: a safety net for the default run; FUZZ_TIME_MS overrides, 0 disables. */
const TIME_BUDGET_MS = Number(process.env.FUZZ_TIME_MS ?? (process.env.FUZZ_RUNS ? 0 : 45_000));

// The default run takes about 10 s of requests (bounded by TIME_BUDGET_MS); long runs get the time they need.
jest.setTimeout(Math.max(120_000, RUNS * 40));

const PASSWORD = 'fuzz-fixture-password';

type Wire = { status: number; text: string; headers: Record<string, string> };

/** A stable 32-bit hash of an operation key, so that each operation has its own seed whatever the filter. */
function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h | 0;
}

describe('fuzz: no input makes the service fail', () => {
  let t: TestApp;
  let a: ProvisionedTenant;
  let b: ProvisionedTenant;
  let ops: Operation[];
  const refs = {} as Record<RefName, string>;
  const credentials = {} as Record<Credential, string>;
  /** The sector settings as they were before fuzzing (put back after a case changes them). */
  const settings = new Map<string, Record<string, unknown>>();
  let unknownTenant: string;
  /** Error and warning log lines (the app logs every 500 with its request id). */
  const logged: string[] = [];
  const stats = { cases: 0, healed: 0, byStatus: new Map<number, number>(), started: 0 };

  const resolver: Resolver = {
    ref: (name) => refs[name],
    tenantId: (tenant: RoutedTenant) => (tenant === 'ownTenant' ? a.tenantID : tenant === 'otherTenant' ? b.tenantID : unknownTenant),
  };

  const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

  async function mint(adminToken: string, sectorID: string, name: string): Promise<{ token: string; id: string }> {
    const res = await t.http().post(`/api/v1/sectors/${sectorID}/tokens`).set(auth(adminToken)).send({ name });
    if (res.status !== 200) throw new Error(`minting ${name} failed: ${res.status} ${res.text}`);
    return { token: res.body.token, id: res.body.apiToken.id };
  }

  async function makeVictimUser(): Promise<void> {
    refs.victimUser = await createUser(t, a.adminToken, refs.ownSector, { email: `victim-${Date.now()}-${Math.random().toString(36).slice(2)}@fuzz.test`, password: PASSWORD });
  }

  async function makeVictimRegistration(): Promise<void> {
    const res = await t.http().post(`/api/v1/users/${refs.victimUser}/otp-registrations`).set(auth(a.adminToken)).send({ type: 'totp' });
    if (res.status !== 200) throw new Error(`victim registration failed: ${res.status} ${res.text}`);
    refs.victimRegistration = res.body.registrationID;
  }

  /**
   * Puts the fixtures back after a case that changed something (a 2xx write): the
   * victims exist, the credentials work, the sector settings are as they were.
   */
  async function heal(op: Operation): Promise<void> {
    stats.healed++;
    // A logout ends the session of the credential that sent it: sign the user credentials in again.
    if (op.path === '/api/v1/logout') {
      a.adminToken = credentials.admin = await t.login(a.adminEmail, a.adminPassword, a.rootSectorID);
      credentials.member = await t.login(refs.knownUsername, PASSWORD, refs.ownSector);
      credentials.platform = await t.login(ADMIN_EMAIL, ADMIN_PASSWORD);
    }
    const victim = await t.http().get(`/api/v1/users/${refs.victimUser}`).set(auth(a.adminToken));
    if (victim.status !== 200 || victim.body.sectorID !== refs.ownSector) {
      if (victim.status === 200) await t.http().delete(`/api/v1/users/${refs.victimUser}`).set(auth(a.adminToken));
      await makeVictimUser();
      await makeVictimRegistration();
    } else {
      const regs = await t.http().get(`/api/v1/users/${refs.victimUser}/otp-registrations`).set(auth(a.adminToken));
      if (!(regs.body.registrations ?? []).some((r: { registrationID: string }) => r.registrationID === refs.victimRegistration)) await makeVictimRegistration();
    }
    const tokens = await t.http().get(`/api/v1/sectors/${refs.ownSector}/tokens`).set(auth(a.adminToken));
    if (!(tokens.body.apiTokens ?? []).some((x: { id: string }) => x.id === refs.victimToken)) refs.victimToken = (await mint(a.adminToken, refs.ownSector, 'victim')).id;
    if (op.path.endsWith('/settings')) {
      for (const [sectorID, body] of settings) {
        const res = await t.http().put(`/api/v1/sectors/${sectorID}/settings`).set(auth(a.adminToken)).send(body);
        if (res.status !== 200) throw new Error(`restoring the settings of ${sectorID} failed: ${res.status} ${res.text}`);
      }
    }
    // The credentials still work (nothing in the generator targets them; this is the proof).
    for (const [who, path] of [
      ['admin', `/api/v1/users/${refs.adminUser}`],
      ['member', `/api/v1/users/${refs.memberUser}`],
      ['api', `/api/v1/sectors/${refs.ownSector}/users?pageSize=1`],
      ['platform', `/api/v1/tenants/${a.tenantID}`],
    ] as const) {
      const res = await t.http().get(path).set(auth(credentials[who]));
      if (res.status !== 200) throw new Error(`after ${op.key}: the ${who} credential stopped working (${res.status} ${res.text})`);
    }
  }

  /** A logged line as a report shows it: long ones cut, keeping the start and the logged cause. */
  function shortLine(line: string): string {
    if (line.length <= 1500) return line;
    const at = line.indexOf('internal error:');
    return at > 300 ? `${line.slice(0, 300)}…${line.slice(at, at + 1000)}…` : `${line.slice(0, 1300)}…`;
  }

  /** Sends one generated request; the raw response text is kept (no client-side parsing). */
  async function send(op: Operation, spec: RequestSpec): Promise<{ wire: Wire; describe: () => string; cause: () => string }> {
    const url = requestUrl(op, spec, resolver);
    const body = bodyWire(spec.body, op, resolver);
    const headers: Record<string, string> = { ...(body.headers ?? {}) };
    const authorization = authHeader(spec.auth, credentials, resolver);
    if (authorization !== undefined) headers.Authorization = authorization;
    if (spec.requestId !== undefined) headers['X-Request-Id'] = spec.requestId;
    if (body.contentType !== undefined) headers['Content-Type'] = body.contentType;

    let req = t.http()[op.method](url).timeout({ response: 15_000, deadline: 30_000 });
    for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
    req = req.buffer(true).parse((res, done) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => done(null, text));
    });
    if (body.text !== undefined) req = req.send(body.text);
    let wire: Wire;
    try {
      const res = await req;
      wire = { status: res.status, text: typeof res.body === 'string' ? res.body : res.text, headers: res.headers as Record<string, string> };
    } catch (err) {
      // No response at all (a reset connection, a hang past the timeout): status 0.
      wire = { status: 0, text: `${(err as Error).name}: ${(err as Error).message}`, headers: {} };
    }
    const logs = () => {
      const requestId = wire.headers['x-request-id'];
      return requestId ? logged.filter((l) => l.includes(`[${requestId}]`)) : [];
    };
    const describe = () => {
      const shownHeaders = Object.entries(headers).map(([k, v]) => `${k}: ${v.length > 200 ? `${v.slice(0, 120)}…(${v.length} chars)` : v}`);
      return [
        `${op.method.toUpperCase()} ${url.length > 600 ? `${url.slice(0, 400)}…(${url.length} chars)` : url}`,
        ...shownHeaders.map((h) => `  ${h}`),
        `  body: ${describeBody(body.text)}`,
        `→ ${wire.status} ${describeBody(wire.text)}`,
        ...logs().map((l) => `  logged: ${shortLine(l)}`),
      ].join('\n');
    };
    /** The internal error the app logged for this request ('' when none). */
    const cause = () => logs().map((l) => /internal error: ([^\n]*)/.exec(l)?.[1] ?? '').find((c) => c !== '') ?? '';
    return { wire, describe, cause };
  }

  /** The property: no 5xx but 503, and the error body on every non-2xx. */
  function check(wire: Wire): string | undefined {
    if (wire.status === 0) return `no response (${wire.text.replace(/\d+/g, 'N')})`;
    if (wire.status >= 500 && wire.status !== 503) return `status ${wire.status}`;
    if (wire.status >= 200 && wire.status < 300) return undefined;
    let body: unknown;
    try {
      body = JSON.parse(wire.text);
    } catch {
      return `a ${wire.status} whose body is not JSON`;
    }
    const e = body as Record<string, unknown>;
    if (e === null || typeof e !== 'object' || Array.isArray(e)) return `a ${wire.status} whose body is not an object`;
    const keys = Object.keys(e).sort().join(',');
    if (keys !== 'code,details,message' || typeof e.code !== 'number' || typeof e.message !== 'string' || !Array.isArray(e.details)) {
      return `a ${wire.status} without the error body {code: number, message: string, details: array}`;
    }
    return undefined;
  }

  beforeAll(async () => {
    const capture =
      (level: string) =>
      (...args: unknown[]) => {
        logged.push(`${level} ${args.map((x) => (x instanceof Error ? `${x.message}\n${x.stack}` : String(x))).join(' ')}`);
      };
    jest.spyOn(Logger.prototype, 'error').mockImplementation(capture('ERROR'));
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(capture('WARN'));

    t = await startTestApp({ env: { ...NO_THROTTLE } });
    a = await provisionTenant(t);
    b = await provisionTenant(t);
    credentials.platform = await t.platformToken();
    credentials.admin = a.adminToken;
    refs.ownTenant = a.tenantID;
    refs.otherTenant = b.tenantID;
    refs.platformTenant = claimsOf(credentials.platform).tenantID as string;
    unknownTenant = '0b5e7a1c-0000-4000-8000-00000000f00d';
    refs.rootSector = a.rootSectorID;
    refs.ownSector = await createSector(t, a.adminToken);
    refs.otherSector = await createSector(t, b.adminToken);
    refs.adminUser = claimsOf(a.adminToken).sub as string;
    refs.knownUsername = 'member@fuzz.test';
    refs.memberUser = await createUser(t, a.adminToken, refs.ownSector, { email: refs.knownUsername, password: PASSWORD });
    credentials.member = await t.login('member@fuzz.test', PASSWORD, refs.ownSector);
    credentials.api = (await mint(a.adminToken, refs.ownSector, 'fuzz credential')).token;
    await makeVictimUser();
    await makeVictimRegistration();
    refs.victimToken = (await mint(a.adminToken, refs.ownSector, 'victim')).id;
    refs.otherUser = await createUser(t, b.adminToken, refs.otherSector, { email: 'other@fuzz.test', password: PASSWORD });
    refs.otherToken = (await mint(b.adminToken, refs.otherSector, 'other')).id;
    for (const sectorID of [refs.rootSector, refs.ownSector]) {
      const res = await t.http().get(`/api/v1/sectors/${sectorID}/settings`).set(auth(a.adminToken));
      expect(res.status).toBe(200);
      const { sectorID: _omit, ...body } = res.body as Record<string, unknown>;
      settings.set(sectorID, body);
    }

    const doc = await t.http().get('/api/docs-json');
    expect(doc.status).toBe(200);
    const all = operationsOf(doc.body as OpenApiDoc);
    // FUZZ_OP: one operation by its exact key, or those whose key contains it.
    ops = all.filter((op) => !ONLY || (all.some((o) => o.key === ONLY) ? op.key === ONLY : op.key.includes(ONLY)));
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await t?.close();
  });

  it('derives the operations from the served OpenAPI document', () => {
    expect(ops.length).toBeGreaterThan(ONLY ? 0 : 20);
    for (const op of ops) for (const p of op.pathParams) expect(op.path).toContain(`{${p}}`);
  });

  /**
   * What makes a failure the same bug: the problem, and the logged internal error
   * with its ids and numbers blanked (a 500 logs its cause with the request id).
   */
  function signatureOf(problem: string, cause: string): string {
    const normalized = cause
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
      .replace(/"[^"]*"/g, '"…"')
      .replace(/\d+/g, 'N')
      .slice(0, 160);
    return normalized ? `${problem}: ${normalized}` : problem;
  }

  it('answers every generated request without a 5xx (503 excepted) and with the error body on every failure', async () => {
    const runsPerOp = Math.max(1, Math.ceil(RUNS / Math.max(1, ops.length)));
    const perOp: string[] = [];
    /** Every distinct failure: where first seen (operation, seed, case index), how often, and a shrunk example. */
    const failures = new Map<string, { op: Operation; seed: number; path: string; count: number; ops: Set<string>; example: string }>();
    const timePerOp = TIME_BUDGET_MS > 0 ? Math.floor(TIME_BUDGET_MS / Math.max(1, ops.length)) : 0;
    stats.started = Date.now();

    /**
     * The property for one operation. Failures are recorded, not thrown, so one bug
     * does not hide the others behind it; each distinct one is shrunk afterwards.
     */
    const propertyFor = (op: Operation, onFailure: (signature: string, described: string) => boolean, onCase = (_status: number) => {}) => {
      return fc.asyncProperty(requestSpec(op), async (spec) => {
        stats.cases++;
        const { wire, describe, cause } = await send(op, spec);
        onCase(wire.status);
        if (LOG_FILE) appendFileSync(LOG_FILE, `${describe()}\n\n`);
        stats.byStatus.set(wire.status, (stats.byStatus.get(wire.status) ?? 0) + 1);
        const problem = check(wire);
        if (problem) {
          const described = describe();
          if (onFailure(signatureOf(problem, cause()), `${problem}\n${described}`)) throw new Error(`${problem}\n${described}`);
          return;
        }
        if (wire.status < 300 && op.method !== 'get') await heal(op);
      });
    };

    for (const op of ops) {
      const seed = (SEED + hash(op.key)) | 0;
      let index = -1;
      const started = Date.now();
      const casesBefore = stats.cases;
      const byStatus = new Map<number, number>();
      const property = propertyFor(op, (signature, described) => {
        const known = failures.get(signature);
        if (known) {
          known.count++;
          known.ops.add(op.key);
        } else {
          // The fast-check path of this case: its index in the run (or the replayed path).
          failures.set(signature, { op, seed, path: REPLAY_PATH ?? String(index), count: 1, ops: new Set([op.key]), example: described });
        }
        return false;
      }, (status) => {
        index++;
        byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
      });
      const first = await fc.check(property, {
        seed,
        numRuns: REPLAY_PATH ? 1 : runsPerOp,
        ...(REPLAY_PATH ? { path: REPLAY_PATH } : {}),
        plugins: timePerOp > 0 ? [fc.interruptAfterTimeLimit(timePerOp)] : [],
      });
      // On a loaded machine the first case can outlast the operation's share of the time budget
      // (fast-check then reports a failure without an error): that one case runs again, unbounded.
      const outlasted = first.interrupted && first.numRuns === 0 && first.errorInstance === null;
      if (outlasted) index = -1;
      const details = outlasted ? await fc.check(property, { seed, numRuns: 1 }) : first;
      if (details.failed) throw details.errorInstance; // the property only throws on a broken fixture or client error
      const statuses = [...byStatus].sort(([x], [y]) => x - y).map(([st, n]) => `${st}×${n}`).join(' ');
      perOp.push(`${op.key}: ${stats.cases - casesBefore} cases${details.interrupted ? ' (stopped by the time budget)' : ''} in ${Date.now() - started} ms: ${statuses}`);
    }

    // Shrink one example of each distinct failure (fast-check replays its case and shrinks it).
    for (const [signature, f] of failures) {
      const shrunk = await fc.check(
        propertyFor(f.op, (s) => s === signature),
        { seed: f.seed, path: f.path, numRuns: 1, plugins: [fc.interruptAfterTimeLimit(10_000)] },
      );
      if (shrunk.failed && shrunk.errorInstance instanceof Error) {
        f.example = `${shrunk.errorInstance.message}\n(shrunk ${shrunk.numShrinks} times; replay the shrunk case: FUZZ_SEED=${SEED} FUZZ_OP='${f.op.key}' FUZZ_PATH='${shrunk.counterexamplePath}')`;
      }
    }

    const histogram = [...stats.byStatus].sort(([x], [y]) => x - y).map(([st, n]) => `${st}×${n}`).join(' ');
    // eslint-disable-next-line no-console -- the run's seed and figures, to replay or compare a run
    console.log(
      `fuzz: seed ${SEED}, ${stats.cases} requests over ${ops.length} operations in ${Date.now() - stats.started} ms (${stats.healed} fixture checks after 2xx writes); statuses ${histogram}\n${perOp.join('\n')}`,
    );
    const report = [...failures].map(
      ([signature, f], i) =>
        `#${i + 1} ${signature}\n` +
        `   ${f.count} failing case(s) in ${[...f.ops].join(', ')}\n` +
        `   first: ${f.op.key} case ${f.path} (operation seed ${f.seed}); replay: FUZZ_SEED=${SEED} FUZZ_OP='${f.op.key}' FUZZ_PATH='${f.path}'\n` +
        `   minimal failing request:\n${f.example.replace(/^/gm, '     ')}`,
    );
    if (report.length > 0) throw new Error(`${report.length} distinct failure(s) of the fuzz property (seed ${SEED}, ${stats.cases} cases):\n\n${report.join('\n\n')}`);
  });

  it('is still live and ready afterwards', async () => {
    const live = await t.http().get('/healthz');
    expect({ status: live.status, body: live.body }).toEqual({ status: 200, body: { status: 'ok' } });
    const ready = await t.http().get('/readyz');
    expect({ status: ready.status, body: ready.body }).toEqual({ status: 200, body: { status: 'ok' } });
    // And still serves a plain request.
    expect((await t.http().get(`/api/v1/users/${refs.adminUser}`).set(auth(credentials.admin))).status).toBe(200);
  });
});
