import type { MappingFields } from '../../src/mapping/field-spec.js';
import { compileMapping, type MappedRow, type RowValues } from '../../src/mapping/map-row.js';

/**
 * One row through a mapping, for tests that check one row at a time: the mapping is compiled on
 * first use and cached for as long as the mapping object lives (the pipeline compiles once per
 * file with `compileMapping` instead).
 */
const compiled = new WeakMap<MappingFields, (values: RowValues) => MappedRow>();

export function mapRow(values: RowValues, mapping: MappingFields): MappedRow {
  let mapper = compiled.get(mapping);
  if (mapper === undefined) {
    mapper = compileMapping(mapping);
    compiled.set(mapping, mapper);
  }
  return mapper(values);
}

function cellOf(values: RowValues, column: string): string {
  const cell = values[column];
  if (typeof cell !== 'string') throw new Error(`keyOf: key column ${JSON.stringify(column)} is not in the row`);
  return cell;
}

/** The row's key for the report: the key columns' cells, as written, joined with `|`. */
export function keyOf(values: RowValues, mapping: MappingFields): string {
  return mapping.key.map((column) => cellOf(values, column)).join('|');
}
