/**
 * `npm run test:crash-scenarios -- --scenario S --seed N`: kill -9 and resume on the paths
 * `npm run test:crash` does not cover, against the sandbox (in this process) and the built CLI:
 * - `incr`: contacts + events, `--incremental`, day 1 (killed half the time), day 2 (killed), day 3;
 * - `incr2`: products, contacts, product events and deal creates per row, incremental, 3 days;
 * - `bulk`: products, contacts and deals (bulk_header) by `--bulk always`, killed at a request, an
 *   upload, a status poll or after some imported rows; `bulkincr`: the same over 3 incremental runs;
 * - `mixed`: products + contacts by bulk, then events per row; `mixedincr`: over 3 incremental days;
 * - `big`: 25,000 contacts (held report lines spill to disk behind a chunk), day 2 killed.
 * Half the time the first resume is killed too. Each run is checked against the sandbox's log:
 * every input line reported once; `ok` applied in that run; `unchanged`/`already_sent` applied at
 * some point; `failed`/`not_sent`/`skipped` not applied; events, product events and deal creates
 * never applied twice unless reported `unknown` (across runs too); entities reported ok/unchanged
 * hold the row's values at the end. Options: --fail-rate F, --drop-rate D, --bulk-fail-rate B
 * (sandbox faults), --keep (keep the folder), --verbose. Exit 1 on any violation.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'csv-parse/sync';
import { mulberry32, startSandbox, type Sandbox } from '../src/sandbox/index.js';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'dist/src/cli/bin.js');

const argv = process.argv;
const arg = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i > 0 ? argv[i + 1]! : fallback;
};
const scenario = arg('scenario', 'incr');
const seed = Number(arg('seed', '1'));
const failRate = Number(arg('fail-rate', '0'));
const dropRate = Number(arg('drop-rate', '0'));
const bulkFailRate = Number(arg('bulk-fail-rate', '0'));
const keep = argv.includes('--keep');
const verbose = argv.includes('--verbose');
const random = mulberry32(seed * 7919 + 13);

type Row = Record<string, string>;
interface FileSpec {
  name: string; // csv file name
  resource: string; // report resource
  kind: 'user' | 'product' | 'deal' | 'event' | 'pevent' | 'dcreate';
  header: string[];
  rows: string[][];
}

function csv(lines: string[][]): string {
  return `${lines.map((l) => l.map((c) => (/[",\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',')).join('\n')}\n`;
}

function contacts(n: number, day: number): FileSpec {
  const rows: string[][] = [];
  for (let i = 0; i < n; i++) {
    // day 2+: every 7th contact changes its first name
    const fn = i % 7 === 3 && day >= 2 ? `Changed${day >= 2 ? 2 : 1}-${i}` : `First-${i}`;
    // a service-refused row (first_name > 40) every 50th
    const first = i % 50 === 11 ? 'X'.repeat(41) : fn;
    rows.push([`C-${i}`, `c${i}@example.com`, first]);
  }
  return { name: 'contacts.csv', resource: 'user', kind: 'user', header: ['custom_id', 'email', 'first_name'], rows };
}
function products(n: number, day: number): FileSpec {
  const rows: string[][] = [];
  for (let i = 0; i < n; i++) {
    const price = i % 9 === 4 && day >= 2 ? `${i + 100}.25` : `${i}.5`;
    rows.push([`P-${i}`, `Product ${i}`, price]);
  }
  return { name: 'products.csv', resource: 'product', kind: 'product', header: ['sku', 'title', 'price'], rows };
}
function deals(n: number, nContacts: number): FileSpec {
  const rows: string[][] = [];
  // two deals in three of the second half name a contact that does not exist: refused by the service
  for (let i = 0; i < n; i++)
    rows.push([
      `D-${i}`,
      i >= n / 2 && i % 3 !== 0 ? 'C-NOPE' : `C-${(i * 7) % nContacts}`,
      `Deal ${i}`,
      `${(i % 90) + 0.5}`,
    ]);
  return { name: 'deals.csv', resource: 'deal', kind: 'deal', header: ['row', 'customer', 'name', 'value'], rows };
}
function events(n: number, nContacts: number): FileSpec {
  const rows: string[][] = [];
  for (let i = 0; i < n; i++) {
    // every 40th event refers to a contact that does not exist: refused by the service
    const cust = i % 40 === 17 ? 'C-NOPE' : `C-${(i * 3) % nContacts}`;
    rows.push([`E-${i}`, cust, 'Order Placed', `${(i % 90) + 0.5}`]);
  }
  return { name: 'events.csv', resource: 'event', kind: 'event', header: ['row', 'customer', 'event', 'amount'], rows };
}

function productEvents(n: number, nP: number, nC: number): FileSpec {
  const rows: string[][] = [];
  for (let i = 0; i < n; i++)
    rows.push([
      `PE-${i}`,
      `P-${i % nP}`,
      `C-${(i * 5) % nC}`,
      i % 2 ? 'view' : 'add to cart',
      String(1767225600 + i),
      String(i),
    ]);
  return {
    name: 'pevents.csv',
    resource: 'product-event',
    kind: 'pevent' as FileSpec['kind'],
    header: ['hit', 'sku', 'customer', 'action', 'ts', 'seq'],
    rows,
  };
}
function dealCreates(n: number, nC: number, day: number): FileSpec {
  const rows: string[][] = [];
  // day 2+: every 5th deal has another value (already_sent: a create is sent once)
  for (let i = 0; i < n; i++)
    rows.push([`DC-${i}`, `C-${(i * 3) % nC}`, `Deal ${i}`, `${(i % 90) + (day >= 2 && i % 5 === 0 ? 1.5 : 0.5)}`]);
  return {
    name: 'dcreates.csv',
    resource: 'deal',
    kind: 'dcreate' as FileSpec['kind'],
    header: ['row', 'customer', 'name', 'value'],
    rows,
  };
}

const MAPPINGS: Record<string, string> = {
  pevent:
    'resource: product-event\nsource: { file: pevents.csv }\nkey: hit\nfields:\n  custom_id: sku\n  user_custom_id: customer\n  event_type: action\n  timestamp: { column: ts, type: integer }\n  data.hit: hit\n  data.seq: { column: seq, type: integer }\n',
  dcreate:
    'resource: deal\noperation: create\nsource: { file: dcreates.csv }\nkey: row\nfields:\n  custom_id: row\n  user_custom_id: customer\n  name: name\n  value: { column: value, type: number }\n',
  user: 'resource: user\nsource: { file: contacts.csv }\nkey: custom_id\nfields: { custom_id: custom_id, email: email, first_name: first_name }\n',
  product:
    'resource: product\nsource: { file: products.csv }\nkey: sku\nfields:\n  custom_id: sku\n  name: title\n  price: { column: price, type: number }\n',
  deal: 'resource: deal\noperation: update_or_create\nbulk: true\nsource: { file: deals.csv }\nkey: row\nfields:\n  custom_id: { column: row, bulk_header: Deal Id }\n  user_custom_id: { column: customer, bulk_header: user_custom_id }\n  name: { column: name, bulk_header: Name }\n  value: { column: value, type: number, bulk_header: value }\n',
  event:
    'resource: event\nsource: { file: events.csv }\nkey: row\nfields:\n  user_custom_id: customer\n  name: event\n  data.row: row\n  data.amount: { column: amount, type: number }\n',
};

function writeJob(dir: string, files: FileSpec[]): void {
  for (const f of files) {
    writeFileSync(join(dir, f.name), csv([f.header, ...f.rows]));
    writeFileSync(join(dir, `${f.kind}.yaml`), MAPPINGS[f.kind]!);
  }
  writeFileSync(join(dir, 'job.yaml'), `mappings: [${files.map((f) => `${f.kind}.yaml`).join(', ')}]\n`);
}

function importer(args: string[], env: NodeJS.ProcessEnv, cwd: string): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
}
const exited = (child: ChildProcess) =>
  new Promise<number | null>((r) => {
    if (child.exitCode !== null || child.signalCode !== null) r(child.exitCode);
    else child.once('exit', (code) => r(code));
  });

interface Phase {
  label: string;
  args: string[]; // import args after 'import job.yaml'
  resumeArgs: string[];
  kill?: KillPlan | undefined;
  files: FileSpec[];
}
type KillPlan =
  | { type: 'requests'; n: number }
  | { type: 'upload'; k: number; delayMs: number }
  | { type: 'poll'; k: number }
  | { type: 'import-rows'; n: number };

const isApi = (q: { method: string }) => q.method !== 'IMPORT';

interface PhaseResult {
  label: string;
  start: number;
  end: number;
  report: Row[];
  killedAt: string;
  resumes: number;
  exitCodes: (number | null)[];
}

const violations: string[] = [];
const flag = (s: string) => {
  violations.push(s);
};

async function killer(sb: Sandbox, first: ChildProcess, kill: KillPlan | undefined, start: number): Promise<string> {
  let killedAt = 'not killed';
  if (kill !== undefined) {
    const k = kill;
    let uploadSeenAt = -1;
    for (;;) {
      await new Promise((r) => setTimeout(r, 3));
      if (first.exitCode !== null) {
        killedAt = `finished before kill (${JSON.stringify(k)})`;
        break;
      }
      const since = sb.requests.slice(start);
      let fire = false;
      if (k.type === 'requests') fire = since.filter(isApi).length >= k.n;
      else if (k.type === 'upload') {
        const ups = since.filter((q) => q.method === 'POST' && q.path.includes('/import/'));
        if (ups.length >= k.k && uploadSeenAt < 0) uploadSeenAt = Date.now();
        fire = uploadSeenAt >= 0 && Date.now() - uploadSeenAt >= k.delayMs;
      } else if (k.type === 'poll') fire = since.filter((q) => q.path.includes('import/status')).length >= k.k;
      else fire = since.filter((q) => q.method === 'IMPORT').length >= k.n;
      if (fire) {
        first.kill('SIGKILL');
        const s = sb.requests.slice(start);
        killedAt = `${JSON.stringify(k)} after ${s.filter(isApi).length} api reqs, ${s.filter((q) => q.method === 'IMPORT').length} import rows`;
        break;
      }
    }
  }
  return killedAt;
}

async function runPhase(sb: Sandbox, dir: string, env: NodeJS.ProcessEnv, p: Phase): Promise<PhaseResult> {
  writeJob(dir, p.files);
  const start = sb.requests.length;
  const common = ['--report', `out/report-${p.label}.csv`, '--state-dir', 'state', '--rate', '1000', '--quiet'];
  const first = importer(['import', 'job.yaml', ...common, ...p.args], env, dir);
  let stderr = '';
  first.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const firstExit = exited(first);
  let killedAt: string;
  const codes: (number | null)[] = [];
  killedAt = await killer(sb, first, p.kill, sb.requests.length);
  codes.push(await firstExit);
  let resumes = 0;
  let code: number | null = codes[0]!;
  while (code !== 0 && code !== 1 && resumes < 4) {
    const child = importer(['resume', ...common, ...p.resumeArgs], env, dir);
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const childExit = exited(child);
    if (resumes === 0 && p.kill !== undefined && random() < 0.5) {
      const k2: KillPlan =
        p.kill.type === 'requests'
          ? { type: 'requests', n: 1 + Math.floor(random() * p.kill.n) }
          : p.kill.type === 'upload'
            ? { ...p.kill, k: 1 }
            : p.kill.type === 'poll'
              ? { type: 'poll', k: 1 + Math.floor(random() * 3) }
              : { type: 'import-rows', n: 1 + Math.floor(random() * 100) };
      killedAt += `; resume killed: ${await killer(sb, child, k2, sb.requests.length)}`;
    }
    code = await childExit;
    codes.push(code);
    resumes++;
  }
  if (code !== 0 && code !== 1) throw new Error(`${p.label}: exit ${code}: ${stderr.slice(-3000)}`);
  if (verbose) console.error(`[${p.label}] codes ${codes.join(',')} ${stderr.slice(-1500)}`);
  const report = parse(readFileSync(join(dir, `out/report-${p.label}.csv`)), { columns: true }) as Row[];
  return { label: p.label, start, end: sb.requests.length, report, killedAt, resumes, exitCodes: codes };
}

/** The key of the row a log entry applied (per row or IMPORT), by kind. */
function entryKey(q: Sandbox['requests'][number]): { kind: string; key: string } | undefined {
  const b = q.body as Record<string, unknown> | null;
  if (b === null || typeof b !== 'object') return undefined;
  if (q.method === 'IMPORT') {
    if (q.path.includes('/users/')) return { kind: 'user', key: String(b.custom_id) };
    if (q.path.includes('/products/')) return { kind: 'product', key: String(b.custom_id) };
    if (q.path.includes('/deals/')) return { kind: 'deal', key: String(b['Deal Id'] ?? b.custom_id) };
    return undefined;
  }
  if (q.method !== 'POST' && q.method !== 'PATCH' && q.method !== 'PUT') return undefined;
  if (q.path.includes('product_event') || q.path.includes('product-event-creation')) {
    const hit = (b.data as Record<string, unknown> | undefined)?.hit;
    return typeof hit === 'string' ? { kind: 'pevent', key: hit } : undefined;
  }
  if (q.method === 'POST' && q.path.endsWith('/deals/')) return { kind: 'dcreate', key: String(b.custom_id) };
  if (/\/events\/$/.test(q.path)) {
    const row = (b.data as Record<string, unknown> | undefined)?.row;
    return typeof row === 'string' ? { kind: 'event', key: row } : undefined;
  }
  if (q.path.endsWith('/users/update_or_create/') || q.path.endsWith('/users/'))
    return { kind: 'user', key: String(b.custom_id) };
  if (q.path.endsWith('/products/')) return { kind: 'product', key: String(b.custom_id) };
  if (q.path.includes('/deals/')) return { kind: 'deal', key: String(b.custom_id) };
  return undefined;
}

function appliedCounts(sb: Sandbox, from: number, to: number): Map<string, number> {
  const m = new Map<string, number>();
  for (const q of sb.requests.slice(from, to)) {
    if (!q.applied) continue;
    const k = entryKey(q);
    if (k === undefined) continue;
    const id = `${k.kind}:${k.key}`;
    m.set(id, (m.get(id) ?? 0) + 1);
  }
  return m;
}

function checkPhase(sb: Sandbox, p: Phase, r: PhaseResult, allReports: PhaseResult[], stateChecks: boolean): void {
  const tag = `[seed ${seed} ${scenario} ${r.label}]`;
  const applied = appliedCounts(sb, r.start, r.end);
  const appliedBefore = appliedCounts(sb, 0, r.start);
  for (const f of p.files) {
    const lines = r.report.filter((x) => x.file?.endsWith(f.name) || x.resource === f.resource);
    const byLine = new Map<string, Row[]>();
    for (const x of lines) byLine.set(x.line!, [...(byLine.get(x.line!) ?? []), x]);
    for (let i = 0; i < f.rows.length; i++) {
      const got = byLine.get(String(i + 2)) ?? [];
      if (got.length !== 1) flag(`${tag} ${f.name} line ${i + 2} reported ${got.length} times`);
    }
    if (lines.length !== f.rows.length)
      flag(`${tag} ${f.name}: ${lines.length} report lines for ${f.rows.length} rows`);
    for (const x of lines) {
      const key = x.key!;
      const id = `${f.kind}:${key}`;
      const once = f.kind === 'event' || f.kind === 'pevent' || f.kind === 'dcreate';
      const n = applied.get(id) ?? 0;
      const before = appliedBefore.get(id) ?? 0;
      if (x.status === 'ok' && n === 0 && !(f.kind === 'product' && before > 0))
        flag(`${tag} ${id} reported ok but never applied in this phase (applied before: ${before}) msg=${x.message}`);
      if ((x.status === 'unchanged' || x.status === 'already_sent') && n + before === 0)
        flag(`${tag} ${id} reported ${x.status} but never applied by anything`);
      if ((x.status === 'failed' || x.status === 'not_sent' || x.status === 'skipped') && n > 0 && f.kind !== 'product')
        flag(`${tag} ${id} reported ${x.status} but applied ${n}x in this phase`);
      if (x.status === 'not_sent' && n > 0) flag(`${tag} ${id} reported not_sent but applied ${n}x in this phase`);
      if (once && (x.status === 'already_sent' || x.status === 'unchanged') && n > 0)
        flag(`${tag} ${id} reported ${x.status} but applied ${n}x again in this phase`);
      if (once && n > 1 && x.status !== 'unknown')
        flag(`${tag} ${id} applied ${n}x in this phase, reported ${x.status}`);
    }
    // State checks: an ok/unchanged row's values are in the sandbox after the phase.
    if (stateChecks && (f.kind === 'user' || f.kind === 'product' || f.kind === 'deal')) {
      for (let i = 0; i < f.rows.length; i++) {
        const row = f.rows[i]!;
        const x = byLine.get(String(i + 2))?.[0];
        if (x === undefined || !(x.status === 'ok' || x.status === 'unchanged')) continue;
        let actual: unknown;
        let expect: unknown;
        if (f.kind === 'user') {
          actual = sb.state.userByCustomId(row[0]!)?.first_name;
          expect = row[2];
        } else if (f.kind === 'product') {
          const pr = sb.state.productByCustomId(row[0]!);
          actual = pr === undefined ? undefined : `${pr.name}|${pr.price}`;
          expect = `${row[1]}|${Number(row[2])}`;
        } else {
          const d = sb.state.dealByCustomId(row[0]!);
          actual = d === undefined ? undefined : `${d.name}|${d.value}`;
          expect = `${row[2]}|${Number(row[3]).toFixed(2)}`;
        }
        if (actual !== expect)
          flag(
            `${tag} ${f.kind}:${row[0]} reported ${x.status} (${x.message}) but sandbox has ${String(actual)} (expected ${String(expect)})`,
          );
      }
    }
  }
  // Events across all phases so far: an event applied more than once overall must be unknown somewhere.
  const overall = appliedCounts(sb, 0, r.end);
  for (const [id, n] of overall) {
    const kind = id.slice(0, id.indexOf(':'));
    if (!['event', 'pevent', 'dcreate'].includes(kind) || n < 2) continue;
    const key = id.slice(kind.length + 1);
    const res = kind === 'event' ? 'event' : kind === 'pevent' ? 'product-event' : 'deal';
    const everUnknown = allReports.some((ph) =>
      ph.report.some((x) => x.resource === res && x.key === key && x.status === 'unknown'),
    );
    if (!everUnknown) flag(`${tag} ${id} applied ${n}x overall, never reported unknown`);
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `engage-crash-${scenario}-${seed}-`));
  mkdirSync(join(dir, 'out'));
  const bulkRowsPerS =
    scenario === 'incr' || scenario === 'incr2' ? 0 : scenario === 'big' ? 100 : 150 + Math.floor(random() * 300);
  const sb = await startSandbox({
    port: 0,
    rate: 0,
    latencyMs: 20,
    jitterMs: 10,
    seed,
    failRate,
    dropRate,
    bulkRowsPerS,
    bulkFailRate,
  });
  const env = { ...process.env, ENGAGE_API_KEY: sb.apiKey, ENGAGE_BASE_URL: sb.url };
  const phases: Phase[] = [];
  const conc = ['--concurrency', '6'];
  if (scenario === 'incr') {
    const nC = 60;
    const nE = 300;
    const inc = ['--incremental', ...conc];
    const killDay = (m: number): KillPlan => ({ type: 'requests', n: 1 + Math.floor(random() * m * 0.95) });
    phases.push({
      label: 'day1',
      args: inc,
      resumeArgs: conc,
      kill: random() < 0.5 ? killDay(nC + nE / 2) : undefined,
      files: [contacts(nC, 1), events(nE / 2, nC)],
    });
    phases.push({
      label: 'day2',
      args: inc,
      resumeArgs: conc,
      kill: killDay(nC / 7 + nE / 2 + 8),
      files: [contacts(nC, 2), events(nE, nC)],
    });
    phases.push({ label: 'day3', args: inc, resumeArgs: conc, files: [contacts(nC, 2), events(nE, nC)] });
  } else if (scenario === 'incr2') {
    const nC = 40;
    const nP = 30;
    const inc = ['--incremental', '--bulk', 'never', ...conc];
    const killDay = (m: number): KillPlan => ({ type: 'requests', n: 1 + Math.floor(random() * m * 0.95) });
    const day = (d: number, nPE: number, nD: number) => [
      products(nP, 1),
      contacts(nC, d),
      productEvents(nPE, nP, nC),
      dealCreates(nD, nC, d),
    ];
    phases.push({
      label: 'day1',
      args: inc,
      resumeArgs: inc.slice(1),
      kill: random() < 0.5 ? killDay(nC + nP + 200) : undefined,
      files: day(1, 80, 60),
    });
    phases.push({
      label: 'day2',
      args: inc,
      resumeArgs: inc.slice(1),
      kill: killDay(nC / 7 + 100),
      files: day(2, 160, 120),
    });
    phases.push({ label: 'day3', args: inc, resumeArgs: inc.slice(1), files: day(2, 160, 120) });
  } else if (scenario === 'big') {
    const nC = 25000;
    const inc = ['--incremental', ...conc];
    const big = (d: number): FileSpec => {
      const f = contacts(nC, 1);
      if (d >= 2)
        for (let i = 0; i < nC; i++) if (i % 100 === 37 || (d >= 3 && i % 100 === 71)) f.rows[i]![2] = `Day${d}-${i}`;
      return f;
    };
    const r = random();
    const k2: KillPlan =
      r < 0.4
        ? { type: 'upload', k: 1, delayMs: Math.floor(random() * 500) }
        : r < 0.7
          ? { type: 'poll', k: 1 + Math.floor(random() * 3) }
          : { type: 'requests', n: 2 + Math.floor(random() * 150) };
    phases.push({
      label: 'day1',
      args: [...inc, '--bulk', 'never'],
      resumeArgs: conc,
      files: [big(1), events(300, 500)],
    });
    phases.push({ label: 'day2', args: inc, resumeArgs: conc, kill: k2, files: [big(2), events(600, 500)] });
    phases.push({
      label: 'day3',
      args: inc,
      resumeArgs: conc,
      kill: random() < 0.5 ? { type: 'poll', k: 1 + Math.floor(random() * 3) } : undefined,
      files: [big(3), events(600, 500)],
    });
  } else if (scenario === 'mixedincr') {
    const nC = 150;
    const nP = 90;
    const chunk = String(30 + Math.floor(random() * 40));
    const bulk = ['--bulk', 'always', '--bulk-chunk-rows', chunk, ...conc];
    const inc = ['--incremental', ...bulk];
    const pick = (nReq: number): KillPlan => {
      const r = random();
      return r < 0.3
        ? { type: 'upload', k: 1 + Math.floor(random() * 6), delayMs: Math.floor(random() * 300) }
        : r < 0.5
          ? { type: 'poll', k: 1 + Math.floor(random() * 10) }
          : { type: 'requests', n: 1 + Math.floor(random() * nReq) };
    };
    phases.push({
      label: 'day1',
      args: inc,
      resumeArgs: bulk,
      kill: random() < 0.5 ? pick(120) : undefined,
      files: [products(nP, 1), contacts(nC, 1), events(100, nC)],
    });
    phases.push({
      label: 'day2',
      args: inc,
      resumeArgs: bulk,
      kill: pick(110),
      files: [products(nP, 2), contacts(nC, 2), events(200, nC)],
    });
    phases.push({
      label: 'day3',
      args: inc,
      resumeArgs: bulk,
      files: [products(nP, 2), contacts(nC, 2), events(200, nC)],
    });
  } else if (scenario === 'bulk' || scenario === 'mixed' || scenario === 'bulkincr') {
    const nC = 240;
    const nP = 150;
    const chunk = String(40 + Math.floor(random() * 60));
    const bulk = ['--bulk', 'always', '--bulk-chunk-rows', chunk, ...conc];
    const files =
      scenario === 'bulk' || scenario === 'bulkincr'
        ? [products(nP, 1), contacts(nC, 1), deals(300, nC)]
        : [products(nP, 1), contacts(nC, 1), events(200, nC)];
    const r = random();
    const kill: KillPlan =
      scenario === 'mixed' && r < 0.5
        ? { type: 'requests', n: 8 + Math.floor(random() * 200) }
        : r < 0.35
          ? { type: 'upload', k: 1 + Math.floor(random() * 14), delayMs: Math.floor(random() * 400) }
          : r < 0.7
            ? { type: 'poll', k: 1 + Math.floor(random() * 25) }
            : { type: 'import-rows', n: 1 + Math.floor(random() * (nC + nP + 300)) };
    const extra = scenario === 'bulkincr' ? ['--incremental'] : [];
    phases.push({ label: 'run1', args: [...bulk, ...extra], resumeArgs: bulk, kill, files });
    if (scenario === 'bulkincr') {
      const files2 = [products(nP, 2), contacts(nC, 2), deals(300, nC)];
      const r2 = random();
      const kill2: KillPlan =
        r2 < 0.5
          ? { type: 'upload', k: 1 + Math.floor(random() * 3), delayMs: Math.floor(random() * 400) }
          : { type: 'poll', k: 1 + Math.floor(random() * 5) };
      phases.push({ label: 'run2', args: [...bulk, ...extra], resumeArgs: bulk, kill: kill2, files: files2 });
      phases.push({ label: 'run3', args: [...bulk, ...extra], resumeArgs: bulk, files: files2 });
    }
  }
  const results: PhaseResult[] = [];
  let ok = true;
  try {
    for (const p of phases) {
      const r = await runPhase(sb, dir, env, p);
      results.push(r);
      checkPhase(sb, p, r, results, true);
      const statuses: Record<string, number> = {};
      for (const x of r.report)
        statuses[`${x.resource}:${x.status}`] = (statuses[`${x.resource}:${x.status}`] ?? 0) + 1;
      console.log(
        `seed ${seed} ${scenario} ${r.label}: killed ${r.killedAt}; exits ${r.exitCodes.join(',')}; ${Object.entries(
          statuses,
        )
          .map(([s, c]) => `${s} ${c}`)
          .join(', ')}`,
      );
    }
  } catch (e) {
    ok = false;
    console.log(`seed ${seed} ${scenario}: ERROR ${(e as Error).message}`);
  } finally {
    await sb.close();
    const log = sb.requests.map((q) => JSON.stringify(q)).join('\n');
    writeFileSync(join(dir, 'requests.ndjson'), log);
  }
  for (const v of violations.slice(0, 40)) console.log(`VIOLATION ${v}`);
  if (violations.length > 40) console.log(`... ${violations.length - 40} more`);
  if (violations.length > 0 || !ok || keep) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
  process.exitCode = violations.length > 0 ? 1 : ok ? 0 : 2;
}
await main();
