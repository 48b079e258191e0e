import { tmpTree } from './tmp.js';

/** The events mapping of `eventsJob`: a `Visited` event per row, its `id` in the event's data. */
export const EVENTS_MAPPING =
  'resource: event\nsource: { file: events.csv }\nkey: id\nfields:\n  user_custom_id: user\n  name: { value: Visited }\n  data.id: id\n';

/**
 * A job of three contacts (custom ids 0, 1, 2) and `rows` events of them (`E0`, `E1`, …), events
 * first in the job file (the run sends contacts first). `identity` adds `identity: [id]` to the
 * events mapping, `incremental` the job's `sync: incremental`.
 */
export function eventsJob(rows: number, options: { identity?: boolean; incremental?: boolean } = {}): string {
  const lines = ['id,user'];
  for (let i = 0; i < rows; i++) lines.push(`E${i},${i % 3}`);
  return tmpTree({
    'events.csv': `${lines.join('\n')}\n`,
    'events.yaml':
      options.identity === true ? EVENTS_MAPPING.replace('key: id\n', 'key: id\nidentity: [id]\n') : EVENTS_MAPPING,
    'contacts.csv': 'custom_id\n0\n1\n2\n',
    'contacts.yaml':
      'resource: user\nsource: { file: contacts.csv }\nkey: custom_id\nfields: { custom_id: custom_id }\n',
    'job.yaml': `mappings: [events.yaml, contacts.yaml]\n${options.incremental === true ? 'sync: incremental\n' : ''}`,
  });
}
