import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  samples: number[];
  timeDeltas: number[];
}

/** The `--cpu-prof` arguments that make a service write its profile under `dir` when it exits (BENCH_PROFILE). */
export function profileArgs(dir: string | undefined): string[] {
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
}

/** Where a sample's time went: a package of node_modules, the service's own code, Node's internals, or the VM (GC, idle). */
function placeOf(url: string, fn: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.includes('/src/')) return 'the service (src/)';
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  return fn || '(native)';
}

/**
 * Where the CPU time of the profiles in `dir` went, by place (self time), largest
 * first: the text the run prints. The `.cpuprofile` files themselves open as flame
 * graphs in Chrome DevTools (Performance) or speedscope.
 */
export function summarizeProfiles(dir: string, top = 15): string {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(dir, f));
  if (files.length === 0) return `  no profiles in ${dir}`;
  // The largest profile is the instance's main thread (bcrypt workers write small ones).
  const file = files.sort((a, b) => statSync(b).size - statSync(a).size)[0];
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const time = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const delta = profile.timeDeltas[i] ?? 0;
    if (!node) return;
    const place = placeOf(node.callFrame.url, node.callFrame.functionName);
    // Waiting is not work: the shares are of the time the process was busy.
    if (place === '(idle)') return;
    time.set(place, (time.get(place) ?? 0) + delta);
    total += delta;
  });
  const rows = [...time.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [`  ${file} (shares of the busy time)`, ...rows.map(([place, t]) => `  ${((100 * t) / total).toFixed(1).padStart(5)} %  ${place}`)].join('\n');
}
