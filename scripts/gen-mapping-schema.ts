/**
 * Writes mappings/mapping.schema.json from the zod schema, so editors autocomplete mapping files.
 * A test checks the committed file is current: run `npm run gen:schema` after changing the schema.
 */
import { writeFileSync } from 'node:fs';
import { mappingJsonSchemaText } from '../src/config/mapping-json-schema.js';

writeFileSync(new URL('../mappings/mapping.schema.json', import.meta.url), mappingJsonSchemaText());
console.log('wrote mappings/mapping.schema.json');
