/** One measured client run of `npm run bench:bulk`, in its own process so that its peak RSS and CPU time are its own. */
import { PassThrough } from 'node:stream';
import { main } from '../src/cli/main.js';

const args = process.argv.slice(2);
const sink = new PassThrough();
sink.resume();
const stderr = new PassThrough();
let text = '';
stderr.on('data', (c: Buffer) => (text += c.toString()));
const started = performance.now();
const code = await main(args, {
  stdout: sink,
  stderr,
  env: { ENGAGE_API_KEY: process.env.ENGAGE_API_KEY },
  cwd: process.cwd(),
  signal: new AbortController().signal,
});
const ms = performance.now() - started;
const usage = process.resourceUsage();
console.log(
  JSON.stringify({
    code,
    ms,
    cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
    maxRssMb: usage.maxRSS / 1024,
    summary: text
      .split('\n')
      .filter((l) => /rows in|bulk:|^\s+\S+\.csv/.test(l))
      .join('\n'),
  }),
);
