import { quote, show } from '../text/show.js';
import { Invalid, type Converter } from './_converter.js';

const WORDS: ReadonlyMap<string, boolean> = new Map([
  ['true', true],
  ['false', false],
  ['yes', true],
  ['no', false],
  ['1', true],
  ['0', false],
]);

/** `boolean`: `true`/`false`, `yes`/`no`, `1`/`0`, in any case (`TRUE`, `Yes`). */
export const booleanValue: Converter = {
  text(text) {
    const b = WORDS.get(text.length <= 5 ? text.toLowerCase() : text);
    return b ?? new Invalid(`expected true/false, yes/no or 1/0, got ${quote(text)}`);
  },
  scalar(value) {
    if (typeof value === 'boolean') return value;
    if (value === 1 || value === 0) return value === 1;
    return new Invalid(`expected true/false, yes/no or 1/0, got ${show(value)}`);
  },
};
