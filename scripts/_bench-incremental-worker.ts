/** One measured command of `npm run bench:incremental`, in its own process so that its peak RSS is its own. */
import { measuredCliRun } from './_measured-cli-run.js';

const [cwd, apiKey, ...argv] = process.argv.slice(2) as [string, string, ...string[]];
const { stderr, ...run } = await measuredCliRun(argv, apiKey, cwd);
console.log(JSON.stringify({ ...run, stderr: stderr.slice(0, 4000) }));
