/**
 * The CLI in a child process of its own, from source through tsx, for the tests that kill it
 * mid-run (kill -9) and then resume: a crash must not take the test runner with it.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
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

/** The command line that runs the CLI from source (node, the TypeScript loader, bin.ts, then `args`). */
export function cliCommand(args: readonly string[]): string[] {
  return [process.execPath, '--import', TSX, join(ROOT, 'src/cli/bin.ts'), ...args];
}

/**
 * The CLI run to its end in a child process whose stdin is a shell pipe holding `input` (a FIFO,
 * as `echo key | engage-import … --api-key-file /dev/stdin` gives; Node's own stdin pipe is a
 * socket, which `/dev/stdin` cannot be opened on).
 */
export function spawnCliSync(
  args: readonly string[],
  options: { readonly cwd: string; readonly env: NodeJS.ProcessEnv; readonly input: string },
): SpawnSyncReturns<string> {
  const cli = cliCommand(args);
  return spawnSync('sh', ['-c', 'printf %s "$CLI_INPUT" | "$@"', 'sh', ...cli], {
    cwd: options.cwd,
    env: { ...options.env, CLI_INPUT: options.input },
    encoding: 'utf8',
  });
}
