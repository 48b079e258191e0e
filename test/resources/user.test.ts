import { describe, expect, it } from 'vitest';
import type { FieldError } from '../../src/mapping/field-error.js';
import { user } from '../../src/resources/user.js';

const e = (field: string, message: string): FieldError => ({ field, message });
const forty = 'A'.repeat(40);

describe('user.validate (R-USER-2)', () => {
  it.each<[string, Record<string, unknown>, FieldError[]]>([
    ['custom id only', { custom_id: 'C-1' }, []],
    ['names of 40 characters', { custom_id: 'C-1', first_name: forty, last_name: 'Żółć'.repeat(10) }, []],
    [
      'other fields pass through as mapped',
      { custom_id: 'C-1', email: 'a@b', tags: ['x'], loyalty_tier: 'gold', phone_number: 48 },
      [],
    ],
    ['null names clear them', { custom_id: 'C-1', first_name: null }, []],
    [
      'text fields given true, an object or a list of them: refused per row, so refused here for both paths',
      { custom_id: 'C-1', phone_number: true, email: { a: 1 }, company_custom_id: ['x'], tags: ['vip', false] },
      [
        e('email', 'expected text, got {"a":1}'),
        e('phone_number', 'expected text, got true'),
        e('company_custom_id', 'expected text, got ["x"]'),
        e('tags', 'item 2: expected text, got false'),
      ],
    ],
    ['no custom id', { email: 'a@b' }, [e('custom_id', 'is required')]],
    ['blank custom id', { custom_id: ' ' }, [e('custom_id', 'must not be empty, got " "')]],
    ['numeric custom id', { custom_id: 10001 }, [e('custom_id', 'expected a string, got 10001')]],
    [
      'first name of 41 characters',
      { custom_id: 'C-10014', first_name: 'Maximilian-Alexander Konstantin Friedrich' },
      [e('first_name', 'at most 40 characters, got 41: "Maximilian-Alexander Konstantin Friedrich"')],
    ],
    [
      'every error at once',
      { last_name: `${forty}B`, first_name: 3 },
      [
        e('custom_id', 'is required'),
        e('first_name', 'expected a string, got 3'),
        e('last_name', `at most 40 characters, got 41: "${forty}B"`),
      ],
    ],
  ])('%s', (_name, payload, errors) => {
    expect(user.validate(payload, undefined)).toEqual(errors);
  });
});

describe('user routing, idempotency, references', () => {
  it('POSTs to users/update_or_create/ with the payload as mapped', () => {
    const payload = { custom_id: 'C 1?', email: 'a@b', loyalty_tier: 'gold' };
    const call = user.toRequest(payload, undefined, {});
    expect(call).toEqual({ method: 'POST', path: 'users/update_or_create/', body: payload });
    expect(call.body).not.toBe(payload);
  });

  it('is safe to resend (R-IDEM-1) and runs in the contacts stage', () => {
    expect(user.idempotent(undefined)).toBe(true);
    expect(user.stage).toBe('contacts');
    expect(user.parents({ custom_id: 'C-1', company_custom_id: 'ACME' })).toEqual([]);
  });

  it.each([
    [{ custom_id: 'C-1' }, undefined, [{ kind: 'user', by: 'custom_id', value: 'C-1' }]],
    [
      { custom_id: 'C-1' },
      '501',
      [
        { kind: 'user', by: 'custom_id', value: 'C-1' },
        { kind: 'user', by: 'id', value: '501' },
      ],
    ],
    [{ email: 'a@b' }, undefined, []],
  ])('identity(%j, %j)', (payload, responseId, refs) => {
    expect(user.identity(payload, responseId)).toEqual(refs);
  });
});
