import type { InDoubtMode } from '../transport/index.js';
import type { CliIo } from './command.js';
import type { RunArgs } from './common-options.js';
import type { LiveArgs, SyncModeArgs } from './live-options.js';
import type { LiveRunHooks } from './live-run-hooks.js';
import type { PayloadOptions } from './run-identity.js';
import type { TakenLock } from './take-state-lock.js';

/** What a new run and a resume share once the command line is read (`runLive` builds it). */
export interface LiveSetup {
  readonly io: CliIo;
  readonly args: LiveRunArgs;
  readonly apiKey: string;
  readonly hooks: LiveRunHooks;
  /** Set when an error ends a run whose ledger holds rows: it had begun sending, so it was not refused. */
  readonly ended: { began: boolean };
  /** The state directory's lock, from the moment it is taken until a ledger holds it. */
  readonly taken: TakenLock;
  /** The base URL given (flag or environment); undefined for a resume given none (the run's). */
  readonly baseUrl: URL | undefined;
  readonly inDoubt: InDoubtMode;
  /** The state directory, and the run folder named on the command line (a resume's), if any. */
  readonly stateDir: string;
  readonly explicit: string | undefined;
  /** Whether the run folder named is inside `stateDir`'s runs (else --state-dir must agree). */
  readonly inRuns: boolean;
  /** The command that continues a run of this command, as its stops print it. */
  readonly resumeOf: (runDir: string) => string;
}

export type LiveRunArgs = RunArgs & LiveArgs & Partial<SyncModeArgs>;

/** The options that change what is sent, as a run's identity records them. */
export function payloadOptionsOf(a: LiveRunArgs): PayloadOptions {
  return {
    input: a.input ?? null,
    limit: a.limit ?? null,
    'deal-update-method': a['deal-update-method'],
    bulk: a.bulk,
    'bulk-min-rows': a['bulk-min-rows'],
    'bulk-chunk-rows': a['bulk-chunk-rows'],
  };
}
