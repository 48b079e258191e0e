/** One measured client run of `npm run bench:bulk`, in its own process so that its peak RSS and CPU time are its own. */
import { measuredCliRun } from './_measured-cli-run.js';

const { stderr, ...run } = await measuredCliRun(process.argv.slice(2), process.env.ENGAGE_API_KEY, process.cwd());
const summary = stderr
  .split('\n')
  .filter((l) => /rows in|bulk:|^\s+\S+\.csv/.test(l))
  .join('\n');
console.log(JSON.stringify({ ...run, summary }));
