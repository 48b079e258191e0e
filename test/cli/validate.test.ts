import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

const ROOT = join(import.meta.dirname, '../..');

const EVENTS_MAPPING =
  'resource: event\nsource: { file: events.csv }\nkey: id\nfields:\n  user_id: { column: user, type: integer }\n  name: event\n  timestamp: { column: at, type: unix }\n';

describe('engage-import validate', () => {
  it('checks the bundled samples: exit 1, a summary, and the bad rows with their messages in the report', async () => {
    const out = tmpTree();
    const r = await runCli(
      [
        'validate',
        join(ROOT, 'samples/job.yaml'),
        '--report',
        join(out, 'report.csv'),
        '--rejects',
        join(out, 'rejects.csv'),
      ],
      { cwd: ROOT },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Dry run (nothing was sent): 93 rows in 7 files: valid 75, invalid 18');
    expect(r.stderr).toContain('Live import: 75 requests ≈ 8 s at 10 req/s');
    const rows = parse(readFileSync(join(out, 'report.csv')), { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(93);
    // Dependency order, whatever the job lists: products first, webpush last.
    expect(rows[0]?.file).toBe('samples/products.csv');
    expect(rows.at(-1)?.file).toBe('samples/webpush-campaigns.csv');
    const message = (file: string, line: string) => rows.find((x) => x.file === file && x.line === line)?.message;
    expect(message('samples/product-events.csv', '8')).toBe(
      'event_type: "add_to_cart" is not an event type (did you mean "add to cart"?)',
    );
    expect(message('samples/deals.csv', '12')).toBe(
      'currency: "EURO" is not an ISO 4217 currency code (did you mean "EUR"?)',
    );
    expect(message('samples/products.csv', '13')).toBe(
      'products.csv line 13: 7 fields, but the header has 6 columns: field 7 is beyond the last column, 6 ("image") (a delimiter inside a value that is not quoted?)',
    );
    expect(message('samples/webpush-campaigns.csv', '6')).toBe('messages.0.title: is required');
  });

  it('writes rejects with the delimiter found by `delimiter: auto`, so the fixed file feeds back as it came', async () => {
    const mapping = EVENTS_MAPPING.replace(
      'source: { file: events.csv }',
      'source: { file: events.csv, delimiter: auto }',
    );
    const dir = tmpTree({
      'm.yaml': mapping,
      'events.csv': 'id;user;event;at\nA;1;Signed Up;2026-01-01T00:00:00Z\nB;x;Paid;1767225600\n',
    });
    const r = await runCli(['validate', 'm.yaml', '--rejects', 'rejects.csv', '--quiet'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(readFileSync(join(dir, 'rejects.csv'), 'utf8')).toBe(
      'id;user;event;at;error\nB;x;Paid;1767225600;"user_id: expected an integer, got ""x"""\n',
    );
  });

  it("keeps a source's `sep=` line in its rejects, so the same mapping reads the fixed file back", async () => {
    const dir = tmpTree({
      'm.yaml': EVENTS_MAPPING,
      'events.csv': 'sep=;\r\nid;user;event;at\r\nA;1;Signed Up;2026-01-01T00:00:00Z\r\nB;x;Paid;1767225600\r\n',
    });
    const r = await runCli(['validate', 'm.yaml', '--rejects', 'rejects.csv', '--quiet'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(readFileSync(join(dir, 'rejects.csv'), 'utf8')).toBe(
      'sep=;\nid;user;event;at;error\nB;x;Paid;1767225600;"user_id: expected an integer, got ""x"""\n',
    );
    const again = await runCli(['validate', 'm.yaml', '--input', 'rejects.csv', '--report', 'again.csv', '--quiet'], {
      cwd: dir,
    });
    expect(again.code).toBe(1);
    const lines = parse(readFileSync(join(dir, 'again.csv')), { columns: true }) as Record<string, string>[];
    expect(lines.map((l) => [l['line'], l['key'], l['status'], l['message']])).toEqual([
      ['3', 'B', 'invalid', 'user_id: expected an integer, got "x"'],
    ]);
  });

  it('--json: a command refused before anything was read still prints an object on stdout, with the exit code and why', async () => {
    const dir = tmpTree({ 'm.yaml': EVENTS_MAPPING });
    const r = await runCli(['validate', 'm.yaml', '--json', '--quiet'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({
      outcome: 'refused',
      exit_code: 2,
      error: { code: 'CSV_READ', message: expect.stringContaining('events.csv') },
    });
    const usage = await runCli(['validate', 'm.yaml', '--json', '--rate', 'fast'], { cwd: dir });
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stdout)).toMatchObject({ outcome: 'refused', exit_code: 2, error: { code: 'USAGE' } });
  });

  it('keeps the `sep=` line with `delimiter: auto` too, where the header alone would be read otherwise', async () => {
    const dir = tmpTree({
      'm.yaml':
        'resource: user\nsource: { file: u.csv, delimiter: auto }\nkey: custom_id\nfields:\n  custom_id: custom_id\n  age: { column: "age, years, approx", type: integer }\n',
      'u.csv': 'sep=;\ncustom_id;age, years, approx\nA;3\nB;x\n',
    });
    const r = await runCli(['validate', 'm.yaml', '--rejects', 'rejects.csv', '--quiet'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(readFileSync(join(dir, 'rejects.csv'), 'utf8')).toMatch(/^sep=;\ncustom_id;age, years, approx;error\nB;x;/);
    const again = await runCli(['validate', 'm.yaml', '--input', 'rejects.csv', '--quiet'], { cwd: dir });
    expect(again.code).toBe(1);
  });

  it('a source with its own `error` column gets `engage_import_error` in its rejects, which go round again', async () => {
    const dir = tmpTree({
      'me.yaml':
        'resource: user\nsource: { file: e.csv }\nkey: customer_id\nfields:\n  custom_id: { column: customer_id, required: true }\n  email: email\n  last_error_code: error\n',
      'e.csv': 'customer_id,email,error\nC-1,a@x.com,none\n,b@x.com,E42\n',
    });
    const r = await runCli(['validate', 'me.yaml', '--rejects', 'rej.csv', '--quiet'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(readFileSync(join(dir, 'rej.csv'), 'utf8')).toBe(
      'customer_id,email,error,engage_import_error\n,b@x.com,E42,custom_id: is required\n',
    );
    const again = await runCli(['validate', 'me.yaml', '--input', 'rej.csv', '--rejects', 'rej2.csv', '--quiet'], {
      cwd: dir,
    });
    expect(again.code).toBe(1);
    expect(readFileSync(join(dir, 'rej2.csv'), 'utf8')).toBe(
      'customer_id,email,error,engage_import_error\n,b@x.com,E42,custom_id: is required\n',
    );
  });

  it('names an array element as the mapping does, when an empty element before it was left out', async () => {
    const mapping = [
      'resource: webpush-campaign',
      'source: { file: w.csv }',
      'key: id',
      'fields:',
      '  id: { column: id, type: integer }',
      '  messages.0.title: t0',
      '  messages.0.body: b0',
      '  messages.1.title: t1',
      '  messages.1.body: b1',
      '',
    ].join('\n');
    const dir = tmpTree({ 'm.yaml': mapping, 'w.csv': 'id,t0,b0,t1,b1\n7,,,Sale,\n' });
    const r = await runCli(['validate', 'm.yaml', '--quiet'], { cwd: dir });
    expect(r.code).toBe(1);
    const rows = parse(readFileSync(join(dir, 'out/report.csv')), { columns: true }) as Record<string, string>[];
    // The payload holds one message (the empty first one is left out); the mapping calls it messages.1.
    expect(rows[0]?.message).toBe('messages.1.body: is required');
  });

  it('exits 0 when every row is valid, and prints the summary as JSON with --json', async () => {
    const dir = tmpTree({
      'm.yaml': EVENTS_MAPPING,
      'events.csv': 'id,user,event,at\nA,1,Signed Up,2026-01-01T00:00:00Z\nB,2,Paid,1767225600\n',
    });
    const r = await runCli(['validate', 'm.yaml', '--json', '--quiet'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const summary = JSON.parse(r.stdout) as {
      totals: Record<string, number>;
      requests: number;
      files: { file: string }[];
    };
    expect(summary.totals.valid).toBe(2);
    expect(summary.requests).toBe(2);
    expect(summary.files[0]?.file).toBe('events.csv');
    expect(readFileSync(join(dir, 'out/report.csv'), 'utf8')).toBe(
      'file,line,resource,key,status,http_status,id,message\nevents.csv,2,event,A,valid,,,\nevents.csv,3,event,B,valid,,,\n',
    );
  });

  it('reads only --limit rows of each file', async () => {
    const dir = tmpTree({ 'm.yaml': EVENTS_MAPPING, 'events.csv': 'id,user,event,at\nA,1,x,1\nB,2,y,2\nC,3,z,3\n' });
    const r = await runCli(['validate', 'm.yaml', '--limit', '2'], { cwd: dir });
    expect(r.stderr).toContain('2 rows in 1 file: valid 2');
    expect(r.stderr).toContain('(--limit: at most 2 rows read per file)');
  });

  it('fails before row 1 with exit 2 when the mapping names a missing column', async () => {
    const dir = tmpTree({ 'm.yaml': EVENTS_MAPPING, 'events.csv': 'id,user,event,when\nA,1,x,1\n' });
    const r = await runCli(['validate', 'm.yaml'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `engage-import: ${join(dir, 'm.yaml')}: field "timestamp" reads column "at", but ${join(dir, 'events.csv')} has no such column. Its columns are: "id", "user", "event", "when"\n`,
    );
  });

  it('exits 2 on a file that is not valid in its declared encoding', async () => {
    const dir = tmpTree({
      'm.yaml': EVENTS_MAPPING,
      'events.csv': Buffer.concat([Buffer.from('id,user,event,at\nA,1,Caf'), Buffer.from([0xe9]), Buffer.from(',1\n')]),
    });
    const r = await runCli(['validate', 'm.yaml'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^engage-import: .*events\.csv.*(utf-8|UTF-8)/);
  });

  it('exits 2 with a usage message on an unknown option or a missing job', async () => {
    const unknown = await runCli(['validate', 'x.yaml', '--colour']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown argument: colour');
    const missing = await runCli(['validate']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Not enough non-option arguments');
  });

  it('prints help with examples and exits 0', async () => {
    const r = await runCli(['validate', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('engage-import validate samples/job.yaml');
    expect(r.stdout).toContain('--rejects');
  });

  it('import --dry-run does the same as validate and writes the payloads', async () => {
    const dir = tmpTree({ 'm.yaml': EVENTS_MAPPING, 'events.csv': 'id,user,event,at\nA,7,Signed Up,1767225600\n' });
    const r = await runCli(['import', 'm.yaml', '--dry-run', '--payloads', 'out/p.ndjson'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, 'out/p.ndjson'), 'utf8')).toBe(
      '{"file":"events.csv","line":2,"method":"POST","path":"/events/","body":{"user_id":7,"name":"Signed Up","timestamp":1767225600}}\n',
    );
  });

  describe('the estimate follows the live import: stages it sends by bulk are counted as their imports', () => {
    const CONTACTS = 'resource: user\nsource: { file: c.csv }\nkey: id\nfields: { custom_id: id, email: email }\n';
    const csv = (rows: number) =>
      `id,email\n${Array.from({ length: rows }, (_, i) => `C-${i},c${i}@example.com`).join('\n')}\n`;

    it('1,200 contacts: one import (its upload and 2 polls at the documented 450 rows/s), not 1,200 requests', async () => {
      const dir = tmpTree({ 'm.yaml': CONTACTS, 'c.csv': csv(1200) });
      const r = await runCli(['validate', 'm.yaml', '--report', 'r.csv'], { cwd: dir });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain('valid 1,200  (bulk: 1 import, 3 requests ≈ 3 s at 450 rows/s)');
      expect(r.stderr).toContain('Live import: bulk: 1,200 rows in 1 import, 3 requests ≈ 3 s at 450 rows/s\n');
    });

    it('--bulk never: one request per row, as the live import would send them', async () => {
      const dir = tmpTree({ 'm.yaml': CONTACTS, 'c.csv': csv(1200) });
      const r = await runCli(['validate', 'm.yaml', '--report', 'r.csv', '--bulk', 'never'], { cwd: dir });
      expect(r.stderr).toContain('Live import: 1,200 requests ≈ 2 min at 10 req/s\n');
    });

    it('--bulk-chunk-rows and --bulk-min-rows choose as they would for import --dry-run; per-row stages keep their requests', async () => {
      const dir = tmpTree({
        'job.yaml': 'mappings: [m.yaml, e.yaml]\n',
        'm.yaml': CONTACTS,
        'c.csv': csv(1200),
        'e.yaml':
          'resource: event\nsource: { file: e.csv }\nkey: id\nfields: { user_custom_id: u, name: n, timestamp: { column: t, type: unix } }\n',
        'e.csv': 'id,u,n,t\n1,C-1,Signed Up,1700000000\n2,C-2,Signed Up,1700000000\n',
      });
      const args = ['--report', 'r.csv', '--bulk-chunk-rows', '500', '--bulk-min-rows', '1000'];
      const validate = await runCli(['validate', 'job.yaml', ...args], { cwd: dir });
      expect(validate.stderr).toContain(
        'Live import: 2 requests ≈ 1 s at 10 req/s; bulk: 1,200 rows in 3 imports, 8 requests ≈ 4 s at 450 rows/s\n',
      );
      const dryRun = await runCli(['import', 'job.yaml', '--dry-run', ...args], { cwd: dir });
      expect(dryRun.stderr).toContain('bulk: 1,200 rows in 3 imports, 8 requests');
    });

    it('deals the live import would send by bulk without their header names: refused before reading, as the import is', async () => {
      const dir = tmpTree({
        'd.yaml':
          'resource: deal\noperation: update_or_create\nsource: { file: d.csv }\nkey: id\nfields: { custom_id: id, name: name, pipeline_id: { column: p, type: integer }, deal_stage_id: { column: s, type: integer } }\n',
        'd.csv': 'id,name,p,s\n1,A,1,1\n',
      });
      const r = await runCli(['validate', 'd.yaml', '--report', 'r.csv', '--bulk', 'always'], { cwd: dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("but the deal importer's header names are not published: give `bulk_header:` for");
    });
  });
});
