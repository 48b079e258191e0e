import type { ArgumentsCamelCase, Argv } from 'yargs';

/** What a command may touch of the outside world: injected so tests run `main` in-process. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Aborted on the first SIGINT/SIGTERM (set by bin.ts); tests abort it themselves. */
  readonly signal: AbortSignal;
  /**
   * Told by a live run once its run folder exists (the command that resumes it), and told
   * `undefined` when that folder is removed again: what bin.ts says when a second signal stops
   * the process at once.
   */
  readonly onRunFolder?: ((resumeCommand: string | undefined) => void) | undefined;
  /**
   * Told the API key a command has read: a refusal reported after it hides that key without
   * reading the key file again (a pipe would have nothing left to give). Set by `main`.
   */
  readonly keyRead?: ((key: string) => void) | undefined;
  /** The transport's clock (tests: virtual time for waits of 30 s and more). Default: the real one. */
  readonly clock?:
    | { readonly now: () => number; readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void> }
    | undefined;
}

/**
 * The options a builder gives its command, by their names on the command line: `OptionsOf<typeof
 * withRunOptions<NoOptions>>`. Derived from the builder, so an option added there is typed everywhere.
 * An option without a default is optional: yargs leaves its key out when it is not given.
 */
export type OptionsOf<B extends (y: Argv) => Argv<unknown>> =
  ReturnType<B> extends Argv<infer A> ? KeyOptionalWhenUndefined<A> : never;

/** A yargs with no option declared yet (yargs' own `{}`): what a shared builder's options are derived from. */
export type NoOptions = Record<never, never>;

type KeyOptionalWhenUndefined<A> = {
  [K in keyof A as undefined extends A[K] ? never : K]: A[K];
} & {
  [K in keyof A as undefined extends A[K] ? K : never]?: A[K];
};

/**
 * How a command runs: it gets what yargs parsed (the builder's options under their own names, and
 * under camelCase names the code does not use), returns the exit code. A run function typed with
 * `OptionsOf<builder>` fits, since yargs' argument type holds every one of those options.
 */
type Run<A> = (args: ArgumentsCamelCase<A>, io: CliIo) => Promise<number>;

/** A sub-command as `main` registers it: its argument type stays inside, so a list of commands needs no cast. */
export interface CliCommand {
  /** Adds the command to `parser`; when yargs picks it, `handle` gets the parsed arguments and a way to run it. */
  register<G>(
    parser: Argv<G>,
    handle: (args: Readonly<Record<string, unknown>>, run: (io: CliIo) => Promise<number>) => Promise<void>,
  ): Argv<G>;
}

/**
 * A sub-command: yargs builds its options, `run` does the work. `A` is inferred from `builder`'s
 * return type (give the builder its parameter type, `(y: Argv) =>`, or a named function, when
 * `run` is a named function), and `run` must accept what the builder declares: an option the
 * builder lacks is a type error. The returned `run` keeps its own type, so tests call it directly.
 */
export function defineCommand<A, R extends Run<A>>(spec: {
  readonly command: string;
  readonly describe: string;
  readonly builder: (y: Argv) => Argv<A>;
  readonly run: R;
}): CliCommand & { readonly run: R } {
  return {
    run: spec.run,
    register: (parser, handle) =>
      parser.command(spec.command, spec.describe, spec.builder, (args) => handle(args, (io) => spec.run(args, io))),
  };
}
