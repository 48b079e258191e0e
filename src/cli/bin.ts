#!/usr/bin/env node
import { logFormatOf, withLogFormat } from '../log/cli-logger.js';
import { main } from './main.js';

/** In-flight requests get this long to finish after the first signal (issue 5). */
const DRAIN_TIMEOUT_MS = 30_000;

// The first SIGINT/SIGTERM asks the running command to stop cleanly (it sees io.signal): no new
// rows, in-flight requests finish and are recorded, the report is flushed. A second signal, or
// the drain timeout, stops at once; the ledger still allows the resume.
const controller = new AbortController();
// With --log-format json, the notices below are json lines too.
const io = withLogFormat({ stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), signal: controller.signal }, logFormatOf(process.argv.slice(2)));
let signalled = 0;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  const code = sig === 'SIGINT' ? 130 : 143;
  process.on(sig, () => {
    signalled++;
    if (signalled > 1) {
      io.stderr.write(`engage-import: stopped at once (${sig}); 'engage-import resume' continues the run\n`);
      process.exit(code);
    }
    io.stderr.write(`engage-import: ${sig}: finishing the requests in flight (up to ${DRAIN_TIMEOUT_MS / 1000} s; ${sig} again to stop at once)\n`);
    controller.abort(sig);
    setTimeout(() => {
      io.stderr.write(`engage-import: requests still in flight after ${DRAIN_TIMEOUT_MS / 1000} s; stopping; 'engage-import resume' continues the run\n`);
      process.exit(code);
    }, DRAIN_TIMEOUT_MS).unref();
  });
}

const code = await main(process.argv.slice(2), io);
process.exitCode = code;
