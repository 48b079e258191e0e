/**
 * Which stages go through the CSV import endpoints. Contacts and products go by bulk in `auto`
 * when the stage has at least `minRows` valid rows, and products also when any row updates a
 * product the account has (an incremental run's `changed` rows: `POST /products/` only creates,
 * the import is the only update); deals only when asked (`--bulk always` or the
 * mapping's `bulk: true`), because the deal importer's header names are not published and the
 * mapping must give them (`bulk_header:`), and only with operation update_or_create (the
 * importer upserts by custom_id; a create or an update by id always goes per row). A mapping's `bulk:` overrides `--bulk`. Events,
 * product events and web push campaigns have no import endpoint: always per row.
 */
import type { ResolvedMapping, ResourceName } from '../config/mapping-schema.js';
import { ConfigError } from '../errors.js';
import { bulkColumns, type BulkColumn } from '../bulk/chunk-csv.js';
import type { BulkKind } from '../transport/bulk-client.js';
import type { BulkOptions } from './bulk-options.js';

const KINDS: Partial<Record<ResolvedMapping['resource'], BulkKind>> = {
  user: 'users',
  product: 'products',
  deal: 'deals',
};

/** Whether the resource has a CSV import endpoint (users, products, deals): only those can go by bulk. */
export const hasImportEndpoint = (resource: ResourceName): boolean => KINDS[resource] !== undefined;

export interface BulkPlan {
  readonly kind: BulkKind;
  readonly columns: readonly BulkColumn[];
  /** The fields of a listed failed row that may echo the row's key, in order of preference. */
  readonly keyFields: readonly string[];
  /** The payload fields whose value identifies the row to the importer (the chunk row's key). */
  readonly keyOf: (payload: Readonly<Record<string, unknown>>) => string | undefined;
}

/**
 * Whether `bulkPlanOf` needs to know how many rows of the stage update an existing product: only
 * a products stage that `auto` would otherwise send per row (fewer valid rows than `minRows`).
 */
export function needsProductUpdates(
  mapping: ResolvedMapping,
  validRows: number,
  options: BulkOptions | undefined,
): boolean {
  return (
    mapping.resource === 'product' &&
    mapping.bulk === undefined &&
    options?.mode === 'auto' &&
    validRows > 0 &&
    validRows < options.minRows
  );
}

/**
 * The bulk plan of a stage, or undefined when it goes per row. `productUpdates`: rows that
 * update a product the account has (see `needsProductUpdates`); any makes `auto` choose bulk.
 */
export function bulkPlanOf(
  mapping: ResolvedMapping,
  validRows: number,
  options: BulkOptions | undefined,
  productUpdates = 0,
): BulkPlan | undefined {
  const kind = KINDS[mapping.resource];
  if (kind === undefined || options === undefined) return undefined;
  // The deal importer creates or updates by custom_id: only update_or_create means that (a
  // mapping that asks `bulk: true` of another operation is refused when it loads).
  if (kind === 'deals' && mapping.operation !== 'update_or_create') return undefined;
  const bySize = validRows >= options.minRows || (kind === 'products' && productUpdates > 0);
  const wanted = mapping.bulk ?? (options.mode === 'always' || (options.mode === 'auto' && kind !== 'deals' && bySize));
  if (!wanted || validRows === 0) return undefined;
  const resource = mapping.resource as 'user' | 'product' | 'deal';
  const columns = bulkColumns(
    resource,
    mapping.fields.map((f) => f.target),
    mapping.bulkHeaders ?? {},
  );
  if ('missingHeaders' in columns) {
    throw new ConfigError(
      'CONFIG_INVALID',
      `${mapping.mappingFile}: deals go by bulk import (--bulk always) but the deal importer's header names are not published: give \`bulk_header:\` for ${columns.missingHeaders.join(', ')}, or run with --bulk auto`,
    );
  }
  const header = (field: string) => columns.columns.find((c) => c.field === field)?.header ?? field;
  return {
    kind,
    columns: columns.columns,
    keyFields: bulkKeyFields(resource).map(header),
    keyOf: (payload) => bulkRowKey(resource, payload),
  };
}

/** The fields an import matches a row by, in order: users by custom_id, else email; the others by custom_id. */
const bulkKeyFields = (resource: ResourceName) => (resource === 'user' ? ['custom_id', 'email'] : ['custom_id']);

/** The key an import matches a row of `resource` by (see `bulkKeyFields`), or undefined. */
export function bulkRowKey(resource: ResourceName, payload: Readonly<Record<string, unknown>>): string | undefined {
  for (const k of bulkKeyFields(resource)) {
    const v = payload[k];
    if (typeof v === 'string' || typeof v === 'number') return String(v);
  }
  return undefined;
}

/** Refuses, before anything is sent, a run whose deals must go by bulk without their headers. */
export function checkBulkHeaders(mappings: readonly ResolvedMapping[], options: BulkOptions | undefined): void {
  for (const m of mappings) if (m.resource === 'deal') bulkPlanOf(m, 1, options);
}
