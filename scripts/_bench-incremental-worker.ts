/** One measured command of `npm run bench:incremental`, in its own process so that its peak RSS is its own. */
import { PassThrough } from 'node:stream';
import { main } from '../src/cli/main.js';

const [cwd, apiKey, ...argv] = process.argv.slice(2) as [string, string, ...string[]];
const started = performance.now();
const sink = new PassThrough();
sink.resume();
const stderr = new PassThrough();
let text = '';
stderr.on('data', (c: Buffer) => (text += c.toString()));
const code = await main(argv, {
  stdout: sink,
  stderr,
  env: { ENGAGE_API_KEY: apiKey },
  cwd,
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
    stderr: text.slice(0, 4000),
  }),
);
