import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mappingJsonSchemaText } from '../../src/config/mapping-json-schema.js';

describe('mappings/mapping.schema.json', () => {
  it('is generated from the zod schema and committed up to date (npm run gen:schema)', () => {
    const committed = readFileSync(new URL('../../mappings/mapping.schema.json', import.meta.url), 'utf8');
    expect(committed).toBe(mappingJsonSchemaText());
  });

  it('lists the resources and value types editors should offer', () => {
    const schema = JSON.parse(mappingJsonSchemaText()) as { properties: { resource: { enum: string[] } } };
    expect(schema.properties.resource.enum).toEqual([
      'product',
      'user',
      'deal',
      'event',
      'product-event',
      'webpush-campaign',
    ]);
  });
});
