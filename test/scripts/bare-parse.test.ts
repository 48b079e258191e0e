import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bareParse } from '../../scripts/_bare-parse.js';
import { tmpTree } from '../helpers/tmp.js';

describe('bareParse', () => {
  it('counts every record csv-parse reads, the header included', async () => {
    const dir = tmpTree({ 'e.csv': 'id,name\n1,"a\nb"\n2,c\n' });
    expect(await bareParse(join(dir, 'e.csv'))).toBe(3);
  });

  it('fails on a missing file', async () => {
    await expect(bareParse(join(tmpTree(), 'missing.csv'))).rejects.toThrow(/ENOENT/);
  });
});
