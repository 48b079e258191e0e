import type { Argv } from 'yargs';

/** What a command may touch of the outside world: injected so tests run `main` in-process. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Aborted on the first SIGINT/SIGTERM (set by bin.ts); tests abort it themselves. */
  readonly signal: AbortSignal;
  /** The transport's clock (tests: virtual time for waits of 30 s and more). Default: the real one. */
  readonly clock?:
    | { readonly now: () => number; readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void> }
    | undefined;
}

/** A sub-command: yargs builds its options, `run` does the work and returns the exit code. */
export interface CliCommand<A = Record<string, unknown>> {
  readonly command: string | readonly string[];
  readonly describe: string;
  readonly builder: (y: Argv) => Argv<A>;
  readonly run: (args: A, io: CliIo) => Promise<number>;
}
