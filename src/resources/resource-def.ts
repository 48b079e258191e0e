import type { Operation, ResourceName } from '../config/mapping-schema.js';
import type { FieldError } from '../mapping/field-error.js';
import type { StageName } from './stages.js';

/** A mapped row's payload: nested objects built, values typed by the mapping engine. */
export type Payload = Readonly<Record<string, unknown>>;

/** The request a valid payload becomes. */
export interface ApiCall {
  readonly method: 'POST' | 'PATCH' | 'PUT';
  /** Relative to the API root, no leading `/`, path segments percent-encoded, trailing `/` (docs/api-contract.md R-BASE-2, R-BASE-6). */
  readonly path: string;
  readonly body: Record<string, unknown>;
}

/**
 * A key under which a row's entity can be referenced by rows of later stages: a deal naming its
 * user by custom id, an event naming its user by id. `value` is always a string (`'42'` for id 42).
 */
export interface EntityRef {
  readonly kind: 'user' | 'product' | 'deal';
  readonly by: 'id' | 'custom_id';
  readonly value: string;
}

/** Run options that change the request a row becomes. */
export interface RequestOptions {
  /** Method of a deal update by id: R-DEAL-1 accepts both PATCH and PUT. Default `PATCH`. */
  readonly dealUpdateMethod?: 'PATCH' | 'PUT' | undefined;
}

/** Everything the pipeline needs to know about one API resource. */
export interface ResourceDef {
  readonly name: ResourceName;
  /** Where the resource runs in the import (R-ORDER-1 … R-ORDER-4). */
  readonly stage: StageName;
  /**
   * What the API requires of a payload, checked before anything is sent: every problem of the
   * row at once, `{field, message}` with the field as the mapping names it (`messages.0.title`).
   */
  validate(payload: Payload, operation: Operation | undefined): FieldError[];
  /**
   * The request of a payload that `validate` accepted.
   * @throws TypeError when the payload lacks its routing key (a caller that skipped `validate`).
   */
  toRequest(payload: Payload, operation: Operation | undefined, options: RequestOptions): ApiCall;
  /** Whether sending the same request twice leaves the same state: safe to resend after a lost answer. */
  idempotent(operation: Operation | undefined): boolean;
  /**
   * For a create whose key is unique: whether an error answer says "this key exists already".
   * Such a create, sent again after an attempt that may have been applied, cannot be applied
   * twice: an `ok` then proves the earlier attempt was not. An "exists" answer to it leaves the
   * row `unknown`: the earlier attempt may have created the record, or it was there before.
   * Absent when the API does not let the client tell.
   */
  readonly refusesDuplicateCreate?: ((status: number, bodyText: string) => boolean) | undefined;
  /**
   * Whether a `failed` row's recorded message says the create was refused because the record
   * exists already (so rows naming it as their parent may be sent): how a resume, which has only
   * the ledger's message, tells what `refusesDuplicateCreate` told the run that sent it.
   */
  readonly refusedAsExisting?: ((message: string) => boolean) | undefined;
  /** Entities the row refers to, which earlier rows of the run may create. Never throws. */
  parents(payload: Payload): EntityRef[];
  /** Keys under which later rows can refer to this row's entity. Never throws, even on an invalid payload. */
  identity(payload: Payload, responseId: string | undefined): EntityRef[];
}
