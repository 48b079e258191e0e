/**
 * One `import` of a job folder (`job.yaml`) against a sandbox of its own, bulk imports at once and
 * their poll pauses on fake time. Answers the CLI's result, the report's lines and the sandbox (its
 * request log and state). Each run keeps its own sync state (`state-<report>`): a state belongs to
 * one target. The sandbox is pushed to `opened`, which the caller closes after each test.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { fastClock } from './fast-clock.js';
import { runCli } from './run-cli.js';

export type ReportLine = Record<string, string>;

export async function importOnNewSandbox(
  dir: string,
  extra: readonly string[],
  options: { readonly opened: Sandbox[]; readonly report?: string; readonly sandbox?: Partial<SandboxOptions> },
) {
  const report = options.report ?? 'report.csv';
  const sandbox = await startSandbox({ port: 0, rate: 0, bulkRowsPerS: 0, ...options.sandbox });
  options.opened.push(sandbox);
  const r = await runCli(
    [
      'import',
      'job.yaml',
      '--base-url',
      sandbox.url,
      '--report',
      report,
      '--state-dir',
      `state-${report}`,
      '--rate',
      '10000',
      ...extra,
    ],
    { cwd: dir, env: { ENGAGE_API_KEY: sandbox.apiKey }, clock: fastClock() },
  );
  const lines = parse(readFileSync(join(dir, report)), { columns: true }) as ReportLine[];
  return { ...r, report: lines, sandbox };
}

/** `METHOD path` of each request the sandbox logged, the path without its `/api/public/` root. */
export const requestPaths = (s: Sandbox) => s.requests.map((q) => `${q.method} ${q.path.replace('/api/public/', '')}`);
