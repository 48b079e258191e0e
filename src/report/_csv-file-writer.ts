import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { stringify, type Stringifier } from 'csv-stringify';
import iconv from 'iconv-lite';

export interface CsvFileWriter {
  /** Resolves once the row is buffered; waits for drain so memory stays flat. */
  write(row: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

export interface CsvFileWriterOptions {
  readonly header: readonly string[];
  /** Default `,`. */
  readonly delimiter?: string;
  /** Default utf-8; other encodings go through iconv-lite (the rejects file keeps its source's). */
  readonly encoding?: string;
}

/** A streaming RFC 4180 writer (csv-stringify) into a file, with backpressure. */
export function createCsvFileWriter(path: string, options: CsvFileWriterOptions): CsvFileWriter {
  mkdirSync(dirname(path), { recursive: true });
  const file = createWriteStream(path);
  const encoding = options.encoding ?? 'utf-8';
  const stringifier: Stringifier = stringify({ delimiter: options.delimiter ?? ',', record_delimiter: 'unix' });
  const utf8 = /^utf-?8$/i.test(encoding);
  // iconv-lite's encoder takes strings: a StringDecoder in front never splits a character.
  if (!utf8) stringifier.setEncoding('utf8');
  const out = utf8 ? stringifier.pipe(file) : stringifier.pipe(iconv.encodeStream(encoding)).pipe(file);
  let failure: Error | undefined;
  file.on('error', (e) => { failure = e; });
  const put = async (row: readonly string[]) => {
    if (failure) throw failure;
    if (!stringifier.write(row)) await once(stringifier, 'drain');
  };
  const ready = put(options.header);
  return {
    async write(row) {
      await ready;
      await put(row);
    },
    async close() {
      await ready;
      stringifier.end();
      await finished(out);
      if (failure) throw failure;
    },
  };
}
