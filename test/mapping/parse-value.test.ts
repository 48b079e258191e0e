import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SCALAR_TYPES, type ResolvedField } from '../../src/mapping/field-spec.js';
import { parseValue } from '../helpers/parse-value.js';
import { MAX_INSTANT, MIN_INSTANT } from '../../src/time/calendar.js';
import { field } from './_fields.js';

describe('parseValue', () => {
  it.each([
    ['string', ' Anna ', ' Anna '],
    ['string', '', ''],
    ['integer', '\t42\u00a0', 42],
    ['number', ' 1e3 ', 1000],
    ['boolean', ' YES ', true],
    ['decimal', ' 12.5 ', '12.50'],
    ['date', '\ufeff2026-03-29 ', '2026-03-29'],
  ] as const)('%s: %j → %j (spaces trimmed except for strings)', (type, cell, value) => {
    expect(parseValue(cell, field({ type }))).toEqual({ ok: true, value });
  });

  it('reuses a spec: the second call sees the same converter', () => {
    const spec = field({ type: 'date', format: 'dd.MM.yyyy' });
    expect(parseValue('01.02.2026', spec)).toEqual({ ok: true, value: '2026-02-01' });
    expect(parseValue('31.02.2026', spec)).toEqual({
      ok: false,
      message: 'expected a date as dd.MM.yyyy, got "31.02.2026" (no such day)',
    });
  });
});

describe('parseValue never throws', () => {
  const specs: Partial<ResolvedField>[] = [
    ...SCALAR_TYPES.map((type) => ({ type })),
    ...SCALAR_TYPES.map((items) => ({ type: 'list' as const, items, separator: ';' })),
    { type: 'decimal', decimals: 0 },
    { type: 'decimal', decimals: 12 },
    { type: 'date', format: 'dd.MM.yyyy' },
    { type: 'datetime', format: 'MMM d, yyyy h:mm a', timezone: 'America/New_York' },
    { type: 'datetime', format: 'yyyy-MM-dd HH:mm ZZ', timezone: 'Europe/Warsaw' },
    { type: 'datetime', format: 'yyyy-MM-dd HH:mm z' },
    { type: 'datetime', timezone: 'Europe/Warsaw' },
    { type: 'unix', timezone: 'Australia/Lord_Howe' },
    { type: 'unix', format: 'yyyyMMdd' },
  ];
  // Arbitrary text, plus text made of the characters numbers and dates are written with, which
  // reaches deeper into the parsers than random Unicode does.
  const cells = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.stringMatching(/^[0-9 .,:;+\-TZzeE/'{}[\]"]{0,30}$/),
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString().replace(/^\+0*/, '')),
  );

  it.each(specs.map((s) => [JSON.stringify(s), s] as const))('%s', (_, spec) => {
    const f = field(spec);
    fc.assert(
      fc.property(cells, (cell) => {
        const result = parseValue(cell, f);
        expect(typeof result.ok).toBe('boolean');
        if (!result.ok) expect(result.message.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });
});

describe('parseValue reads back what JavaScript writes', () => {
  it('integer: any safe integer', () => {
    fc.assert(
      fc.property(
        fc.maxSafeInteger(),
        (n) => void expect(parseValue(String(n), field({ type: 'integer' }))).toEqual({ ok: true, value: n + 0 }),
      ),
    );
  });

  it('number: any finite double', () => {
    fc.assert(
      fc.property(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        (n) => void expect(parseValue(String(n), field({ type: 'number' }))).toEqual({ ok: true, value: n + 0 }),
      ),
    );
  });

  it('decimal: any amount in cents', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), (cents) => {
        const abs = cents < 0n ? -cents : cents;
        const text = `${cents < 0n ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
        expect(parseValue(text, field({ type: 'decimal' }))).toEqual({ ok: true, value: text });
      }),
    );
  });

  const instants = fc.integer({ min: MIN_INSTANT, max: MAX_INSTANT });
  it('datetime: any instant of the years 0000–9999, in any field zone', () => {
    fc.assert(
      fc.property(instants, fc.constantFrom('UTC', 'Pacific/Kiritimati', 'America/Adak'), (t, timezone) => {
        const iso = new Date(t).toISOString();
        expect(parseValue(iso, field({ type: 'datetime', timezone }))).toEqual({ ok: true, value: iso });
      }),
    );
  });

  it('date: any day of the years 0000–9999, in any field zone', () => {
    fc.assert(
      fc.property(
        instants,
        fc.constantFrom('UTC', 'Pacific/Kiritimati', 'America/Adak', 'Pacific/Apia'),
        (t, timezone) => {
          const day = new Date(t).toISOString().slice(0, 10);
          expect(parseValue(day, field({ type: 'date', timezone }))).toEqual({ ok: true, value: day });
        },
      ),
    );
  });

  it('unix: any instant, to the second below it', () => {
    fc.assert(
      fc.property(
        instants,
        (t) =>
          void expect(parseValue(new Date(t).toISOString(), field({ type: 'unix' }))).toEqual({
            ok: true,
            value: Math.floor(t / 1000),
          }),
      ),
    );
  });
});
