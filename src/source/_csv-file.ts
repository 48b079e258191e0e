import { ioReason, refuseIrregularInput } from './regular-file.js';
import { open, type FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import { SourceError } from '../errors.js';
import { createTranscoder, resolveEncoding, Undecodable, type ResolvedEncoding, type Transcoder } from './_encoding.js';
import { locateUndecodable } from './_locate-undecodable.js';
import { sniffMismatch, SNIFF_BYTES } from './_sniff.js';

const noop = (): void => {};

/**
 * The byte side of a CSV file: opened, its start sniffed for a file that is not what its encoding
 * says, then read a chunk at a time and handed on as UTF-8. Every failure is a SourceError
 * naming the file (CSV_READ for the file system, CSV_ENCODING for its bytes, located to the line).
 */
export class CsvFile {
  readonly name: string;
  private ended = false;
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly file: FileHandle,
    private readonly encoding: ResolvedEncoding,
    private readonly transcoder: Transcoder,
    private readonly chunkBytes: number,
  ) {
    this.name = basename(path);
  }

  /** Opens the file and sniffs its start; the file is closed again if that fails. */
  static async open(path: string, encodingName: string, chunkBytes: number): Promise<CsvFile> {
    const encoding = resolveEncoding(encodingName);
    if (encoding === undefined) {
      throw new SourceError(
        'CSV_ENCODING',
        `${path}: unknown encoding ${JSON.stringify(encodingName)} (use an iconv-lite name such as utf-8, utf-16le, windows-1250, latin1)`,
      );
    }
    let file: FileHandle;
    await refuseIrregularInput(path);
    try {
      file = await open(path, 'r');
    } catch (error) {
      throw new SourceError('CSV_READ', `${path}: ${ioReason(error, 'cannot open the file')}`, { cause: error });
    }
    const csvFile = new CsvFile(path, file, encoding, createTranscoder(encoding), chunkBytes);
    try {
      await csvFile.sniff();
    } catch (error) {
      csvFile.close();
      throw error;
    }
    return csvFile;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    // FileHandle.close waits for a read in flight; nothing useful can be done if closing fails.
    this.file.close().catch(noop);
  }

  /** The next UTF-8 bytes for the parser, `undefined` at the end of the file. */
  async nextUtf8(): Promise<Buffer | undefined> {
    while (!this.ended) {
      const raw = await this.readRaw();
      let bytes: Buffer;
      try {
        if (raw === undefined) {
          this.ended = true;
          bytes = this.transcoder.end();
        } else {
          bytes = this.transcoder.write(raw);
        }
      } catch (error) {
        if (error instanceof Undecodable) throw await this.encodingError(error);
        throw error;
      }
      if (bytes.length > 0) return bytes;
    }
    return undefined;
  }

  /** A file that would decode and still be misread (see sniffMismatch) fails before its header. */
  private async sniff(): Promise<void> {
    const head = Buffer.alloc(SNIFF_BYTES);
    let bytesRead: number;
    try {
      // A read at position 0 does not move the file position the reader goes on from.
      ({ bytesRead } = await this.file.read(head, 0, SNIFF_BYTES, 0));
    } catch (error) {
      throw new SourceError('CSV_READ', `${this.path}: ${ioReason(error, 'cannot read the file')}`, { cause: error });
    }
    const problem = sniffMismatch(head.subarray(0, bytesRead), this.encoding, this.name);
    if (problem !== undefined) throw new SourceError('CSV_ENCODING', problem);
  }

  private async readRaw(): Promise<Buffer | undefined> {
    if (this.closed) return undefined;
    // A fresh buffer each time: csv-parse keeps a slice of the previous chunk.
    const buffer = Buffer.allocUnsafe(this.chunkBytes);
    let bytesRead: number;
    try {
      ({ bytesRead } = await this.file.read(buffer, 0, this.chunkBytes, null));
    } catch (error) {
      if (this.closed) return undefined;
      throw new SourceError('CSV_READ', `${this.path}: ${ioReason(error, 'cannot read the file')}`, { cause: error });
    }
    if (bytesRead === 0) return undefined;
    return bytesRead < this.chunkBytes ? buffer.subarray(0, bytesRead) : buffer;
  }

  private async encodingError(error: Undecodable): Promise<SourceError> {
    const label = this.encoding.label;
    const fix = "Set the mapping's source.encoding to the file's real encoding.";
    if (error.bom !== undefined) {
      return new SourceError(
        'CSV_ENCODING',
        `${this.name} starts with a ${error.bom} byte order mark, but its encoding is set to ${label}. Set the mapping's source.encoding to ${error.bom.toLowerCase()}.`,
      );
    }
    const at = await locateUndecodable(this.path, this.encoding).catch(() => undefined);
    if (at === undefined) return new SourceError('CSV_ENCODING', `${this.name} is not valid ${label}. ${fix}`);
    const shown = at.bytes === undefined ? 'bytes' : `${at.bytes.length === 1 ? 'byte' : 'bytes'} ${hex(at.bytes)}`;
    const where = at.offset === undefined ? `at line ${at.line}` : `at line ${at.line} (byte offset ${at.offset})`;
    const why =
      this.encoding.kind === 'iconv' && this.encoding.singleByte
        ? 'is not defined in that code page'
        : 'cannot be decoded';
    const what = `${shown} ${where} ${why}`;
    return new SourceError('CSV_ENCODING', `${this.name} is not valid ${label}: ${what}. ${fix}`);
  }
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => `0x${b.toString(16).toUpperCase().padStart(2, '0')}`).join(' ');
}
