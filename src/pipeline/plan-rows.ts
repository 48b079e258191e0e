import type { ResolvedMapping } from '../config/mapping-schema.js';
import { formatFieldErrors, type FieldError } from '../mapping/field-error.js';
import { compileMapping, type MappedRow } from '../mapping/map-row.js';
import { resourceDef, type ApiCall, type RequestOptions } from '../resources/index.js';
import type { CsvSource, SourceItem } from '../source/csv-source.js';

/** A record after mapping and local validation: what the dry run reports and the import sends. */
export type PlannedRow =
  | {
      readonly status: 'valid';
      readonly line: number;
      readonly key: string;
      readonly fields: readonly string[];
      readonly payload: Readonly<Record<string, unknown>>;
      readonly call: ApiCall;
      readonly idempotent: boolean;
      /** What was changed on the way (spaces taken off an id): the report says it. */
      readonly notes?: readonly string[];
    }
  | {
      readonly status: 'invalid';
      readonly line: number;
      readonly key: string;
      readonly fields: readonly string[];
      /** What could be mapped (absent for a malformed record): enough to name the row as a parent. */
      readonly payload?: Readonly<Record<string, unknown>>;
      /** `field: message; field: message`, or the CSV parser's message for a malformed record. */
      readonly message: string;
      /** A record the parser could not split (a quote error): its text as in the file, for the rejects. */
      readonly raw?: string;
    };

export interface PlanOptions extends RequestOptions {
  /** Read at most this many records of the file. Default: all. */
  readonly limit?: number | undefined;
}

/**
 * The pure per-record step: map, check, route. Synchronous, so the million-row loops pay no
 * extra async hop per record (a pure core in a thin shell).
 */
export function createPlanner(
  mapping: ResolvedMapping,
  header: readonly string[],
  options: RequestOptions,
): (item: SourceItem) => PlannedRow {
  const def = resourceDef(mapping.resource);
  const idempotent = def.idempotent(mapping.operation);
  const mapper = compileMapping(mapping);
  const keyColumns = mapping.key.map((k) => header.indexOf(k));
  return (item) => {
    // The key names the row even in a malformed record, when its columns are where the header says.
    // Trimmed, as ids are: the report names the record the API gets.
    const key =
      keyColumns.length === 1
        ? (item.fields[keyColumns[0]!] ?? '').trim()
        : keyColumns.map((i) => (item.fields[i] ?? '').trim()).join('|');
    if (item.kind === 'malformed')
      return {
        status: 'invalid',
        line: item.line,
        key,
        fields: item.fields,
        message: item.message,
        ...(item.raw !== undefined && { raw: item.raw }),
      };
    const mapped = mapper(item.values);
    const errors = rowErrors(mapped, def.validate(mapped.payload, mapping.operation));
    if (errors.length > 0)
      return {
        status: 'invalid',
        line: item.line,
        key,
        fields: item.fields,
        payload: mapped.payload,
        message: formatFieldErrors(errors),
      };
    const call = def.toRequest(mapped.payload, mapping.operation, options);
    return {
      status: 'valid',
      line: item.line,
      key,
      fields: item.fields,
      payload: mapped.payload,
      call,
      idempotent,
      ...(mapped.notes && { notes: mapped.notes }),
    };
  };
}

/**
 * A mapped row's errors and the resource's checks of its payload, as one list; the checks name
 * their fields as the mapping does (`targetOf`).
 */
function rowErrors(mapped: MappedRow, checks: FieldError[]): FieldError[] {
  let errors = checks;
  const targetOf = mapped.targetOf;
  if (targetOf !== undefined && errors.length > 0) {
    errors = errors.map((e) => ({
      ...e,
      field: targetOf(e.field),
      ...(e.alternatives && { alternatives: e.alternatives.map(targetOf) }),
    }));
  }
  if (mapped.errors.length > 0) {
    // All of a row's errors at once: a cell that failed to convert is left out of
    // the payload, so the resource's own complaint about that field ("is required") is dropped.
    const broken = new Set(mapped.errors.map((e) => e.field));
    const explained = (e: FieldError) => broken.has(e.field) || (e.alternatives?.some((f) => broken.has(f)) ?? false);
    errors = [...mapped.errors, ...errors.filter((e) => !explained(e))];
  }
  return errors;
}

/**
 * Every record of one source as a PlannedRow, exactly one per record, at most `limit`; the
 * source is closed when the loop ends, however it ends.
 */
export async function* planRows(
  mapping: ResolvedMapping,
  source: CsvSource,
  options: PlanOptions,
): AsyncGenerator<PlannedRow> {
  const plan = createPlanner(mapping, source.header, options);
  let read = 0;
  try {
    for await (const item of source.items) {
      if (options.limit !== undefined && read >= options.limit) break;
      read++;
      yield plan(item);
    }
  } finally {
    source.close();
  }
}
