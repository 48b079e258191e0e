#!/usr/bin/env node
import { withLogFormat } from '../log/cli-logger.js';
import { earlyArgs } from './early-args.js';
import { tuneV8Memory } from './v8-memory.js';
import { logicalCwd } from './logical-cwd.js';
import { main } from './main.js';
import { drainTimeoutMs, resumeCommandAtStart, stoppedAtOnceNotice } from './stopped-at-once.js';

tuneV8Memory();

// The first SIGINT/SIGTERM asks the running command to stop cleanly (it sees io.signal): no new
// rows, in-flight requests finish and are recorded, the report is flushed. A second signal, or
// the drain timeout, stops at once; the ledger still allows the resume. Only a live run has
// requests in flight and a ledger to resume from: the other commands stop at the next row.
const argv = process.argv.slice(2);
const early = earlyArgs(argv);
/** In-flight requests get this long to finish after the first signal. */
const DRAIN_TIMEOUT_MS = drainTimeoutMs(early);
const live = (early.command === 'import' || early.command === 'resume') && !early.dryRun;
const controller = new AbortController();
// What continues the run once it has a folder to resume from; before that (a new run still
// loading its job or waiting for the lock) nothing was sent and there is nothing to resume.
let resumeCommand: string | undefined = resumeCommandAtStart(early);
// With --log-format json, the notices below are json lines too.
const io = withLogFormat(
  {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: logicalCwd(process.env, process.cwd()),
    signal: controller.signal,
    onRunFolder: (command: string | undefined) => {
      resumeCommand = command;
    },
  },
  early.logFormat,
);
let signalled = 0;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  const code = sig === 'SIGINT' ? 130 : 143;
  process.on(sig, () => {
    signalled++;
    if (signalled > 1) {
      io.stderr.write(`engage-import: ${stoppedAtOnceNotice(sig, live, resumeCommand)}\n`);
      process.exit(code);
    }
    if (!live) {
      io.stderr.write(`engage-import: ${sig}: stopping after the row being read (${sig} again to stop at once)\n`);
      controller.abort(sig);
      return;
    }
    io.stderr.write(
      `engage-import: ${sig}: finishing the requests in flight (up to ${DRAIN_TIMEOUT_MS / 1000} s; ${sig} again to stop at once)\n`,
    );
    controller.abort(sig);
    setTimeout(() => {
      io.stderr.write(
        `engage-import: requests still in flight after ${DRAIN_TIMEOUT_MS / 1000} s; ${stoppedAtOnceNotice(sig, live, resumeCommand)}\n`,
      );
      process.exit(code);
    }, DRAIN_TIMEOUT_MS).unref();
  });
}

// A reader that went away (`| head`: EPIPE) or a full disk behind stdout (`--json > file`) would
// otherwise crash the process with a stack trace after the run logged its end, and before its
// notification: the run's exit code stands, and a failure other than EPIPE is said on stderr.
let stdoutFailed: string | undefined;
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  stdoutFailed ??= error.code ?? error.message;
});
process.stderr.on('error', () => {
  // Nowhere left to say it; the exit code still tells.
});

const code = await main(argv, io);
// A failed write is reported on a later tick: let it arrive.
await new Promise((done) => setImmediate(done));
if (stdoutFailed !== undefined && stdoutFailed !== 'EPIPE')
  io.stderr.write(`engage-import: warning: the output on stdout could not be written (${stdoutFailed})\n`);
process.exitCode = code;
