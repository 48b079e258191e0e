import type { ResolvedMapping } from '../../src/config/mapping-schema.js';
import type { ResolvedField } from '../../src/mapping/field-spec.js';

/** A resolved field reading column `c` into target `f`, every default as the loader fills it. */
export function field(overrides: Partial<ResolvedField> = {}): ResolvedField {
  const target = overrides.target ?? 'f';
  return {
    target,
    path: target.split('.'),
    column: 'c',
    type: 'string',
    items: 'string',
    timezone: 'UTC',
    separator: ',',
    decimals: 2,
    required: false,
    empty: 'omit',
    ...overrides,
  };
}

/** A field sending `value` for every row (no column). */
export function constantField(target: string, value: unknown): ResolvedField {
  const { column: _column, ...rest } = field({ target });
  return { ...rest, constant: value };
}

/** A resolved event mapping with these fields, keyed by column `id`. */
export function mapping(fields: readonly ResolvedField[], key: readonly string[] = ['id']): ResolvedMapping {
  return {
    mappingFile: '/work/mappings/test.yaml',
    resource: 'event',
    operation: undefined,
    source: { path: '/work/samples/test.csv', delimiter: ',', encoding: 'utf-8' },
    key,
    fields,
  };
}
