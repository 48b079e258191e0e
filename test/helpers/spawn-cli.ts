/**
 * The CLI in a child process of its own, from source through tsx, for the tests that kill it
 * mid-run (kill -9) and then resume: a crash must not take the test runner with it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '../..');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** `stderr: 'pipe'` keeps the child's stderr readable (to wait for a line it prints); stdout is ignored. */
export function spawnCli(
  args: readonly string[],
  options: { readonly cwd: string; readonly env: NodeJS.ProcessEnv; readonly stderr?: 'pipe' | 'ignore' },
): ChildProcess {
  return spawn(process.execPath, ['--import', TSX, join(ROOT, 'src/cli/bin.ts'), ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'ignore', options.stderr ?? 'ignore'],
  });
}

/** The child's exit code once it has exited (null when a signal ended it). */
export const exited = (child: ChildProcess) => new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
