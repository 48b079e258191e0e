/**
 * One CLI command run in-process and measured, for the bench workers that each run in their own
 * process so that peak RSS and CPU time are the command's own.
 */
import { PassThrough } from 'node:stream';
import { tuneV8Memory } from '../src/cli/v8-memory.js';
import { main } from '../src/cli/main.js';

// As the CLI's entry point (src/cli/bin.ts) does before running a command.
tuneV8Memory();

export interface MeasuredRun {
  readonly code: number;
  /** When the command began (ms since the epoch): the bench lines it up with the sandbox's log. */
  readonly startedAt: number;
  readonly ms: number;
  readonly cpuMs: number;
  readonly maxRssMb: number;
  /** What the command wrote on stderr (its summary). */
  readonly stderr: string;
}

export async function measuredCliRun(
  argv: readonly string[],
  apiKey: string | undefined,
  cwd: string,
): Promise<MeasuredRun> {
  const sink = new PassThrough();
  sink.resume();
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (c: Buffer) => {
    text += c.toString();
  });
  const startedAt = Date.now();
  const started = performance.now();
  const code = await main(argv, {
    stdout: sink,
    stderr,
    env: { ENGAGE_API_KEY: apiKey },
    cwd,
    signal: new AbortController().signal,
  });
  const ms = performance.now() - started;
  const usage = process.resourceUsage();
  return {
    code,
    startedAt,
    ms,
    cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
    maxRssMb: usage.maxRSS / 1024,
    stderr: text,
  };
}
