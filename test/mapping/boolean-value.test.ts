import { describe, expect, it } from 'vitest';
import { booleanValue } from '../../src/mapping/boolean-value.js';
import { parseValue } from '../helpers/parse-value.js';
import { field } from './_fields.js';

describe('boolean', () => {
  it.each([
    ['true', true],
    ['TRUE', true],
    ['True', true],
    ['yes', true],
    ['Yes', true],
    ['1', true],
    ['false', false],
    ['FALSE', false],
    ['no', false],
    ['NO', false],
    ['0', false],
    [' yes ', true],
  ])('%j → %j', (cell, value) => {
    expect(parseValue(cell, field({ type: 'boolean' }))).toEqual({ ok: true, value });
  });

  it.each(['maybe', 'y', 'n', 't', 'on', '2', '-1', '', 'truefalse'])('%j is rejected', (cell) => {
    expect(parseValue(cell, field({ type: 'boolean' }))).toEqual({
      ok: false,
      message: `expected true/false, yes/no or 1/0, got ${JSON.stringify(cell)}`,
    });
  });

  it.each([
    [true, true],
    [false, false],
    [1, true],
    [0, false],
    [2, { message: 'expected true/false, yes/no or 1/0, got 2' }],
  ])('a mapped %j → %j', (mapped, expected) => {
    expect(booleanValue.scalar(mapped)).toEqual(expected);
  });
});
