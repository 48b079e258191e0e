import { headerColumnsSentence } from './header-columns.js';
import { dirname, resolve } from 'node:path';
import iconv from 'iconv-lite';
import { ConfigError } from '../errors.js';
import { fieldReader } from '../mapping/field-value.js';
import type { ResolvedField } from '../mapping/field-spec.js';
import { checkTimezone } from '../mapping/zone-clock.js';
import { parseWith, readConfigFile, type ConfigDocument } from './_read-config-file.js';
import { MappingFileSchema, type FieldObjectInput, type ResolvedMapping } from './mapping-schema.js';

export interface MappingOverrides {
  /** CSV file to read instead of the mapping's `source.file` (relative to the cwd). */
  readonly input?: string;
  readonly cwd?: string;
}

/** Path segments that would reach an object's prototype instead of a field of the payload. */
const UNSAFE_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);

/** Read, validate and resolve one mapping file, as a job file's loader does for each of its mappings (`init` checks its draft this way); every default is filled in here, once. */
export async function loadMapping(path: string, overrides: MappingOverrides = {}): Promise<ResolvedMapping> {
  return resolveMapping(await readConfigFile(resolve(overrides.cwd ?? process.cwd(), path)), overrides);
}

export function resolveMapping(doc: ConfigDocument, overrides: MappingOverrides = {}): ResolvedMapping {
  const file = parseWith(doc, MappingFileSchema);
  const problems: string[] = [];
  const at = (fieldPath: (string | number)[], message: string) => {
    const line = doc.lineOf(fieldPath);
    problems.push(`${doc.path}${line ? `:${line}` : ''}: ${fieldPath.join('.')}: ${message}`);
  };

  const encoding = file.source.encoding ?? 'utf-8';
  if (!iconv.encodingExists(encoding)) at(['source', 'encoding'], `unknown encoding ${JSON.stringify(encoding)}`);

  const fields: ResolvedField[] = [];
  const bulkHeaders: Record<string, string> = {};
  for (const [target, spec] of Object.entries(file.fields)) {
    const f: FieldObjectInput = typeof spec === 'string' ? { column: spec } : spec;
    const where = ['fields', target];
    const type = f.type ?? 'string';
    const path = target.split('.');
    if (path.some((segment) => segment === '')) at(where, `target ${JSON.stringify(target)} has an empty path segment`);
    const unsafe = path.find((segment) => UNSAFE_SEGMENTS.has(segment));
    if (unsafe !== undefined)
      at(
        where,
        `target ${JSON.stringify(target)} uses ${JSON.stringify(unsafe)}, a name JavaScript objects reserve; no API field is called that`,
      );
    if (f.items !== undefined && type !== 'list') at([...where, 'items'], '`items` applies to type list only');
    if (f.separator !== undefined && type !== 'list')
      at([...where, 'separator'], '`separator` applies to type list only');
    if (f.decimals !== undefined && type !== 'decimal')
      at([...where, 'decimals'], '`decimals` applies to type decimal only');
    const numeric = (t: string | undefined) => t === 'number' || t === 'decimal';
    if (f.decimal_comma !== undefined && !(numeric(type) || (type === 'list' && numeric(f.items))))
      at([...where, 'decimal_comma'], '`decimal_comma` applies to types number and decimal (and lists of them) only');
    else if (
      f.decimal_comma === true &&
      type === 'list' &&
      [',', '.', ' ', "'", '\u00a0', '\u202f'].includes(f.separator ?? ',')
    )
      // The list would be cut inside its numbers (`12,5` → 12 and 5) before any of them is read.
      at(
        [...where, 'separator'],
        `a list of numbers with a decimal comma needs a separator its numbers do not hold (such as ; or |), not ${JSON.stringify(f.separator ?? ',')}`,
      );
    const dated =
      ['date', 'datetime', 'unix'].includes(type) ||
      (type === 'list' && ['date', 'datetime', 'unix'].includes(f.items ?? ''));
    if ((f.format !== undefined || f.timezone !== undefined) && !dated)
      at(where, '`format` and `timezone` apply to date, datetime and unix only');
    if (f.bulk_header !== undefined) {
      // One CSV column carries the whole top-level field: its parts must agree on the header.
      const top = path[0]!;
      // Two fields under one header: the importer would read one column twice, and refuse the file.
      const other = Object.entries(bulkHeaders).find(([field, header]) => field !== top && header === f.bulk_header);
      if (bulkHeaders[top] !== undefined && bulkHeaders[top] !== f.bulk_header)
        at(
          [...where, 'bulk_header'],
          `field ${JSON.stringify(top)} already has bulk_header ${JSON.stringify(bulkHeaders[top])}`,
        );
      else if (other !== undefined)
        at(
          [...where, 'bulk_header'],
          `${JSON.stringify(f.bulk_header)} is already the bulk_header of field ${JSON.stringify(other[0])}: each column of the upload needs its own`,
        );
      else bulkHeaders[top] = f.bulk_header;
    }
    const badZone = f.timezone === undefined ? undefined : checkTimezone(f.timezone);
    if (badZone !== undefined) at([...where, 'timezone'], badZone);
    const field: ResolvedField = {
      target,
      path,
      ...(f.column !== undefined ? { column: f.column } : {}),
      ...(f.value !== undefined ? { constant: f.value } : {}),
      type,
      items: f.items ?? 'string',
      ...(f.format !== undefined ? { format: f.format } : {}),
      timezone: f.timezone ?? 'UTC',
      separator: f.separator ?? ',',
      decimals: f.decimals ?? 2,
      ...(f.decimal_comma === true ? { decimalComma: true as const } : {}),
      ...(f.map !== undefined ? { map: f.map } : {}),
      ...(f.default !== undefined ? { default: f.default } : {}),
      required: f.required ?? false,
      empty: f.empty ?? 'omit',
      ...(f.trim !== undefined ? { trim: f.trim } : {}),
    };
    fields.push(field);
    // What only compiling the field finds (a date format without a year, a `map` or `default`
    // value of the wrong type) is reported here too, where the line of the field is known.
    if (badZone === undefined) {
      try {
        fieldReader(field);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        at(where, error.message);
      }
    }
  }
  checkPathConflicts(fields, at);
  if (file.resource === 'deal' && file.bulk === true && file.operation !== 'update_or_create')
    // The deal importer creates or updates by custom_id: a create must make a new deal each
    // time, an update must change deal `id` or fail.
    at(
      ['bulk'],
      `\`bulk: true\` needs operation update_or_create: the deal importer creates or updates deals by custom_id, which is not what operation ${file.operation ?? '(none)'} does. Remove \`bulk: true\`, or use operation update_or_create`,
    );
  else if (file.resource === 'deal' && file.bulk === true) {
    const missing = [...new Set(fields.map((f) => f.path[0]!))].filter((top) => bulkHeaders[top] === undefined);
    // The deal importer's header names are not published: the mapping must give them.
    if (missing.length > 0)
      at(
        ['bulk'],
        `a deal mapping with \`bulk: true\` needs \`bulk_header:\` on every field; missing for ${missing.join(', ')}`,
      );
  }
  if (problems.length > 0) throw new ConfigError('CONFIG_INVALID', problems.join('\n'));

  const source =
    overrides.input !== undefined
      ? resolve(overrides.cwd ?? process.cwd(), overrides.input)
      : resolve(dirname(doc.path), file.source.file);
  return {
    mappingFile: doc.path,
    resource: file.resource,
    operation: file.operation,
    source: {
      path: source,
      delimiter: file.source.delimiter ?? ',',
      encoding,
      ...(overrides.input !== undefined && { fromCommandLine: true as const }),
    },
    key: typeof file.key === 'string' ? [file.key] : file.key,
    fields,
    ...(file.order !== undefined ? { order: file.order } : {}),
    ...(file.identity !== undefined ? { identity: file.identity } : {}),
    ...(file.bulk !== undefined ? { bulk: file.bulk } : {}),
    ...(Object.keys(bulkHeaders).length > 0 ? { bulkHeaders } : {}),
  };
}

/** `data` and `data.plan` cannot both be targets: the scalar would be overwritten by the object. */
function checkPathConflicts(fields: readonly ResolvedField[], at: (p: string[], m: string) => void): void {
  const targets = new Set(fields.map((f) => f.target));
  for (const f of fields) {
    for (let n = 1; n < f.path.length; n++) {
      const prefix = f.path.slice(0, n).join('.');
      if (targets.has(prefix))
        at(
          ['fields', f.target],
          `conflicts with field ${JSON.stringify(prefix)}, which sets the same place to a single value`,
        );
    }
  }
}

/**
 * A mapping that names a column missing from the CSV header fails before row 1, naming the
 * mapping file, the field and the columns the header does have.
 */
export function checkHeader(mapping: ResolvedMapping, header: readonly string[]): void {
  const have = new Set(header);
  const missing: string[] = [];
  for (const f of mapping.fields) {
    if (f.column !== undefined && !have.has(f.column))
      missing.push(`field ${JSON.stringify(f.target)} reads column ${JSON.stringify(f.column)}`);
  }
  for (const k of mapping.key) {
    if (!have.has(k)) missing.push(`key reads column ${JSON.stringify(k)}`);
  }
  if (missing.length === 0) return;
  throw new ConfigError(
    'MAPPING_COLUMN_MISSING',
    `${mapping.mappingFile}: ${missing.join('; ')}, but ${mapping.source.path} has no such column. ${headerColumnsSentence(header)}`,
  );
}
