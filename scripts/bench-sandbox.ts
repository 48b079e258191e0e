/**
 * `npm run bench:sandbox`: how fast the local API sandbox answers with its rate limit off.
 * The sandbox runs in a child process (fork of this file with `--serve`), so the load loop does
 * not share its event loop; this process drives it with an undici Pool (keep-alive, ~50
 * requests in flight) for a few seconds or a bounded count, mixing `POST /events/` and
 * `POST /users/update_or_create/`, and prints requests/s and p50/p99 latency.
 * Target: ≥ 3,000 requests/s on a 2-core machine.
 *
 * Options: --seconds N (default 5), --concurrency N (default 50), --max N (default 200000).
 */
import { fork } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { startSandbox } from '../src/sandbox/index.js';

const TARGET = 3000;

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
}

interface Ready {
  readonly url: string;
  readonly apiKey: string;
}

interface Report {
  /** API requests the sandbox logged (setup and warm-up included). */
  readonly logged: number;
  /** Requests between `mark` and `stop`, and the CPU time (user + system, µs) the sandbox process spent on them. */
  readonly measured: number;
  readonly cpuMicros: number;
}

/**
 * The child: a sandbox with its limit off. `mark` starts the CPU measurement; `stop` answers a
 * Report and exits. CPU time per request is the figure that does not depend on what else the
 * machine is doing.
 */
async function serve(): Promise<void> {
  const sandbox = await startSandbox({ port: 0, rate: 0 });
  process.send!({ url: sandbox.url, apiKey: sandbox.apiKey } satisfies Ready);
  let cpu = process.cpuUsage();
  let from = 0;
  process.on('message', (message) => {
    if (message === 'mark') {
      cpu = process.cpuUsage();
      from = sandbox.requests.length;
      process.send!('marked');
    } else if (message === 'stop') {
      const used = process.cpuUsage(cpu);
      const report: Report = {
        logged: sandbox.requests.length,
        measured: sandbox.requests.length - from,
        cpuMicros: used.user + used.system,
      };
      void sandbox.close().then(() => process.send!(report, () => process.exit(0)));
    }
  });
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function drive(): Promise<void> {
  const seconds = option('seconds', 5);
  const concurrency = option('concurrency', 50);
  const max = option('max', 200_000);
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Ready));
    child.once('exit', (code) => reject(new Error(`the sandbox process exited (${code}) before it was ready`)));
  });
  const base = new URL(ready.url);
  const pool = new Pool(base.origin, { connections: concurrency, pipelining: 1, keepAliveTimeout: 30_000 });
  const headers = {
    authorization: `Token ${ready.apiKey}`,
    accept: '*/*; version=2',
    'content-type': 'application/json',
  };
  const send = async (path: string, body: unknown): Promise<number> => {
    const res = await pool.request({
      origin: base.origin,
      path: `${base.pathname}${path}`,
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    await res.body.dump();
    return res.statusCode;
  };

  // Contacts the events refer to (docs/api-contract.md R-ORDER-2).
  const USERS = 500;
  for (let i = 0; i < USERS; i += 50)
    await Promise.all(
      Array.from({ length: 50 }, (_, j) => send('users/update_or_create/', { custom_id: `U-${i + j}` })),
    );

  const latencies = new Float64Array(max);
  const statuses = new Map<number, number>();
  let issued = 0;
  let done = 0;
  const warmUntil = performance.now() + 500;
  while (performance.now() < warmUntil)
    await Promise.all(
      Array.from({ length: concurrency }, (_, j) => send('events/', { user_id: 1 + (j % USERS), name: 'Warm-up' })),
    );

  child.send('mark');
  await new Promise((resolve) => child.once('message', resolve));
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline && issued < max) {
      const i = issued++;
      const t0 = performance.now();
      const status =
        i % 2 === 0
          ? await send('events/', {
              user_id: 1 + (i % USERS),
              name: `Bench Event ${i % 20}`,
              data: { row: `R-${i}`, amount: i % 97 },
            })
          : await send('users/update_or_create/', {
              custom_id: `U-${i % 5000}`,
              email: `u${i % 5000}@example.com`,
              first_name: 'Bench',
            });
      latencies[done++] = performance.now() - t0;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;

  child.send('stop');
  const report = await new Promise<Report>((resolve) => child.once('message', (m) => resolve(m as Report)));
  await pool.close();

  const sorted = latencies.subarray(0, done).sort();
  const rps = done / elapsed;
  const statusText = [...statuses]
    .sort(([a], [b]) => a - b)
    .map(([s, n]) => `${s}×${n}`)
    .join(', ');
  console.log(
    `sandbox (rate limit off, child process) on ${availableParallelism()} CPUs, ${concurrency} concurrent keep-alive requests, POST /events/ + POST /users/update_or_create/ mixed 1:1`,
  );
  console.log(
    `${done} requests in ${elapsed.toFixed(2)} s = ${Math.round(rps)} requests/s (target ≥ ${TARGET}: ${rps >= TARGET ? 'met' : 'NOT met'})`,
  );
  console.log(
    `latency p50 ${percentile(sorted, 50).toFixed(2)} ms, p99 ${percentile(sorted, 99).toFixed(2)} ms, max ${(sorted[sorted.length - 1] ?? 0).toFixed(2)} ms`,
  );
  const cpuPerRequest = report.cpuMicros / report.measured;
  console.log(
    `sandbox CPU: ${cpuPerRequest.toFixed(0)} µs per request = at most ${Math.round(1e6 / cpuPerRequest)} requests/s on one free core (independent of the other load on the machine)`,
  );
  console.log(`statuses: ${statusText}; the sandbox logged ${report.logged} API requests (setup and warm-up included)`);
  const bad = [...statuses].filter(([s]) => s >= 300).reduce((n, [, c]) => n + c, 0);
  process.exitCode = bad > 0 ? 1 : 0;
}

if (process.argv.includes('--serve')) await serve();
else await drive();
