import { readableStateDir } from './output-args.js';
import type { LoadedJob } from '../config/load-job.js';
import type { ResourceName } from '../config/mapping-schema.js';
import { resolveBaseUrl } from '../transport/index.js';
import { keyFingerprint } from './run-identity.js';
import { catchUpWhenFree } from './catch-up-when-free.js';
import { unfinishedRunNote } from './unfinished-run-note.js';
import {
  createRunClassifier,
  refuseMovedJob,
  syncStateFile,
  SyncState,
  stateDirBeside,
  type RunClassifier,
} from '../sync/index.js';

/** Options of `validate` that ask for the incremental preview. */
export interface PreviewArgs {
  /** Classify rows against the job's sync state; default: the job file's `sync:` setting. */
  readonly incremental?: boolean | undefined;
  /** Preview a full refresh: unchanged entities are sent again (events the state holds never are). */
  readonly 'full-refresh'?: boolean | undefined;
  readonly 'state-dir'?: string | undefined;
  readonly 'deal-update-method': 'PATCH' | 'PUT';
  /** The key given is this account's, rotated since the state was recorded (as `import --key-rotated`). */
  readonly 'key-rotated'?: boolean | undefined;
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
  target: PreviewTarget = {},
): { classifier: RunClassifier; close: () => void } | undefined {
  const refresh = args['full-refresh'] === true;
  const incremental = refresh || (args.incremental ?? job.sync === 'incremental');
  if (!incremental) return undefined;
  // The same default as a live run: beside the job file, whatever the working directory.
  const stateDir =
    args['state-dir'] !== undefined ? readableStateDir(cwd, args['state-dir']) : stateDirBeside(job.file);
  const state = caughtUpState(job, stateDir, cwd);
  try {
    if (state !== undefined) checkPreviewTarget(state, target, args['key-rotated'] === true);
  } catch (error) {
    state?.close();
    throw error;
  }
  const classifier = createRunClassifier({
    state,
    mode: refresh ? 'full-refresh' : 'incremental',
    requestOptions: { dealUpdateMethod: args['deal-update-method'] },
    comparesWithEarlierFiles: resourcesOfManyFiles(job),
  });
  const unfinished = unfinishedRunNote(job, stateDir, cwd);
  return {
    classifier:
      unfinished === undefined ? classifier : { ...classifier, notes: () => [unfinished, ...classifier.notes()] },
    close: () => {
      classifier.close();
      state?.close();
    },
  };
}

/** The resources that more than one mapping of the job sends. */
function resourcesOfManyFiles(job: LoadedJob): ReadonlySet<ResourceName> {
  const seen = new Set<ResourceName>();
  const many = new Set<ResourceName>();
  for (const m of job.mappings) (seen.has(m.resource) ? many : seen).add(m.resource);
  return many;
}

/** The account the live run would send to, as far as the command knows it (each part optional). */
export interface PreviewTarget {
  /** --base-url (import --dry-run) or ENGAGE_BASE_URL, as given. */
  readonly baseUrl?: string | undefined;
  /** The API key from --api-key-file (import --dry-run) or ENGAGE_API_KEY. */
  readonly apiKey?: string | undefined;
}

/**
 * The state belongs to one account: a preview for another (the base URL or API key the live run
 * would use) is refused as that run would be, rather than calling rows `unchanged` that account
 * never got. What the command does not know, or cannot read (a base URL that is not one: the
 * preview needs none), is taken as the state's.
 */
function checkPreviewTarget(state: SyncState, target: PreviewTarget, keyRotated: boolean): void {
  const recorded = state.target();
  if (recorded === undefined) return;
  const url = target.baseUrl?.trim();
  const key = target.apiKey?.trim();
  let baseUrl = recorded.baseUrl;
  try {
    if (url) baseUrl = resolveBaseUrl(url).href;
  } catch {
    // Not a URL: the live run would refuse it; the preview compares what it can.
  }
  state.checkTarget(
    { baseUrl, keyFingerprint: key ? keyFingerprint(key) : recorded.keyFingerprint },
    false,
    keyRotated,
  );
}

/**
 * The state as the next run will see it: that run first applies what earlier runs committed and
 * the state missed, and so does the preview when it can (`catchUpWhenFree`). Undefined: no state yet.
 */
function caughtUpState(job: LoadedJob, stateDir: string, cwd: string): SyncState | undefined {
  // As the live run refuses it: calling every row new would not be what that run does.
  refuseMovedJob(stateDir, job.file, cwd);
  const state = SyncState.open(syncStateFile(stateDir, job.file), job.file, { cwd, mode: 'read' });
  if (state === undefined) return undefined;
  try {
    catchUpWhenFree(state, stateDir, cwd);
  } catch (error) {
    state.close();
    throw error;
  }
  return state;
}
