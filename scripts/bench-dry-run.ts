/**
 * `npm run bench:dry-run`: generates an events CSV of 1,000,000 rows (then 2,000,000),
 * runs `validate` on it and, in the same run, a bare csv-parse pass over the same file, each in its
 * own process so that peak RSS is its own, three times each, alternated; prints the median rows/s
 * of both, their ratio and the highest peak RSS.
 * Targets: dry run ≥ 0.5 × the bare parse; peak RSS < 200 MB at both sizes.
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';

const DIR = 'bench-data';
const PLANS = ['free', 'pro', 'team', 'enterprise'];

async function generate(rows: number): Promise<string> {
  const path = `${DIR}/events-${rows}.csv`;
  if (existsSync(path)) return path;
  const out = createWriteStream(path);
  out.write('event_id,customer,event,occurred_at,plan,amount\n');
  const start = Date.UTC(2026, 0, 1);
  for (let i = 0; i < rows; i++) {
    // One row in 50 is bad on purpose (empty event name), so the invalid path is measured too.
    const name = i % 50 === 49 ? '' : i % 3 === 0 ? 'Signed Up' : 'Order Placed';
    const at = new Date(start + i * 7_000).toISOString();
    const line = `E-${i},C-${i % 5000},${name},${at},${PLANS[i % 4]},${(i % 997) + 0.5}\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await finished(out);
  return path;
}

function mapping(): string {
  const path = `${DIR}/events-bench.yaml`;
  writeFileSync(
    path,
    [
      'resource: event',
      'source: { file: events-1000000.csv }',
      'key: event_id',
      'fields:',
      '  user_custom_id: { column: customer, required: true }',
      '  name: event',
      '  timestamp: { column: occurred_at, type: unix }',
      '  data.plan: plan',
      '  data.amount: { column: amount, type: number }',
      '',
    ].join('\n'),
  );
  return path;
}

interface Measure {
  rows: number;
  ms: number;
  cpuMs: number;
  maxRssMb: number;
}

// Measured as users run it: the built CLI under plain node (tsx's loader alone adds ~80 MB RSS).
function run(mode: 'bare' | 'validate', csv: string, map: string): Measure {
  const out = execFileSync(process.execPath, ['dist/scripts/_bench-dry-run-worker.js', mode, csv, map], {
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').pop()!) as Measure;
}

execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], { stdio: 'inherit' });

mkdirSync(DIR, { recursive: true });
const map = mapping();
/** The run with the median wall time: one slow run on a shared machine says nothing about the tool. */
function median(runs: Measure[]): Measure {
  return [...runs].sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)]!;
}

const ROUNDS = 3;
for (const rows of [1_000_000, 2_000_000]) {
  const csv = await generate(rows);
  const mb = (statSync(csv).size / 1e6).toFixed(0);
  // Alternated, so that a noisy moment of the machine hits both sides alike.
  const bares: Measure[] = [];
  const drys: Measure[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    bares.push(run('bare', csv, map));
    drys.push(run('validate', csv, map));
  }
  const bare = median(bares);
  const dry = median(drys);
  const rate = (m: Measure) => Math.round(m.rows / (m.ms / 1000));
  const cpuRate = (m: Measure) => Math.round(m.rows / (m.cpuMs / 1000));
  const f = (n: number) => n.toLocaleString('en-US');
  const peak = (runs: Measure[]) => Math.max(...runs.map((m) => m.maxRssMb)).toFixed(0);
  const spread = (runs: Measure[]) => runs.map((m) => f(rate(m))).join(' / ');
  console.log(`${f(rows)} rows (${mb} MB), median of ${ROUNDS} runs each:`);
  console.log(
    `  bare csv-parse : ${f(rate(bare))} rows/s (${f(cpuRate(bare))} per CPU second), peak RSS ${peak(bares)} MB; runs ${spread(bares)}`,
  );
  console.log(
    `  validate       : ${f(rate(dry))} rows/s (${f(cpuRate(dry))} per CPU second), peak RSS ${peak(drys)} MB (report written); runs ${spread(drys)}`,
  );
  // CPU time is the steadier figure on a shared machine; wall time is what a user waits.
  console.log(
    `  ratio          : ${(rate(dry) / rate(bare)).toFixed(2)} wall, ${(cpuRate(dry) / cpuRate(bare)).toFixed(2)} CPU, of the bare parse (target ≥ 0.50); RSS target < 200 MB`,
  );
}
