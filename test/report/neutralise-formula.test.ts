import { describe, expect, it } from 'vitest';
import { neutraliseFormula } from '../../src/report/neutralise-formula.js';

describe('neutraliseFormula', () => {
  it.each([
    ['=SUM(A1:A2)', "'=SUM(A1:A2)"],
    ['+33 1 23', "'+33 1 23"],
    ['-1', "'-1"],
    ['@cmd', "'@cmd"],
    ['\tx', "'\tx"],
    ['\rx', "'\rx"],
    ['\nx', "'\nx"],
    ['plain', 'plain'],
    ['a=b', 'a=b'],
    ['', ''],
  ])('%j → %j', (cell, expected) => {
    expect(neutraliseFormula(cell)).toBe(expected);
  });
});
