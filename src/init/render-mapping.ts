import { parse } from 'yaml';
import type { Draft, DraftField } from './draft-mapping.js';

const YAML_WORDS = /^(?:true|false|yes|no|on|off|null|y|n|~)$/i;

/**
 * A scalar as YAML: plain when that reads back as the same string, JSON-quoted otherwise. The
 * parser has the last word: `.5`, `.nan` and `.inf` look like words but are numbers to YAML.
 */
function yamlScalar(value: unknown): string {
  if (typeof value !== 'string') return JSON.stringify(value);
  const plain =
    /^[A-Za-z_.][A-Za-z0-9_ .\-/]*$/.test(value) &&
    !YAML_WORDS.test(value) &&
    !value.endsWith(' ') &&
    parse(value) === value;
  return plain ? value : JSON.stringify(value);
}

function flow(entries: readonly (readonly [string, unknown])[]): string {
  return `{ ${entries.map(([k, v]) => `${yamlScalar(k)}: ${isRecord(v) ? flow(Object.entries(v)) : yamlScalar(v)}`).join(', ')} }`;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function fieldLine(f: DraftField): string {
  const entries: [string, unknown][] = f.column !== undefined ? [['column', f.column]] : [['value', f.constant]];
  entries.push(...Object.entries(f.options));
  if (f.required) entries.push(['required', true]);
  const value = entries.length === 1 && f.column !== undefined ? yamlScalar(f.column) : flow(entries);
  return `${yamlScalar(f.target)}: ${value}`;
}

const comment = (text: string, indent: string) => `${indent}# ${text}`;

/**
 * The mapping file's text. Written by hand rather than through a YAML library so that each
 * guess keeps its comment above the line it explains, and columns left out stay as comments
 * the user can uncomment.
 */
export function renderMapping(draft: Draft, header: readonly string[]): string {
  const out: string[] = [];
  for (const line of header) out.push(line === '' ? '#' : `# ${line}`);
  if (header.length > 0) out.push('');
  out.push(`resource: ${draft.resource}`);
  if (draft.operation !== undefined) out.push(`operation: ${draft.operation}`);
  out.push('source:');
  out.push(`  file: ${yamlScalar(draft.source.file)}`);
  out.push(`  delimiter: ${JSON.stringify(draft.source.delimiter)}`);
  out.push(`  encoding: ${yamlScalar(draft.source.encoding)}`);
  for (const note of draft.notes) out.push(comment(note, ''));
  out.push(`key: ${yamlScalar(draft.key)}`);
  // With every field left to decide, `{}` keeps the file loadable as YAML; validate then says a field is needed.
  out.push(draft.fields.some((f) => !f.commentedOut) ? 'fields:' : 'fields: {}');
  for (const f of draft.fields) {
    for (const why of f.why) out.push(comment(why, '  '));
    out.push(f.commentedOut ? `  # ${fieldLine(f)}` : `  ${fieldLine(f)}`);
  }
  if (draft.leftovers.length > 0) {
    out.push(comment(draft.leftoverTitle, '  '));
    for (const f of draft.leftovers) {
      for (const why of f.why) out.push(comment(why, '  '));
      out.push(`  # ${fieldLine(f)}`);
    }
  }
  return `${out.join('\n')}\n`;
}
