import { DEFAULTS } from '../defaults.js';
import { displayPath } from './display-path.js';

/**
 * The command that continues a stopped run, as its stop prints it: the run folder, and the report
 * the run was writing when it was not the default one (a cron line's dated report), so that the
 * resumed report lands where the run's did. Shell-quoted where a path holds a space or a quote.
 */
export function resumeCommand(runDir: string, report: string | undefined, cwd: string): string {
  const shown = report === undefined ? undefined : displayPath(report, cwd);
  const keep = shown !== undefined && shown !== DEFAULTS.report ? ` --report ${quoted(shown)}` : '';
  return `engage-import resume ${quoted(displayPath(runDir, cwd))}${keep}`;
}

const quoted = (path: string) => (/^[\w./@%+=:,-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`);
