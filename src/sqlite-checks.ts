import type Database from 'better-sqlite3';

/**
 * What SQLite's own consistency check (`PRAGMA quick_check`: every page and constraint, without
 * the slower index cross-check) finds wrong in a database, on one line; undefined when it is sound.
 * The run ledgers and the sync state each turn it into their own error.
 */
export function quickCheckProblem(db: Database.Database): string | undefined {
  const result = db.pragma('quick_check', { simple: true });
  if (result === 'ok') return undefined;
  return `quick_check: ${String(result)
    .replace(/\*\*\* in database main \*\*\*\s*/g, '')
    .replace(/\s*\n\s*/g, '; ')}`;
}

/** Whether an SQLite error code says the file itself is damaged (not a database, corrupt, cut short). */
export const isDamagedFileCode = (code: string): boolean => /^SQLITE_(CORRUPT|NOTADB|IOERR_SHORT_READ)/.test(code);
