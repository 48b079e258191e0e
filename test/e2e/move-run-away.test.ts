import { readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { syncStateFile } from '../../src/sync/state-file.js';
import { runCli } from '../helpers/run-cli.js';
import { eventsJob } from '../helpers/events-job.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** The events the sandbox received more than once (same body). */
const eventsSentTwice = (s: Sandbox) => {
  const seen = new Map<string, number>();
  for (const q of s.requests)
    if (q.method === 'POST' && q.path.includes('/events/')) {
      const body = JSON.stringify(q.body);
      seen.set(body, (seen.get(body) ?? 0) + 1);
    }
  return [...seen].filter(([, n]) => n > 1).map(([b]) => b);
};

describe('an unfinished run moved away, as its refusal offers', () => {
  it('does not send again the events it had accepted, even those the state had not applied yet', async () => {
    sandbox = await startSandbox({ rate: 0, latencyMs: 2 });
    const dir = eventsJob(60, { identity: true, incremental: true });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    // Night 1 stops part-way through the events.
    const controller = new AbortController();
    const stop = setInterval(() => {
      if (sandbox!.requests.length >= 30) controller.abort('SIGTERM');
    }, 1);
    const first = await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env, signal: controller.signal });
    clearInterval(stop);
    expect(first.code).toBe(143);
    const accepted = sandbox.requests.filter((q) => q.path.includes('/events/') && q.status === 201).length;
    expect(accepted).toBeGreaterThan(0);
    // As a kill -9 between the ledger's commit and the state's leaves it: the run's accepted
    // events are in its ledger only (the state has applied none of them).
    const stateDir = join(dir, '.engage-import');
    const db = new Database(syncStateFile(stateDir, join(dir, 'job.yaml')));
    db.exec(`DELETE FROM events; DELETE FROM entities; UPDATE applied SET seq = 0, complete = 0`);
    db.close();

    // Night 2 is refused: a run is unfinished. The operator moves it away, as the message offers.
    const refused = await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('move that folder away');
    const [run] = readdirSync(join(stateDir, 'runs'));
    renameSync(join(stateDir, 'runs', run!), join(dir, `moved-${run}`));

    const next = await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env });
    expect(next.code).toBe(0);
    expect(next.stderr).toContain(`already_sent ${accepted}`);
    expect(eventsSentTwice(sandbox)).toEqual([]);
  });
});
