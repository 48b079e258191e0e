/**
 * Chunk files on disk: lines from `chunk-csv.ts` are streamed into a file (backpressure, no
 * chunk held in memory), and a sub-chunk for a re-upload is cut from a chunk file by row
 * position, copying each record's bytes as they were written, so the rows are never rebuilt
 * from the input. Only the rows' keys (`ChunkRow`) stay in memory, to read the import's report.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { parse } from 'csv-parse';

/** The service's limit for one file (docs/api-contract.md R-BULK-1: at most 200 MB). */
export const MAX_CHUNK_BYTES = 200 * 1024 * 1024;

export interface ChunkFileWriter {
  /** Rows written so far (header excluded). */
  readonly rows: number;
  /** Bytes written so far, header included. */
  readonly bytes: number;
  /** Whether `line` still fits under `maxBytes`. */
  fits(line: string): boolean;
  /** Appends one line (from `payloadLine`); a promise only when the file is behind and the caller must wait. */
  write(line: string): Promise<void> | undefined;
  close(): Promise<void>;
}

/**
 * @param header the header line (`headerLine(columns)`).
 * @param maxBytes the file's size limit. Default `MAX_CHUNK_BYTES`.
 */
export function createChunkFileWriter(path: string, header: string, maxBytes = MAX_CHUNK_BYTES): ChunkFileWriter {
  const file: WriteStream = createWriteStream(path, { flags: 'w' });
  let failure: Error | undefined;
  file.on('error', (e) => {
    failure = e;
  });
  let rows = 0;
  let bytes = Buffer.byteLength(header);
  let draining: Promise<void> | undefined;
  file.write(header);
  return {
    get rows() {
      return rows;
    },
    get bytes() {
      return bytes;
    },
    fits: (line) => bytes + Buffer.byteLength(line) <= maxBytes,
    write(line) {
      if (failure) return Promise.reject(failure);
      rows++;
      bytes += Buffer.byteLength(line);
      if (file.write(line)) return undefined;
      // One wait for the drain, shared by every write made while the file is behind.
      draining ??= once(file, 'drain').then(() => {
        draining = undefined;
      });
      return draining;
    },
    async close() {
      file.end();
      await finished(file);
      if (failure) throw failure;
    },
  };
}

/**
 * Writes the header and the records at `positions` (0-based data rows, ascending) of the chunk
 * file `source` into `target`, byte for byte. Answers the number of rows written.
 */
export async function writeSubChunk(source: string, positions: readonly number[], target: string): Promise<number> {
  const wanted = new Set(positions);
  const out = createWriteStream(target, { flags: 'w' });
  const parser = createReadStream(source).pipe(parse({ raw: true, relax_column_count: true }));
  let index = -1; // -1: the header
  let written = 0;
  try {
    for await (const { raw } of parser as AsyncIterable<{ raw: string }>) {
      if (index === -1 || wanted.has(index)) {
        if (!out.write(raw)) await once(out, 'drain');
        if (index !== -1) written++;
      }
      index++;
    }
  } finally {
    out.end();
    await finished(out);
  }
  if (written !== wanted.size)
    throw new RangeError(`sub-chunk of ${source}: ${wanted.size} rows asked, ${written} found`);
  return written;
}
