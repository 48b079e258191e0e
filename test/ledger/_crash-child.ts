/**
 * Child process for ledger-crash.test.ts: starts a run and records rows, printing each write
 * once its promise has resolved (i.e. once it is durable), until the parent kills it.
 * argv: <state-dir> <identity JSON> <mode: one-intent | stream>
 */
import { createRun, type RunIdentity } from '../../src/ledger/index.js';

const [stateDir, identityJson, mode] = process.argv.slice(2) as [string, string, string];
const ledger = await createRun(stateDir, JSON.parse(identityJson) as RunIdentity);
process.stdout.write(`run ${ledger.runDir}\n`);

if (mode === 'one-intent') {
  await ledger.recordIntent(0, 2);
  process.stdout.write('intent 2\n');
  // Stay alive (holding the lock) until killed.
  setInterval(() => undefined, 60_000);
} else {
  // Four rows in flight at a time, as the pipeline does with --concurrency 4.
  let next = 2;
  for (;;) {
    await Promise.all(
      [0, 1, 2, 3].map(async () => {
        const line = next++;
        await ledger.recordIntent(0, line);
        process.stdout.write(`intent ${line}\n`);
        await new Promise((r) => setImmediate(r)); // "the request"
        await ledger.recordOutcome(0, line, { state: 'ok', status: 201, id: `id-${line}` });
        process.stdout.write(`ok ${line}\n`);
      }),
    );
  }
}
