/**
 * The vocabulary of a mapping field, owned by the mapping engine that interprets it. The mapping
 * file loader (`config/`) builds these from YAML/JSON and checks them with the engine's readers,
 * so `config/` imports from here and never the other way round.
 */

/** Types a cell can be converted to; `list` elements take one of the scalar ones. */
export const SCALAR_TYPES = [
  'string',
  'integer',
  'number',
  'decimal',
  'boolean',
  'date',
  'datetime',
  'unix',
  'json',
] as const;
export const VALUE_TYPES = [...SCALAR_TYPES, 'list'] as const;
export type ScalarType = (typeof SCALAR_TYPES)[number];
export type ValueType = (typeof VALUE_TYPES)[number];

/** A field with every default filled in: what the mapping engine works from. */
export interface ResolvedField {
  /** Target as written (`data.plan`), for messages. */
  readonly target: string;
  /** Target split on dots; numeric segments index arrays (`messages.0.title`). */
  readonly path: readonly string[];
  readonly column?: string;
  /** Present when the field is a constant. */
  readonly constant?: unknown;
  readonly type: ValueType;
  readonly items: ScalarType;
  readonly format?: string;
  readonly timezone: string;
  readonly separator: string;
  readonly decimals: number;
  /** Numbers are written with a decimal comma (`decimal_comma: true`). */
  readonly decimalComma?: true;
  readonly map?: Readonly<Record<string, string | number | boolean | null>>;
  readonly default?: unknown;
  readonly required: boolean;
  readonly empty: 'omit' | 'null';
  /** As the mapping says; absent: see `trimsCell` (ids and non-string types are trimmed). */
  readonly trim?: boolean;
}

/** What the engine needs of a whole mapping: its fields, its key columns, and its file for messages. */
export interface MappingFields {
  /** Absolute path of the mapping file (for messages). */
  readonly mappingFile: string;
  readonly key: readonly string[];
  readonly fields: readonly ResolvedField[];
}
