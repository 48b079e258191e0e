/**
 * The uploaded file as CSV records (csv-parse), from the chunks the upload kept: UTF-8, a BOM
 * dropped, blank lines skipped. Chunks are released as the parser takes them, so the file is
 * held once, not once as bytes and again as rows.
 */
import { Readable } from 'node:stream';
import { parse, type Parser } from 'csv-parse';

export const SEPARATORS = { comma: ',', tab: '\t', semicolon: ';' } as const;
export type SeparatorName = keyof typeof SEPARATORS;

export function csvParser(separator: SeparatorName): Parser {
  return parse({ delimiter: SEPARATORS[separator], bom: true, relax_column_count: true, skip_empty_lines: true });
}

/** Records (string arrays), header first; `chunks` is emptied as the parser consumes it. */
export function readRecords(chunks: Buffer[], separator: SeparatorName): AsyncIterable<string[]> {
  function* drain(): Generator<Buffer> {
    while (chunks.length > 0) yield chunks.shift()!;
  }
  return Readable.from(drain(), { objectMode: false }).pipe(csvParser(separator));
}
