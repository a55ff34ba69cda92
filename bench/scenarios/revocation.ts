import { BenchContext, introspectionRequest, Target } from '../lib/context';
import { apiToken, userWithToken } from '../lib/fixture';
import { call, Json, ok } from '../lib/http';
import { figures, percentile, round, sleep, startLoad } from '../lib/load';
import { fmt, log } from '../lib/report';
import { ServiceInstance } from '../lib/service';

const GIVE_UP_MS = 5000;
const POLL_GAP_MS = 2;

/** One kind of change: prepare a credential, the probe on B that it answers, the change on A, and B's refusal. */
export interface Kind {
  name: string;
  refused: number;
  /** When the change shows in an answer of 200 rather than in a refusal: whether this answer shows it. */
  shows?: (body: Json) => boolean;
  prepare(): Promise<{ probe: (base: string) => Promise<{ status: number; body: Json }>; change: () => Promise<unknown> }>;
}

export interface Sample {
  /** From A's answer to the change until B's first refusal (ms); null when B never refused within 5 s. */
  afterAnswerMs: number | null;
  /** From the moment the change was sent. */
  afterRequestMs: number | null;
  polls: number;
  /** When B never refused: whether A itself refused the credential by then (false: the change did not take at all). */
  refusedOnA?: boolean;
}

/** The figures of a series of samples: delay p50 and max, how many never refused, how many refused at B's first request. */
export interface SampleSummary {
  p50Ms: number | null;
  maxMs: number | null;
  never: number;
  refusedAtFirstRequest: number;
}

export function summarize(samples: Sample[]): SampleSummary {
  const delays = samples.map((s) => s.afterAnswerMs).filter((d): d is number => d !== null);
  return {
    p50Ms: delays.length ? percentile(delays, 50) : null,
    maxMs: delays.length ? Math.max(...delays) : null,
    never: samples.length - delays.length,
    refusedAtFirstRequest: samples.filter((s) => s.afterAnswerMs !== null && s.polls === 1).length,
  };
}

/** A summary as a report row's value. */
export function describe(s: SampleSummary, n: number): string {
  return `p50 ${fmt(s.p50Ms, 1)} ms, max ${fmt(s.maxMs, 1)} ms, refused at B's first request ${s.refusedAtFirstRequest} of ${n}${s.never ? `, ${s.never}× never` : ''}`;
}

export async function measure(kind: Kind, b: string, a: string): Promise<Sample> {
  const { probe, change } = await kind.prepare();
  // B must accept the credential first (and has it in whatever cache it keeps).
  for (let i = 0; i < 3; i++) {
    const { status, body } = await probe(b);
    if (status !== 200) throw new Error(`${kind.name}: B answered ${status} before the change: ${JSON.stringify(body)}`);
  }
  const sent = performance.now();
  await change();
  const answered = performance.now();
  let polls = 0;
  while (performance.now() - answered < GIVE_UP_MS) {
    polls++;
    const { status, body } = await probe(b);
    if (kind.shows ? status === 200 && kind.shows(body) : status === kind.refused) {
      const at = performance.now();
      return { afterAnswerMs: round(at - answered, 1), afterRequestMs: round(at - sent, 1), polls };
    }
    if (status !== 200) throw new Error(`${kind.name}: B answered ${status}, expected 200 or ${kind.refused}: ${JSON.stringify(body)}`);
    await sleep(POLL_GAP_MS);
  }
  const onA = await probe(a);
  return { afterAnswerMs: null, afterRequestMs: null, polls, refusedOnA: kind.shows ? onA.status === 200 && kind.shows(onA.body) : onA.status === kind.refused };
}

/**
 * Scenario 5: a change made on instance A, instance B polled (a request every few
 * ms) with the affected credential until it refuses it, while B serves
 * introspection load. Repeated BENCH_REVOCATION_REPS times (10) per kind.
 */
export async function revocationScenario(ctx: BenchContext, main: Target, b: ServiceInstance): Promise<void> {
  const { report } = ctx;
  const reps = Number(process.env.BENCH_REVOCATION_REPS ?? 10);
  const A = main.instance.base;
  const B = b.base;
  const t = main.tenant;
  const kinds: Kind[] = [
    {
      name: "deleted user's token (introspection on B)",
      refused: 401,
      prepare: async () => {
        const u = await userWithToken(A, t);
        return {
          probe: (base) => call('POST', `${base}/api/v1/introspect`, { token: u.token }, t.adminToken),
          change: () => ok('DELETE', `${A}/api/v1/users/${u.sub}`, undefined, t.adminToken),
        };
      },
    },
    {
      name: 'demoted admin (GET /api/v1/sectors on B → 403)',
      refused: 403,
      prepare: async () => {
        const u = await userWithToken(A, t, true);
        return {
          probe: (base) => call('GET', `${base}/api/v1/sectors`, undefined, u.token),
          change: () => ok('PUT', `${A}/api/v1/users/${u.sub}`, { isAdmin: false, setAdminExplicitly: true }, t.adminToken),
        };
      },
    },
    {
      name: 'role taken away (introspection on B no longer lists it)',
      refused: 200,
      shows: (body) => Array.isArray(body.roles) && !body.roles.includes('bench-propagation'),
      prepare: async () => {
        await ok('PUT', `${A}/api/v1/sectors/${t.sectorID}/roles/bench-propagation`, { permissions: ['bench:propagate'] }, t.adminToken);
        const u = await userWithToken(A, t);
        await ok('PUT', `${A}/api/v1/users/${u.sub}/roles`, { roles: ['bench-propagation'] }, t.adminToken);
        return {
          probe: (base) => call('POST', `${base}/api/v1/introspect`, { token: u.token }, t.adminToken),
          change: () => ok('PUT', `${A}/api/v1/users/${u.sub}/roles`, { roles: [] }, t.adminToken),
        };
      },
    },
    {
      name: "role's permissions edited (introspection on B shows the new ones)",
      refused: 200,
      shows: (body) => Array.isArray(body.permissions) && body.permissions.includes('bench:edited'),
      prepare: async () => {
        const role = `bench-edit-${Math.random().toString(36).slice(2, 8)}`;
        await ok('PUT', `${A}/api/v1/sectors/${t.sectorID}/roles/${role}`, { permissions: ['bench:original'] }, t.adminToken);
        const u = await userWithToken(A, t);
        await ok('PUT', `${A}/api/v1/users/${u.sub}/roles`, { roles: [role] }, t.adminToken);
        return {
          probe: (base) => call('POST', `${base}/api/v1/introspect`, { token: u.token }, t.adminToken),
          change: () => ok('PUT', `${A}/api/v1/sectors/${t.sectorID}/roles/${role}`, { permissions: ['bench:edited'] }, t.adminToken),
        };
      },
    },
    {
      name: 'revoked API token (settings on B → 401)',
      refused: 401,
      prepare: async () => {
        const k = await apiToken(A, t);
        return {
          probe: (base) => call('GET', `${base}/api/v1/sectors/${t.sectorID}/settings`, undefined, k.token),
          change: () => ok('DELETE', `${A}/api/v1/sectors/${t.sectorID}/tokens/${k.id}`, undefined, t.adminToken),
        };
      },
    },
  ];

  const background = startLoad({ ...introspectionRequest(B, t.adminToken), connections: 20, duration: 3600 });
  const results: Record<string, SampleSummary & { samples: Sample[] }> = {};
  try {
    for (const kind of kinds) {
      log(`revocation: ${kind.name} ×${reps}`);
      const samples: Sample[] = [];
      for (let i = 0; i < reps; i++) samples.push(await measure(kind, B, A));
      const summary = summarize(samples);
      const { never } = summary;
      results[kind.name] = { samples, ...summary };
      report.row({
        metric: `revocation on B: ${kind.name}`,
        value: describe(summary, samples.length),
        baseline: `${reps} changes on A`,
        ratio: '',
        goal: kind.shows ? 'seen within 5 s, every time' : 'refused within 5 s, every time',
        pass: never === 0,
      });
      const notOnA = samples.filter((s) => s.afterAnswerMs === null && !s.refusedOnA).length;
      if (never) report.fail(`revocation: ${kind.name} — B still accepted the credential 5 s after the change in ${never} of ${reps} repetitions${notOnA ? ` (A too in ${notOnA}: the change did not take)` : ''}`);
      log(`revocation: ${kind.name}: p50 ${fmt(summary.p50Ms, 1)} ms, max ${fmt(summary.maxMs, 1)} ms, never ${never}`);
    }
  } finally {
    background.stop();
    const load = figures(await background.done);
    report.set('revocation', { repetitions: reps, pollGapMs: POLL_GAP_MS, giveUpMs: GIVE_UP_MS, backgroundLoadOnB: load, kinds: results });
  }
}
