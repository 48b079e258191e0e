import { createWriteStream, mkdirSync } from 'node:fs';
import { once } from 'node:events';
import { dirname } from 'node:path';
import { finished } from 'node:stream/promises';
import { stringify } from 'csv-stringify/sync';
import iconv from 'iconv-lite';

export interface CsvFileWriter {
  /**
   * Queues one row. Returns a promise only when the caller must wait (the file is behind), so
   * that the hot path of a million-row run costs no await per row.
   */
  write(row: readonly string[]): Promise<void> | undefined;
  close(): Promise<void>;
}

export interface CsvFileWriterOptions {
  readonly header: readonly string[];
  /** Default `,`. */
  readonly delimiter?: string;
  /** Default utf-8; other encodings go through iconv-lite (the rejects file keeps its source's). */
  readonly encoding?: string;
}

/** Rows formatted per batch: csv-stringify's per-record stream costs more than the rest of a row's work. */
const BATCH_ROWS = 512;

/** A streaming RFC 4180 writer (csv-stringify, in batches) into a file, with backpressure. */
export function createCsvFileWriter(path: string, options: CsvFileWriterOptions): CsvFileWriter {
  mkdirSync(dirname(path), { recursive: true });
  const file = createWriteStream(path);
  const encoding = options.encoding ?? 'utf-8';
  const utf8 = /^utf-?8$/i.test(encoding);
  const format = { delimiter: options.delimiter ?? ',', record_delimiter: 'unix' } as const;
  let failure: Error | undefined;
  file.on('error', (e) => {
    failure = e;
  });
  let batch: (readonly string[])[] = [options.header];

  /** Writes the batch; true when the file wants the writer to wait for `drain`. */
  const flush = (): boolean => {
    if (batch.length === 0) return false;
    const text = stringify(batch, format);
    batch = [];
    return !file.write(utf8 ? text : iconv.encode(text, encoding));
  };

  return {
    write(row) {
      if (failure) return Promise.reject(failure);
      batch.push(row);
      if (batch.length < BATCH_ROWS || !flush()) return undefined;
      return once(file, 'drain').then(() => undefined);
    },
    async close() {
      flush();
      file.end();
      await finished(file);
      if (failure) throw failure;
    },
  };
}
