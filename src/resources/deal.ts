import type { Operation } from '../config/mapping-schema.js';
import { DEFAULTS } from '../defaults.js';
import { show } from '../text/show.js';
import {
  currency,
  date,
  datetime,
  integer,
  isPlainObject,
  Issues,
  listOf,
  nonEmptyString,
  number,
  string,
  type Rule,
} from './_checks.js';
import { pushRef, pushRefs, uniqueRefs } from './_refs.js';
import type { ApiCall, EntityRef, Payload, ResourceDef } from './resource-def.js';

/** docs/api-contract.md R-DEAL-3: 0 abandoned, 1 in progress, 2 won, 3 lost, 4 archived. */
const STATUSES: ReadonlySet<unknown> = new Set([0, 1, 2, 3, 4]);

const status: Rule = (v) => {
  if (STATUSES.has(v)) return undefined;
  // A "2" the mapping left as text: the fix is `type: integer`, not another value.
  if (typeof v === 'string' && STATUSES.has(Number(v)) && /^\d$/.test(v)) return `expected an integer, got ${show(v)}`;
  // The service's own words (R-DEAL-3, R-DEAL-7), so a report reads the same whichever side caught it.
  return `"${typeof v === 'string' ? v : show(v)}" is not a valid choice.`;
};

/** The typed fields of a deal, in the order of R-DEAL-2. Any other key is a custom attribute. */
const FIELDS: readonly (readonly [string, Rule])[] = [
  ['id', integer],
  ['custom_id', string],
  ['activities_status', string],
  ['assigned_to', integer],
  ['company_id', integer],
  ['currency', currency],
  ['expected_close_date', date],
  ['loss_reason', integer],
  ['lost_at', datetime],
  ['name', string],
  ['participants', listOf(integer)],
  ['pipeline', integer],
  ['products', listOf(integer)],
  ['products_custom_id', listOf(string)],
  ['stage', integer],
  ['status', status],
  ['user_id', integer],
  ['value', number],
  ['won_at', datetime],
  ['user_custom_id', string],
  ['company_custom_id', string],
];

const DECIMAL = /^-?\d+(?:\.\d+)?$/;
/** Order product `value`: a decimal number held in a string (R-DEAL-8), as the `decimal` type writes it. */
const decimalString: Rule = (v) =>
  typeof v === 'string' && DECIMAL.test(v)
    ? undefined
    : `expected a decimal number as text such as "12.50" (type: decimal), got ${show(v)}`;

/**
 * Order product items (R-DEAL-8): a product by id or by custom id,
 * then currency, value and quantity. Other keys are passed through: the shape is "basic
 * information", not a closed list.
 */
function checkOrderProducts(issues: Issues, payload: Payload): void {
  const items = payload['order_products'];
  if (items === undefined || items === null) return;
  if (!Array.isArray(items)) {
    issues.add('order_products', `expected a list of order products, got ${show(items)}`);
    return;
  }
  items.forEach((item: unknown, i) => {
    const prefix = `order_products.${i}.`;
    if (!isPlainObject(item)) {
      issues.add(`order_products.${i}`, `expected an order product object, got ${show(item)}`);
      return;
    }
    if (item['product_id'] == null && item['product_custom_id'] == null) {
      issues.add(`${prefix}product_custom_id`, 'is required (or product_id)', [`${prefix}product_id`]);
    }
    issues.optional(item, 'product_id', integer, prefix);
    issues.optional(item, 'product_custom_id', nonEmptyString, prefix);
    issues.optional(item, 'currency', currency, prefix);
    issues.optional(item, 'value', decimalString, prefix);
    issues.optional(item, 'quantity', integer, prefix);
  });
}

function operationOf(operation: Operation | undefined): Operation {
  // The mapping schema requires an operation for deals: reaching here without one is a bug.
  if (operation === undefined) throw new TypeError('a deal needs an operation: create, update or update_or_create');
  return operation;
}

/**
 * Deals: `POST deals/` (create), `PATCH|PUT deals/:id/` (update),
 * `POST deals/update_or_create/` (R-DEAL-1).
 */
export const deal: ResourceDef = {
  name: 'deal',
  stage: 'deals',

  validate(payload, operation) {
    const op = operationOf(operation);
    const issues = new Issues();
    for (const [key, rule] of FIELDS) {
      // The service accepts a deal with no name at all (R-DEAL-4), but
      // the platform requires one on creation (R-DEAL-5): checked here.
      if (key === 'name' && op !== 'update') issues.required(payload, key, nonEmptyString);
      // update_or_create finds the deal by custom_id; update by id, which goes in the path.
      else if (key === 'custom_id' && op === 'update_or_create') issues.required(payload, key, nonEmptyString);
      else if (key === 'id' && op === 'update') issues.required(payload, key, integer);
      else issues.optional(payload, key, rule);
    }
    checkOrderProducts(issues, payload);
    return issues.list;
  },

  toRequest(payload, operation, options): ApiCall {
    const op = operationOf(operation);
    if (op === 'create') return { method: 'POST', path: 'deals/', body: { ...payload } };
    if (op === 'update_or_create') return { method: 'POST', path: 'deals/update_or_create/', body: { ...payload } };
    const id = payload['id'];
    if (!Number.isSafeInteger(id)) throw new TypeError('deal update payload without an integer id: validate it first');
    // The id is in the path (R-DEAL-1), not in the body.
    const { id: _, ...body } = payload;
    return { method: options.dealUpdateMethod ?? DEFAULTS.dealUpdateMethod, path: `deals/${String(id)}/`, body };
  },

  // A create sent twice makes two deals; update by id and update_or_create by custom_id land on
  // the same deal whatever the count (R-IDEM-1, R-IDEM-4).
  idempotent: (operation) => operation === 'update' || operation === 'update_or_create',

  parents(payload) {
    const refs: EntityRef[] = [];
    pushRef(refs, 'user', 'id', payload['user_id']);
    pushRef(refs, 'user', 'custom_id', payload['user_custom_id']);
    pushRefs(refs, 'user', 'id', payload['participants']);
    pushRefs(refs, 'product', 'id', payload['products']);
    pushRefs(refs, 'product', 'custom_id', payload['products_custom_id']);
    const items = payload['order_products'];
    if (Array.isArray(items)) {
      for (const item of items) {
        if (!isPlainObject(item)) continue;
        pushRef(refs, 'product', 'id', item['product_id']);
        pushRef(refs, 'product', 'custom_id', item['product_custom_id']);
      }
    }
    return uniqueRefs(refs);
  },

  identity(payload, responseId) {
    const refs: EntityRef[] = [];
    pushRef(refs, 'deal', 'custom_id', payload['custom_id']);
    pushRef(refs, 'deal', 'id', payload['id']);
    pushRef(refs, 'deal', 'id', responseId);
    return uniqueRefs(refs);
  },
};
