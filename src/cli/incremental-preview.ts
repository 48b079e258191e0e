import { dirname, join, resolve } from 'node:path';
import type { LoadedJob } from '../config/load-job.js';
import { DEFAULTS } from '../defaults.js';
import { createRunClassifier, syncStateFile, SyncState, type RunClassifier } from '../sync/index.js';

/** Options of `validate` that ask for the incremental preview. */
export interface PreviewArgs {
  /** Classify rows against the job's sync state; default: the job file's `sync:` setting. */
  readonly incremental?: boolean | undefined;
  readonly 'state-dir'?: string | undefined;
  readonly 'deal-update-method': 'PATCH' | 'PUT';
}

/**
 * The classifier of `validate --incremental`: the job's sync state opened for reading (none yet:
 * every row is new), and a function that releases both. Undefined when the preview is not asked
 * for. A state of a newer format, or a damaged one, is refused here, before any row is read.
 */
export function openPreview(
  job: LoadedJob,
  args: PreviewArgs,
  cwd: string,
): { classifier: RunClassifier; close: () => void } | undefined {
  const incremental = args.incremental ?? job.sync === 'incremental';
  if (!incremental) return undefined;
  // The same default as a live run: beside the job file, whatever the working directory.
  const stateDir =
    args['state-dir'] !== undefined ? resolve(cwd, args['state-dir']) : join(dirname(job.file), DEFAULTS.stateDir);
  const state = SyncState.open(syncStateFile(stateDir, job.file), job.file, { cwd, mode: 'read' });
  const classifier = createRunClassifier({
    state,
    mode: 'incremental',
    requestOptions: { dealUpdateMethod: args['deal-update-method'] },
  });
  return {
    classifier,
    close: () => {
      classifier.close();
      state?.close();
    },
  };
}
