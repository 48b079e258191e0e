// tsc writes dist/src/cli/bin.js without the execute bit, and `npm ci` links no bin of the
// project itself: without it, `npx engage-import` and a cron line naming the file fail with
// "Permission denied". Run after every build.
import { chmodSync, readFileSync } from 'node:fs';

const { bin } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
for (const file of Object.values(bin)) chmodSync(new URL(`../${file}`, import.meta.url), 0o755);
