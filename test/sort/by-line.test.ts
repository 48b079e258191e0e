import { describe, expect, it } from 'vitest';
import { reorderByLine } from '../../src/sort/by-line.js';

describe('reorderByLine', () => {
  it('writes lines pushed in any order in input order, each once, only at the end', async () => {
    const written: number[] = [];
    const reorder = reorderByLine(async (l: { line: number }) => {
      written.push(l.line);
    });
    for (const line of [7, 2, 9, 3, 5, 4, 8, 6]) reorder.push({ line });
    await new Promise((r) => setTimeout(r, 5));
    expect(written).toEqual([]);
    await reorder.end();
    expect(written).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('ends with nothing written when nothing was pushed', async () => {
    const written: number[] = [];
    const reorder = reorderByLine(async (l: { line: number }) => {
      written.push(l.line);
    });
    await reorder.end();
    expect(written).toEqual([]);
  });
});
