#!/usr/bin/env node
import { main } from './main.js';

// The first SIGINT/SIGTERM asks the running command to stop cleanly (it sees io.signal); a second
// one stops at once.
const controller = new AbortController();
let signalled = 0;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    signalled++;
    if (signalled > 1) process.exit(sig === 'SIGINT' ? 130 : 143);
    controller.abort(sig);
  });
}

const code = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
});
process.exitCode = code;
