/** Longest piece of a value quoted in a message: a whole JSON blob would drown the report. */
const MAX_SHOWN = 60;

const cut = (text: string): string => (text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text);

/** `"12a"`: a bad text as the user typed it, JSON-quoted so spaces and control characters show. */
export function quote(text: string): string {
  return JSON.stringify(cut(text));
}

/**
 * A bad value as the user should recognise it: text quoted (`quote`), anything else as JSON, both
 * cut to the same length. Never throws (a cycle or a BigInt is shown with `String`).
 */
export function show(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return cut(text);
}
