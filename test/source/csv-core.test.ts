import { describe, expect, it } from 'vitest';
import { createCsvCore } from '../../src/source/_csv-core.js';

describe('createCsvCore', () => {
  it('reaches csv-parse’s synchronous core: records pushed as they end, info.bytes where they end', () => {
    const skipped: string[] = [];
    const core = createCsvCore({ delimiter: ';', onSkip: (e) => skipped.push(e.message) });
    const records: [string[], number][] = [];
    const push = (r: string[]) => records.push([r, core.info.bytes]);
    expect(core.parse(Buffer.from('a;b\r\n1;"x\ny"\n\n2;3;4\r'), false, push, () => {})).toBeUndefined();
    expect(core.parse(Buffer.from('5;x"y\n6;7'), false, push, () => {})).toBeUndefined();
    expect(core.parse(undefined, true, push, () => {})).toBeUndefined();
    expect(records).toEqual([
      [['a', 'b'], 5],
      [['1', 'x\ny'], 13],
      [['2', '3', '4'], 20], // a wrong field count is pushed: the reader reports it with the record
      [['6', '7'], 29],
    ]);
    expect(skipped).toEqual(['Invalid Opening Quote: a quote is found on field 1 at line 6, value is "x"']);
  });
});
