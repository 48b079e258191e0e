import { once } from 'node:events';
import { openOutputFile, outputError } from './_output-file.js';

/** One request a valid row would send (dry run `--payloads`), for reviewing a migration. */
export interface PayloadLine {
  readonly file: string;
  readonly line: number;
  readonly method: string;
  /** Relative to the API root, starting with `/` (`/product-event-creation/SKU/1/`). */
  readonly path: string;
  readonly body: unknown;
}

export interface PayloadsWriter {
  write(line: PayloadLine): Promise<void>;
  /** `keep: false`: the run failed part-way; the previous file stays. */
  close(keep?: boolean): Promise<void>;
}

/** NDJSON, one request a line, streamed with backpressure. */
export function createPayloadsWriter(path: string): PayloadsWriter {
  const output = openOutputFile(path);
  const out = output.stream;
  return {
    async write(l) {
      const text = `${JSON.stringify({ file: l.file, line: l.line, method: l.method, path: l.path, body: l.body })}\n`;
      if (!out.write(text)) await once(out, 'drain').catch((e: unknown) => Promise.reject(outputError(path, e)));
    },
    async close(keep = true) {
      await output.close(keep);
    },
  };
}
