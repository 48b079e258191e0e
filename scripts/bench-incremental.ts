/**
 * `npm run bench:incremental [contacts] [events]` (default 200,000 each): a nightly job's second
 * night. The sync state holds the first night's contacts and events, seeded directly through the
 * state module (no 400,000 requests); the second night's files have 1% of contacts changed, 1%
 * new, and 2% more events (for the new contacts). Each command runs in its own process (the built
 * CLI under plain node, as users run it) against the sandbox in this process, rate limit off.
 * Prints: the sandbox's request log grouped by method and path; the per-row requests (must equal
 * the new events) and the rows the bulk uploads carried (must equal the changed + new contacts,
 * which go by bulk import in `--bulk auto`); the incremental scan's speed as a ratio to
 * `validate` without --incremental on the same files (target ≥ 0.7; also by CPU time, steadier
 * on a shared machine); peak RSS of each (target < 200 MB).
 */
import { execFile, execFileSync } from 'node:child_process';
import { createWriteStream, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { finished } from 'node:stream/promises';
import { promisify } from 'node:util';
import { loadJob } from '../src/config/load-job.js';
import { openSources } from '../src/pipeline/open-sources.js';
import { planRows } from '../src/pipeline/plan-rows.js';
import { startSandbox } from '../src/sandbox/index.js';
import type { RequestLogEntry } from '../src/sandbox/request-log.js';
import {
  createSyncKeyer,
  resourceFingerprints,
  syncStateFile,
  SyncState,
  type LedgerSyncFeed,
  type SyncDelta,
} from '../src/sync/index.js';

const CONTACTS = Number(process.argv[2] ?? 200_000);
const EVENTS = Number(process.argv[3] ?? 200_000);
const DIR = resolve('bench-data/incremental');
const STATE = join(DIR, 'state');

const contactLine = (i: number, night: 1 | 2) =>
  `C-${i},c${i}${night === 2 && i % 100 === 7 ? '.moved' : ''}@example.com,Name ${i},${i % 3 === 0 ? 'pro' : 'free'}\n`;
const eventLine = (i: number, customer: number) =>
  `E-${i},C-${customer},${i % 3 === 0 ? 'Signed Up' : 'Order Placed'},${(i % 997) + 0.5}\n`;

/** Night 1: every contact and event. Night 2: 1% of contacts changed (i % 100 === 7), 1% new, 2% new events (two per new contact). */
async function writeFiles(night: 1 | 2): Promise<{ changed: number; newContacts: number; newEvents: number }> {
  const newContacts = night === 2 ? Math.floor(CONTACTS / 100) : 0;
  const newEvents = night === 2 ? Math.floor(EVENTS / 50) : 0;
  const write = async (file: string, header: string, lines: Generator<string>) => {
    const out = createWriteStream(join(DIR, file));
    out.write(header);
    for (const l of lines) if (!out.write(l)) await once(out, 'drain');
    out.end();
    await finished(out);
  };
  let changed = 0;
  await write(
    'contacts.csv',
    'custom_id,email,name,plan\n',
    (function* () {
      for (let i = 0; i < CONTACTS + newContacts; i++) {
        if (night === 2 && i < CONTACTS && i % 100 === 7) changed++;
        yield contactLine(i, night);
      }
    })(),
  );
  await write(
    'events.csv',
    'event_id,customer,event,amount\n',
    (function* () {
      for (let i = 0; i < EVENTS; i++) yield eventLine(i, i % CONTACTS);
      for (let j = 0; j < newEvents; j++) yield eventLine(EVENTS + j, CONTACTS + (j % Math.max(1, newContacts)));
    })(),
  );
  return { changed, newContacts, newEvents };
}

function writeJob(): void {
  writeFileSync(
    join(DIR, 'contacts.yaml'),
    'resource: user\nsource: { file: contacts.csv }\nkey: custom_id\nfields: { custom_id: custom_id, email: email, first_name: name, data.plan: plan }\n',
  );
  writeFileSync(
    join(DIR, 'events.yaml'),
    'resource: event\nsource: { file: events.csv }\nkey: event_id\nfields:\n  user_custom_id: { column: customer, required: true }\n  name: event\n  data.event_id: event_id\n  data.amount: { column: amount, type: number }\n',
  );
  writeFileSync(join(DIR, 'job.yaml'), 'mappings: [contacts.yaml, events.yaml]\n');
}

/** Night 1 into the state through the state module: the key and request hash of each row, as a run's outbox would carry them. */
async function seedState(): Promise<void> {
  const job = await loadJob(join(DIR, 'job.yaml'), { cwd: DIR });
  const deltas: SyncDelta[] = [];
  const at = new Date().toISOString();
  for (const { mapping, source } of await openSources(job.mappings)) {
    const keyer = createSyncKeyer(mapping, source.header);
    for await (const row of planRows(mapping, source, { dealUpdateMethod: 'PATCH' })) {
      if (row.status === 'valid') deltas.push({ ...keyer(row), seq: deltas.length + 1, at });
    }
  }
  const feed: LedgerSyncFeed = {
    runId: 'night-1',
    finished: true,
    fingerprints: resourceFingerprints(job.mappings, { dealUpdateMethod: 'PATCH' }),
    deltasAfter: (after, limit) => deltas.slice(after, after + limit),
  };
  const state = SyncState.open(syncStateFile(STATE, job.file), job.file, { cwd: DIR, mode: 'write' })!;
  state.apply(feed);
  state.close();
}

interface Measure {
  code: number;
  ms: number;
  cpuMs: number;
  maxRssMb: number;
  stderr: string;
}

const execFileAsync = promisify(execFile);
async function measure(apiKey: string, argv: string[]): Promise<Measure> {
  // BENCH_CPU_PROF=<dir>: a V8 CPU profile of each command, to find where the time goes.
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const { stdout } = await execFileAsync(
    process.execPath,
    [...prof, 'dist/scripts/_bench-incremental-worker.js', DIR, apiKey, ...argv],
    { encoding: 'utf8', maxBuffer: 1 << 24 },
  );
  return JSON.parse(stdout.trim().split('\n').pop()!) as Measure;
}

/**
 * The sandbox's log, grouped: one line per method and path (ids in the path shown as `:id`). A bulk
 * upload is logged once as the POST and once per row it applies (`IMPORT` entries, with the row's
 * fields), so the rows uploaded are counted as the importer read them.
 */
function requestGroups(log: readonly RequestLogEntry[]) {
  const groups = new Map<string, number>();
  const bulkKeys = new Set<string>();
  let perRow = 0;
  let uploads = 0;
  let polls = 0;
  let bulkRows = 0;
  for (const r of log) {
    const path = r.path.replace(/\?.*$/, '').replace(/\/[^/]*\d[^/]*(?=\/)/g, '/:id');
    const what = `${r.method} ${path}`;
    groups.set(what, (groups.get(what) ?? 0) + 1);
    if (r.method === 'IMPORT') {
      bulkRows++;
      bulkKeys.add(String((r.body as Record<string, unknown> | null)?.custom_id));
    } else if (r.importId !== undefined) uploads++;
    else if (path.endsWith('/import/status/')) polls++;
    else perRow++;
  }
  const requests = log.length - bulkRows;
  return { groups, requests, perRow, uploads, polls, bulkRows, bulkRowKeys: bulkKeys.size };
}

execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], { stdio: 'inherit' });
rmSync(DIR, { recursive: true, force: true });
mkdirSync(DIR, { recursive: true });
writeJob();
const f = (n: number) => n.toLocaleString('en-US');
let t = performance.now();
await writeFiles(1);
await seedState();
console.log(
  `state seeded with ${f(CONTACTS)} contacts and ${f(EVENTS)} events in ${((performance.now() - t) / 1000).toFixed(1)} s`,
);
const night2 = await writeFiles(2);

const sandbox = await startSandbox({ port: 0, rate: 0 });
try {
  const common = ['--report', join(DIR, 'report.csv'), '--quiet'];
  const plain = await measure(sandbox.apiKey, ['validate', 'job.yaml', ...common]);
  const preview = await measure(sandbox.apiKey, [
    'validate',
    'job.yaml',
    '--incremental',
    '--state-dir',
    STATE,
    ...common,
  ]);
  t = performance.now();
  const live = await measure(sandbox.apiKey, [
    'import',
    'job.yaml',
    '--incremental',
    '--state-dir',
    STATE,
    '--base-url',
    sandbox.url,
    '--rate',
    '100000',
    '--concurrency',
    '16',
    ...common,
  ]);
  if (live.code !== 0) throw new Error(`the incremental import exited ${live.code}: ${live.stderr}`);
  const log = requestGroups(sandbox.requests);
  const rows = CONTACTS + night2.newContacts + EVENTS + night2.newEvents;
  const rate = (m: Measure) => rows / (m.ms / 1000);
  const changedNew = night2.changed + night2.newContacts;
  const verdict = (ok: boolean) => (ok ? 'exact' : 'DIFFERENT');
  console.log(
    `night 2: ${f(rows)} rows (${f(night2.changed)} contacts changed, ${f(night2.newContacts)} new, ${f(night2.newEvents)} new events)`,
  );
  console.log(`  requests in the sandbox's log (${f(log.requests)}), by method and path:`);
  for (const [what, n] of log.groups)
    console.log(
      `    ${f(n).padStart(9)}  ${what}${what.startsWith('IMPORT ') ? ' (rows the uploads carried, not requests)' : ''}`,
    );
  console.log(
    `  per-row requests: ${f(log.perRow)}, expected ${f(night2.newEvents)} (new events; contacts go by bulk import in --bulk auto): ${verdict(log.perRow === night2.newEvents)}`,
  );
  console.log(
    `  rows in bulk uploads: ${f(log.bulkRows)} (${f(log.bulkRowKeys)} distinct keys), expected ${f(changedNew)} (changed + new contacts): ${verdict(log.bulkRows === changedNew && log.bulkRowKeys === changedNew)}`,
  );
  console.log(
    `  bulk requests: ${f(log.uploads)} uploads, ${f(log.polls)} status polls (${f(log.bulkRows)} rows, ${(log.bulkRows / Math.max(1, log.uploads)).toFixed(0)} per upload)`,
  );
  console.log(
    `  validate       : ${f(Math.round(rate(plain)))} rows/s, ${(plain.ms / 1000).toFixed(1)} s (CPU ${(plain.cpuMs / 1000).toFixed(1)} s), peak RSS ${plain.maxRssMb.toFixed(0)} MB`,
  );
  console.log(
    `  validate --incremental : ${f(Math.round(rate(preview)))} rows/s, ${(preview.ms / 1000).toFixed(1)} s (CPU ${(preview.cpuMs / 1000).toFixed(1)} s), peak RSS ${preview.maxRssMb.toFixed(0)} MB; ratio ${(rate(preview) / rate(plain)).toFixed(2)} of validate (target ≥ 0.7; by CPU time ${(plain.cpuMs / preview.cpuMs).toFixed(2)})`,
  );
  console.log(
    `  import --incremental   : ${f(Math.round(rate(live)))} rows/s, ${(live.ms / 1000).toFixed(1)} s with ${f(log.requests)} requests, peak RSS ${live.maxRssMb.toFixed(0)} MB (target < 200 MB); ratio ${(rate(live) / rate(plain)).toFixed(2)} of validate`,
  );
} finally {
  await sandbox.close();
}
