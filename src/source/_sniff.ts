import iconv from 'iconv-lite';
import type { ResolvedEncoding } from './_encoding.js';

/** Bytes of the file's start looked at: enough for a header and some rows. */
export const SNIFF_BYTES = 64 * 1024;

const FIX = "Set the mapping's source.encoding";

/**
 * A file that decodes without error in its declared encoding and is still not what was declared:
 * a compressed file or a workbook, UTF-16 without a byte order mark (a NUL every other byte), or
 * UTF-8 declared as a single-byte code page (it would import as `ZaĹĽĂłĹ‚Ä‡`). Told apart from
 * the first bytes, with the fix in the message; `undefined` when nothing looks wrong.
 */
export function sniffMismatch(head: Buffer, encoding: ResolvedEncoding, name: string): string | undefined {
  if (head[0] === 0x1f && head[1] === 0x8b)
    return `${name} is a gzip-compressed file, not a CSV: decompress it first (gunzip ${name}) and read the file inside`;
  if (head.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]))) {
    return head.includes('xl/') || head.includes('[Content_Types].xml')
      ? `${name} is an Excel workbook (.xlsx), not a CSV: open it and save the sheet as "CSV UTF-8 (comma delimited)"`
      : `${name} is a zip archive, not a CSV: unzip it and read the CSV inside`;
  }
  if (head.subarray(0, 8).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]))) {
    return `${name} is an Excel 97–2003 workbook (.xls), not a CSV: open it and save the sheet as "CSV UTF-8 (comma delimited)"`;
  }
  const bom = head[0] === 0xff && head[1] === 0xfe ? 'le' : head[0] === 0xfe && head[1] === 0xff ? 'be' : undefined;
  if (encoding.kind !== 'utf-16' && bom === undefined) {
    const endian = utf16Without(head);
    if (endian !== undefined)
      return `${name} has a NUL byte every other byte: it is UTF-16 (${endian === 'le' ? 'little' : 'big'}-endian) without a byte order mark, not ${encoding.label}. ${FIX} to utf-16${endian}.`;
  }
  if (encoding.kind === 'iconv' && encoding.singleByte) {
    const sample = utf8Sample(head);
    if (sample !== undefined) {
      // One character, not the text around it: the message reaches logs and alerts, and the
      // cells of a row may be personal data.
      const misread = iconv.decode(Buffer.from(sample.char, 'utf8'), encoding.name);
      return `${name} is declared ${encoding.label}, but its bytes are UTF-8 throughout: the first non-ASCII character, on line ${sample.line}, is ${JSON.stringify(sample.char)} and would be read as ${JSON.stringify(misread)}. ${FIX} to utf-8.`;
    }
  }
  return undefined;
}

/** `le` / `be` when most characters of the start have one NUL byte on the same side. */
function utf16Without(head: Buffer): 'le' | 'be' | undefined {
  const pairs = Math.min(Math.floor(head.length / 2), 512);
  if (pairs < 2) return undefined;
  let evenNul = 0;
  let oddNul = 0;
  for (let i = 0; i < pairs; i++) {
    if (head[2 * i] === 0) evenNul++;
    if (head[2 * i + 1] === 0) oddNul++;
  }
  if (oddNul >= pairs * 0.8 && evenNul <= pairs * 0.1) return 'le';
  if (evenNul >= pairs * 0.8 && oddNul <= pairs * 0.1) return 'be';
  return undefined;
}

/**
 * The first non-ASCII character and its line, when the bytes hold multi-byte UTF-8 sequences
 * and are valid UTF-8 up to the end of the sample (a sequence cut by the sample's end allowed).
 * Text in a single-byte code page is practically never valid UTF-8 once it has accented letters.
 */
function utf8Sample(head: Buffer): { readonly char: string; readonly line: number } | undefined {
  const first = head.findIndex((b) => b >= 0x80);
  if (first === -1) return undefined;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
  } catch {
    return undefined;
  }
  const at = text.search(/\P{ASCII}/u);
  if (at === -1) return undefined;
  const before = text.slice(0, at);
  // Lines as the reader counts them: CRLF, LF and CR each end one.
  const line = (before.match(/\r\n|\n|\r/g)?.length ?? 0) + 1;
  return { char: String.fromCodePoint(text.codePointAt(at)!), line };
}
