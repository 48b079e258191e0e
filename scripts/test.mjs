/**
 * `npm test`: the type check and the linters run beside vitest instead of before it, so that
 * their single-threaded seconds overlap the test run on a machine with few cores. Nothing is
 * lost: every check still runs to its end and decides the exit code, and a failed check still
 * stops the run at once (vitest is stopped, the check's output is printed).
 *
 * vitest writes to the terminal as it goes; the checks' output is held back and printed after it
 * (or at once on a failure), each under its own heading, so the two never interleave.
 *
 * Plain JavaScript run by node itself: a TypeScript runner would add its own start-up to every
 * `npm test`. Arguments are passed on to vitest (`npm test -- test/cli`).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const bin = (path) => join(root, 'node_modules', path);
const checks = [
  {
    name: 'tsc --noEmit',
    command: process.execPath,
    args: [bin('typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit'],
  },
  { name: 'npm run lint', command: 'npm', args: ['run', '--silent', 'lint'] },
];

/** Runs one command from the root; resolves with its exit code (1 if it could not start or died by a signal). */
function run(command, args, stdio, onChild = () => {}, detached = false) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio, detached });
    onChild(child);
    let output = '';
    for (const stream of [child.stdout, child.stderr]) stream?.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => resolve({ code: 1, output: `${output}${error.message}\n` }));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

function print(name, { code, output }) {
  process.stdout.write(`\n── ${name}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} ──\n${output}`);
}

let vitest;
let failed = false;
/**
 * vitest runs in its own process group, and is stopped as a group: its test workers are processes
 * of their own, which outlive a vitest main process stopped alone and keep a core busy each.
 */
function stopVitest(signal) {
  try {
    if (vitest?.pid !== undefined) process.kill(-vitest.pid, signal);
  } catch {
    // Already gone.
  }
}
// Its own group does not get the terminal's Ctrl-C: pass it on (and a SIGTERM from CI).
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => stopVitest(signal));
const checked = checks.map(({ name, command, args }) =>
  run(command, args, ['ignore', 'pipe', 'pipe']).then((result) => {
    if (result.code !== 0) {
      failed = true;
      print(name, result);
      stopVitest('SIGTERM');
    }
    return { name, result };
  }),
);
const tests = await run(
  process.execPath,
  [bin('vitest/vitest.mjs'), 'run', ...process.argv.slice(2)],
  'inherit',
  (child) => {
    vitest = child;
  },
  true,
);
for (const { name, result } of await Promise.all(checked)) if (result.code === 0) print(name, result);
process.exitCode = failed || tests.code !== 0 ? 1 : 0;
