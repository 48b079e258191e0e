import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, renameSync, rmSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { finished } from 'node:stream/promises';
import { z } from 'zod';
import { RESOURCES } from '../config/mapping-schema.js';
import { SyncError } from '../errors.js';
import { displayPath } from '../text/display-path.js';
import { STATE_FORMAT, toStateError } from './_state-db.js';
import type { SyncState } from './sync-state.js';
import { targetDifference, type StateTarget } from './state-target.js';

/**
 * The NDJSON form of a sync state (`state export` / `state import`), so a job that runs in a
 * fresh container can keep its state in a bucket. One JSON object a line: a header, the rows,
 * and an `end` line with the counts, so a file cut short in transit is refused rather than
 * read as a smaller state (which would resend every missing row).
 *
 *   {"format":"engage-import sync state","version":1,"job":"/jobs/nightly.yaml","exported_at":"…"}
 *   {"type":"entity","resource":"user","key":"custom_id=C-1","hash":"<hex>","run":"…","at":"…"}
 *   {"type":"event","resource":"event","identity":"<hex>","run":"…","at":"…"}
 *   {"type":"mapping","resource":"user","fingerprint":"<hex> or <file>=<hex>,…","run":"…","at":"…"}
 *   {"type":"applied","run":"…","seq":42,"complete":true}
 *   {"type":"end","rows":1234}
 */
const FORMAT_NAME = 'engage-import sync state';

const Hex32 = z.string().regex(/^[0-9a-f]{64}$/);
const Resource = z.enum(RESOURCES);
const Header = z.object({
  format: z.literal(FORMAT_NAME),
  version: z.number().int().positive(),
  job: z.string(),
  exported_at: z.string(),
  // Where the state's rows were sent (base URL, API key fingerprint); absent when no run had yet.
  target: z.strictObject({ baseUrl: z.string().min(1), keyFingerprint: z.string().min(1) }).optional(),
});
const Line = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('entity'),
    resource: Resource,
    key: z.string().min(1),
    hash: Hex32,
    run: z.string().min(1),
    at: z.string().min(1),
  }),
  z.strictObject({
    type: z.literal('event'),
    resource: Resource,
    identity: Hex32,
    run: z.string().min(1),
    at: z.string().min(1),
  }),
  z.strictObject({
    type: z.literal('mapping'),
    resource: Resource,
    // One mapping's, or several under their files' names (`resourceFingerprints`).
    fingerprint: z.string().regex(/^(?:[0-9a-f]{64}|[^,=]+=[0-9a-f]{64}(?:,[^,=]+=[0-9a-f]{64})*)$/),
    run: z.string().min(1),
    at: z.string().min(1),
  }),
  z.strictObject({
    type: z.literal('applied'),
    run: z.string().min(1),
    seq: z.number().int().nonnegative(),
    complete: z.boolean(),
  }),
  // `sha256`: of every line before it, each with its `\n` (absent in exports written before it was added).
  z.strictObject({ type: z.literal('end'), rows: z.number().int().nonnegative(), sha256: Hex32.optional() }),
]);

/** The job an export's first line names, or undefined when that line is not an export's header. */
export function exportedJob(firstLine: string): string | undefined {
  try {
    const header = Header.safeParse(JSON.parse(firstLine));
    return header.success && header.data.job !== '' ? header.data.job : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes the whole state to `file` as NDJSON, streaming (one row in memory at a time), from one
 * consistent snapshot; written beside it and renamed into place, so `file` is never half a state.
 * Returns the number of rows written (end line excluded).
 */
export async function exportState(state: SyncState, file: string, now: () => Date = () => new Date()): Promise<number> {
  const tmp = `${file}.${process.pid}.tmp`;
  const out = createWriteStream(tmp);
  // A write that fails reaches `drain` and `finished` below; the stream destroyed after a failure
  // elsewhere (a damaged page) may still report its pending write, which must not end the process.
  out.on('error', () => undefined);
  const db = state.db;
  let rows = 0;
  const digest = createHash('sha256');
  const put = async (value: unknown) => {
    const line = `${JSON.stringify(value)}\n`;
    digest.update(line, 'utf8');
    if (!out.write(line)) await once(out, 'drain');
  };
  try {
    db.exec('BEGIN'); // a read snapshot across the tables (WAL: runs may go on writing meanwhile)
    try {
      const target = state.target();
      await put({
        format: FORMAT_NAME,
        version: STATE_FORMAT,
        job: state.job,
        exported_at: now().toISOString(),
        ...(target !== undefined && { target }),
      });
      for (const r of db
        .prepare(`SELECT resource, key, hex(hash) AS hash, run_id, at FROM entities ORDER BY resource, key`)
        .iterate() as IterableIterator<Record<string, string>>) {
        await put({
          type: 'entity',
          resource: r.resource,
          key: r.key,
          hash: r.hash!.toLowerCase(),
          run: r.run_id,
          at: r.at,
        });
        rows++;
      }
      for (const r of db
        .prepare(`SELECT resource, hex(identity) AS identity, run_id, at FROM events ORDER BY resource, identity`)
        .iterate() as IterableIterator<Record<string, string>>) {
        await put({
          type: 'event',
          resource: r.resource,
          identity: r.identity!.toLowerCase(),
          run: r.run_id,
          at: r.at,
        });
        rows++;
      }
      for (const r of db
        .prepare(`SELECT resource, fingerprint, run_id, at FROM mappings ORDER BY resource`)
        .all() as Record<string, string>[]) {
        await put({ type: 'mapping', resource: r.resource, fingerprint: r.fingerprint, run: r.run_id, at: r.at });
        rows++;
      }
      for (const r of db.prepare(`SELECT run_id, seq, complete FROM applied ORDER BY run_id`).all() as {
        run_id: string;
        seq: number;
        complete: number;
      }[]) {
        await put({ type: 'applied', run: r.run_id, seq: r.seq, complete: r.complete === 1 });
        rows++;
      }
      const sha256 = digest.copy().digest('hex');
      await put({ type: 'end', rows, sha256 });
    } finally {
      db.exec('COMMIT');
    }
    out.end();
    await finished(out);
    renameSync(tmp, file);
    return rows;
  } catch (error) {
    out.destroy();
    rmSync(tmp, { force: true });
    if (error instanceof SyncError) throw error;
    throw toStateError(state.place, error);
  }
}

/**
 * The export says which account its rows were sent to: a state that has none takes it, so its
 * runs refuse another target; a state that sends elsewhere refuses the import, since its runs
 * would skip rows as `unchanged` that its own account never got.
 */
function adoptTarget(state: SyncState, target: StateTarget | undefined, refuse: (why: string) => SyncError): void {
  if (target === undefined) return;
  const own = state.target();
  if (own === undefined) {
    state.recordTarget(target);
    return;
  }
  const differs = targetDifference(own, target);
  const other =
    differs === undefined
      ? undefined
      : differs === 'baseUrl'
        ? `the base URL ${target.baseUrl}, while this state sends to ${own.baseUrl}`
        : 'another API key (another account?) than this state';
  if (other !== undefined)
    throw refuse(
      `its rows were sent with ${other}: runs with it would skip rows that this account never got. Import it into the state directory of its own target`,
    );
}

/**
 * Replaces the whole state with the content of an NDJSON export, in one transaction: a file of
 * a newer format, or one that is damaged or cut short, is refused with its line and the state
 * is left as it was. Streams the file; returns the number of rows read.
 */
export async function importState(state: SyncState, file: string, cwd: string): Promise<number> {
  const shown = displayPath(file, cwd);
  const refuse = (line: number, why: string) =>
    new SyncError('SYNC_STATE', `${shown}:${line}: ${why}; the sync state was not changed`);
  const db = state.db;
  const statements = {
    entity: db.prepare(`INSERT INTO entities (resource, key, hash, run_id, at) VALUES (?, ?, unhex(?), ?, ?)`),
    event: db.prepare(`INSERT INTO events (resource, identity, run_id, at) VALUES (?, unhex(?), ?, ?)`),
    mapping: db.prepare(`INSERT INTO mappings (resource, fingerprint, run_id, at) VALUES (?, ?, ?, ?)`),
    applied: db.prepare(`INSERT INTO applied (run_id, seq, complete) VALUES (?, ?, ?)`),
  };
  const input = createReadStream(file, { encoding: 'utf8' });
  const lines = createInterface({ input, crlfDelay: Infinity });
  let lineNo = 0;
  let rows = 0;
  let ended = false;
  db.exec('BEGIN IMMEDIATE');
  try {
    db.exec(
      `DELETE FROM entities; DELETE FROM events; DELETE FROM mappings; DELETE FROM applied; DELETE FROM meta WHERE key IN ('last_run_id', 'last_applied_at');`,
    );
    const digest = createHash('sha256');
    for await (const text of lines) {
      lineNo++;
      if (ended) {
        if (text.trim() === '') continue;
        throw refuse(lineNo, 'text after the end line');
      }
      const sum = digest.copy().digest('hex');
      digest.update(`${text}\n`, 'utf8');
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        throw refuse(lineNo, 'not a JSON line (the file is damaged)');
      }
      if (lineNo === 1) {
        const header = Header.safeParse(value);
        if (!header.success)
          throw refuse(
            1,
            `not an engage-import sync state export (its first line must be {"format":"${FORMAT_NAME}",…})`,
          );
        if (header.data.version > STATE_FORMAT) {
          throw refuse(
            1,
            `written by a newer engage-import (format ${header.data.version}; this one reads format ${STATE_FORMAT}); use that version or a newer one`,
          );
        }
        adoptTarget(state, header.data.target, (why) => refuse(1, why));
        continue;
      }
      const parsed = Line.safeParse(value);
      if (!parsed.success)
        throw refuse(
          lineNo,
          `not a sync state line (${parsed.error.issues.map((i) => `${i.path.join('.') || 'line'}: ${i.message}`).join('; ')})`,
        );
      const l = parsed.data;
      try {
        if (l.type === 'entity') statements.entity.run(l.resource, l.key, l.hash, l.run, l.at);
        else if (l.type === 'event') statements.event.run(l.resource, l.identity, l.run, l.at);
        else if (l.type === 'mapping') statements.mapping.run(l.resource, l.fingerprint, l.run, l.at);
        else if (l.type === 'applied') statements.applied.run(l.run, l.seq, l.complete ? 1 : 0);
        else {
          if (l.rows !== rows) throw refuse(lineNo, `the end line counts ${l.rows} rows, the file holds ${rows}`);
          if (l.sha256 !== undefined && l.sha256 !== sum)
            throw refuse(lineNo, 'the lines before the end line do not match its checksum (changed since the export?)');
          ended = true;
          continue;
        }
      } catch (error) {
        if (error instanceof SyncError) throw error;
        throw refuse(lineNo, `cannot be stored (${(error as Error).message}); is a key listed twice?`);
      }
      rows++;
    }
    if (lineNo === 0) throw refuse(1, 'the file is empty');
    if (!ended) throw refuse(lineNo, 'the file ends before its end line (cut short?)');
    const last = db
      .prepare(
        `SELECT run_id, at FROM (SELECT run_id, at FROM entities UNION ALL SELECT run_id, at FROM events) ORDER BY at DESC LIMIT 1`,
      )
      .get() as { run_id: string; at: string } | undefined;
    if (last !== undefined) {
      const put = db.prepare(
        `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      );
      put.run('last_run_id', last.run_id);
      put.run('last_applied_at', last.at);
    }
    db.exec('COMMIT');
    return rows;
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    input.destroy();
    if (error instanceof SyncError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new SyncError('SYNC_STATE', `cannot read ${shown}: no such file`, { cause: error });
    throw toStateError(state.place, error);
  }
}

/** The job an export belongs to, from its first line. */
export async function jobNamedIn(file: string, shown: string): Promise<string> {
  const job = exportedJob(await firstLineOf(file, shown));
  if (job !== undefined) return job;
  throw new SyncError(
    'SYNC_STATE',
    `${shown}:1: not an engage-import sync state export (no job named in its first line); the sync state was not changed`,
  );
}

/** An export's first line (its header) is short: a file whose first line is longer is not one. */
const HEADER_BYTES = 64 * 1024;

/** The first line of a file ('' when it is empty), read from its first `HEADER_BYTES` only. */
export async function firstLineOf(file: string, shown: string): Promise<string> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, 'r');
    const buffer = Buffer.alloc(HEADER_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEADER_BYTES, 0);
    const text = buffer.subarray(0, bytesRead).toString('utf8');
    const end = text.indexOf('\n');
    return (end === -1 ? text : text.slice(0, end)).replace(/\r$/, '');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SyncError(
      'SYNC_STATE',
      `cannot read ${shown}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (error as Error).message}`,
      { cause: error },
    );
  } finally {
    await handle?.close();
  }
}
