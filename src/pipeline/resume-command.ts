import { DEFAULTS } from '../defaults.js';
import { displayPath } from '../text/display-path.js';

/**
 * The command that continues a stopped run, as its stop prints it: the run folder, the report
 * and rejects the run was writing when they were not the defaults (a cron line's dated report),
 * so that the resumed ones land where the run's did, and the key file the run read its API key
 * from (its path, never the key: without it, a resume run as printed finds no key). Shell-quoted where a path holds a space or a
 * quote; a path that starts with `-` is given as `./-…`, not to be read as an option.
 */
export function resumeCommand(
  runDir: string,
  outputs: {
    readonly report?: string | undefined;
    readonly rejects?: string | undefined;
    readonly apiKeyFile?: string | undefined;
  },
  cwd: string,
): string {
  const report = outputs.report === undefined ? undefined : displayPath(outputs.report, cwd);
  const keepReport = report !== undefined && report !== DEFAULTS.report ? ` --report ${quoted(report)}` : '';
  const keepRejects = outputs.rejects === undefined ? '' : ` --rejects ${quoted(displayPath(outputs.rejects, cwd))}`;
  const keepKeyFile =
    outputs.apiKeyFile === undefined ? '' : ` --api-key-file ${quoted(displayPath(outputs.apiKeyFile, cwd))}`;
  return `engage-import resume ${quoted(displayPath(runDir, cwd))}${keepReport}${keepRejects}${keepKeyFile}`;
}

const quoted = (path: string) => {
  const safe = path.startsWith('-') ? `./${path}` : path;
  return /^[\w./@%+=:,-]+$/.test(safe) ? safe : `'${safe.replace(/'/g, `'\\''`)}'`;
};
