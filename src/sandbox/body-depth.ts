/**
 * How deep a request body nests, found by a scan before it is parsed: JSON.parse recurses per
 * level, so a body of a few kilobytes but 100,000 levels deep would exhaust the server's stack.
 * The sandbox keeps this apart from the client's own depth check (src/json-depth.ts) on purpose,
 * as it keeps every check apart: a client bug must not hide behind a shared one.
 */
export function bodyDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      deepest = Math.max(deepest, ++depth);
      if (deepest > limit) break;
    } else if (c === '}' || c === ']') depth--;
  }
  return deepest;
}
