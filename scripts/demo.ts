/**
 * `npm run demo`: the README's first command. Starts the sandbox in-process (its real 10 req/s
 * limit, a little latency), runs the live import of samples/job.yaml against it over loopback,
 * writes out/report.csv and prints the summary. The samples hold bad rows on purpose, so the demo
 * exits 0 when the import ran to its end; `engage-import import` itself keeps its exit codes.
 */
import { rmSync } from 'node:fs';
import { main } from '../src/cli/main.js';
import { startSandbox } from '../src/sandbox/index.js';

const sandbox = await startSandbox({ port: 0, latencyMs: 40, jitterMs: 20, seed: 42 });
const controller = new AbortController();
process.once('SIGINT', () => controller.abort('SIGINT'));
rmSync('out/demo-state', { recursive: true, force: true });
try {
  process.stderr.write(`Sandbox listening at ${sandbox.url} (10 req/s, like the real API)\n\n`);
  const code = await main(
    [
      'import',
      'samples/job.yaml',
      '--base-url',
      sandbox.url,
      '--report',
      'out/report.csv',
      '--rejects',
      'out/rejects.csv',
      '--state-dir',
      'out/demo-state',
    ],
    {
      stdout: process.stdout,
      stderr: process.stderr,
      env: { ...process.env, ENGAGE_API_KEY: sandbox.apiKey },
      cwd: process.cwd(),
      signal: controller.signal,
    },
  );
  const ran = code === 0 || code === 1;
  process.stderr.write(
    ran
      ? `\nThe import ran to its end (engage-import exit code ${code}: the samples' bad rows are there on purpose).\nRead the report: out/report.csv\n`
      : `\nThe import did not run to its end (exit code ${code}).\n`,
  );
  process.exitCode = ran ? 0 : code;
} finally {
  await sandbox.close();
}
