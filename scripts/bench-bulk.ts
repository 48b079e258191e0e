/**
 * `npm run bench:bulk`: the bulk path against the sandbox (in its own process: its request log
 * keeps one entry per imported row), the client in its own process too (its peak RSS and CPU time),
 * run from the compiled JavaScript as the installed CLI is (`npm run build` first, here): under
 * tsx the worker would also carry the TypeScript loader's thread and transforms.
 * 1. Dry run (`validate`) of 100,000 contacts: the client's rows/s without any sending.
 * 2. The same 100,000 contacts by bulk at `--bulk-rows-per-s 5000`; 200 of them set a custom
 *    attribute the sandbox's fixtures do not have, so only the service refuses them.
 *    Prints wall time, requests, imports, the time spent waiting for imports (from the moment the
 *    service had the whole upload, its import's `started_at`, to the status poll that saw it end:
 *    the service's processing and the polls' overshoot, while sending the file stays the client's
 *    work), the client's own rows/s (wall time minus those waits; and rows per CPU second) against
 *    the dry run's (target ≥ 0.7), and that own work piece by piece (before the first upload, the
 *    uploads, between imports, after the last), peak RSS (target < 200 MB). The next chunk is read
 *    and written while an import runs, so that work hides in the waits: the CPU figure shows all of it.
 * 3. 2,000 of them per row (`--bulk never`, sandbox rate limit off, `--rate 100000`).
 * 4. The projection for 1,000,000 contacts at the documented 450 rows/s (docs/api-contract.md
 *    R-BULK-10), each import seen ended when the client's own polls would see it, against per row
 *    at 10 requests/s.
 * ROWS=20000 npm run bench:bulk for a quick run.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { rm } from 'node:fs/promises';
import { DEFAULT_POLL_DELAYS_MS } from '../src/transport/bulk-client.js';
import { DEFAULT_HEADROOM } from '../src/transport/create-transport.js';
import { pollsToSeeEnd } from '../src/transport/bulk-poll-pause.js';

const DIR = 'bench-data/bulk';
const ROWS = Number(process.env.ROWS ?? 100_000);
const REFUSED = Math.round((ROWS * 200) / 100_000);
const PER_ROW = Math.min(2_000, ROWS);
/** The default `--bulk-chunk-rows`. */
const CHUNK = 5_000;

interface Sandbox {
  url: string;
  apiKey: string;
  child: ChildProcess;
}
interface Entry {
  time: string;
  method: string;
  path: string;
  status: number | null;
  importId?: string;
  body?: unknown;
}
interface Measured {
  code: number;
  startedAt: number;
  ms: number;
  cpuMs: number;
  maxRssMb: number;
  summary: string;
}

async function startSandboxProcess(args: string[]): Promise<Sandbox> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', 'sandbox', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  return await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`sandbox exited ${code}: ${out}`)));
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const url = /(http:\/\/127\.0\.0\.1:\d+\/api\/public\/)/.exec(out)?.[1];
      const key = /\b([A-Za-z0-9]{64})\b/.exec(out)?.[1];
      if (url && key) resolve({ url, apiKey: key, child });
    });
  });
}

async function stopSandbox(s: Sandbox): Promise<void> {
  s.child.removeAllListeners('exit');
  s.child.kill('SIGTERM');
  await once(s.child, 'exit');
}

async function requests(s: Sandbox): Promise<Entry[]> {
  const res = await fetch(new URL('/__sandbox/requests', s.url));
  return (await res.json()) as Entry[];
}

/** When each import started at the service (its upload fully received), by import id. */
async function importStarts(s: Sandbox): Promise<Map<string, number>> {
  const res = await fetch(new URL('import/status/', s.url), { headers: { Authorization: `Token ${s.apiKey}` } });
  const { data } = (await res.json()) as { data: { id: string; started_at: string }[] };
  return new Map(data.map((i) => [i.id, Date.parse(i.started_at)]));
}

/** Runs the client in its own process. */
async function client(args: string[], apiKey = ''): Promise<Measured> {
  const child = spawn(process.execPath, ['dist/scripts/_bench-bulk-worker.js', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ENGAGE_API_KEY: apiKey },
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  await once(child, 'exit');
  return JSON.parse(out.trim().split('\n').at(-1)!) as Measured;
}

async function writeData(): Promise<void> {
  mkdirSync(DIR, { recursive: true });
  const file = createWriteStream(`${DIR}/contacts.csv`);
  file.write('customer_id,email,first_name,last_name,tier,shoe_size\n');
  const every = Math.floor(ROWS / REFUSED);
  for (let i = 0; i < ROWS; i++) {
    const shoe = i % every === 7 ? String(36 + (i % 10)) : '';
    if (
      !file.write(
        `C-${i},contact${i}@example.com,First${i % 997},Last${i % 991},${['gold', 'silver', 'bronze'][i % 3]},${shoe}\n`,
      )
    )
      await once(file, 'drain');
  }
  file.end();
  await finished(file);
  writeFileSync(
    `${DIR}/contacts.yaml`,
    'resource: user\nsource: { file: contacts.csv }\nkey: customer_id\nfields:\n  custom_id: { column: customer_id, required: true }\n  email: email\n  first_name: first_name\n  last_name: last_name\n  tier: tier\n  shoe_size: shoe_size\n',
  );
  writeFileSync(`${DIR}/fixtures.json`, JSON.stringify({ userAttributes: ['tier'] }));
}

const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const minutes = (s: number) => `${fmt(s / 60, 1)} min`;

const build = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], {
  stdio: 'inherit',
});
if (build.status !== 0) throw new Error('npm run build failed: the bench runs the compiled client');
await rm(DIR, { recursive: true, force: true });
await writeData();
console.log(
  `${fmt(ROWS)} contacts, ${fmt(REFUSED)} refused by the service only (custom attribute not in the fixtures), chunks of ${fmt(CHUNK)} rows`,
);

// 1. Dry run.
const dry = await client(['validate', `${DIR}/contacts.yaml`, '--report', `${DIR}/dry.csv`, '--quiet']);
const dryRate = ROWS / (dry.ms / 1000);
console.log(
  `dry run: ${fmt(dry.ms / 1000, 1)} s, ${fmt(dryRate)} rows/s, ${fmt(ROWS / (dry.cpuMs / 1000))} rows per CPU second, peak RSS ${fmt(dry.maxRssMb)} MB`,
);

// 2. Bulk.
{
  const sandbox = await startSandboxProcess([
    '--rate',
    '0',
    '--bulk-rows-per-s',
    '5000',
    '--fixtures',
    `${DIR}/fixtures.json`,
  ]);
  try {
    const run = await client(
      [
        'import',
        `${DIR}/contacts.yaml`,
        '--base-url',
        sandbox.url,
        '--state-dir',
        `${DIR}/state`,
        '--report',
        `${DIR}/bulk.csv`,
        '--bulk',
        'always',
        '--bulk-chunk-rows',
        String(CHUNK),
      ],
      sandbox.apiKey,
    );
    const log = (await requests(sandbox)).filter((e) => e.method !== 'IMPORT');
    const starts = await importStarts(sandbox);
    const uploads = log.filter((e) => e.method === 'POST' && e.path.endsWith('/import/'));
    // Waiting: from each import's start (its upload received; the log's time is the upload's
    // arrival, before its body) to the last status poll of that import (the one that saw it end).
    // The client's own work, piece by piece: before the first upload, sending each upload (its
    // arrival to its import's start), between an import seen ended and the next upload, after the last.
    let waitMs = 0;
    let sendingMs = 0;
    const gapsMs: number[] = [];
    let lastSeen: number | undefined;
    for (const u of uploads) {
      const start = u.importId === undefined ? undefined : starts.get(u.importId);
      const polls = log.filter((e) => e.method === 'GET' && u.importId !== undefined && e.path.includes(u.importId));
      const arrived = Date.parse(u.time);
      if (lastSeen !== undefined) gapsMs.push(arrived - lastSeen);
      if (start !== undefined) sendingMs += start - arrived;
      if (polls.length > 0 && start !== undefined) {
        lastSeen = Date.parse(polls.at(-1)!.time);
        waitMs += lastSeen - start;
      }
    }
    const beforeMs = uploads.length > 0 ? Date.parse(uploads[0]!.time) - run.startedAt : 0;
    const afterMs = lastSeen === undefined ? 0 : run.startedAt + run.ms - lastSeen;
    const gapMs = gapsMs.reduce((a, b) => a + b, 0);
    // The transport's pacing: 10 requests/s less its headroom.
    const paceMs = 1000 / (10 * (1 - DEFAULT_HEADROOM));
    const serviceS = ROWS / 5000;
    const ownS = run.ms / 1000 - waitMs / 1000;
    const ownRate = ROWS / ownS;
    const cpuRate = ROWS / (run.cpuMs / 1000);
    console.log(run.summary);
    console.log(
      `bulk: exit ${run.code}, wall ${fmt(run.ms / 1000, 1)} s, ${fmt(log.length)} requests (${uploads.length} uploads), waiting for imports ${fmt(waitMs / 1000, 1)} s (service time at 5,000 rows/s: ${fmt(serviceS, 1)} s)`,
    );
    console.log(
      `bulk: client's own work ${fmt(ownS, 1)} s = ${fmt(ownRate)} rows/s = ${fmt(ownRate / dryRate, 2)} of the dry run (target ≥ 0.7); ${fmt(cpuRate)} rows per CPU second = ${fmt(cpuRate / (ROWS / (dry.cpuMs / 1000)), 2)} of the dry run's`,
    );
    console.log(
      `bulk: the own work, piece by piece: ${fmt(beforeMs / 1000, 2)} s before the first upload (the whole file validated, then the first chunk read, written and recorded); ${fmt(sendingMs / 1000, 2)} s sending the ${uploads.length} uploads; ${fmt(gapMs / 1000, 2)} s between an import seen ended and the next upload (${gapsMs.length} × ${fmt(gapMs / Math.max(1, gapsMs.length), 0)} ms, of which the pacing of 10 requests/s after the poll that saw the end is ${fmt(paceMs, 0)} ms); ${fmt(afterMs / 1000, 2)} s after the last import (its rows settled, the report and the ledger closed)`,
    );
    console.log(`bulk: peak RSS ${fmt(run.maxRssMb)} MB (target < 200 MB)`);
    // 4. Projection: per chunk, the service time at 450 rows/s, when the client's own polls see it
    // end (its backoff, shortened by the import's progress), and this run's client work.
    const chunkService = CHUNK / 450;
    const replay = pollsToSeeEnd(CHUNK, 450, DEFAULT_POLL_DELAYS_MS);
    const seen = replay.ms / 1000;
    const chunkPolls = replay.polls;
    const chunks = Math.ceil(1_000_000 / CHUNK);
    const bulkS = chunks * seen + 1_000_000 / ownRate;
    console.log(
      `projection, 1,000,000 contacts: by bulk ${minutes(bulkS)} (${chunks} imports of ${fmt(chunkService, 1)} s at 450 rows/s, each seen ended at ${fmt(seen, 1)} s by ${chunkPolls} polls, plus ${fmt(1_000_000 / ownRate, 0)} s of client work); per row at 10 req/s ${fmt(1_000_000 / 10 / 3600, 1)} h: ${fmt(1_000_000 / 10 / bulkS, 0)} times faster`,
    );
  } finally {
    await stopSandbox(sandbox);
  }
}

// 3. Per row.
{
  const sandbox = await startSandboxProcess(['--rate', '0', '--fixtures', `${DIR}/fixtures.json`]);
  try {
    const run = await client(
      [
        'import',
        `${DIR}/contacts.yaml`,
        '--base-url',
        sandbox.url,
        '--state-dir',
        `${DIR}/state-per-row`,
        '--report',
        `${DIR}/per-row.csv`,
        '--bulk',
        'never',
        '--rate',
        '100000',
        '--limit',
        String(PER_ROW),
      ],
      sandbox.apiKey,
    );
    const log = await requests(sandbox);
    console.log(run.summary);
    console.log(
      `per row: ${fmt(PER_ROW)} rows, exit ${run.code}, wall ${fmt(run.ms / 1000, 1)} s, ${fmt(log.length)} requests, ${fmt(PER_ROW / (run.ms / 1000))} rows/s on loopback, peak RSS ${fmt(run.maxRssMb)} MB`,
    );
  } finally {
    await stopSandbox(sandbox);
  }
}
