/**
 * How deep JSON (or YAML flow) text nests, found by a scan instead of a parse: parsers and
 * serialisers recurse per level, so text a few kilobytes long but thousands of levels deep can
 * exhaust the stack of whatever reads it next. Used to refuse such text before it is parsed.
 */
/** Deepest `{`/`[` nesting of JSON text, strings skipped; stops counting past `limit`. */
export function jsonDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}
