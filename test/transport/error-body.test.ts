import { describe, expect, it } from 'vitest';
import { errorMessage, renderErrorBody } from '../../src/transport/error-body.js';

describe('errorMessage: the three formats of R-ERR-1', () => {
  it.each([
    [
      'detail string (format 3)',
      404,
      '{"detail":"No ClientUser matches the given query."}',
      'No ClientUser matches the given query.',
    ],
    [
      'nested errors (format 2)',
      400,
      `{"errors":{"user_id":["Client user with ID '42' does not exist"]}}`,
      "user_id: Client user with ID '42' does not exist",
    ],
    [
      'nested errors, two fields',
      400,
      '{"errors":{"user_id":["a"],"name":["This field is required."]}}',
      'user_id: a; name: This field is required.',
    ],
    [
      'flat field errors (format 1)',
      400,
      '{"name":["This field is required."],"status":["\\"7\\" is not a valid choice."]}',
      'name: This field is required.; status: "7" is not a valid choice.',
    ],
    [
      'a list of messages is joined with a space',
      400,
      '{"user_id":["Invalid pk \\"9\\" - object does not exist.","Another."]}',
      'user_id: Invalid pk "9" - object does not exist. Another.',
    ],
    [
      'order_products items flattened with their index',
      400,
      `{"order_products":[{},{"product_id":["Could not find product with id '9'"]},{"product_custom_id":["Could not find product with custom_id 'X'"],"quantity":["A valid integer is required."]}]}`,
      "order_products.1.product_id: Could not find product with id '9'; order_products.2.product_custom_id: Could not find product with custom_id 'X'; order_products.2.quantity: A valid integer is required.",
    ],
    [
      'detail wins over the rest',
      404,
      '{"detail":"Couldn\'t find product with custom_id = P-1","name":["x"]}',
      "Couldn't find product with custom_id = P-1",
    ],
    ['a root list', 400, '["Something is wrong."]', 'Something is wrong.'],
    ['a JSON string', 400, '"plain words"', 'plain words'],
    ['an empty object says nothing', 400, '{}', 'HTTP 400'],
    ['nor does an empty list', 500, '[]', 'HTTP 500'],
    ['an empty body', 502, '', 'HTTP 502'],
    [
      'an HTML page',
      502,
      '<html><head><title>502 Bad Gateway</title></head>\n<body><h1>Bad Gateway</h1></body></html>',
      'HTTP 502: Bad Gateway',
    ],
    [
      'an HTML page whose body is empty: its title',
      502,
      '<html><head><title>502 Bad Gateway</title><style>h1 { color: red }</style></head><body></body></html>',
      'HTTP 502: 502 Bad Gateway',
    ],
    ['plain text', 500, 'Internal Server Error', 'HTTP 500: Internal Server Error'],
  ])('%s', (_name, status, body, message) => {
    expect(errorMessage(status, body)).toBe(message);
  });

  it('cuts a long non-JSON body to a short snippet', () => {
    const message = errorMessage(503, 'x'.repeat(5000));
    expect(message).toBe(`HTTP 503: ${'x'.repeat(119)}…`);
  });

  it('bounds a long JSON message', () => {
    const body = JSON.stringify({ detail: 'y'.repeat(5000) });
    expect(errorMessage(400, body)).toHaveLength(1000);
  });
});

describe('renderErrorBody', () => {
  it.each([
    [undefined, undefined],
    [
      { detail: 'Request was throttled. Expected available in 2 seconds.' },
      'Request was throttled. Expected available in 2 seconds.',
    ],
    [{ errors: { data: { custom_data: ['Must be an object.'] } } }, 'data.custom_data: Must be an object.'],
    [{ value: [12], ok: true, gone: null }, 'value: 12; ok: true'],
  ])('%j → %s', (body, text) => {
    expect(renderErrorBody(body)).toBe(text);
  });
});
