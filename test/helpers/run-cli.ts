import { PassThrough } from 'node:stream';
import type { CliIo } from '../../src/cli/command.js';
import { main } from '../../src/cli/main.js';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run the whole command line in-process, as a user would type it, capturing what it prints. */
export async function runCli(
  argv: string[],
  options: {
    cwd?: string;
    env?: Record<string, string | undefined>;
    signal?: AbortSignal;
    clock?: CliIo['clock'];
    onRunFolder?: CliIo['onRunFolder'];
  } = {},
): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await main(argv, {
    stdout,
    stderr,
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    signal: options.signal ?? new AbortController().signal,
    ...(options.clock && { clock: options.clock }),
    ...(options.onRunFolder && { onRunFolder: options.onRunFolder }),
  });
  return { code, stdout: out, stderr: err };
}
