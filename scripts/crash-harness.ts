/**
 * One crash-and-resume round, used by `npm run test:crash` (20 rounds) and by the short
 * version in `npm test` (3 rounds). A real importer process is killed with SIGKILL at a random
 * moment (seeded), then resumed until it finishes; the sandbox's request log and the final report
 * are then checked: no row applied twice unless reported `unknown`, every input row reported
 * exactly once, `unknown` rows no more than the concurrency.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'csv-parse/sync';
import { mulberry32, startSandbox } from '../src/sandbox/index.js';

const ROOT = resolve(import.meta.dirname, '..');
// The importer runs from the round's own folder, so tsx is named by its resolved URL.
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export interface RoundOptions {
  readonly kind: 'events' | 'deals';
  readonly seed: number;
  readonly rows: number;
  readonly latencyMs: number;
  readonly concurrency: number;
}

export interface RoundResult {
  readonly kind: 'events' | 'deals';
  readonly seed: number;
  readonly rows: number;
  /** Requests the sandbox had seen when the importer was killed. */
  readonly killedAfter: number;
  readonly resumes: number;
  /** Rows applied more than once without being reported unknown. */
  readonly duplicates: number;
  /** Input rows missing from the report, or reported more than once, or ok but never applied. */
  readonly lost: number;
  readonly unknown: number;
  readonly statuses: Record<string, number>;
  /** Deals only: rows whose record in the sandbox differs from the CSV. */
  readonly stateMismatches: number;
}

function writeJob(dir: string, kind: 'events' | 'deals', rows: number): void {
  const contacts = ['custom_id,email'];
  for (let i = 0; i < 20; i++) contacts.push(`C-${i},c${i}@example.com`);
  writeFileSync(join(dir, 'contacts.csv'), `${contacts.join('\n')}\n`);
  writeFileSync(
    join(dir, 'contacts.yaml'),
    'resource: user\nsource: { file: contacts.csv }\nkey: custom_id\nfields: { custom_id: custom_id, email: email }\n',
  );
  const lines = kind === 'events' ? ['row,customer,event,amount'] : ['row,customer,name,value'];
  for (let i = 0; i < rows; i++)
    lines.push(`R-${i},C-${i % 20},${kind === 'events' ? 'Order Placed' : `Deal ${i}`},${(i % 90) + 0.5}`);
  writeFileSync(join(dir, `${kind}.csv`), `${lines.join('\n')}\n`);
  writeFileSync(
    join(dir, `${kind}.yaml`),
    kind === 'events'
      ? 'resource: event\nsource: { file: events.csv }\nkey: row\nfields:\n  user_custom_id: customer\n  name: event\n  data.row: row\n  data.amount: { column: amount, type: number }\n'
      : 'resource: deal\noperation: update_or_create\nsource: { file: deals.csv }\nkey: row\nfields:\n  custom_id: row\n  user_custom_id: customer\n  name: name\n  value: { column: value, type: number }\n',
  );
  writeFileSync(join(dir, 'job.yaml'), `mappings: [${kind}.yaml, contacts.yaml]\n`);
}

function importer(args: string[], env: NodeJS.ProcessEnv, cwd: string): ChildProcess {
  return spawn(process.execPath, ['--import', TSX, join(ROOT, 'src/cli/bin.ts'), ...args], {
    cwd,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

const exited = (child: ChildProcess) => new Promise<number | null>((r) => child.once('exit', (code) => r(code)));

export async function crashRound(o: RoundOptions): Promise<RoundResult> {
  // The same seeded PRNG as the sandbox's faults: the same seed gives the same kill point.
  const random = mulberry32(o.seed);
  const dir = mkdtempSync(join(tmpdir(), `engage-crash-${o.kind}-`));
  mkdirSync(join(dir, 'out'));
  writeJob(dir, o.kind, o.rows);
  const sandbox = await startSandbox({
    port: 0,
    rate: 0,
    latencyMs: o.latencyMs,
    jitterMs: Math.round(o.latencyMs / 2),
    seed: o.seed,
  });
  try {
    const env = { ...process.env, ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const common = [
      '--report',
      'out/report.csv',
      '--state-dir',
      'state',
      '--concurrency',
      String(o.concurrency),
      '--rate',
      '1000',
      '--quiet',
    ];
    // Kill somewhere between the first request and 90% of the way through (20 contacts first).
    const total = o.rows + 20;
    const killAt = 1 + Math.floor(random() * total * 0.9);
    const first = importer(['import', 'job.yaml', ...common], env, dir);
    const firstExit = exited(first);
    let killedAfter = -1;
    while (killedAfter < 0) {
      await new Promise((r) => setTimeout(r, 5));
      if (sandbox.requests.length >= killAt) {
        first.kill('SIGKILL');
        killedAfter = sandbox.requests.length;
      }
      if (first.exitCode !== null) killedAfter = sandbox.requests.length; // finished before the kill point
    }
    await firstExit;
    let resumes = 0;
    let code: number | null = null;
    let stderr = '';
    do {
      const child = importer(['resume', ...common], env, dir);
      child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
      code = await exited(child);
      resumes++;
    } while (code !== 0 && code !== 1 && resumes < 3);
    if (code !== 0 && code !== 1) throw new Error(`resume exited ${code}: ${stderr}`);

    const report = parse(readFileSync(join(dir, 'out/report.csv')), { columns: true }) as Record<string, string>[];
    const mainRows = report.filter((r) => r.resource === (o.kind === 'events' ? 'event' : 'deal'));
    const statuses: Record<string, number> = {};
    for (const r of mainRows) statuses[r.status!] = (statuses[r.status!] ?? 0) + 1;
    const lines = new Map<string, number>();
    for (const r of mainRows) lines.set(r.line!, (lines.get(r.line!) ?? 0) + 1);
    let lost = 0;
    for (let i = 0; i < o.rows; i++) if (lines.get(String(i + 2)) !== 1) lost++;
    lost += Math.max(0, mainRows.length - o.rows);

    const applied = new Map<string, number>();
    for (const q of sandbox.requests) {
      const row =
        o.kind === 'events'
          ? (q.body as { data?: { row?: string } } | undefined)?.data?.row
          : (q.body as { custom_id?: string } | undefined)?.custom_id;
      if (q.applied && typeof row === 'string' && row.startsWith('R-')) applied.set(row, (applied.get(row) ?? 0) + 1);
    }
    const byKey = new Map(mainRows.map((r) => [r.key!, r.status!]));
    let duplicates = 0;
    for (const [key, n] of applied) if (n > 1 && byKey.get(key) !== 'unknown' && o.kind === 'events') duplicates++;
    for (const [key, status] of byKey) if (status === 'ok' && !applied.has(key)) lost++;

    let stateMismatches = 0;
    if (o.kind === 'deals') {
      const deals = sandbox.state.deals();
      for (let i = 0; i < o.rows; i++) {
        const found = deals.filter((d) => d.custom_id === `R-${i}`);
        if (found.length !== 1 || found[0]?.name !== `Deal ${i}` || found[0]?.value !== ((i % 90) + 0.5).toFixed(2))
          stateMismatches++;
      }
    }
    return {
      kind: o.kind,
      seed: o.seed,
      rows: o.rows,
      killedAfter,
      resumes,
      duplicates,
      lost,
      unknown: statuses.unknown ?? 0,
      statuses,
      stateMismatches,
    };
  } finally {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  }
}
