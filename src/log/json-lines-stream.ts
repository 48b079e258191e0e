import { Writable } from 'node:stream';
import type { Logger } from './logger.js';

/**
 * Under `--log-format json` every line on stderr must parse. The tool's prose (the summary,
 * notices, an error before exit) is written to stderr by many commands; this stream turns each
 * line of it into a `message` event, so they need not know the format. A line starting with
 * `engage-import:` is an error (level `error`), or a warning when it says so; others are `info`.
 */
export function jsonLinesStream(logger: Logger, columns?: number): Writable & { isTTY: false; columns?: number } {
  let partial = '';
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, callback) {
      partial += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') logger.log(levelOf(line), 'message', { text: line });
      callback();
    },
    final(callback) {
      if (partial.trim() !== '') logger.log(levelOf(partial), 'message', { text: partial });
      partial = '';
      callback();
    },
  });
  return Object.assign(stream, { isTTY: false as const, ...(columns !== undefined ? { columns } : {}) });
}

function levelOf(line: string): 'info' | 'warn' | 'error' {
  if (!line.startsWith('engage-import:')) return 'info';
  return /warning/i.test(line) ? 'warn' : 'error';
}
