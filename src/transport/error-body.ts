/**
 * The service's own words for a refused request (see docs/api-contract.md). Three body formats exist:
 * 1. flat field errors `{"name": ["…"], "status": ["…"]}` (deals),
 * 2. nested `{"errors": {"user_id": ["…"]}}` (events),
 * 3. a detail string `{"detail": "…"}` (not found, throttling).
 * The rule: "when `detail` is present, it is the general message; else when `errors` is
 * present, use its content; else use the object as it is."
 */

/** Longest message kept: the report's message column stays readable. */
export const MAX_MESSAGE_LENGTH = 1000;
/** Longest snippet of a body that is not JSON (an HTML error page from a proxy, say). */
export const SNIPPET_LENGTH = 120;

/**
 * The message for an error response: the service's message when the body is JSON and says
 * something, else `HTTP <status>` plus a short snippet of the body.
 */
export function errorMessage(status: number, text: string): string {
  const body = parseJson(text);
  if (body !== undefined) {
    // JSON that says nothing (`{}`, `[]`) is better shown as the bare status than as itself.
    const rendered = renderErrorBody(body) ?? '';
    return rendered === '' ? `HTTP ${status}` : truncate(rendered, MAX_MESSAGE_LENGTH);
  }
  const snippet = textSnippet(text);
  return snippet === '' ? `HTTP ${status}` : `HTTP ${status}: ${snippet}`;
}

/**
 * Renders a parsed error body as `field: message; field: message`. Lists of strings are joined
 * with a space; nested objects and lists of objects are flattened with dotted paths
 * (`order_products.0.product_id: Could not find product with id '9'`). Undefined when the body
 * is not JSON.
 */
export function renderErrorBody(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  if (isRecord(body)) {
    if ('detail' in body && body.detail !== null && body.detail !== undefined)
      return flatten(body.detail, '').join('; ');
    if ('errors' in body && body.errors !== null && typeof body.errors === 'object')
      return flatten(body.errors, '').join('; ');
  }
  return flatten(body, '').join('; ');
}

/** One `path: text` entry per leaf group; empty objects (the valid items of a list) give none. */
function flatten(value: unknown, path: string): string[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) {
    const scalars = value.filter((v) => !isStructured(v) && v !== null && v !== undefined);
    const entries = scalars.length > 0 ? [label(path, scalars.map(String).join(' '))] : [];
    value.forEach((v, i) => {
      if (isStructured(v)) entries.push(...flatten(v, join(path, String(i))));
    });
    return entries;
  }
  if (isRecord(value)) return Object.entries(value).flatMap(([key, v]) => flatten(v, join(path, key)));
  return [label(path, String(value))];
}

function isStructured(v: unknown): boolean {
  return v !== null && typeof v === 'object';
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function label(path: string, text: string): string {
  return path === '' ? text : `${path}: ${text}`;
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A body that is not JSON, reduced to readable text: tags dropped, whitespace collapsed. */
export function textSnippet(text: string): string {
  const readable = (t: string) =>
    t
      .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
      .replace(/<[^>]*>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
  // A page's head repeats its heading in <title> ("Server Error (500)" twice): its body says it once.
  const body = readable(text.replace(/<head\b[^>]*>[\s\S]*?<\/head\s*>/i, ' '));
  return truncate(body === '' ? readable(text) : body, SNIPPET_LENGTH);
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
