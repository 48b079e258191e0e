import { show } from '../text/show.js';
import type { Rule } from './_checks.js';

// A lone surrogate makes encodeURIComponent throw (URIError): reject it as data instead.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * A value that travels as one path segment. Percent-encoding carries `?`, `#`, `%` and spaces,
 * but `.` and `..` are dot segments that URL resolution removes (`%2E` too, per the WHATWG URL
 * standard), so the request would reach another endpoint.
 */
export const pathSegment: Rule = (v) => {
  if (typeof v !== 'string') return `expected a string, got ${show(v)}`;
  if (v === '.' || v === '..') return `${show(v)} cannot be sent in a URL path`;
  if (LONE_SURROGATE.test(v)) return `${show(v)} is not valid Unicode text`;
  return undefined;
};

/** One path segment, percent-encoded: `a b?c` → `a%20b%3Fc`, `/` → `%2F`. */
export const encodeSegment = (value: string): string => encodeURIComponent(value);

/**
 * A value that may hold `/`, sent as the tail of a path whose server takes "everything between
 * the prefix and the final `/`" (docs/api-contract.md R-PEVT-2): each part is encoded, the `/`s are kept.
 */
export const encodeSlashed = (value: string): string => value.split('/').map(encodeURIComponent).join('/');

/** `pathSegment` for each `/`-separated part of a value sent with `encodeSlashed`. */
export const slashedPath: Rule = (v) => {
  if (typeof v !== 'string') return `expected a string, got ${show(v)}`;
  for (const part of v.split('/')) {
    if (part === '.' || part === '..') return `${show(v)} cannot be sent in a URL path (it holds a "${part}" segment)`;
  }
  return pathSegment(v);
};
