import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forgetCommand } from '../../src/sync/forget-command.js';
import { syncStateFile } from '../../src/sync/state-file.js';
import { SyncState } from '../../src/sync/sync-state.js';
import { tmpTree } from '../helpers/tmp.js';

/** The command for a state of `job` kept in `stateDir`, both under a fresh folder that is also the cwd. */
function commandFor(job: string, stateDir: string): string {
  const cwd = tmpTree({});
  const state = SyncState.open(syncStateFile(join(cwd, stateDir), join(cwd, job)), join(cwd, job), {
    cwd,
    mode: 'write',
  })!;
  try {
    return forgetCommand(state);
  } finally {
    state.close();
  }
}

describe('forgetCommand: the state forget command line that reaches a job state from where the run started', () => {
  it('names the job; its state beside it needs no --state-dir', () => {
    expect(commandFor('nightly/job.yaml', 'nightly/.engage-import')).toBe(
      'engage-import state forget --job nightly/job.yaml',
    );
  });

  it('names the state directory when it is elsewhere, and quotes paths a shell would split', () => {
    expect(commandFor('my jobs/job.yaml', 'state')).toBe(
      "engage-import state forget --job 'my jobs/job.yaml' --state-dir state",
    );
  });

  it('without a state: the bare command', () => {
    expect(forgetCommand(undefined)).toBe('engage-import state forget');
  });
});
