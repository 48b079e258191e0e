/**
 * The three error body formats of api.md §7 and the fixed messages the sandbox answers with.
 * Messages the spec does not give are the web framework's own wording (public-facts.md: the
 * service is built on it), so a client meets the sentences the real service would send.
 */

/** Field name → messages; a list field holds one object per item (`{}` for a valid item). */
export type FieldErrorMap = Record<string, unknown>;

/** Format 1, flat field errors (deals, and every other endpoint's field errors). */
export function flatErrors(errors: FieldErrorMap): FieldErrorMap {
  return errors;
}

/** Format 2, nested errors (events, api.md §4.5). */
export function nestedErrors(errors: FieldErrorMap): { errors: FieldErrorMap } {
  return { errors };
}

/** Format 3, a detail string (not found, user-scoped endpoints, throttling). */
export function detail(message: string): { detail: string } {
  return { detail: message };
}

/** An unknown record, or a path that is not an endpoint (api.md §7.1 404). */
export const NOT_FOUND = 'Not found.';

/** api.md §7.3: the user-scoped event endpoint when the custom id names no user. */
export const NO_CLIENT_USER = 'No ClientUser matches the given query.';

/** api.md §7.2 / §7.3: a `user_id` that names no user. */
export function clientUserMissing(userId: number | string): string {
  return `Client user with ID '${userId}' does not exist`;
}

/** api.md §7.2: product events, the product named in the path does not exist. */
export function productMissing(customId: string): string {
  return `Couldn't find product with custom_id = ${customId}`;
}

/** api.md §7.2: product events, a `user_custom_id` that names no user (404). */
export const PRODUCT_EVENT_USER_MISSING = 'user for given user_id not found';

/** The body of a 500 (api.md §7.1 leaves it open): the framework's plain HTML page, as a proxy or the real server sends it. */
export const SERVER_ERROR_HTML =
  '<!doctype html>\n<html lang="en">\n<head>\n  <title>Server Error (500)</title>\n</head>\n<body>\n  <h1>Server Error (500)</h1><p></p>\n</body>\n</html>\n';

/** 401 bodies (api.md §5; wording of the framework's token authentication). */
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

/** 415: a body that is not JSON by its Content-Type (api.md §4: "Send `Content-Type: application/json`"). */
export function unsupportedMediaType(contentType: string): string {
  return `Unsupported media type "${contentType}" in request.`;
}

/** 400: a body that is not valid JSON (the framework's parser error, with the parser's reason). */
export function jsonParseError(reason: string): string {
  return `JSON parse error - ${reason}`;
}
