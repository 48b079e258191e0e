import { z } from 'zod';

/** The API resources a mapping can load (see docs/api-contract.md). */
export const RESOURCES = ['product', 'user', 'deal', 'event', 'product-event', 'webpush-campaign'] as const;
export type ResourceName = (typeof RESOURCES)[number];

/** Deal is the only resource with several operations: create, update by id, update_or_create by custom id. */
export const DEAL_OPERATIONS = ['create', 'update', 'update_or_create'] as const;
export type Operation = (typeof DEAL_OPERATIONS)[number];

/** Types a cell can be converted to; `list` elements take one of the scalar ones. */
export const SCALAR_TYPES = ['string', 'integer', 'number', 'decimal', 'boolean', 'date', 'datetime', 'unix', 'json'] as const;
export const VALUE_TYPES = [...SCALAR_TYPES, 'list'] as const;
export type ScalarType = (typeof SCALAR_TYPES)[number];
export type ValueType = (typeof VALUE_TYPES)[number];

export const DELIMITERS = [',', ';', '\t', '|', 'auto'] as const;
export type Delimiter = (typeof DELIMITERS)[number];

const constant = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown()), z.record(z.string(), z.unknown())]);

/** A field given as an object: where its value comes from and how the cell is read. */
export const FieldObjectSchema = z
  .strictObject({
    /** CSV column the value is read from. Exactly one of `column` and `value`. */
    column: z.string().min(1).optional(),
    /** A constant sent for every row, instead of a column. */
    value: constant.optional(),
    /** How the cell is converted. Default `string`. */
    type: z.enum(VALUE_TYPES).optional(),
    /** Element type of a `list`. Default `string`. */
    items: z.enum(SCALAR_TYPES).optional(),
    /** Date pattern in luxon tokens (`dd.MM.yyyy HH:mm`). Default: ISO 8601. */
    format: z.string().min(1).optional(),
    /** IANA zone a date without an offset is read in. Default `UTC`. */
    timezone: z.string().min(1).optional(),
    /** Separator of a `list` cell. Default `,`. */
    separator: z.string().min(1).optional(),
    /** Digits after the point for a `decimal`. Default 2. */
    decimals: z.number().int().min(0).max(12).optional(),
    /** Lookup applied to the raw cell before conversion (`won: 2`). A cell not in the map is an error. */
    map: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
    /** Used when the cell is empty. */
    default: constant.optional(),
    /** An empty cell (and no default) is a row error. Default false. */
    required: z.boolean().optional(),
    /** What an empty cell means: leave the field out (`omit`, default) or send `null`. */
    empty: z.enum(['omit', 'null']).optional(),
    /**
     * Remove spaces around the cell before it is used. Default: true for ids (a target `id` or
     * ending in `_id`) and for every type but `string`; false for other strings, which keep them.
     */
    trim: z.boolean().optional(),
  })
  .refine((f) => (f.column === undefined) !== (f.value === undefined), {
    message: 'give exactly one of `column` and `value`',
  });

/** A field is a column name, or an object. */
export const FieldSchema = z.union([z.string().min(1), FieldObjectSchema]);

export const SourceSchema = z.strictObject({
  /** CSV file, relative to the mapping file. Overridable with `--input`. */
  file: z.string().min(1),
  /** Field delimiter, or `auto` to pick it from the header line. Default `,`. */
  delimiter: z.enum(DELIMITERS).optional(),
  /** Encoding of the file (any iconv-lite name). Default `utf-8`. */
  encoding: z.string().min(1).optional(),
});

export const MappingFileSchema = z
  .strictObject({
    $schema: z.string().optional(),
    /** Which API resource the rows go to. */
    resource: z.enum(RESOURCES),
    /** Deal only: `create`, `update` or `update_or_create`. */
    operation: z.enum(DEAL_OPERATIONS).optional(),
    source: SourceSchema,
    /** Column(s) that identify a row in the report. */
    key: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
    /** Target field (dotted path builds nested objects) → column or field object. */
    fields: z.record(z.string().min(1), FieldSchema).refine((f) => Object.keys(f).length > 0, {
      message: 'at least one field is needed',
    }),
  })
  .superRefine((m, ctx) => {
    if (m.resource === 'deal' && m.operation === undefined) {
      ctx.addIssue({ code: 'custom', path: ['operation'], message: 'a deal mapping needs `operation`: create, update or update_or_create' });
    }
    if (m.resource !== 'deal' && m.operation !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['operation'], message: `\`operation\` applies to deals only, not to ${m.resource}` });
    }
  });

export type MappingFileInput = z.input<typeof MappingFileSchema>;
export type FieldObjectInput = z.input<typeof FieldObjectSchema>;

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
  readonly map?: Readonly<Record<string, string | number | boolean | null>>;
  readonly default?: unknown;
  readonly required: boolean;
  readonly empty: 'omit' | 'null';
  /** As the mapping says; absent: see `trimsCell` (ids and non-string types are trimmed). */
  readonly trim?: boolean;
}

/** A mapping file after validation, with paths absolute and every default resolved once. */
export interface ResolvedMapping {
  /** Absolute path of the mapping file (for messages). */
  readonly mappingFile: string;
  readonly resource: ResourceName;
  /** Deal operation; `undefined` for other resources. */
  readonly operation: Operation | undefined;
  readonly source: { readonly path: string; readonly delimiter: Delimiter; readonly encoding: string };
  readonly key: readonly string[];
  readonly fields: readonly ResolvedField[];
}
