/**
 * `npm run test:crash`: the crash-safety check (a row the API may have applied is never resent
 * silently; a row it did not apply is never called ok), 20 rounds of kill -9 and resume on an events import of 2,000
 * rows against the sandbox with 100 ms latency, then 5 rounds on a deals update_or_create job.
 * `--rounds N`, `--rows N`, `--seed S` change the defaults; a round's seed reproduces it.
 */
import { crashRound, type RoundResult } from './crash-harness.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const rounds = arg('rounds', 20);
const rows = arg('rows', 2000);
const seed = arg('seed', 1);
const concurrency = 8;

const results: RoundResult[] = [];
for (const [kind, n] of [
  ['events', rounds],
  ['deals', Math.max(1, Math.round(rounds / 4))],
] as const) {
  for (let r = 0; r < n; r++) {
    const result = await crashRound({ kind, seed: seed + r, rows, latencyMs: 100, concurrency });
    results.push(result);
    console.log(
      `${kind} round ${r + 1}/${n} (seed ${result.seed}): killed after ${result.killedAfter} requests, ${result.resumes} resume(s); ` +
        `duplicates ${result.duplicates}, lost ${result.lost}, unknown ${result.unknown}${kind === 'deals' ? `, state mismatches ${result.stateMismatches}` : ''}; ` +
        Object.entries(result.statuses)
          .map(([s, c]) => `${s} ${c}`)
          .join(', '),
    );
  }
}
const sum = (f: (r: RoundResult) => number) => results.reduce((n, r) => n + f(r), 0);
const bad = results.filter(
  (r) =>
    r.duplicates > 0 ||
    r.lost > 0 ||
    r.unknown > concurrency ||
    r.stateMismatches > 0 ||
    (r.kind === 'deals' && r.unknown > 0),
);
console.log(
  `\n${results.length} rounds, ${results.length} kills: duplicates ${sum((r) => r.duplicates)}, rows lost ${sum((r) => r.lost)}, ` +
    `unknown ${sum((r) => r.unknown)} (max ${Math.max(...results.map((r) => r.unknown))} per round, concurrency ${concurrency}), deal state mismatches ${sum((r) => r.stateMismatches)}`,
);
if (bad.length > 0) {
  console.log(`FAILED rounds (seeds): ${bad.map((r) => `${r.kind}:${r.seed}`).join(', ')}`);
  process.exitCode = 1;
}
