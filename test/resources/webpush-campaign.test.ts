import { describe, expect, it } from 'vitest';
import type { FieldError } from '../../src/mapping/field-error.js';
import { webpushCampaign } from '../../src/resources/webpush-campaign.js';

const e = (field: string, message: string): FieldError => ({ field, message });
const message = { title: 'Spring sale', body: 'Up to 30% off' };
const UNKNOWN = 'is not a field of a webpush campaign (id, name, eta, ttl, segment, messages)';
const UNKNOWN_MESSAGE =
  'is not a field of a webpush message (title, body, url, require_interaction, doughnut_title, doughnut_url, coffee_title, coffee_url, icon, badge)';

describe('webpushCampaign.validate (R-PUSH-1, R-PUSH-2, R-PUSH-4)', () => {
  it.each<[string, Record<string, unknown>, FieldError[]]>([
    ['id only', { id: 1 }, []],
    [
      'every field',
      {
        id: 1,
        name: 'Spring',
        eta: '2026-03-02T08:00:00.000Z',
        ttl: 0,
        segment: 3,
        category: null,
        messages: [
          {
            ...message,
            url: 'https://x',
            require_interaction: true,
            doughnut_title: 'a',
            doughnut_url: 'b',
            coffee_title: 'c',
            coffee_url: 'd',
            icon: 'e',
            badge: 'f',
          },
        ],
      },
      [],
    ],
    ['eta null: send at once', { id: 1, eta: null }, []],
    ['no id', { name: 'x' }, [e('id', 'is required')]],
    ['id not an integer', { id: 'camp-1' }, [e('id', 'expected an integer, got "camp-1"')]],
    ['name not text', { id: 1, name: 5 }, [e('name', 'expected a string, got 5')]],
    [
      'eta without an offset',
      { id: 1, eta: '2026-03-02 09:00' },
      [e('eta', 'expected an ISO 8601 date-time with an offset such as 2026-03-29T14:30:00Z, got "2026-03-02 09:00"')],
    ],
    ['ttl negative', { id: 1, ttl: -1 }, [e('ttl', 'expected whole seconds, 0 or more, got -1')]],
    ['ttl as text', { id: 1, ttl: '24h' }, [e('ttl', 'expected whole seconds, 0 or more, got "24h"')]],
    ['segment not an integer', { id: 1, segment: 'vip' }, [e('segment', 'expected an integer, got "vip"')]],
    ['message without a title', { id: 5, messages: [{ body: 'b' }] }, [e('messages.0.title', 'is required')]],
    [
      'message with an empty body',
      { id: 5, messages: [{ title: 't', body: ' ' }] },
      [e('messages.0.body', 'must not be empty, got " "')],
    ],
    [
      'message field types',
      { id: 1, messages: [{ ...message, url: 3, require_interaction: 'yes' }] },
      [
        e('messages.0.url', 'expected a string, got 3'),
        e('messages.0.require_interaction', 'expected true or false, got "yes"'),
      ],
    ],
    [
      'an unknown message field',
      { id: 1, messages: [{ ...message, subtitle: 'x' }] },
      [e('messages.0.subtitle', UNKNOWN_MESSAGE)],
    ],
    [
      'second message named by its index',
      { id: 1, messages: [message, { title: 't' }] },
      [e('messages.1.body', 'is required')],
    ],
    [
      'a message that is not an object',
      { id: 1, messages: ['hello'] },
      [e('messages.0', 'expected a message object, got "hello"')],
    ],
    [
      'messages not a list',
      { id: 1, messages: message },
      [e('messages', 'expected a list of messages, got {"title":"Spring sale","body":"Up to 30% off"}')],
    ],
    [
      'an empty list would delete every message',
      { id: 1, messages: [] },
      [e('messages', 'must hold at least one message (an empty list deletes every message of the campaign)')],
    ],
    ['an unknown campaign field', { id: 1, title: 'x' }, [e('title', UNKNOWN)]],
    [
      'every error of the row at once',
      { ttl: 1.5, messages: [{ url: 'u' }], message: 'x' },
      [
        e('id', 'is required'),
        e('ttl', 'expected whole seconds, 0 or more, got 1.5'),
        e('messages.0.title', 'is required'),
        e('messages.0.body', 'is required'),
        e('message', UNKNOWN),
      ],
    ],
  ])('%s', (_name, payload, errors) => {
    expect(webpushCampaign.validate(payload, undefined)).toEqual(errors);
  });
});

describe('webpushCampaign.toRequest', () => {
  it('PATCHes the campaign by id, with the id out of the body', () => {
    const payload = { id: 3, ttl: 3600, messages: [message] };
    expect(webpushCampaign.toRequest(payload, undefined, { dealUpdateMethod: 'PUT' })).toEqual({
      method: 'PATCH',
      path: 'webpush-campaign/3/',
      body: { ttl: 3600, messages: [message] },
    });
    expect(payload.id).toBe(3);
  });

  it('refuses a payload without an integer id', () => {
    expect(() => webpushCampaign.toRequest({ name: 'x' }, undefined, {})).toThrow(TypeError);
  });
});

describe('webpushCampaign: idempotency and references', () => {
  it('a PATCH by id is safe to resend; campaigns are neither parents nor dependants', () => {
    expect(webpushCampaign.idempotent(undefined)).toBe(true);
    expect(webpushCampaign.parents({ id: 1, segment: 4 })).toEqual([]);
    expect(webpushCampaign.identity({ id: 1 }, '1')).toEqual([]);
    expect(webpushCampaign.stage).toBe('webpush');
  });
});
