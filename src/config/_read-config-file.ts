import { readFile } from 'node:fs/promises';
import { LineCounter, parseDocument, isNode, isScalar, visit, type Document } from 'yaml';
import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import { jsonDepth } from '../json-depth.js';

/**
 * A YAML or JSON config file, parsed, with a way back from a field path to its line so that an
 * error reads `mappings/deals.yaml:12: fields.status.type: ...`, and the job fails before row 1.
 */
export interface ConfigDocument {
  readonly path: string;
  readonly data: unknown;
  /** 1-based line of the value at `path`, or of the nearest parent that exists. */
  lineOf(fieldPath: readonly PropertyKey[]): number | undefined;
}

/** A mapping or job file is a page of YAML: anything this large is not one, and is not parsed. */
const MAX_CONFIG_BYTES = 1024 * 1024;
/** Nesting of `[`/`{` a config file may use (the YAML parser recurses per level). */
const MAX_FLOW_DEPTH = 64;
/** Alias expansions allowed per file: a mapping has little reason to use any. */
const MAX_ALIASES = 100;

export async function readConfigFile(path: string): Promise<ConfigDocument> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    throw new ConfigError(
      'CONFIG_INVALID',
      `${path}: cannot read the file (${(cause as NodeJS.ErrnoException).code ?? String(cause)})`,
      { cause },
    );
  }
  // Checked before parsing: a deeply nested or huge file makes the parser itself run out of stack or memory.
  if (text.length > MAX_CONFIG_BYTES)
    throw new ConfigError(
      'CONFIG_INVALID',
      `${path}: the file is ${text.length} characters long; a mapping or job file is at most ${MAX_CONFIG_BYTES}`,
    );
  const depth = jsonDepth(text, MAX_FLOW_DEPTH);
  if (depth > MAX_FLOW_DEPTH)
    throw new ConfigError(
      'CONFIG_INVALID',
      `${path}: lists or objects nested more than ${MAX_FLOW_DEPTH} levels deep; a mapping needs a few`,
    );
  // YAML 1.2 is a superset of JSON, so one parser serves both formats and both get line numbers.
  const lineCounter = new LineCounter();
  const doc: Document = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  const first = doc.errors[0];
  if (first) {
    const line = first.linePos?.[0].line;
    throw new ConfigError(
      'CONFIG_INVALID',
      `${path}${line ? `:${line}` : ''}: not valid YAML/JSON: ${first.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '')}`,
    );
  }
  // A `__proto__` key would set the prototype of the object it is in, not a key: JavaScript drops
  // it without a word, so it is refused here where its line is known.
  let proto: number | undefined;
  visit(doc, {
    Pair(_, pair) {
      if (isScalar(pair.key) && pair.key.value === '__proto__') {
        proto = pair.key.range ? lineCounter.linePos(pair.key.range[0]).line : 0;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  if (proto !== undefined)
    throw new ConfigError(
      'CONFIG_INVALID',
      `${path}${proto ? `:${proto}` : ''}: the key "__proto__" is a name JavaScript objects reserve; no field or value can be called that`,
    );
  let data: unknown;
  try {
    // `maxAliasCount` bounds what aliases may expand to (a "billion laughs" file stops here).
    data = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (cause) {
    throw new ConfigError(
      'CONFIG_INVALID',
      `${path}: its aliases (*name) expand to too much (${(cause as Error).message}); write the values out or use fewer aliases`,
      { cause },
    );
  }
  return {
    path,
    data,
    lineOf(fieldPath) {
      for (let n = fieldPath.length; n >= 0; n--) {
        const node: unknown = doc.getIn(fieldPath.slice(0, n).map(String), true);
        if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
      }
      return undefined;
    },
  };
}

/** Describe a value the way a user wrote it: `"int"`, `12`, `a list`, `nothing`. */
function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return JSON.stringify(value);
  return String(value);
}

/**
 * A field given as `column name | { ...object }` fails as a union: report the branch the user
 * meant (the one whose problems are deepest), not zod's generic "Invalid input".
 */
function unwrapUnion(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return [issue];
  const score = (branch: readonly z.core.$ZodIssue[]) =>
    branch.some((i) => i.path.length === 0 && i.code === 'invalid_type') ? 1 : 0;
  const best = [...issue.errors].sort((a, b) => score(a) - score(b))[0] ?? [];
  if (best.length === 0) return [issue];
  return best.flatMap((i) => unwrapUnion({ ...i, path: [...issue.path, ...i.path] } as z.core.$ZodIssue));
}

/** One zod issue as `file:line: path.to.field: expected X, got Y`. */
export function formatIssue(doc: ConfigDocument, issue: z.core.$ZodIssue): string {
  const line = doc.lineOf(issue.path);
  const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(top level)';
  let message = issue.message;
  if (issue.code === 'invalid_type') message = `expected ${issue.expected}, got ${describe(issue.input)}`;
  else if (issue.code === 'invalid_value')
    message = `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, got ${describe(issue.input)}`;
  else if (issue.code === 'unrecognized_keys')
    message = `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `\`${k}\``).join(', ')}`;
  return `${doc.path}${line ? `:${line}` : ''}: ${where}: ${message}`;
}

/** Validate `doc.data` against `schema`; every problem of the file in one ConfigError. */
export function parseWith<S extends z.ZodType>(doc: ConfigDocument, schema: S): z.output<S> {
  const result = schema.safeParse(doc.data, { reportInput: true });
  if (result.success) return result.data;
  throw new ConfigError(
    'CONFIG_INVALID',
    result.error.issues
      .flatMap(unwrapUnion)
      .map((i) => formatIssue(doc, i))
      .join('\n'),
  );
}
