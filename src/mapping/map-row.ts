import type { MappingFields } from './field-spec.js';
import { ConfigError } from '../errors.js';
import { Invalid } from './_converter.js';
import type { FieldError } from './field-error.js';
import { fieldReader, OMIT, trimsCell, type FieldReader, type RowValues } from './field-value.js';
import { compactArrays, compilePaths, setAt, targetOf, type CreatedArray, type PayloadPath } from './payload-path.js';

export type { RowValues } from './field-value.js';

/** One row mapped: the payload, and every field error of the row (not only the first). */
export interface MappedRow {
  /** The fields that could be read; a field with an error is left out. */
  readonly payload: Record<string, unknown>;
  /** One per failed field, `field` being the target path (`data.plan`), in mapping order. */
  readonly errors: FieldError[];
  /**
   * The mapping's target for a field path of `payload`, present only when they differ: an array
   * element was left out and the ones after it moved up. Checks of the payload report through it,
   * so that a message names the field as the mapping does.
   */
  readonly targetOf?: (field: string) => string;
  /** Things changed on the way that the user should know of (spaces taken off an id), when any. */
  readonly notes?: string[];
}

/** A mapping compiled for speed: call it once per row. */
export type RowMapper = (values: RowValues) => MappedRow;

interface CompiledField {
  readonly target: string;
  readonly read: FieldReader;
  readonly path: PayloadPath;
  /** The column of a string field trimmed by default (an id): a cell with spaces gets a note. */
  readonly trimmedColumn: string | undefined;
}

/**
 * Prepare a mapping once: every field's converter, zone, date parser and map, and every target
 * path. A row then costs one pass over the fields, one payload object and its containers.
 * @throws ConfigError (`CONFIG_INVALID`) for a default or map value of the wrong type, an unusable
 * zone or date format, or targets that collide, with every problem of the mapping in one message.
 */
export function compileMapping(mapping: MappingFields): RowMapper {
  const problems: string[] = [];
  const readers = mapping.fields.map((field): FieldReader => {
    try {
      return fieldReader(field);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(`fields.${field.target}: ${error.message}`);
      return () => OMIT;
    }
  });
  const compiledPaths = compilePaths(mapping.fields.map((f) => f.path));
  problems.push(...compiledPaths.problems.map((p) => `fields: ${p}`));
  if (problems.length > 0) {
    throw new ConfigError('CONFIG_INVALID', problems.map((p) => `${mapping.mappingFile}: ${p}`).join('\n'));
  }
  const fields: CompiledField[] = mapping.fields.map((field, i) => ({
    target: field.target,
    read: readers[i] ?? (() => OMIT),
    path: compiledPaths.paths[i] ?? { keys: field.path },
    trimmedColumn:
      field.type === 'string' && field.trim === undefined && field.map === undefined && trimsCell(field)
        ? field.column
        : undefined,
  }));
  const hasArrays = compiledPaths.paths.some((p) => p.keys.some((k) => typeof k === 'number'));

  return (values) => {
    const payload: Record<string, unknown> = {};
    const errors: FieldError[] = [];
    const created: CreatedArray[] | undefined = hasArrays ? [] : undefined;
    let notes: string[] | undefined;
    for (const field of fields) {
      const value = field.read(values);
      if (value === OMIT) continue;
      if (value instanceof Invalid) errors.push({ field: field.target, message: value.message });
      else {
        setAt(payload, field.path, value, created);
        if (field.trimmedColumn !== undefined && typeof value === 'string' && value !== values[field.trimmedColumn]) {
          notes ??= [];
          notes.push(
            `${field.target}: spaces around ${JSON.stringify(values[field.trimmedColumn])} were removed (set trim: false to keep them)`,
          );
        }
      }
    }
    const moved = created !== undefined && created.length > 0 ? compactArrays(created) : undefined;
    const extra = notes === undefined ? {} : { notes };
    if (moved === undefined || moved.size === 0) return { payload, errors, ...extra };
    return { payload, errors, targetOf: (field) => targetOf(field, moved), ...extra };
  };
}
