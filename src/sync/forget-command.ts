import { dirname, join } from 'node:path';
import { runsDir } from '../ledger/run-dirs.js';
import { displayPath } from '../text/display-path.js';
import { stateDirBeside } from './state-file.js';
import type { SyncState } from './sync-state.js';

/**
 * The `state forget` command line that reaches this state from where the run was started: the
 * job named (the state commands look for its state beside it), and the state directory when it
 * is not that default. Paths as the report shows them, quoted for a shell when they need it.
 */
export function forgetCommand(state: SyncState | undefined): string {
  if (state === undefined || state.job === '') return 'engage-import state forget';
  const { cwd } = state.place;
  // The state file is <state-dir>/sync/<job>-<hash>.sqlite.
  const stateDir = dirname(dirname(state.place.file));
  const job = `--job ${shellWord(displayPath(state.job, cwd))}`;
  return stateDir === stateDirBeside(state.job)
    ? `engage-import state forget ${job}`
    : `engage-import state forget ${job} --state-dir ${shellWord(displayPath(stateDir, cwd))}`;
}

const shellWord = (word: string) => (/^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);

/**
 * The `resume --resend-unknown` command line of one run of this state (its run folder, as the
 * report shows paths), or a description of it when the state's place is unknown.
 */
export function resendCommand(state: SyncState | undefined, runId: string): string {
  if (state === undefined) return `engage-import resume --resend-unknown on run ${runId}'s folder`;
  const stateDir = dirname(dirname(state.place.file));
  return `engage-import resume ${shellWord(displayPath(join(runsDir(stateDir), runId), state.place.cwd))} --resend-unknown`;
}
