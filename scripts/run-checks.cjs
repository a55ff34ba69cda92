#!/usr/bin/env node
/**
 * Runs the npm scripts named on the command line side by side, one per core, and fails when
 * any of them fails. `npm test` runs its checks this way (the build, the type checks and the
 * lints do not depend on each other): one after the other they left a core idle for minutes.
 * Each script's output is printed whole when it ends, so two never interleave.
 *
 *   node scripts/run-checks.cjs build typecheck lint
 */
const { spawn } = require('node:child_process');
const { availableParallelism } = require('node:os');

const queue = process.argv.slice(2);
const failed = [];

function run(script) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('close', (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const text = Buffer.concat(output).toString().trimEnd();
      process.stdout.write(`\n> ${script}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds} s\n${text ? `${text}\n` : ''}`);
      if (code !== 0) failed.push(script);
      resolve();
    });
  });
}

async function worker() {
  for (let script = queue.shift(); script !== undefined; script = queue.shift()) await run(script);
}

Promise.all(Array.from({ length: Math.max(1, Math.min(availableParallelism(), queue.length)) }, worker)).then(() => {
  if (failed.length > 0) {
    process.stderr.write(`\nFailed: ${failed.join(', ')}\n`);
    process.exit(1);
  }
});
