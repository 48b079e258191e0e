/** One measured pass, in its own process so that its peak RSS is its own (see bench-dry-run.ts). */
import { PassThrough } from 'node:stream';
import { tuneV8Memory } from '../src/cli/v8-memory.js';
import { main } from '../src/cli/main.js';
import { bareParse } from './_bare-parse.js';

// As the CLI's entry point (src/cli/bin.ts) does before running a command.
tuneV8Memory();

const [mode, csv, map] = process.argv.slice(2) as [string, string, string];
const started = performance.now();
let rows: number;
if (mode === 'bare') {
  rows = await bareParse(csv);
} else {
  const sink = new PassThrough();
  sink.resume();
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (c: Buffer) => (text += c.toString()));
  const code = await main(['validate', map, '--input', csv, '--report', 'bench-data/report.csv', '--json'], {
    stdout: sink,
    stderr,
    env: {},
    cwd: process.cwd(),
    signal: new AbortController().signal,
  });
  if (code > 1) throw new Error(`validate exited ${code}: ${text}`);
  const m = /: ([\d,]+) rows in/.exec(text);
  rows = Number(m?.[1]?.replaceAll(',', '') ?? 0);
}
const ms = performance.now() - started;
const usage = process.resourceUsage();
console.log(
  JSON.stringify({ rows, ms, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000, maxRssMb: usage.maxRSS / 1024 }),
);
