/* eslint-disable no-console -- a benchmark prints its figures */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** One line of the closing table: a figure, what it is compared with, and its goal. */
export interface Row {
  metric: string;
  value: string;
  baseline: string;
  ratio: string;
  goal: string;
  /** null: no goal, or the goal cannot be judged in this run (e.g. no BENCH_BEFORE). */
  pass: boolean | null;
}

/** Every figure of the run (written as JSON) and the rows of the closing table. */
export class Report {
  readonly rows: Row[] = [];
  readonly figures: Record<string, unknown> = {};
  readonly failures: string[] = [];

  row(row: Row): void {
    this.rows.push(row);
  }

  set(key: string, value: unknown): void {
    this.figures[key] = value;
  }

  fail(message: string): void {
    this.failures.push(message);
  }

  table(): string {
    const head: Row = { metric: 'metric', value: 'value', baseline: 'baseline', ratio: 'ratio', goal: 'goal', pass: null };
    const cells = (r: Row, isHead = false) => [r.metric, r.value, r.baseline, r.ratio, r.goal, isHead ? 'result' : r.pass === null ? '—' : r.pass ? 'pass' : 'FAIL'];
    const all = [cells(head, true), ...this.rows.map((r) => cells(r))];
    const widths = all[0].map((_, i) => Math.max(...all.map((c) => c[i].length)));
    const line = (c: string[]) => c.map((v, i) => v.padEnd(widths[i])).join('  ').trimEnd();
    return [line(all[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...all.slice(1).map(line)].join('\n');
  }

  write(path: string, meta: Record<string, unknown>): void {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify({ ...meta, figures: this.figures, table: this.rows, failures: this.failures }, null, 2) + '\n');
  }
}

export const fmt = (n: number | null | undefined, digits = 0): string =>
  n === null || n === undefined || !Number.isFinite(n) ? 'n/a' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** `a / b` as "1.23×", or n/a. */
export const times = (a: number | null | undefined, b: number | null | undefined): string =>
  a === null || a === undefined || b === null || b === undefined || !b || !Number.isFinite(a) ? 'n/a' : `${fmt(a / b, 2)}×`;

export const ratioOf = (a: number | null | undefined, b: number | null | undefined): number | null =>
  a === null || a === undefined || b === null || b === undefined || !b ? null : a / b;

export function log(message: string): void {
  console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);
}
