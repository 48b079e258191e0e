import type { Operation, ResourceName } from '../config/mapping-schema.js';
import { guessType, type FieldOptions } from './guess-type.js';
import { matchColumns, type ColumnMatch } from './match-columns.js';
import type { Sample } from './read-sample.js';
import { TARGETS } from './targets.js';

/** One field of the mapping being written, with why it was chosen. */
export interface DraftField {
  readonly target: string;
  /** The column read; absent for a constant. */
  readonly column?: string;
  /** Sent for every row instead of a column. */
  readonly constant?: unknown;
  readonly options: FieldOptions;
  readonly required: boolean;
  /** Comment lines above the field. */
  readonly why: readonly string[];
  /** Written commented out: the user has to decide something first (the last `why` line says what). */
  readonly commentedOut: boolean;
}

/** A mapping before it is written: what `init` guessed from the sample. */
export interface Draft {
  readonly resource: ResourceName;
  readonly operation: Operation | undefined;
  readonly source: { readonly file: string; readonly delimiter: string; readonly encoding: string };
  readonly key: string;
  readonly notes: readonly string[];
  readonly fields: readonly DraftField[];
  /** Columns not sent, each with a ready-to-uncomment line. */
  readonly leftovers: readonly DraftField[];
  readonly leftoverTitle: string;
}

const cellsOf = (sample: Sample, column: string) =>
  sample.rows.map((r) => (r[column] ?? '').trim()).filter((v) => v !== '');

function describeMatch(m: ColumnMatch): string {
  if (m.how === 'exact name') return `matched ${JSON.stringify(m.column)} by its exact name`;
  if (m.how === 'synonym') return `matched ${JSON.stringify(m.column)} by synonym (${JSON.stringify(m.via)})`;
  if (m.how === 'similar name')
    return `matched ${JSON.stringify(m.column)} by a similar name (${JSON.stringify(m.via)}): check it`;
  return `matched ${JSON.stringify(m.column)} ignoring case, spaces and underscores`;
}

/** Events have no identifying field: an event's custom_id (a product event's) names something else. */
const isEvent = (resource: ResourceName) => resource === 'event' || resource === 'product-event';

/**
 * The key column: the column of the resource's identifying field, else the first column whose
 * sampled values are all present and distinct (an export's row id), else the first column. An
 * event has no identifying field: a product event's custom_id names its product, which many
 * events share, so its key is looked for among the distinct columns.
 */
function chooseKey(
  sample: Sample,
  matches: readonly ColumnMatch[],
  resource: ResourceName,
): { key: string; why: string; distinct?: true } {
  const identifying = matches.find(
    (m) => !isEvent(resource) && m.field.required && (m.field.target === 'custom_id' || m.field.target === 'id'),
  );
  if (identifying !== undefined)
    return {
      key: identifying.column,
      why: `key: ${JSON.stringify(identifying.column)}, the column of ${identifying.field.target}`,
    };
  for (const column of sample.header) {
    const cells = sample.rows.map((r) => r[column] ?? '');
    if (cells.length > 0 && cells.every((c) => c.trim() !== '') && new Set(cells).size === cells.length) {
      return {
        key: column,
        why: `key: ${JSON.stringify(column)}, the first column whose sampled values are all present and distinct`,
        distinct: true,
      };
    }
  }
  return {
    key: sample.header[0]!,
    why: `key: ${JSON.stringify(sample.header[0])}, the first column (no column has distinct values in the sample)`,
  };
}

/** A deal's operation follows from how rows name the deal (docs/api-contract.md: deals by custom_id or by id). */
function dealOperation(matches: readonly ColumnMatch[]): { operation: Operation; why: string } {
  if (matches.some((m) => m.field.target === 'custom_id'))
    return {
      operation: 'update_or_create',
      why: 'operation update_or_create: rows name the deal by custom_id, so a rerun updates instead of duplicating',
    };
  return {
    operation: 'create',
    why: 'operation create: no column names the deal (custom_id); a rerun would create the deals again',
  };
}

/** Field names a mapping may use for a custom column: `loyalty_tier` stays, `Data zamknięcia` → `data_zamkniecia`. */
function attributeName(column: string): string {
  const plain = column
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/ł/g, 'l')
    .replace(/Ł/g, 'L')
    .trim()
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (plain === '') return 'column';
  // A number as a dotted target's part is an array index (`data.5`): a name is not one.
  return /^\d+$/.test(plain) ? `column_${plain}` : plain.toLowerCase();
}

/** Everything `init` decides, from the sample; pure, so each rule is tested on its own. */
export function draftMapping(sample: Sample, resource: ResourceName, sourceFile: string): Draft {
  const targets = TARGETS[resource];
  const { matches, unmatched } = matchColumns(sample.header, targets.fields);
  const key = chooseKey(sample, matches, resource);
  const notes = [key.why];
  let operation: Operation | undefined;
  if (resource === 'deal') {
    const op = dealOperation(matches);
    operation = op.operation;
    notes.push(op.why);
  }
  const fields: DraftField[] = matches.map((m) => {
    const guess = guessType(cellsOf(sample, m.column), m.field.expect);
    const why = [`${describeMatch(m)}; ${guess.why}`];
    if (guess.undecided !== undefined) why.push(`TO DECIDE: ${guess.undecided}`);
    return {
      target: m.field.target,
      column: m.column,
      options: guess.options,
      required: m.field.required === true,
      why,
      commentedOut: guess.undecided !== undefined,
    };
  });
  const missing = targets.fields.filter((f) => f.required && !matches.some((m) => m.field === f));
  // A required identifier no column is named after (`Kundennummer` for custom_id): the key column,
  // present and distinct on every sampled row, is the likely one. Proposed, not decided: sent as
  // the identifier, the wrong column would key every record by it. Not for events: a product
  // event's custom_id names its product, which no distinct column is.
  const proposed = isEvent(resource)
    ? undefined
    : missing.find((f) => (f.target === 'custom_id' || f.target === 'id') && key.distinct === true);
  for (const f of missing) {
    if (f === proposed) {
      notes.push(
        `no column is named after ${f.target}, which the API requires: the key column ${JSON.stringify(key.key)} is proposed for it below (uncomment it if it holds the ID), or every row fails`,
      );
      const guess = guessType(cellsOf(sample, key.key), f.expect);
      fields.push({
        target: f.target,
        column: key.key,
        options: guess.options,
        required: true,
        why: [
          `column ${JSON.stringify(key.key)}: a value on every sampled row, each distinct; ${guess.why}`,
          `TO DECIDE: is ${JSON.stringify(key.key)} the ${f.target} of each record? If so, uncomment`,
        ],
        commentedOut: true,
      });
    } else notes.push(`no column matched ${f.target}, which the API requires: add it under fields, or every row fails`);
  }

  const leftovers: DraftField[] = [];
  let leftoverTitle = '';
  const taken = new Set(fields.map((f) => f.target));
  for (const column of unmatched) {
    if (proposed !== undefined && column === key.key) continue;
    const guess = guessType(cellsOf(sample, column), undefined);
    let target = attributeName(column);
    if (targets.leftovers === 'data') target = `data.${target}`;
    while (taken.has(target)) target = `${target}_`;
    taken.add(target);
    const why = [`column ${JSON.stringify(column)}: ${guess.why}`];
    if (guess.undecided !== undefined) why.push(`TO DECIDE: ${guess.undecided}`);
    const field: DraftField = {
      target,
      column,
      options: guess.options,
      required: false,
      why,
      commentedOut: guess.undecided !== undefined,
    };
    // Events carry custom values under `data`, which the API takes as it is: sent by default.
    // (the key column only names rows in the report: it is not sent unless the user says so).
    if (targets.leftovers === 'data' && column !== key.key) fields.push(field);
    else leftovers.push({ ...field, commentedOut: true });
  }
  if (targets.leftovers === 'custom-attribute')
    leftoverTitle =
      'Columns that match no field of the API. Uncomment to send them as custom attributes, which must exist in the account first (API version 2 refuses unknown attributes):';
  if (targets.leftovers === 'data')
    leftoverTitle = 'The key column names rows in the report; uncomment to send it under data too:';
  if (targets.leftovers === 'none')
    leftoverTitle = `Columns that match no field of a ${resource} (it has no custom attributes); not sent:`;
  if (resource === 'product-event' && !fields.some((f) => f.target === 'data' || f.target.startsWith('data.'))) {
    // A product event requires `data` (docs/api-contract.md): an empty object when no column is left for it.
    fields.push({
      target: 'data',
      constant: {},
      options: {},
      required: false,
      why: ['a product event requires data; no column is left for it, so an empty object is sent'],
      commentedOut: false,
    });
  }
  return {
    resource,
    operation,
    source: { file: sourceFile, delimiter: sample.delimiter, encoding: sample.encoding.encoding },
    key: key.key,
    notes,
    fields,
    leftovers,
    leftoverTitle,
  };
}
