import { realpathSync } from 'node:fs';
import { isAbsolute } from 'node:path';

/**
 * The working folder as the shell names it (`$PWD`, links kept), when it is the process's own:
 * `cd /app/current && engage-import import job.yaml` from cron names the job `/app/current/job.yaml`
 * on every night, whichever release `current` points to. The physical folder (`process.cwd()`)
 * would name it by its release (`/app/releases/42/job.yaml`): after each deploy a new job, with
 * an empty sync state, that sends every event again. A `$PWD` left over from another folder
 * (a process started without a shell) is not used.
 */
export function logicalCwd(env: Readonly<Record<string, string | undefined>>, physical: string): string {
  const pwd = env.PWD;
  if (pwd === undefined || !isAbsolute(pwd)) return physical;
  try {
    return realpathSync(pwd) === realpathSync(physical) ? pwd : physical;
  } catch {
    return physical;
  }
}
