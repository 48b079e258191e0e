import { describe, expect, it } from 'vitest';
import { compactArrays, compilePaths, setAt, targetOf, type CreatedArray } from '../../src/mapping/payload-path.js';

function build(entries: readonly (readonly [target: string, value: unknown])[]): Record<string, unknown> {
  const { paths, problems } = compilePaths(entries.map(([t]) => t.split('.')));
  expect(problems).toEqual([]);
  const root: Record<string, unknown> = {};
  const created: CreatedArray[] = [];
  for (const [i, [, value]] of entries.entries()) setAt(root, paths[i]!, value, created);
  compactArrays(created);
  return root;
}

describe('payload paths', () => {
  it.each([
    [[['name', 'x']], { name: 'x' }],
    [
      [
        ['data.plan', 'family'],
        ['data.amount', 49],
      ],
      { data: { plan: 'family', amount: 49 } },
    ],
    [
      [
        ['a.b.c', 1],
        ['a.b.d', 2],
        ['a.e', 3],
      ],
      { a: { b: { c: 1, d: 2 }, e: 3 } },
    ],
    [
      [
        ['messages.0.title', 'T'],
        ['messages.0.body', 'B'],
      ],
      { messages: [{ title: 'T', body: 'B' }] },
    ],
    [
      [
        ['messages.0.title', 'A'],
        ['messages.1.title', 'B'],
      ],
      { messages: [{ title: 'A' }, { title: 'B' }] },
    ],
    [
      [
        ['messages.1.title', 'B'],
        ['messages.0.title', 'A'],
      ],
      { messages: [{ title: 'A' }, { title: 'B' }] },
    ],
    [[['messages.2.title', 'C']], { messages: [{ title: 'C' }] }], // holes are closed
    [
      [
        ['tags.0', 'a'],
        ['tags.1', 'b'],
      ],
      { tags: ['a', 'b'] },
    ],
    [
      [
        ['grid.0.0', 1],
        ['grid.1.1', 2],
      ],
      { grid: [[1], [2]] },
    ],
    [[['0', 'x']], { 0: 'x' }], // the root is an object
    [[['a.01', 'x']], { a: { '01': 'x' } }], // not an index
    [[['a.__proto__.polluted', true]], { a: JSON.parse('{"__proto__":{"polluted":true}}') }],
  ] as const)('%j → %j', (entries, payload) => {
    expect(build(entries)).toEqual(payload);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('keeps a "__proto__" target as data in the JSON sent', () => {
    expect(JSON.stringify(build([['__proto__.x', 1]]))).toBe('{"__proto__":{"x":1}}');
  });

  it.each([
    [['data', 'data.plan'], ['"data.plan" and "data" both set "data", as an object and a value']],
    [
      ['messages.0.title', 'messages.first'],
      ['"messages.first" and "messages.0.title" both set "messages", as an object and an array'],
    ],
    [
      ['messages.0', 'messages.0.title'],
      ['"messages.0.title" and "messages.0" both set "messages.0", as an object and a value'],
    ],
    [['x.1000.y'], ['"x.1000.y": array index 1000 is too large (at most 999)']],
    [['a.b', 'a.c', 'd.0', 'd.1'], []],
  ])('%j: %j', (targets, problems) => {
    expect(compilePaths(targets.map((t) => t.split('.'))).problems).toEqual(problems);
  });

  it.each([
    [
      'nothing moved',
      [
        ['messages.0.title', 'A'],
        ['messages.1.title', 'B'],
      ],
      'messages.1.title',
      'messages.1.title',
    ],
    [
      'element 0 left out',
      [
        ['messages.1.title', 'B'],
        ['messages.2.title', 'C'],
      ],
      'messages.0.title',
      'messages.1.title',
    ],
    [
      'element 0 left out, second element',
      [
        ['messages.1.title', 'B'],
        ['messages.2.title', 'C'],
      ],
      'messages.1.body',
      'messages.2.body',
    ],
    ['nested, both levels moved', [['grid.1.2', 'x']], 'grid.0.0', 'grid.1.2'],
    [
      'a field outside the arrays',
      [
        ['messages.1.title', 'B'],
        ['name', 'n'],
      ],
      'name',
      'name',
    ],
  ] as const)('names a payload field as the mapping does: %s', (_name, entries, field, target) => {
    const { paths } = compilePaths(entries.map(([t]) => t.split('.')));
    const root: Record<string, unknown> = {};
    const created: CreatedArray[] = [];
    for (const [i, [, value]] of entries.entries()) setAt(root, paths[i]!, value, created);
    expect(targetOf(field, compactArrays(created))).toBe(target);
  });
});
