/**
 * The three error body formats (docs/api-contract.md R-ERR-1) and the fixed messages the sandbox answers with.
 * Messages the spec does not give are the web framework's own wording (R-ERR-6: the
 * service is built on it), so a client meets the sentences the real service would send.
 */

/** Field name → messages; a list field holds one object per item (`{}` for a valid item). */
export type FieldErrorMap = Record<string, unknown>;

/** Format 1, flat field errors (deals, and every other endpoint's field errors). */
export function flatErrors(errors: FieldErrorMap): FieldErrorMap {
  return errors;
}

/** Format 2, nested errors (events, R-EVENT-1). */
export function nestedErrors(errors: FieldErrorMap): { errors: FieldErrorMap } {
  return { errors };
}

/** Format 3, a detail string (not found, user-scoped endpoints, throttling). */
export function detail(message: string): { detail: string } {
  return { detail: message };
}

/** An unknown record, or a path that is not an endpoint (R-ERR-3: 404). */
export const NOT_FOUND = 'Not found.';

/** R-EVENT-2: the user-scoped event endpoint when the custom id names no user. */
export const NO_CLIENT_USER = 'No ClientUser matches the given query.';

/** R-EVENT-4, R-PEVT-5: a `user_id` that names no user. */
export function clientUserMissing(userId: number | string): string {
  return `Client user with ID '${userId}' does not exist`;
}

/** R-PEVT-5: product events, the product named in the path does not exist. */
export function productMissing(customId: string): string {
  return `Couldn't find product with custom_id = ${customId}`;
}

/** R-PEVT-5: product events, a `user_custom_id` that names no user (404). */
export const PRODUCT_EVENT_USER_MISSING = 'user for given user_id not found';

/** The body of a 500 (R-ERR-5: not published): the framework's plain HTML page, as a proxy or the real server sends it. */
export const SERVER_ERROR_HTML =
  '<!doctype html>\n<html lang="en">\n<head>\n  <title>Server Error (500)</title>\n</head>\n<body>\n  <h1>Server Error (500)</h1><p></p>\n</body>\n</html>\n';

/** 401 bodies (R-AUTH-3, R-ERR-6; wording of the framework's token authentication). */
export const AUTH_MESSAGES = {
  missing: 'Authentication credentials were not provided.',
  noCredentials: 'Invalid token header. No credentials provided.',
  spaces: 'Invalid token header. Token string should not contain spaces.',
  invalid: 'Invalid token.',
} as const;

/** 405: a path that is an endpoint, with a method it does not take. */
export function methodNotAllowed(method: string): string {
  return `Method "${method}" not allowed.`;
}

/** 415: a body that is not JSON by its Content-Type (R-BASE-3). */
export function unsupportedMediaType(contentType: string): string {
  return `Unsupported media type "${contentType}" in request.`;
}

/** 400: a body that is not valid JSON (the framework's parser error, with the parser's reason). */
export function jsonParseError(reason: string): string {
  return `JSON parse error - ${reason}`;
}
