import iconv from 'iconv-lite';

/** Bytes looked at: enough for the header and many rows, small enough to read at once. */
export const SNIFF_BYTES = 64 * 1024;

export interface DetectedEncoding {
  /** A name the reader accepts (`utf-8`, `utf-16le`, `windows-1250`, …). */
  readonly encoding: string;
  /** Why, for the comment in the mapping. */
  readonly why: string;
  /** True when the bytes do not decide it (a single-byte code page): the user should check. */
  readonly guessed: boolean;
}

/**
 * Single-byte code pages tried when the bytes are not UTF-8, in the order that breaks a tie:
 * Western European first (the most common), then Central European (Polish, Czech, …) as Windows
 * and as ISO 8859-2 write it: they differ in a few letters (ś is 0x9C in one, 0xB6 in the other).
 */
const CODE_PAGES = ['windows-1252', 'windows-1250', 'iso-8859-2'] as const;

/**
 * The encoding of a file from its first bytes, where the bytes allow it: a byte order mark says
 * it outright; UTF-16 without one shows as a zero byte beside every ASCII character; bytes that
 * decode as UTF-8 are UTF-8 (any other encoding with bytes over 0x7F almost never does). What is
 * left is a single-byte code page, which no byte pattern proves: the one that turns the most
 * high bytes into letters rather than symbols is taken, and the comment says it is a guess.
 */
export function detectEncoding(bytes: Uint8Array): DetectedEncoding {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    return { encoding: 'utf-8', why: 'the file starts with the byte order mark of UTF-8', guessed: false };
  if (bytes[0] === 0xff && bytes[1] === 0xfe)
    return { encoding: 'utf-16le', why: 'the file starts with the byte order mark of UTF-16LE', guessed: false };
  if (bytes[0] === 0xfe && bytes[1] === 0xff)
    return { encoding: 'utf-16be', why: 'the file starts with the byte order mark of UTF-16BE', guessed: false };
  const zeros = zeroBytes(bytes);
  if (zeros.odd > 0.3 && zeros.even < 0.05)
    return {
      encoding: 'utf-16le',
      why: 'every other byte is zero (UTF-16LE without a byte order mark)',
      guessed: false,
    };
  if (zeros.even > 0.3 && zeros.odd < 0.05)
    return {
      encoding: 'utf-16be',
      why: 'every other byte is zero (UTF-16BE without a byte order mark)',
      guessed: false,
    };
  if (!bytes.some((b) => b > 0x7f))
    return { encoding: 'utf-8', why: 'the sampled bytes are plain ASCII (UTF-8 reads them)', guessed: false };
  try {
    // `stream` keeps a character cut by the end of the sample from counting as an error.
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
    return { encoding: 'utf-8', why: 'the sampled bytes are valid UTF-8', guessed: false };
  } catch {
    // Not UTF-8: a single-byte code page.
  }
  let best: { name: string; letters: number } | undefined;
  for (const name of CODE_PAGES) {
    const letters = highLetters(iconv.decode(Buffer.from(bytes), name));
    if (best === undefined || letters > best.letters) best = { name, letters };
  }
  return {
    encoding: best!.name,
    why: `not UTF-8; ${best!.name} reads the most accented letters (a guess: check a few names in the report)`,
    guessed: true,
  };
}

function zeroBytes(bytes: Uint8Array): { even: number; odd: number } {
  const n = Math.min(bytes.length, 4096) & ~1;
  if (n === 0) return { even: 0, odd: 0 };
  let even = 0;
  let odd = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) even++;
    if (bytes[i + 1] === 0) odd++;
  }
  return { even: even / (n / 2), odd: odd / (n / 2) };
}

/** Characters above ASCII that are letters, minus those that are symbols or undefined. */
function highLetters(text: string): number {
  let score = 0;
  for (const c of text) {
    if (c.charCodeAt(0) < 0x80) continue;
    score += /\p{L}/u.test(c) ? 1 : -1;
  }
  return score;
}
