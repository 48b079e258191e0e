import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkHeader } from '../../src/config/load-mapping.js';
import { loadMapping } from '../helpers/load-mapping.js';
import { ConfigError } from '../../src/errors.js';
import { tmpTree } from '../helpers/tmp.js';

const EVENTS = `resource: event
source:
  file: data/events.csv
key: event_id
fields:
  user_custom_id: customer
  name: { column: event, required: true }
  timestamp: { column: at, type: unix, format: "dd.MM.yyyy HH:mm", timezone: Europe/Warsaw }
  data.plan: plan
`;

async function loadError(yaml: string, name = 'm.yaml'): Promise<string> {
  const dir = tmpTree({ [name]: yaml });
  try {
    await loadMapping(join(dir, name));
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message.replaceAll(dir, '<dir>');
  }
  throw new Error('expected a ConfigError');
}

describe('loadMapping', () => {
  it('resolves defaults once and the source path relative to the mapping file', async () => {
    const dir = tmpTree({ 'mappings/events.yaml': EVENTS });
    const m = await loadMapping(join(dir, 'mappings/events.yaml'));
    expect(m.resource).toBe('event');
    expect(m.operation).toBeUndefined();
    expect(m.source).toEqual({ path: join(dir, 'mappings/data/events.csv'), delimiter: ',', encoding: 'utf-8' });
    expect(m.key).toEqual(['event_id']);
    expect(m.fields.map((f) => [f.target, f.column, f.type, f.required, f.empty, f.timezone])).toEqual([
      ['user_custom_id', 'customer', 'string', false, 'omit', 'UTC'],
      ['name', 'event', 'string', true, 'omit', 'UTC'],
      ['timestamp', 'at', 'unix', false, 'omit', 'Europe/Warsaw'],
      ['data.plan', 'plan', 'string', false, 'omit', 'UTC'],
    ]);
    expect(m.fields[3]?.path).toEqual(['data', 'plan']);
  });

  it('takes --input relative to the cwd instead of source.file', async () => {
    const dir = tmpTree({ 'm.yaml': EVENTS });
    const m = await loadMapping(join(dir, 'm.yaml'), { input: 'other.csv', cwd: '/somewhere' });
    expect(m.source.path).toBe('/somewhere/other.csv');
  });

  it('accepts JSON with the same schema', async () => {
    const dir = tmpTree({
      'p.json': JSON.stringify({
        resource: 'product',
        source: { file: 'p.csv', delimiter: ';' },
        key: ['sku'],
        fields: { custom_id: 'sku', price: { column: 'price', type: 'number' } },
      }),
    });
    const m = await loadMapping(join(dir, 'p.json'));
    expect(m.source.delimiter).toBe(';');
    expect(m.fields[1]?.type).toBe('number');
  });

  it.each([
    [
      'a wrong type, with the line',
      EVENTS.replace('type: unix', 'type: int'),
      '<dir>/m.yaml:8: fields.timestamp.type: expected one of "string", "integer", "number", "decimal", "boolean", "date", "datetime", "unix", "json", "list", got "int"',
    ],
    [
      'an unknown resource',
      EVENTS.replace('resource: event', 'resource: order'),
      '<dir>/m.yaml:1: resource: expected one of "product", "user", "deal", "event", "product-event", "webpush-campaign", got "order"',
    ],
    [
      'a deal without operation',
      EVENTS.replace('resource: event', 'resource: deal'),
      '<dir>/m.yaml:1: operation: a deal mapping needs `operation`: create, update or update_or_create',
    ],
    [
      'an operation on events',
      EVENTS.replace('resource: event', 'resource: event\noperation: create'),
      '<dir>/m.yaml:2: operation: `operation` applies to deals only, not to event',
    ],
    [
      'an unknown key',
      EVENTS.replace('key: event_id', 'key: event_id\ncolumns: 3'),
      '<dir>/m.yaml:1: (top level): unknown key `columns`',
    ],
    [
      'a missing source',
      'resource: event\nkey: a\nfields: { name: a }\n',
      '<dir>/m.yaml:1: source: expected object, got nothing',
    ],
    [
      'both column and value',
      EVENTS.replace('data.plan: plan', 'data.plan: { column: plan, value: pro }'),
      '<dir>/m.yaml:9: fields.data.plan: give exactly one of `column` and `value`',
    ],
    [
      'an unknown time zone',
      EVENTS.replace('Europe/Warsaw', 'Europe/Atlantis'),
      '<dir>/m.yaml:8: fields.timestamp.timezone: unknown time zone "Europe/Atlantis" (expected an IANA name such as Europe/Warsaw)',
    ],
    [
      'an unknown encoding',
      EVENTS.replace('file: data/events.csv', 'file: data/events.csv\n  encoding: klingon'),
      '<dir>/m.yaml:4: source.encoding: unknown encoding "klingon"',
    ],
    [
      'items on a non-list',
      EVENTS.replace('data.plan: plan', 'data.plan: { column: plan, items: integer }'),
      '<dir>/m.yaml:9: fields.data.plan.items: `items` applies to type list only',
    ],
    [
      'decimal_comma on a text field',
      EVENTS.replace('data.plan: plan', 'data.plan: { column: plan, decimal_comma: true }'),
      '<dir>/m.yaml:9: fields.data.plan.decimal_comma: `decimal_comma` applies to types number and decimal (and lists of them) only',
    ],
    [
      'decimal_comma on a list cut at commas',
      EVENTS.replace('data.plan: plan', 'data.plan: { column: plan, type: list, items: number, decimal_comma: true }'),
      '<dir>/m.yaml:9: fields.data.plan.separator: a list of numbers with a decimal comma needs a separator its numbers do not hold (such as ; or |), not ","',
    ],
    [
      'decimal_comma on a list cut at no-break spaces, which group thousands',
      EVENTS.replace(
        'data.plan: plan',
        'data.plan: { column: plan, type: list, items: number, separator: "\\u00a0", decimal_comma: true }',
      ),
      '<dir>/m.yaml:9: fields.data.plan.separator: a list of numbers with a decimal comma needs a separator its numbers do not hold (such as ; or |), not "\u00a0"',
    ],
    [
      'a scalar and a nested target on the same place',
      `${EVENTS}  data: blob\n`,
      '<dir>/m.yaml:9: fields.data.plan: conflicts with field "data", which sets the same place to a single value',
    ],
    [
      'a misspelt time zone, with a suggestion',
      EVENTS.replace('Europe/Warsaw', 'Europe/Warsw'),
      '<dir>/m.yaml:8: fields.timestamp.timezone: unknown time zone "Europe/Warsw" (expected an IANA name such as Europe/Warsaw; did you mean "Europe/Warsaw"?)',
    ],
    [
      'a date format without a year',
      EVENTS.replace('dd.MM.yyyy HH:mm', 'dd.MM HH:mm'),
      '<dir>/m.yaml:8: fields.timestamp: date format "dd.MM HH:mm" lacks a year, month or day (e.g. dd.MM.yyyy)',
    ],
    [
      'a default of the wrong type',
      EVENTS.replace('data.plan: plan', 'data.plan: { column: plan, type: integer, default: abc }'),
      '<dir>/m.yaml:9: fields.data.plan: default: expected an integer, got "abc"',
    ],
    [
      'a map value of the wrong type',
      EVENTS.replace('data.plan: plan', 'data.plan: { column: plan, type: integer, map: { pro: many } }'),
      '<dir>/m.yaml:9: fields.data.plan: map.pro: expected an integer, got "many"',
    ],
    [
      'broken YAML',
      'resource: [event\n',
      '<dir>/m.yaml:2: not valid YAML/JSON: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ],
  ])('fails before row 1 on %s', async (_name, yaml, message) => {
    expect(await loadError(yaml)).toBe(message);
  });

  it('names a missing file', async () => {
    await expect(loadMapping('/nonexistent/m.yaml')).rejects.toThrow(
      '/nonexistent/m.yaml: cannot read the file (ENOENT)',
    );
  });
});

describe('checkHeader', () => {
  it('names the mapping file, the field, and the columns the header has', async () => {
    const dir = tmpTree({ 'm.yaml': EVENTS });
    const m = await loadMapping(join(dir, 'm.yaml'));
    expect(() => checkHeader(m, ['event_id', 'customer', 'event', 'when', 'plan'])).toThrow(
      `${join(dir, 'm.yaml')}: field "timestamp" reads column "at", but ${join(dir, 'data/events.csv')} has no such column. Its columns are: "event_id", "customer", "event", "when", "plan"`,
    );
    expect(() => checkHeader(m, ['event_id', 'customer', 'event', 'at', 'plan'])).not.toThrow();
  });

  it('says a header that looks like a data row is one, without echoing its cells', async () => {
    const dir = tmpTree({ 'm.yaml': EVENTS });
    const m = await loadMapping(join(dir, 'm.yaml'));
    for (const firstLine of [
      ['E-1', 'ann@example.com', 'Signed Up', '2024-05-01T10:00:00Z', 'pro'],
      ['E-1', 'C-1', 'Signed Up', '1714557600', 'pro'],
    ]) {
      let message = '';
      try {
        checkHeader(m, firstLine);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain(
        'has no such column. Its first line looks like a data row, not column names (a cell holds an email address, a number or a date): the file needs a header line naming its columns',
      );
      for (const cell of ['ann@example.com', '2024-05-01', '1714557600', 'Signed Up'])
        expect(message).not.toContain(cell);
    }
  });
});

describe('hostile mapping files', () => {
  const USERS = 'resource: user\nsource: { file: u.csv }\nkey: cid\nfields:\n  custom_id: cid\n';

  it.each([
    ['constructor.prototype.x', 'constructor'],
    ['__proto__.x', '__proto__'],
    ['data.prototype', 'prototype'],
  ])('refuses the target %s at its line, and no object gains a property', async (target, segment) => {
    const message = await loadError(`${USERS}  ${target}: cid\n`);
    expect(message).toBe(
      `<dir>/m.yaml:6: fields.${target}: target ${JSON.stringify(target)} uses ${JSON.stringify(segment)}, a name JavaScript objects reserve; no API field is called that`,
    );
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('refuses a bare __proto__ key instead of dropping it', async () => {
    expect(await loadError(`${USERS}  __proto__: cid\n`)).toBe(
      '<dir>/m.yaml:6: the key "__proto__" is a name JavaScript objects reserve; no field or value can be called that',
    );
  });

  it('refuses an alias bomb with a config error, not an internal one', async () => {
    const levels = ['a: &a [x,x,x,x,x,x,x,x,x]'];
    for (const n of ['b', 'c', 'd', 'e', 'f'])
      levels.push(
        `${n}: &${n} [${Array(9)
          .fill(`*${String.fromCharCode(n.charCodeAt(0) - 1)}`)
          .join(',')}]`,
      );
    const message = await loadError(`${levels.join('\n')}\n${USERS}`);
    expect(message).toMatch(/^<dir>\/m.yaml: its aliases \(\*name\) expand to too much/);
  });

  it('refuses a file nested thousands of levels deep before parsing it', async () => {
    const message = await loadError(
      `${USERS}  data.x: { column: cid, default: ${'['.repeat(100_000)}${']'.repeat(100_000)} }\n`,
    );
    expect(message).toBe('<dir>/m.yaml: lists or objects nested more than 64 levels deep; a mapping needs a few');
  });
});
