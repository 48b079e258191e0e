/** The delimiters `auto` chooses from, in the order that breaks a tie. */
export const DELIMITER_CANDIDATES = [',', ';', '\t', '|'] as const;

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;

/**
 * The candidate that occurs most often outside quotes in the header line (the first line that is
 * not blank), `,` if none does: a header is short and made of names, so its separators are what
 * the file uses. `complete` is false while `bytes` stops before the end of that line: the caller
 * reads on (or accepts the answer at the end of the file).
 */
export function detectDelimiter(bytes: Uint8Array): { readonly delimiter: string; readonly complete: boolean } {
  const counts = DELIMITER_CANDIDATES.map(() => 0);
  const codes = DELIMITER_CANDIDATES.map((d) => d.charCodeAt(0));
  let i = 0;
  while (i < bytes.length && (bytes[i] === LF || bytes[i] === CR)) i++;
  let inQuote = false;
  let complete = false;
  for (; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === QUOTE) inQuote = !inQuote;
    else if (!inQuote && (b === LF || b === CR)) {
      complete = true;
      break;
    } else if (!inQuote) {
      const k = codes.indexOf(b);
      if (k !== -1) counts[k]!++;
    }
  }
  let best = 0;
  for (let k = 1; k < counts.length; k++) if (counts[k]! > counts[best]!) best = k;
  return { delimiter: counts[best]! > 0 ? DELIMITER_CANDIDATES[best]! : ',', complete };
}
