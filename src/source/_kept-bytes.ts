/**
 * The decoded bytes still needed to show a malformed record as the file has it (its `raw`): kept
 * by their offset in the decoded text, let go as soon as every record they hold has been taken,
 * so a file of any size is held one chunk or two at a time.
 */
export class KeptBytes {
  private kept: { readonly at: number; readonly bytes: Buffer }[] = [];

  /** `bytes` start at offset `at` of the decoded text. */
  push(at: number, bytes: Buffer): void {
    this.kept.push({ at, bytes });
  }

  /** Lets go of every chunk that ends at or before `offset`. */
  dropBefore(offset: number): void {
    let drop = 0;
    while (drop < this.kept.length && this.kept[drop]!.at + this.kept[drop]!.bytes.length <= offset) drop++;
    if (drop > 0) this.kept.splice(0, drop);
  }

  /** The text from `start` to `end` without its line break; `undefined` if its bytes were let go. */
  text(start: number | undefined, end: number | undefined): string | undefined {
    if (start === undefined || end === undefined || this.kept.length === 0 || this.kept[0]!.at > start)
      return undefined;
    const parts: Buffer[] = [];
    for (const { at, bytes } of this.kept) {
      if (at >= end) break;
      if (at + bytes.length <= start) continue;
      parts.push(bytes.subarray(Math.max(0, start - at), Math.min(bytes.length, end - at)));
    }
    return Buffer.concat(parts)
      .toString('utf8')
      .replace(/(?:\r\n|\n|\r)$/, '');
  }
}
