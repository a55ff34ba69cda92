#!/usr/bin/env node
/**
 * `npm run lint:deps`: checks the layer and cycle rules of .dependency-cruiser.cjs and
 * fails on every violation that .dependency-cruiser-known-violations.json does not list.
 *
 * dependency-cruiser's own `--ignore-known` leaves folder-level rules (no-folder-cycles)
 * out of the baseline comparison, so this applies the baseline to every rule instead.
 *
 * `--baseline` rewrites the known-violations file from the current code instead (after
 * removing some violations, so the file keeps only what is left).
 */
const { execFileSync } = require('node:child_process');
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const CONFIG = '.dependency-cruiser.cjs';
const BASELINE = '.dependency-cruiser-known-violations.json';
const CRUISED = ['src', 'test', 'bench', 'migrations', 'ormconfig.ts', 'console/src'];
const DEPCRUISE = join(ROOT, 'node_modules', '.bin', 'depcruise');

function depcruise(outputType) {
  return execFileSync(DEPCRUISE, [...CRUISED, '--config', CONFIG, '--output-type', outputType], { cwd: ROOT, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

const cycleOf = (violation) => (violation.cycle ?? []).map((step) => step.name).join(' → ');
/**
 * A violation's identity: its rule and the dependency it is about. A cycle is known by that
 * dependency only, not by the path the cruiser reports through it (which shifts whenever
 * some other edge of the graph changes); a new cycle always adds a dependency of its own.
 */
const keyOf = (violation) => [violation.type, violation.rule.name, violation.from, violation.to].join('|');

if (process.argv.includes('--baseline')) {
  writeFileSync(join(ROOT, BASELINE), depcruise('baseline'));
  process.stdout.write(`${BASELINE} rewritten.\n`);
  process.exit(0);
}

const known = new Set(JSON.parse(readFileSync(join(ROOT, BASELINE), 'utf8')).map(keyOf));
const result = JSON.parse(depcruise('json'));
const fresh = result.summary.violations.filter((v) => (v.rule.severity === 'error' || v.rule.severity === 'warn') && !known.has(keyOf(v)));
const stale = known.size - new Set(result.summary.violations.map(keyOf).filter((k) => known.has(k))).size;

for (const v of fresh) {
  const path = v.type === 'cycle' ? `\n    ${v.from} → ${cycleOf(v)}` : '';
  process.stdout.write(`  ${v.rule.severity} ${v.rule.name}: ${v.from} → ${v.to}${path}\n`);
}
process.stdout.write(
  `${fresh.length} new dependency violation(s); ${known.size - stale} known one(s) tracked in ${BASELINE}` +
    (stale > 0 ? `, ${stale} of its entries no longer occur (npm run lint:deps:baseline drops them)` : '') +
    `. ${result.summary.totalCruised} modules, ${result.summary.totalDependenciesCruised} dependencies cruised.\n`,
);
process.exit(fresh.some((v) => v.rule.severity === 'error') ? 1 : 0);
