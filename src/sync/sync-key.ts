import { headerColumnsSentence } from '../config/header-columns.js';
import type { Operation, ResolvedMapping, ResourceName } from '../config/mapping-schema.js';
import { ConfigError } from '../errors.js';
import { identityHash, legacyIdentityHash, requestHash, type HashedRequest } from './request-hash.js';

/**
 * How a row is remembered by the sync state:
 * - `entity`: a record the API matches by a key (contact and product by custom_id, deal by
 *   custom_id or id, webpush campaign by id). Sending it again with the same request changes
 *   nothing, so an equal request hash means `unchanged`.
 * - `event`: an occurrence (event, product event, deal `create`: `POST deals/` makes a new deal
 *   each time, custom_id or not). Sending it again records it twice, so once its identity was
 *   accepted it is `already_sent`, whatever else changed.
 */
export type SyncKind = 'entity' | 'event';

export interface SyncKey {
  readonly resource: ResourceName;
  readonly kind: SyncKind;
  /** Entity: `custom_id=C-1` or `id=42`. Event: the identity hash (hex). */
  readonly key: string;
  /** SHA-256 (hex) of the exact request (method, path, canonical JSON body). */
  readonly hash: string;
  /**
   * How a state written by an earlier version of this tool holds the same row, when that differs
   * (identity cells hashed alone and untrimmed; a deal create kept as an entity by custom_id): a
   * row the state does not hold by `key` is looked up this way too, so an upgrade never sends an
   * event or a deal create a second time. Computed when asked: only rows not found need it.
   */
  readonly legacy?: () => { readonly kind: SyncKind; readonly key: string };
}

/** What the keyer needs of a valid planned row (pipeline `PlannedRow` with status `valid`). */
export interface KeyedRow {
  readonly payload: Readonly<Record<string, unknown>>;
  readonly call: HashedRequest;
  /** The record's raw cells, in header order. */
  readonly fields: readonly string[];
}

const text = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== '' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined;

/**
 * Whether a mapping's rows are occurrences (every send records a new one: events, product events,
 * deal creates), known to the sync state by their identity rather than by an entity key.
 */
export function sendsOccurrences(mapping: Pick<ResolvedMapping, 'resource' | 'operation'>): boolean {
  return (
    mapping.resource === 'event' ||
    mapping.resource === 'product-event' ||
    (mapping.resource === 'deal' && mapping.operation === 'create')
  );
}

/**
 * The key by which the API matches the row's entity, or undefined when the row is an
 * occurrence: an event, a product event, or a deal `create` (each one makes a new deal).
 */
export function entityKeyOf(
  resource: ResourceName,
  operation: Operation | undefined,
  payload: Readonly<Record<string, unknown>>,
): string | undefined {
  const by = (field: 'custom_id' | 'id') => {
    const v = text(payload[field]);
    return v === undefined ? undefined : `${field}=${v}`;
  };
  switch (resource) {
    case 'user':
    case 'product':
      return by('custom_id');
    case 'deal':
      if (operation === 'create') return undefined;
      return operation === 'update' ? by('id') : by('custom_id');
    case 'webpush-campaign':
      return by('id');
    case 'event':
    case 'product-event':
      return undefined;
  }
}

/**
 * The sync key of every valid row of one mapping. Checks once that the mapping's `identity:`
 * columns are in the file's header, as the mapping's other columns are checked before row 1.
 */
export function createSyncKeyer(mapping: ResolvedMapping, header: readonly string[]): (row: KeyedRow) => SyncKey {
  const identity = mapping.identity ?? [];
  const columns = identity.map((c) => header.indexOf(c));
  const missing = identity.filter((_, i) => columns[i] === -1);
  if (missing.length > 0) {
    throw new ConfigError(
      'MAPPING_COLUMN_MISSING',
      `${mapping.mappingFile}: identity reads ${missing.map((c) => `column ${JSON.stringify(c)}`).join(', ')}, but ${mapping.source.path} has no such column. ${headerColumnsSentence(header)}`,
    );
  }
  const { resource, operation } = mapping;
  return (row) => {
    const hash = requestHash(row.call);
    const entity = entityKeyOf(resource, operation, row.payload);
    if (entity !== undefined) return { resource, kind: 'entity', key: entity, hash };
    const what = occurrenceOf(resource, row.payload);
    if (columns.length > 0)
      return {
        resource,
        kind: 'event',
        key: identityHash(
          what,
          // Spaces around a cell are an export's padding, not another event.
          columns.map((i) => (row.fields[i] ?? '').trim()),
        ),
        hash,
        legacy: () => ({ kind: 'event', key: legacyIdentityHash(columns.map((i) => row.fields[i] ?? '')) }),
      };
    // A deal create with a custom_id is the one deal of that custom_id: created once, whatever else changes.
    const dealId = resource === 'deal' ? text(row.payload['custom_id']) : undefined;
    return {
      resource,
      kind: 'event',
      key: dealId === undefined ? hash : identityHash(what, [`custom_id=${dealId}`]),
      hash,
      ...(dealId !== undefined && { legacy: () => ({ kind: 'entity' as const, key: `custom_id=${dealId}` }) }),
    };
  };
}

/**
 * Whether the occurrences of a mapping are known by what every row shares, beside cells: its
 * `identity:` columns with the event's name (or product event's type) a constant, or a deal
 * create's custom_id (the one deal of that custom_id). A mapping change reaches such an identity
 * only through the shared part (the constant name, the column the custom_id is read from), so
 * after one most rows would look new, not just some. A name read from a column is not shared: a
 * `map:` added to it renames some events only.
 */
export function knownByCells(mapping: Pick<ResolvedMapping, 'resource' | 'identity' | 'fields'>): boolean {
  if ((mapping.identity ?? []).length > 0) {
    const named =
      mapping.resource === 'event' ? 'name' : mapping.resource === 'product-event' ? 'event_type' : undefined;
    return mapping.fields.every((f) => f.target !== named || f.column === undefined);
  }
  return mapping.resource === 'deal' && mapping.fields.some((f) => f.target === 'custom_id');
}

/**
 * What kind of occurrence a row records, part of an identity given by cells: two mappings of one
 * resource that name the same columns (purchases and refunds, both by order number) must not
 * share identities. An event is told by its name, a product event by its type.
 */
function occurrenceOf(resource: ResourceName, payload: Readonly<Record<string, unknown>>): string {
  const name =
    resource === 'event' ? payload['name'] : resource === 'product-event' ? payload['event_type'] : undefined;
  return name === undefined ? resource : `${resource} ${String(name)}`;
}
