import { z } from 'zod';
import { MappingFileSchema } from './mapping-schema.js';

/** The JSON Schema of mapping files, as committed in `mappings/mapping.schema.json`. */
export function mappingJsonSchemaText(): string {
  // `input` mode: defaults are optional for the author; refinements cannot be expressed and are
  // checked by the tool itself.
  const schema = z.toJSONSchema(MappingFileSchema, { io: 'input', unrepresentable: 'any' });
  return `${JSON.stringify({ title: 'engage-import mapping file', ...schema }, null, 2)}\n`;
}
