import { ConfigError } from '../errors.js';
import { stateDirOf } from '../ledger/index.js';
import { displayPath } from '../text/display-path.js';
import { isSameFile } from '../pipeline/output-paths.js';

/**
 * `resume <run folder> --state-dir D`: a run belongs to the state directory that holds it (its
 * lock, and the sync state its accepted rows went into). Resuming it against another directory's
 * sync state would compare its rows with a state that never saw them, and send events again.
 */
export function refuseOtherStateDir(runDir: string, stateDir: string, cwd: string): void {
  const own = stateDirOf(runDir);
  if (isSameFile(own, stateDir)) return;
  throw new ConfigError(
    'USAGE',
    `the run ${displayPath(runDir, cwd)} belongs to the state directory ${displayPath(own, cwd)}, not to --state-dir ${displayPath(stateDir, cwd)}: leave --state-dir out to resume it where it started`,
  );
}
