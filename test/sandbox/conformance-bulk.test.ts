/**
 * Bulk CSV imports (docs/api-contract.md R-BULK-1 … R-BULK-10): the upload, the status, and the
 * per-row rules the import applies, over real HTTP on loopback. Assumptions where the docs say
 * nothing are in docs/conformance.md ("Bulk CSV imports").
 */
import { describe, expect, it } from 'vitest';
import { importAndWait, upload } from './_bulk.js';
import { manualClock, sandbox } from './_helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A sleep the test releases by hand, to look at an import while it runs. */
function heldSleep() {
  const waiting: (() => void)[] = [];
  return {
    sleep: (_ms: number) => new Promise<void>((resolve) => waiting.push(resolve)),
    releaseAll: () => {
      for (const wake of waiting.splice(0)) wake();
    },
    get waiting() {
      return waiting.length;
    },
  };
}

describe('upload and status', () => {
  it('POST users/import/ answers {"success": true, "data": {"import_id": "<uuid>"}} with 200', async () => {
    const s = await sandbox({ bulkRowsPerS: 0 });
    const res = await upload(s, 'users', 'custom_id,email\nC-1,a@example.com\n');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { import_id: expect.stringMatching(UUID) } });
  });

  it('the status moves from running (assumption) to finished, with the fields of the docs in their order', async () => {
    const held = heldSleep();
    const clock = manualClock();
    const s = await sandbox({ bulkRowsPerS: 10, sleep: held.sleep, now: clock.now });
    const id = (await upload(s, 'users', 'custom_id\nC-1\nC-2\n')).body.data.import_id;
    await new Promise((r) => setImmediate(r));
    const running = (await s.call('GET', `import/status/?import_id=${id}`)).body;
    expect(running).toEqual({
      success: true,
      data: {
        id,
        status: 'running',
        total_count: 2,
        succeeded: 1,
        failed: 0,
        started_at: '2026-01-05T09:00:00.123Z',
        finished_at: null,
        author: 'api',
        rows_with_errors: [],
      },
    });
    expect(Object.keys(running.data)).toEqual([
      'id',
      'status',
      'total_count',
      'succeeded',
      'failed',
      'started_at',
      'finished_at',
      'author',
      'rows_with_errors',
    ]);
    clock.advance(2000);
    while (s.state.imports.get(id)?.status === 'running') {
      held.releaseAll();
      await new Promise((r) => setImmediate(r));
    }
    const done = (await s.call('GET', `import/status/?import_id=${id}`)).body.data;
    expect(done).toMatchObject({
      status: 'finished',
      total_count: 2,
      succeeded: 2,
      failed: 0,
      finished_at: '2026-01-05T09:00:02.123Z',
    });
    expect(s.state.users().map((u) => u.custom_id)).toEqual(['C-1', 'C-2']);
  });

  it('--bulk-rows-per-s paces the rows: 90 rows at 450 rows/s pause 2 × 100 ms (batches of 45)', async () => {
    const delays: number[] = [];
    const s = await sandbox({
      bulkRowsPerS: 450,
      sleep: (ms) => {
        delays.push(ms);
        return Promise.resolve();
      },
    });
    const rows = Array.from({ length: 90 }, (_, i) => `C-${i}`).join('\n');
    await importAndWait(s, 'users', `custom_id\n${rows}\n`);
    expect(delays).toEqual([100, 100]);
  });

  it('GET import/status/ without import_id lists every import, oldest first; an unknown id → 404', async () => {
    const s = await sandbox({ bulkRowsPerS: 0 });
    const a = await importAndWait(s, 'users', 'custom_id\nC-1\n');
    const b = await importAndWait(s, 'products', 'custom_id\nP-1\n');
    const list = await s.call('GET', 'import/status/');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ success: true, data: [a, b] });
    const unknown = await s.call('GET', 'import/status/?import_id=00000000-0000-4000-8000-000000000000');
    expect([unknown.status, unknown.body]).toEqual([404, { detail: 'Not found.' }]);
  });

  it('the key is required on the upload and the status (401), checked before anything else', async () => {
    const s = await sandbox({ bulkRowsPerS: 0 });
    expect((await upload(s, 'users', 'custom_id\nC-1\n', { headers: { Authorization: 'Token nope' } })).status).toBe(
      401,
    );
    expect((await s.call('GET', 'import/status/', undefined, { headers: { Authorization: '' } })).status).toBe(401);
    expect(s.state.imports.list()).toEqual([]);
  });

  it('the upload paths take POST only (405, Allow: POST); the status path GET only', async () => {
    const s = await sandbox();
    const get = await s.call('GET', 'users/import/');
    expect([get.status, get.headers.get('allow'), get.body]).toEqual([
      405,
      'POST',
      { detail: 'Method "GET" not allowed.' },
    ]);
    expect((await s.call('POST', 'import/status/', {})).status).toBe(405);
  });

  it('R-RATE-5: uploads and status calls count against the rate limit (the same window)', async () => {
    const clock = manualClock();
    const s = await sandbox({ rate: 2, bulkRowsPerS: 0, now: clock.now });
    const first = await upload(s, 'users', 'custom_id\nC-1\n');
    expect(first.status).toBe(200);
    expect((await s.call('GET', `import/status/?import_id=${first.body.data.import_id}`)).status).toBe(200);
    const throttled = await upload(s, 'users', 'custom_id\nC-2\n');
    expect([throttled.status, throttled.headers.get('retry-after'), throttled.body]).toEqual([
      429,
      '1',
      { detail: 'Request was throttled. Expected available in 1 second.' },
    ]);
    expect((await s.call('GET', 'import/status/')).status).toBe(429);
    expect(s.state.imports.list()).toHaveLength(1);
  });
});

describe('the upload body', () => {
  it('not multipart → 415; no input_file → 400 "No file was submitted."; nothing imported', async () => {
    const s = await sandbox({ bulkRowsPerS: 0 });
    const json = await s.call('POST', 'users/import/', { custom_id: 'C-1' });
    expect([json.status, json.body]).toEqual([
      415,
      { detail: 'Unsupported media type "application/json" in request.' },
    ]);
    const none = await upload(s, 'users', '', { file: null, fields: { tags: 'x' } });
    expect([none.status, none.body]).toEqual([400, { input_file: ['No file was submitted.'] }]);
    expect(s.state.imports.list()).toEqual([]);
  });

  it('assumption: a multipart body without a boundary, or cut short → 400 "Multipart form parse error - …"', async () => {
    const s = await sandbox({ bulkRowsPerS: 0 });
    const noBoundary = await s.call('POST', 'users/import/', undefined, {
      rawBody: 'x',
      headers: { 'Content-Type': 'multipart/form-data; charset=utf-8' },
    });
    expect(noBoundary.status).toBe(400);
    expect(noBoundary.body.detail).toMatch(/^Multipart form parse error - ./);
    const cut = '--XyZ\r\nContent-Disposition: form-data; name="input_file"; filename="a.csv"\r\n\r\ncustom_id\nC-1\n';
    const cutShort = await s.call('POST', 'users/import/', undefined, {
      rawBody: cut,
      headers: { 'Content-Type': 'multipart/form-data; boundary=XyZ' },
    });
    expect(cutShort.status).toBe(400);
    expect(cutShort.body.detail).toMatch(/^Multipart form parse error - ./);
    expect(s.state.imports.list()).toEqual([]);
  });

  it('assumption: an empty file → 400; a file that is not UTF-8 → 400; malformed CSV → 400', async () => {
    const s = await sandbox({ bulkRowsPerS: 0 });
    expect((await upload(s, 'users', '')).body).toEqual({ input_file: ['The submitted file is empty.'] });
    const latin1 = await upload(s, 'users', '', { file: Buffer.from('custom_id,first_name\nC-1,Jos\xe9\n', 'latin1') });
    expect([latin1.status, latin1.body]).toEqual([400, { input_file: ['The file is not valid UTF-8.'] }]);
    const broken = await upload(s, 'users', 'custom_id,first_name\nC-1,"Anna\n');
    expect(broken.status).toBe(400);
    expect(broken.body.input_file[0]).toMatch(/^The file is not valid CSV: /);
    expect(s.state.imports.list()).toEqual([]);
  });

  it('assumption: a file over the limit (200 MB; lowered here) → 413, nothing imported', async () => {
    const s = await sandbox({ bulkRowsPerS: 0, bulkMaxBytes: 1000 });
    const res = await upload(s, 'users', `custom_id\n${'C-1\n'.repeat(300)}`);
    expect([res.status, res.body]).toEqual([413, { detail: 'File too large: the limit is 1000 bytes (200 MB).' }]);
    expect(s.state.imports.list()).toEqual([]);
    expect(s.state.users()).toEqual([]);
  });

  it.each([
    ['tab', 'custom_id\tfirst_name\nC-1\tAnna, Maria\n'],
    ['semicolon', 'custom_id;first_name\nC-1;Anna, Maria\n'],
    ['comma', 'custom_id,first_name\nC-1,"Anna, Maria"\n'],
  ])('separator=%s reads the file with that separator', async (separator, csv) => {
    const s = await sandbox({ bulkRowsPerS: 0 });
    expect(await importAndWait(s, 'users', csv, { query: { separator } })).toMatchObject({
      status: 'finished',
      succeeded: 1,
    });
    expect(s.state.users()[0]).toMatchObject({ custom_id: 'C-1', first_name: 'Anna, Maria' });
  });

  it('assumption: a separator other than comma, tab or semicolon → 400 "is not a valid choice"', async () => {
    const s = await sandbox({ bulkRowsPerS: 0 });
    const res = await upload(s, 'users', 'custom_id|email\nC-1|a@example.com\n', { query: { separator: 'pipe' } });
    expect([res.status, res.body]).toEqual([400, { separator: ['"pipe" is not a valid choice.'] }]);
  });

  it('a UTF-8 BOM is dropped; quoted cells keep separators and line breaks; blank lines are skipped', async () => {
    const s = await sandbox({ bulkRowsPerS: 0 });
    const status = await importAndWait(
      s,
      'users',
      '\ufeffcustom_id,last_name\nC-1,"Nowak, ""Jr""\nII"\n\nC-2,Kowalska\n',
    );
    expect(status).toMatchObject({ total_count: 2, succeeded: 2 });
    expect(s.state.users().map((u) => [u.custom_id, u.last_name])).toEqual([
      ['C-1', 'Nowak, "Jr"\nII'],
      ['C-2', 'Kowalska'],
    ]);
  });

  it('column_mapping maps CSV column names to field names; other columns match by name', async () => {
    const s = await sandbox({ bulkRowsPerS: 0 });
    await importAndWait(s, 'users', 'Client,Email address,phone_number\nC-1,a@example.com,+48 1\n', {
      fields: { column_mapping: JSON.stringify({ Client: 'custom_id', 'Email address': 'email' }) },
    });
    expect(s.state.users()[0]).toMatchObject({ custom_id: 'C-1', email: 'a@example.com', phone_number: '+48 1' });
  });

  it.each([
    ['not JSON', '{"a":', { column_mapping: ['Value must be valid JSON.'] }],
    ['not an object', '["custom_id"]', { column_mapping: ['Expected a dictionary of items but got type "list".'] }],
    ['a value that is not a string', '{"a": 1}', { column_mapping: ['Not a valid string.'] }],
  ])('column_mapping %s → 400', async (_case, mapping, errors) => {
    const s = await sandbox({ bulkRowsPerS: 0 });
    const res = await upload(s, 'users', 'a\nC-1\n', { fields: { column_mapping: mapping } });
    expect([res.status, res.body]).toEqual([400, errors]);
  });

  it('assumption: a header naming one field twice (after column_mapping) → 400', async () => {
    const s = await sandbox({ bulkRowsPerS: 0 });
    const res = await upload(s, 'users', 'custom_id,id2\nC-1,C-2\n', {
      fields: { column_mapping: '{"id2": "custom_id"}' },
    });
    expect([res.status, res.body]).toEqual([
      400,
      { input_file: ['The column "custom_id" appears twice in the header (after column_mapping).'] },
    ]);
  });
});

describe('users: the per-row rules, an upsert', () => {
  it.each([
    ['a first_name of 41 characters', { custom_id: 'C-1', first_name: 'x'.repeat(41) }],
    ['an email that is not one', { custom_id: 'C-1', email: 'anna(at)example.pl' }],
    ['a blank custom_id (spaces)', { custom_id: ' ', email: 'a@example.com' }],
    ['v2: a custom attribute that does not exist in the account', { custom_id: 'C-1', shoe_size: '42' }],
    ['every error at once', { custom_id: 'C-1', last_name: 'y'.repeat(41), email: 'no', shoe_size: '1' }],
  ])('%s: the row fails with the message the per-row endpoint gives, the others are imported', async (_case, row) => {
    const s = await sandbox({ bulkRowsPerS: 0, fixtures: { userAttributes: ['tier'] } });
    const perRow = await s.call('POST', 'users/update_or_create/', row);
    expect(perRow.status).toBe(400);
    const header = ['custom_id', 'email', 'first_name', 'last_name', 'tier', 'shoe_size'];
    const line = (r: Record<string, string>) => header.map((h) => r[h] ?? '').join(',');
    const status = await importAndWait(
      s,
      'users',
      `${header.join(',')}\n${line({ custom_id: 'OK-1' })}\n${line(row)}\n${line({ custom_id: 'OK-2', tier: 'gold' })}\n`,
    );
    expect(status).toMatchObject({ status: 'finished', total_count: 3, succeeded: 2, failed: 1 });
    expect(status.rows_with_errors).toEqual([{ row: 3, data: row, errors: perRow.body }]);
    expect(s.state.users().map((u) => u.custom_id)).toEqual(['OK-1', 'OK-2']);
  });

  it('upsert by custom_id: a second import updates the same contact; an empty cell leaves its field as it was', async () => {
    const s = await sandbox({ bulkRowsPerS: 0 });
    await importAndWait(s, 'users', 'custom_id,email,first_name\nC-1,a@example.com,Anna\n');
    const status = await importAndWait(s, 'users', 'custom_id,email,first_name\nC-1,,Anne\n');
    expect(status).toMatchObject({ succeeded: 1, failed: 0 });
    expect(s.state.users()).toHaveLength(1);
    expect(s.state.users()[0]).toMatchObject({ id: 1, email: 'a@example.com', first_name: 'Anne' });
  });

  it('upsert by email when the row has no custom_id: a known email updates its contact, a new one creates a contact without custom_id; neither → "custom_id: This field is required."', async () => {
    const s = await sandbox({
      bulkRowsPerS: 0,
      fixtures: { users: [{ id: 7, custom_id: 'C-7', email: 'k@example.com' }] },
    });
    const status = await importAndWait(
      s,
      'users',
      'email,first_name\nk@example.com,Kasia\nnew@example.com,Nowa\n,Nobody\n',
    );
    expect(s.state.users()).toEqual([
      expect.objectContaining({ id: 7, custom_id: 'C-7', first_name: 'Kasia' }),
      expect.objectContaining({ custom_id: null, email: 'new@example.com', first_name: 'Nowa' }),
    ]);
    expect(status).toMatchObject({ succeeded: 2, failed: 1 });
    expect(status.rows_with_errors).toEqual([
      { row: 4, data: { first_name: 'Nobody' }, errors: { custom_id: ['This field is required.'] } },
    ]);
  });

  it('tags: a tags cell holds several values separated by "|"; the form field tags (comma-separated) is added to every contact', async () => {
    const s = await sandbox({ bulkRowsPerS: 0 });
    await importAndWait(s, 'users', 'custom_id,tags\nC-1,vip|newsletter\nC-2,\n', {
      fields: { tags: 'import-2026, spring' },
    });
    expect(s.state.users().map((u) => u.tags)).toEqual([
      ['vip', 'newsletter', 'import-2026', 'spring'],
      ['import-2026', 'spring'],
    ]);
  });

  it('lists and trigger_automations (query or form) are taken and kept with the import; a bad trigger_automations → 400', async () => {
    const s = await sandbox({ bulkRowsPerS: 0 });
    await importAndWait(s, 'users', 'custom_id\nC-1\n', {
      fields: { lists: 'Newsletter,  VIP ', trigger_automations: 'true' },
    });
    await importAndWait(s, 'users', 'custom_id\nC-2\n', {
      query: { trigger_automations: '0' },
      fields: { trigger_automations: '1' },
    });
    expect(s.state.imports.list().map((i) => [i.options.lists, i.options.triggerAutomations])).toEqual([
      [['Newsletter', 'VIP'], true],
      [[], false],
    ]);
    const bad = await upload(s, 'users', 'custom_id\nC-3\n', { fields: { trigger_automations: 'maybe' } });
    expect([bad.status, bad.body]).toEqual([400, { trigger_automations: ['Must be a valid boolean.'] }]);
  });

  it('rows_with_errors lists at most the first 50 failed rows; failed counts them all', async () => {
    const s = await sandbox({ bulkRowsPerS: 0 });
    const rows = Array.from({ length: 130 }, (_, i) => (i % 2 === 0 ? `C-${i},ok@example.com` : `C-${i},bad-${i}`));
    const status = await importAndWait(s, 'users', `custom_id,email\n${rows.join('\n')}\n`);
    expect(status).toMatchObject({ total_count: 130, succeeded: 65, failed: 65 });
    expect(status.rows_with_errors).toHaveLength(50);
    expect(status.rows_with_errors.map((e: { row: number }) => e.row)).toEqual(
      Array.from({ length: 50 }, (_, k) => 3 + 2 * k),
    );
    expect(status.rows_with_errors[0]).toEqual({
      row: 3,
      data: { custom_id: 'C-1', email: 'bad-1' },
      errors: { email: ['Enter a valid email address.'] },
    });
  });

  it('assumption: a row whose number of values differs from the header fails with non_field_errors', async () => {
    const s = await sandbox({ bulkRowsPerS: 0 });
    const status = await importAndWait(s, 'users', 'custom_id,email\nC-1,a@example.com,extra\nC-2\n');
    expect(status.rows_with_errors.map((e: { errors: unknown }) => e.errors)).toEqual([
      { non_field_errors: ['The row has 3 values; the header has 2 columns.'] },
      { non_field_errors: ['The row has 1 values; the header has 2 columns.'] },
    ]);
  });
});

describe('a client that goes away mid-upload', () => {
  it('nothing is imported, and the sandbox still closes', async () => {
    const { request } = await import('node:http');
    const s = await sandbox({ bulkRowsPerS: 0 });
    await new Promise<void>((done) => {
      const req = request(new URL('users/import/', s.url), {
        method: 'POST',
        headers: {
          Authorization: `Token ${s.apiKey}`,
          'Content-Type': 'multipart/form-data; boundary=XyZ',
          'Content-Length': '100000',
        },
      });
      req.on('error', () => done());
      req.write(
        '--XyZ\r\nContent-Disposition: form-data; name="input_file"; filename="a.csv"\r\n\r\ncustom_id\nC-1\n',
        () => setTimeout(() => req.destroy(), 20),
      );
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(s.state.imports.list()).toEqual([]);
    await s.close();
  });
});
