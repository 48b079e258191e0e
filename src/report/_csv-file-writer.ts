import { once } from 'node:events';
import iconv from 'iconv-lite';
import { csvLineFormatter } from './_csv-line.js';
import { openOutputFile, outputError } from './_output-file.js';

export interface CsvFileWriter {
  /**
   * Queues one row. Returns a promise only when the caller must wait (the file is behind), so
   * that the hot path of a million-row run costs no await per row. `prefix`: text written as it
   * is before the row's cells (a record kept verbatim, its cells following on its last line).
   */
  write(row: readonly string[], prefix?: string): Promise<void> | undefined;
  /** `keep: false`: the run failed part-way; the file written so far is dropped (see `openOutputFile`). */
  close(keep?: boolean): Promise<void>;
}

export interface CsvFileWriterOptions {
  readonly header: readonly string[];
  /** Default `,`. */
  readonly delimiter?: string;
  /** Default utf-8; other encodings go through iconv-lite (the rejects file keeps its source's). */
  readonly encoding?: string;
  /** Write Excel's `sep=<delimiter>` line before the header, which names the delimiter to readers. */
  readonly sepLine?: boolean;
}

/** Lines written to the file at once: one stream write per row costs more than the row's formatting. */
const BATCH_ROWS = 512;

/** A streaming RFC 4180 writer (csv-stringify's format, in batches) into a file, with backpressure. */
export function createCsvFileWriter(path: string, options: CsvFileWriterOptions): CsvFileWriter {
  const output = openOutputFile(path);
  const file = output.stream;
  const encoding = options.encoding ?? 'utf-8';
  // One encoder for the whole file: a fresh `iconv.encode` per batch would write a UTF-16 BOM
  // in front of every batch.
  const encoder = /^utf-?8$/i.test(encoding) ? undefined : iconv.getEncoder(encoding);
  const format = csvLineFormatter(options.delimiter ?? ',');
  let failure: Error | undefined;
  file.on('error', (e) => {
    failure ??= outputError(path, e);
  });
  let batch = `${options.sepLine === true ? `sep=${options.delimiter ?? ','}\n` : ''}${format(options.header)}`;
  let rows = 1;

  /** Writes the batch; true when the file wants the writer to wait for `drain`. */
  const flush = (): boolean => {
    if (rows === 0) return false;
    const text = batch;
    batch = '';
    rows = 0;
    return !file.write(encoder === undefined ? text : encoder.write(text));
  };

  return {
    write(row, prefix) {
      if (failure) return Promise.reject(failure);
      batch += prefix === undefined ? format(row) : prefix + format(row);
      if (++rows < BATCH_ROWS || !flush()) return undefined;
      return once(file, 'drain').then(
        () => undefined,
        (e: unknown) => Promise.reject(outputError(path, e)),
      );
    },
    async close(keep = true) {
      flush();
      const tail = encoder?.end();
      if (tail !== undefined && tail.length > 0) file.write(tail);
      await output.close(keep);
    },
  };
}
