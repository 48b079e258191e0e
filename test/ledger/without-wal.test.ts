import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRun, openForResume } from '../../src/ledger/index.js';
import { tmpTree } from '../helpers/tmp.js';
import { project } from './_helpers.js';

describe('a ledger copied without its -wal and -shm (a backup, a move, files deleted after kill -9)', () => {
  it('still knows every row whose request may have left: intents are in the main file before the request', async () => {
    const { dir, identity } = await project();
    const ledger = await createRun(join(dir, 'state'), identity);
    for (let line = 2; line < 62; line++) {
      await ledger.recordIntent(0, line);
      if (line % 2 === 0) await ledger.recordOutcome(0, line, { state: 'ok', status: 201, id: `id-${line}` });
    }
    // The run is still live (as at a kill -9): copy ledger.sqlite only.
    const runDir = join(tmpTree(), 'state', 'runs', ledger.runId);
    mkdirSync(runDir, { recursive: true });
    copyFileSync(ledger.file, join(runDir, 'ledger.sqlite'));
    await ledger.close();

    const copy = await openForResume(runDir, identity);
    try {
      const states = Array.from({ length: 60 }, (_, i) => copy.get(0, i + 2)?.state);
      // Every row is known: odd lines in flight (intent); even lines ok, or back to intent when
      // their outcome was still in the WAL. None is forgotten, so none is sent again as new.
      expect(states.every((s) => s === 'intent' || s === 'ok')).toBe(true);
      expect(states.filter((s, i) => i % 2 === 1 && s !== 'intent')).toEqual([]);
    } finally {
      await copy.close();
    }
  });
});
