import { z } from 'zod';
import { SCALAR_TYPES, VALUE_TYPES, type MappingFields } from '../mapping/field-spec.js';

/** The API resources a mapping can load (see docs/api-contract.md). */
export const RESOURCES = ['product', 'user', 'deal', 'event', 'product-event', 'webpush-campaign'] as const;
export type ResourceName = (typeof RESOURCES)[number];

/** Deal is the only resource with several operations: create, update by id, update_or_create by custom id. */
export const DEAL_OPERATIONS = ['create', 'update', 'update_or_create'] as const;
export type Operation = (typeof DEAL_OPERATIONS)[number];

export const DELIMITERS = [',', ';', '\t', '|', 'auto'] as const;
export type Delimiter = (typeof DELIMITERS)[number];

const constant = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.null(),
  z.array(z.unknown()),
  z.record(z.string(), z.unknown()),
]);

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
    /** Date pattern in luxon tokens (`dd.MM.yyyy HH:mm`); `x` reads UNIX milliseconds. Default: ISO 8601. */
    format: z.string().min(1).optional(),
    /** IANA zone a date without an offset is read in. Default `UTC`. */
    timezone: z.string().min(1).optional(),
    /** Separator of a `list` cell. Default `,`. */
    separator: z.string().min(1).optional(),
    /** Digits after the point for a `decimal`. Default 2. */
    decimals: z.number().int().min(0).max(12).optional(),
    /**
     * A `number`, `decimal` or list of numbers written with a decimal comma (`1.299,50`, `12,5`,
     * `1 249,50`): the comma is the point, and `.`, spaces or `'` between groups of three digits
     * are thousands separators. Default false.
     */
    decimal_comma: z.boolean().optional(),
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
    /** Deals sent by bulk import: the CSV header the deal importer knows this field by (its names are not published). */
    bulk_header: z.string().min(1).optional(),
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
    /** Product events: `timestamp` sends the valid rows sorted by timestamp (each event overwrites the product's attributes). Default: file order. */
    order: z.enum(['timestamp']).optional(),
    /** Target field (dotted path builds nested objects) → column or field object. */
    fields: z.record(z.string().min(1), FieldSchema).refine((f) => Object.keys(f).length > 0, {
      message: 'at least one field is needed',
    }),
    /**
     * Events and product events, incremental runs: the source columns that identify one event
     * across nightly exports. Default: the exact request (any changed cell makes a new event).
     */
    identity: z.array(z.string().min(1)).min(1).optional(),
    /**
     * Contacts, products, deals: `true` sends the stage through the CSV import endpoint whatever
     * its size, `false` always per row. Default: `--bulk` decides (deals only with `always`).
     */
    bulk: z.boolean().optional(),
  })
  .superRefine((m, ctx) => {
    if (m.bulk !== undefined && !['user', 'product', 'deal'].includes(m.resource)) {
      ctx.addIssue({
        code: 'custom',
        path: ['bulk'],
        message: `\`bulk\` applies to contacts, products and deals only; ${m.resource} rows have no bulk import endpoint`,
      });
    }
    if (m.resource === 'deal' && m.operation === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['operation'],
        message: 'a deal mapping needs `operation`: create, update or update_or_create',
      });
    }
    if (m.order !== undefined && m.resource !== 'product-event') {
      ctx.addIssue({
        code: 'custom',
        path: ['order'],
        message: `\`order: timestamp\` applies to product events only, not to ${m.resource}`,
      });
    }
    if (m.resource !== 'deal' && m.operation !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['operation'],
        message: `\`operation\` applies to deals only, not to ${m.resource}`,
      });
    }
    // Entities are matched by their own key (custom_id or id); only events need a stated identity.
    if (m.identity !== undefined && m.resource !== 'event' && m.resource !== 'product-event') {
      ctx.addIssue({
        code: 'custom',
        path: ['identity'],
        message: `\`identity\` applies to events and product events only; ${m.resource} rows are matched by their custom_id or id`,
      });
    }
  });

export type MappingFileInput = z.input<typeof MappingFileSchema>;
export type FieldObjectInput = z.input<typeof FieldObjectSchema>;

/** A mapping file after validation, with paths absolute and every default resolved once. */
export interface ResolvedMapping extends MappingFields {
  readonly resource: ResourceName;
  /** Deal operation; `undefined` for other resources. */
  readonly operation: Operation | undefined;
  readonly source: {
    readonly path: string;
    readonly delimiter: Delimiter;
    readonly encoding: string;
    /** The path came from `--input`, not from the mapping's `source.file`. */
    readonly fromCommandLine?: true;
  };
  /** `timestamp`: valid rows are sent sorted by timestamp (product events). Absent: file order. */
  readonly order?: 'timestamp' | undefined;
  /** Events only: source columns that identify an event across runs (incremental sync); absent: the request itself. */
  readonly identity?: readonly string[];
  /** The mapping's `bulk:` choice; absent: `--bulk` decides. */
  readonly bulk?: boolean;
  /** Top-level field → the CSV header a bulk upload gives it (`bulk_header:`); deals need one per field to go by bulk. */
  readonly bulkHeaders?: Readonly<Record<string, string>>;
}
