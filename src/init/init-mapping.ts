import { existsSync, statSync, type Stats } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import type { ResourceName } from '../config/mapping-schema.js';
import { ConfigError } from '../errors.js';
import { isSameFile } from '../pipeline/output-paths.js';
import { displayPath } from '../text/display-path.js';
import { formatErrorGroup } from '../report/error-groups.js';
import { checkMapping, type MappingCheck } from './check-mapping.js';
import { draftMapping, type Draft } from './draft-mapping.js';
import { readSample } from './read-sample.js';
import { renderMapping } from './render-mapping.js';

export interface InitOptions {
  /** The CSV file, absolute. */
  readonly csv: string;
  readonly resource: ResourceName;
  /** Where the mapping is written, absolute. */
  readonly out: string;
  /** Rows sampled for the guesses. Default 1,000. */
  readonly sample?: number | undefined;
  /** Overwrite an existing file. Default false. */
  readonly force?: boolean | undefined;
  /** Use this encoding instead of detecting it. */
  readonly encoding?: string | undefined;
  /** How the paths are shown in the comments (the command line's cwd). */
  readonly cwd: string;
  /** Ctrl-C / SIGTERM: the whole-file check stops at the next row, the mapping says how far it got. */
  readonly signal?: AbortSignal | undefined;
}

export interface InitResult {
  readonly draft: Draft;
  /** What the check over the whole file found; absent when the mapping does not load yet (`problem`). */
  readonly check: MappingCheck | undefined;
  /** Why the written mapping does not load (every field left for the user to decide, say). */
  readonly problem: string | undefined;
  readonly sampled: number;
}

const number = new Intl.NumberFormat('en-US');

/**
 * `engage-import init`: sample the file with the tool's reader, guess the mapping, write it, then
 * run it over the whole file as `validate` would and write it again with what that found, so the
 * file says which rows would fail and why.
 */
export async function initMapping(options: InitOptions): Promise<InitResult> {
  checkPaths(options);
  if (existsSync(options.out) && options.force !== true) {
    throw new ConfigError(
      'OUTPUT',
      `${displayPath(options.out, options.cwd)} exists already; pass --force to overwrite it`,
    );
  }
  const sample = await readSample(options.csv, { size: options.sample, encoding: options.encoding });
  const sourceFile = relative(dirname(options.out), options.csv).split(sep).join('/') || basename(options.csv);
  const draft = draftMapping(sample, options.resource, sourceFile);
  const intro = [
    `Written by \`engage-import init\` from ${basename(options.csv)} (${number.format(sample.rows.length)} row${sample.rows.length === 1 ? '' : 's'} sampled). Every guess says why: check them,`,
    `then run: engage-import validate ${displayPath(options.out, options.cwd)}`,
    `encoding ${draft.source.encoding}: ${sample.encoding.why}`,
    `delimiter ${JSON.stringify(draft.source.delimiter)}: ${sample.sepLine ? "named by the file's first line (sep=)" : 'the separator found most often in the header line'}`,
    ...(sample.malformed > 0
      ? [
          `${sample.malformed} sampled record${sample.malformed === 1 ? '' : 's'} could not be parsed (wrong number of fields or a stray quote)`,
        ]
      : []),
  ];
  await writeMapping(options, renderAll(draft, intro, []));
  let check: MappingCheck | undefined;
  let problem: string | undefined;
  try {
    check = await checkMapping(options.out, options.signal);
  } catch (error) {
    // A mapping with every field left to decide does not load: the file says so and why.
    if (!(error instanceof ConfigError)) throw error;
    problem = error.message.replaceAll(options.out, basename(options.out));
  }
  const lines = check !== undefined ? checkLines(check) : [`This mapping does not load yet: ${problem}`];
  await writeMapping(
    options,
    renderAll(
      draft,
      intro,
      lines.flatMap((l) => l.split('\n')),
    ),
  );
  return { draft, check, problem, sampled: sample.rows.length };
}

/**
 * Refused before anything is read or written, even with --force: a CSV that is a folder, an --out
 * that is a folder or anything but a file (a device, a pipe), or that is the CSV itself (by
 * device and inode, so a link to it counts): writing the mapping would destroy the export.
 */
function checkPaths(options: InitOptions): void {
  const csv = displayPath(options.csv, options.cwd);
  const out = displayPath(options.out, options.cwd);
  if (statOf(options.csv)?.isDirectory() === true)
    throw new ConfigError('USAGE', `${csv} is a folder: name the CSV file`);
  const target = statOf(options.out);
  if (target === undefined) return;
  if (target.isDirectory())
    throw new ConfigError('USAGE', `--out ${out} is a folder: name a file (for example ${join(out, 'mapping.yaml')})`);
  if (!target.isFile()) throw new ConfigError('USAGE', `--out ${out} is not a regular file: name a file`);
  if (isSameFile(options.csv, options.out))
    throw new ConfigError('USAGE', `--out ${out} is the CSV file ${csv} itself: name another file for the mapping`);
}

function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** Writes the mapping; a folder or disk that refuses it is a clear error, not a stack trace. */
async function writeMapping(options: InitOptions, text: string): Promise<void> {
  try {
    await mkdir(dirname(options.out), { recursive: true });
    await writeFile(options.out, text);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new ConfigError('OUTPUT', `cannot write ${displayPath(options.out, options.cwd)} (${code})`, {
      cause: error,
    });
  }
}

function renderAll(draft: Draft, intro: readonly string[], check: readonly string[]): string {
  return renderMapping(draft, [...intro, ...(check.length > 0 ? ['', ...check] : [])]);
}

/** What running the mapping over the whole file found, in the file's own header comment. */
function checkLines(check: MappingCheck): string[] {
  if (check.interrupted === true) {
    const lines = [
      `Checked the first ${number.format(check.rows)} rows only (interrupted): ${number.format(check.invalid)} would fail. Run engage-import validate for the whole file.`,
    ];
    for (const group of check.errors.top()) lines.push(`  ${formatErrorGroup(group)}`);
    return lines;
  }
  if (check.invalid === 0)
    return [
      check.rows === 1
        ? 'Checked against the whole file: its one row is valid.'
        : `Checked against the whole file: all ${number.format(check.rows)} rows are valid.`,
    ];
  const rows = `${number.format(check.rows)} row${check.rows === 1 ? '' : 's'}`;
  const lines = [
    `Checked against the whole file: ${rows}, ${number.format(check.invalid)} would fail (validate's report lists each one):`,
  ];
  for (const group of check.errors.top()) lines.push(`  ${formatErrorGroup(group)}`);
  return lines;
}
