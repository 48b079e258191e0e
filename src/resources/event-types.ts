import { nearest } from '../text/suggest.js';

/**
 * The product event types the service accepts, a closed list (docs/api-contract.md
 * R-PEVT-4): lowercase, words separated by one space.
 */
export const EVENT_TYPES = [
  'click',
  'promo click',
  'view',
  'detail',
  'liking',
  'add to observation',
  'reservation',
  'add',
  'add to cart',
  'remove',
  'checkout',
  'checkout option',
  'order',
  'purchase',
  'return',
  'refund',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

const KNOWN: ReadonlySet<string> = new Set(EVENT_TYPES);

export function isEventType(value: string): value is EventType {
  return KNOWN.has(value);
}

/** How other tools write the same type: `Add_To_Cart`, `add-to-cart`, `  add  to cart `. */
const normalise = (text: string) =>
  text
    .toLowerCase()
    .replace(/[\s_-]+/g, ' ')
    .trim();

/**
 * The type a value most likely meant: its normalised spelling when that is a type, else the
 * nearest type by edit distance when it is close (a third of its length, at least 1); else none,
 * since suggesting `view` for `shipped` would mislead.
 */
export function nearestEventType(value: string): EventType | undefined {
  const text = normalise(value);
  if (isEventType(text)) return text;
  if (text === '') return undefined;
  return nearest(text, EVENT_TYPES) as EventType | undefined;
}
