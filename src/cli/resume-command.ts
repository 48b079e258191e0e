import type { Argv } from 'yargs';
import { DEFAULTS } from '../defaults.js';
import { defineCommand, type CliIo, type OptionsOf } from './command.js';
import { withRunOptions } from './common-options.js';
import { withLiveOptions } from './live-options.js';

function resumeOptions(y: Argv) {
  return withLiveOptions(
    withRunOptions(
      y.positional('run-dir', {
        type: 'string',
        describe: 'A run folder under the state dir, e.g. .engage-import/runs/20261123T071500Z-3f9a',
      }),
    ),
  )
    .example('$0 resume', 'Continue the newest unfinished run')
    .example(
      '$0 resume --resend-unknown',
      'Also resend rows in doubt (unknown, or in flight at a crash): check the account first, a resend may duplicate them',
    );
}

type ResumeArgs = OptionsOf<typeof resumeOptions>;

export const resumeCommand = defineCommand({
  command: 'resume [run-dir]',
  describe: `Continue an interrupted or stopped run: rows with an outcome are not sent again, rows not_sent are sent (default: the newest run in --state-dir, ./${DEFAULTS.stateDir})`,
  builder: resumeOptions,
  run: async (args: ResumeArgs, io: CliIo) => {
    // Loaded when the run starts: `--help` never loads undici and SQLite.
    const { runLive } = await import('./live-command.js');
    return runLive({ kind: 'resume', runDir: args['run-dir'] }, args, io);
  },
});
