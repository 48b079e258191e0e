import type { ResolvedMapping } from '../config/mapping-schema.js';
import { formatFieldErrors } from '../mapping/field-error.js';
import { keyOf, mapRow } from '../mapping/map-row.js';
import { resourceDef, type ApiCall, type RequestOptions } from '../resources/index.js';
import type { CsvSource } from '../source/csv-source.js';

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
    };

export interface PlanOptions extends RequestOptions {
  /** Read at most this many records of the file. Default: all. */
  readonly limit?: number | undefined;
}

/**
 * Every record of one source, mapped and checked against what the API requires (pure per row;
 * this generator only adds the iteration). Exactly one PlannedRow per record.
 */
export async function* planRows(mapping: ResolvedMapping, source: CsvSource, options: PlanOptions): AsyncGenerator<PlannedRow> {
  const def = resourceDef(mapping.resource);
  const idempotent = def.idempotent(mapping.operation);
  let read = 0;
  try {
    for await (const item of source.items) {
      if (options.limit !== undefined && read >= options.limit) break;
      read++;
      if (item.kind === 'malformed') {
        // The key still names the row when its key columns are where the header says.
        const key = mapping.key.map((k) => item.fields[source.header.indexOf(k)] ?? '').join('|');
        yield { status: 'invalid', line: item.line, key, fields: item.fields, message: item.message };
        continue;
      }
      const key = keyOf(item.values, mapping);
      const mapped = mapRow(item.values, mapping);
      // All of a row's errors at once (issue 2): a cell that failed to convert is left out of the
      // payload, so the resource's own complaint about that field ("is required") is dropped.
      const broken = new Set(mapped.errors.map((e) => e.field));
      const errors = [...mapped.errors, ...def.validate(mapped.payload, mapping.operation).filter((e) => !broken.has(e.field))];
      if (errors.length > 0) {
        yield { status: 'invalid', line: item.line, key, fields: item.fields, payload: mapped.payload, message: formatFieldErrors(errors) };
        continue;
      }
      const call = def.toRequest(mapped.payload, mapping.operation, options);
      yield { status: 'valid', line: item.line, key, fields: item.fields, payload: mapped.payload, call, idempotent };
    }
  } finally {
    source.close();
  }
}
