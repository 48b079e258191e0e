import { describe, expect, it } from 'vitest';
import { event } from '../../src/resources/event.js';
import type { FieldError } from '../../src/mapping/field-error.js';

const e = (field: string, message: string, alternatives?: string[]): FieldError =>
  alternatives ? { field, message, alternatives } : { field, message };

describe('event.validate (R-EVENT-1)', () => {
  it.each<[string, Record<string, unknown>, FieldError[]]>([
    ['by user_id, all fields', { user_id: 17, name: 'signup', data: { plan: 'gold' }, timestamp: 1767604364 }, []],
    ['by user_custom_id, name only', { user_custom_id: 'C-10001', name: 'signup' }, []],
    ['a null data or timestamp (empty: null)', { user_id: 1, name: 'x', data: null, timestamp: null }, []],
    ['a null user_id beside a custom id', { user_id: null, user_custom_id: 'C-1', name: 'x' }, []],
    ['no user', { name: 'signup' }, [e('user_custom_id', 'is required (or user_id)', ['user_id'])]],
    [
      'both users',
      { user_id: 1, user_custom_id: 'C-1', name: 'x' },
      [e('user_id', 'give either user_id or user_custom_id, not both')],
    ],
    ['user_id not an integer', { user_id: '17', name: 'x' }, [e('user_id', 'expected an integer, got "17"')]],
    ['empty user_custom_id', { user_custom_id: ' ', name: 'x' }, [e('user_custom_id', 'must not be empty, got " "')]],
    [
      'user_custom_id with a slash',
      { user_custom_id: 'shop/C-1', name: 'x' },
      [
        e(
          'user_custom_id',
          `"shop/C-1" holds a "/", which the users-by-id endpoint cannot carry (map the user's id to user_id instead)`,
        ),
      ],
    ],
    [
      'user_custom_id a dot segment',
      { user_custom_id: '..', name: 'x' },
      [e('user_custom_id', '".." cannot be sent in a URL path')],
    ],
    ['no name', { user_id: 1 }, [e('name', 'is required')]],
    ['empty name', { user_id: 1, name: '' }, [e('name', 'must not be empty, got ""')]],
    ['data not an object', { user_id: 1, name: 'x', data: 'gold' }, [e('data', 'expected a JSON object, got "gold"')]],
    ['data a list', { user_id: 1, name: 'x', data: [1] }, [e('data', 'expected a JSON object, got [1]')]],
    [
      'timestamp in milliseconds',
      { user_id: 1, name: 'x', timestamp: 1767604364000 },
      [e('timestamp', 'expected UNIX time in whole seconds, got 1767604364000 (milliseconds?)')],
    ],
    [
      'timestamp as a date-time',
      { user_id: 1, name: 'x', timestamp: '2026-01-05T09:12:44Z' },
      [e('timestamp', 'expected UNIX time in whole seconds, got "2026-01-05T09:12:44Z"')],
    ],
    [
      'a field the endpoint does not know',
      { user_id: 1, name: 'x', plan: 'gold' },
      [
        e(
          'plan',
          'is not a field of an event (user_id or user_custom_id, name, data, timestamp); custom values go under data.',
        ),
      ],
    ],
    [
      'every error of the row at once',
      { name: '', data: 3, timestamp: 1.5, extra: 1 },
      [
        e('user_custom_id', 'is required (or user_id)', ['user_id']),
        e('name', 'must not be empty, got ""'),
        e('data', 'expected a JSON object, got 3'),
        e('timestamp', 'expected UNIX time in whole seconds, got 1.5'),
        e(
          'extra',
          'is not a field of an event (user_id or user_custom_id, name, data, timestamp); custom values go under data.',
        ),
      ],
    ],
  ])('%s', (_name, payload, errors) => {
    expect(event.validate(payload, undefined)).toEqual(errors);
  });
});

describe('event.toRequest (R-EVENT-1, R-EVENT-2)', () => {
  it.each([
    [
      'by user_id → events/',
      { user_id: 17, name: 'signup', data: { plan: 'gold' }, timestamp: 1767604364 },
      {
        method: 'POST',
        path: 'events/',
        body: { user_id: 17, name: 'signup', data: { plan: 'gold' }, timestamp: 1767604364 },
      },
    ],
    [
      'by user_id, no optional fields',
      { name: 'signup', user_id: 17 },
      { method: 'POST', path: 'events/', body: { user_id: 17, name: 'signup' } },
    ],
    [
      'by custom id → users-by-id, without user_custom_id in the body',
      { user_custom_id: 'C-10001', name: 'signup', timestamp: 1 },
      { method: 'POST', path: 'users-by-id/C-10001/events/', body: { name: 'signup', timestamp: 1 } },
    ],
    [
      'a custom id with spaces and ? is percent-encoded',
      { user_custom_id: 'Anna K?x=1', name: 'signup' },
      { method: 'POST', path: 'users-by-id/Anna%20K%3Fx%3D1/events/', body: { name: 'signup' } },
    ],
    [
      'a null user_id beside a custom id is left out',
      { user_id: null, user_custom_id: 'C-1', name: 'x', data: null },
      { method: 'POST', path: 'users-by-id/C-1/events/', body: { name: 'x', data: null } },
    ],
  ])('%s', (_name, payload, call) => {
    expect(event.toRequest(payload, undefined, {})).toEqual(call);
  });

  it('does not change the payload', () => {
    const payload = { user_custom_id: 'C-1', name: 'x' };
    event.toRequest(payload, undefined, {});
    expect(payload).toEqual({ user_custom_id: 'C-1', name: 'x' });
  });

  it('refuses a payload that names no single user (a caller that skipped validate)', () => {
    expect(() => event.toRequest({ name: 'x' }, undefined, {})).toThrow(TypeError);
  });
});

describe('event references', () => {
  it.each([
    [{ user_id: 17, name: 'x' }, [{ kind: 'user', by: 'id', value: '17' }]],
    [{ user_custom_id: 'C-1', name: 'x' }, [{ kind: 'user', by: 'custom_id', value: 'C-1' }]],
    [{ name: 'x' }, []],
    [{ user_id: 'bad', name: 'x' }, []],
  ])('parents(%j) = %j', (payload, refs) => {
    expect(event.parents(payload)).toEqual(refs);
  });

  it('is referenced by nothing, and not safe to resend', () => {
    expect(event.identity({ user_id: 1, name: 'x' }, '99')).toEqual([]);
    expect(event.idempotent(undefined)).toBe(false);
    expect(event.stage).toBe('events');
  });
});
