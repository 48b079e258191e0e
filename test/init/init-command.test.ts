import { readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import iconv from 'iconv-lite';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

const SAMPLES = resolve(import.meta.dirname, '../../samples');
const RESOURCE_OF: Record<string, string> = {
  'contacts.csv': 'contacts',
  'products.csv': 'product',
  'deals.csv': 'deal',
  'deals-pl.csv': 'deal',
  'events.csv': 'event',
  'product-events.csv': 'product-event',
  'webpush-campaigns.csv': 'webpush-campaign',
};

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(files: Record<string, string | Buffer> = {}): string {
  const dir = tmpTree(files);
  dirs.push(dir);
  return dir;
}

/** `init`, then `validate` on the mapping it wrote: what a user runs first. */
async function initThenValidate(cwd: string, csv: string, resource: string) {
  const init = await runCli(['init', csv, '--resource', resource, '--out', 'mapping.yaml'], { cwd });
  expect(init.stderr).toMatch(/^Wrote mapping\.yaml/);
  expect(init.code).toBe(0);
  const mapping = readFileSync(join(cwd, 'mapping.yaml'), 'utf8');
  const validate = await runCli(
    ['validate', 'mapping.yaml', '--json', '--quiet', '--report', 'report.csv', '--payloads', 'payloads.ndjson'],
    { cwd },
  );
  // 0 or 1 (rows invalid), never 2: the mapping itself is always accepted.
  expect(validate.code, validate.stderr).toBeLessThan(2);
  const summary = JSON.parse(validate.stdout);
  const payloads = readFileSync(join(cwd, 'payloads.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l).body);
  return { mapping, summary, payloads, code: validate.code };
}

describe('init on every sample file', () => {
  const files = readdirSync(SAMPLES).filter((f) => f.endsWith('.csv'));
  it('covers every sample', () => expect(files.sort()).toEqual(Object.keys(RESOURCE_OF).sort()));

  it.each(files)('%s: the mapping validates, and its comments name exactly the rows validate rejects', async (file) => {
    const cwd = tmp();
    const { mapping, summary } = await initThenValidate(cwd, join(SAMPLES, file), RESOURCE_OF[file]!);
    const invalid = summary.totals.invalid as number;
    if (invalid === 0) expect(mapping).toContain('all ');
    else expect(mapping).toContain(`rows, ${invalid} would fail`);
    // The same groups, with the same first lines, as validate's summary.
    for (const group of summary.files[0].errors) expect(mapping).toContain(`${group.message} (line`);
  });

  it('deals-pl.csv (windows-1250, semicolons): Polish headers matched, accents read right', async () => {
    const cwd = tmp();
    const { mapping, payloads } = await initThenValidate(cwd, join(SAMPLES, 'deals-pl.csv'), 'deal');
    expect(mapping).toContain('  encoding: windows-1250');
    expect(mapping).toContain('  delimiter: ";"');
    expect(mapping).toContain('expected_close_date: { column: "Data zamknięcia", type: date, format: dd.MM.yyyy }');
    expect(payloads.some((p) => String(p.name).startsWith('Śpiwory'))).toBe(true);
  });
});

describe('init on generated files', () => {
  it('semicolons and synonyms: E-Mail, Surname, Customer ID; other columns become custom attributes to confirm', async () => {
    const cwd = tmp({
      'crm.csv':
        'Customer ID;E-mail Address;Surname;First Name;Mobile;Favourite colour\nC1;a@example.com;Nowak;Ewa;+48 600 000 001;blue\nC2;b@example.com;Kowal;Jan;+48 600 000 002;red\n',
    });
    const { mapping, code, payloads } = await initThenValidate(cwd, 'crm.csv', 'contacts');
    expect(code).toBe(0);
    expect(mapping).toContain('  delimiter: ";"');
    expect(mapping).toContain(
      '  # matched "E-mail Address" by synonym ("email_address"); 2/2 sampled values look like email addresses\n  email: E-mail Address\n',
    );
    expect(mapping).toContain('  last_name: Surname\n');
    expect(mapping).toContain('  first_name: First Name\n');
    expect(mapping).toContain('  custom_id: { column: Customer ID, required: true }\n');
    expect(mapping).toContain('  # favourite_colour: Favourite colour\n');
    expect(mapping).toMatch(/custom attributes, which must exist in the account/);
    expect(payloads[0]).toEqual({
      custom_id: 'C1',
      email: 'a@example.com',
      last_name: 'Nowak',
      first_name: 'Ewa',
      phone_number: '+48 600 000 001',
    });
  });

  it('a required identifier no column is named after: the key column is proposed for it, left to decide', async () => {
    const cwd = tmp({
      'kunden.csv': 'Kundennummer;E-Mail;Stadt\nK-1;a@example.com;Berlin\nK-2;b@example.com;Bonn\n',
    });
    const { mapping, summary } = await initThenValidate(cwd, 'kunden.csv', 'contacts');
    expect(mapping).toContain('key: Kundennummer');
    expect(mapping).toContain(
      'no column is named after custom_id, which the API requires: the key column "Kundennummer" is proposed for it below (uncomment it if it holds the ID), or every row fails',
    );
    expect(mapping).toMatch(
      /# TO DECIDE: is "Kundennummer" the custom_id of each record\? If so, uncomment\n {2}# custom_id: \{ column: Kundennummer, required: true \}\n/,
    );
    // Not offered a second time as a custom attribute.
    expect(mapping).not.toContain('# kundennummer: Kundennummer');
    expect(summary.totals.invalid).toBe(2);
    // Not for a product event: its custom_id names the product, which the distinct hit id is not.
    const pe = tmp({ 'hits.csv': 'hit,customer_id,action,occurred_at\nH1,C1,view,2026-01-05T09:20:11Z\n' });
    await runCli(['init', 'hits.csv', '--resource', 'product-event', '--out', 'pe.yaml'], { cwd: pe });
    const peMapping = readFileSync(join(pe, 'pe.yaml'), 'utf8');
    expect(peMapping).not.toContain('custom_id: { column: hit');
    expect(peMapping).toContain('no column matched custom_id, which the API requires');
    // Uncommented, the mapping sends it.
    writeFileSync(join(cwd, 'mapping.yaml'), mapping.replace('  # custom_id: {', '  custom_id: {'));
    const again = await runCli(['validate', 'mapping.yaml', '--quiet', '--report', 'report.csv'], { cwd });
    expect(again.code, again.stderr).toBe(0);
  });

  it('product events: the key is the distinct hit id, not the product (which events share); JSON cells are sent as JSON', async () => {
    const cwd = tmp();
    const { mapping, payloads } = await initThenValidate(cwd, join(SAMPLES, 'product-events.csv'), 'product-event');
    expect(mapping).toContain(
      '# key: "hit_id", the first column whose sampled values are all present and distinct\nkey: hit_id\n',
    );
    expect(mapping).toContain(
      '  # matched "custom_data" by synonym ("custom_data"); 15/16 sampled values are JSON\n  data.custom_data: { column: custom_data, type: json }\n',
    );
    expect(payloads[0].data.custom_data).toEqual({ session: 's-7f3a', referrer: 'newsletter' });
  });

  it('a custom column of JSON objects is sent as JSON', async () => {
    const cwd = tmp({
      'events.csv':
        'event_id,customer_id,event,context\nE1,C1,Signed Up,"{""plan"":""pro""}"\nE2,C2,Signed Up,"{""seats"":[1,2]}"\n',
    });
    const { mapping, payloads } = await initThenValidate(cwd, 'events.csv', 'event');
    expect(mapping).toContain('  # column "context": 2/2 sampled values are JSON objects\n');
    expect(payloads.map((p) => p.data.context)).toEqual([{ plan: 'pro' }, { seats: [1, 2] }]);
  });

  it('prices with a decimal comma are read with decimal_comma; a custom column is never guessed so', async () => {
    const cwd = tmp({
      'products.csv':
        'sku;name;price;weight;ids\nP-1;Tent;"1.299,50";2,50;1,2\nP-2;Bag;249,00;0,75;38,40\nP-3;Mat;19,99;1,25;10,20\n',
    });
    const { mapping, payloads, code } = await initThenValidate(cwd, 'products.csv', 'products');
    expect(code).toBe(0);
    expect(mapping).toContain(
      '  # matched "price" by its exact name; 3/3 sampled values are numbers with a decimal comma\n  price: { column: price, type: number, decimal_comma: true }\n',
    );
    // `10,20` may be two ids, and a weight's unit is unknown: left as text.
    expect(mapping).toContain('  # column "weight": text (3/3 sampled values)\n');
    expect(mapping).toContain('  # column "ids": text (3/3 sampled values)\n');
    expect(payloads.map((p) => p.price)).toEqual([1299.5, 249, 19.99]);
  });

  it('a delimiter named by a sep= line says so, not that it was found in the header', async () => {
    const cwd = tmp({ 'crm.csv': 'sep=;\nCustomer ID;Note, with commas, three\nC1;a, b, c\n' });
    const { mapping, code } = await initThenValidate(cwd, 'crm.csv', 'contacts');
    expect(code).toBe(0);
    expect(mapping).toContain(`# delimiter ";": named by the file's first line (sep=)`);
  });

  it('ambiguous dates are left for the user with both readings named', async () => {
    const cwd = tmp({ 'ev.csv': 'customer_id,event,date\nC1,signup,03/04/2026\nC2,signup,05/06/2026\n' });
    const { mapping, code } = await initThenValidate(cwd, 'ev.csv', 'event');
    expect(code).toBe(0);
    expect(mapping).toContain(
      'TO DECIDE: ambiguous dates: "03/04/2026" is 2026-04-03 as dd/MM/yyyy (day first) or 2026-03-04 as MM/dd/yyyy (month first)',
    );
    expect(mapping).toContain('  # timestamp: { column: date, type: unix, format: dd/MM/yyyy }\n');
  });

  it('a day over 12 settles the order: dd/MM/yyyy; date-times and UNIX seconds are recognised', async () => {
    const cwd = tmp({
      'ev.csv':
        'customer_id,event,date,seen\nC1,signup,03/04/2026 10:15,1767600000\nC2,signup,25/06/2026 08:00,1767600100\n',
    });
    const { mapping, code, payloads } = await initThenValidate(cwd, 'ev.csv', 'event');
    expect(code).toBe(0);
    expect(mapping).toContain('  timestamp: { column: date, type: unix, format: "dd/MM/yyyy HH:mm" }\n');
    expect(mapping).toContain('  data.seen: { column: seen, type: unix }\n');
    expect(payloads[1].timestamp).toBe(Date.UTC(2026, 5, 25, 8) / 1000);
  });

  it('UNIX milliseconds are read with `format: x` and sent as the seconds the API wants', async () => {
    const cwd = tmp({ 'pe.csv': 'sku,customer_id,action,ts\nS1,C1,view,1767600000999\n' });
    const { mapping, payloads } = await initThenValidate(cwd, 'pe.csv', 'product-event');
    expect(mapping).not.toContain('TO DECIDE');
    expect(mapping).toContain(
      'UNIX time in milliseconds (13 digits, years 2000–2100)\n  timestamp: { column: ts, type: unix, format: x, required: true }',
    );
    expect(payloads[0].timestamp).toBe(1767600000);
  });

  it.each([
    [
      'windows-1250',
      iconv.encode(
        'customer_id,first_name,last_name,city\nC1,Łukasz,Żółć,Łódź\nC2,Świętosław,Gęślą,Kraków\n',
        'windows-1250',
      ),
      'windows-1250',
    ],
    [
      'UTF-16LE with a BOM',
      Buffer.concat([
        Buffer.from([0xff, 0xfe]),
        iconv.encode(
          'customer_id,first_name,last_name,city\nC1,Łukasz,Żółć,Łódź\nC2,Świętosław,Gęślą,Kraków\n',
          'utf-16le',
        ),
      ]),
      'utf-16le',
    ],
    [
      'UTF-16LE without a BOM',
      iconv.encode(
        'customer_id,first_name,last_name,city\nC1,Łukasz,Żółć,Łódź\nC2,Świętosław,Gęślą,Kraków\n',
        'utf-16le',
      ),
      'utf-16le',
    ],
    [
      'UTF-8 with a BOM',
      Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from('customer_id,first_name,last_name,city\nC1,Łukasz,Żółć,Łódź\nC2,Świętosław,Gęślą,Kraków\n'),
      ]),
      'utf-8',
    ],
  ])('%s: detected, and the names come out right', async (_name, bytes, encoding) => {
    const cwd = tmp({ 'people.csv': bytes });
    const { mapping, code, payloads } = await initThenValidate(cwd, 'people.csv', 'user');
    expect(code).toBe(0);
    expect(mapping).toContain(`  encoding: ${encoding}\n`);
    expect(payloads.map((p) => p.first_name)).toEqual(['Łukasz', 'Świętosław']);
  });

  it('a mapping with every field left to decide is written, and says why it does not load yet', async () => {
    // The only column is a date-time that reads day-first and month-first: nothing is left to send.
    const cwd = tmp({ 'w.csv': 'send_at\n03/04/2026 10:00\n' });
    const r = await runCli(['init', 'w.csv', '--resource', 'webpush-campaign', '--out', 'mapping.yaml'], { cwd });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Wrote mapping\.yaml, but it does not load yet: /);
    const mapping = readFileSync(join(cwd, 'mapping.yaml'), 'utf8');
    expect(mapping).toMatch(
      /# This mapping does not load yet: mapping\.yaml(:\d+)?: fields: at least one field is needed/,
    );
    expect(mapping).toContain('TO DECIDE: ambiguous dates: "03/04/2026 10:00"');
  });

  it('never writes over the CSV it reads, a folder or a device, even with --force; a folder as the CSV is named', async () => {
    const csv = 'sku,title\nS1,Tent\n';
    const cwd = tmp({ 'a.csv': csv, 'dir/x': '' });
    symlinkSync('a.csv', join(cwd, 'link.yaml'));
    const cases: [string[], string][] = [
      [
        ['--out', 'a.csv'],
        'engage-import: --out a.csv is the CSV file a.csv itself: name another file for the mapping\n',
      ],
      [
        ['--out', 'link.yaml'],
        'engage-import: --out link.yaml is the CSV file a.csv itself: name another file for the mapping\n',
      ],
      [
        ['--out', 'dir'],
        `engage-import: --out dir is a folder: name a file (for example ${join('dir', 'mapping.yaml')})\n`,
      ],
      [['--out', '/dev/null'], 'engage-import: --out /dev/null is not a regular file: name a file\n'],
    ];
    for (const [out, message] of cases) {
      const r = await runCli(['init', 'a.csv', '--resource', 'product', ...out, '--force'], { cwd });
      expect([r.code, r.stderr]).toEqual([2, message]);
    }
    expect(readFileSync(join(cwd, 'a.csv'), 'utf8')).toBe(csv);
    const folder = await runCli(['init', '.', '--resource', 'product'], { cwd });
    expect([folder.code, folder.stderr]).toEqual([2, `engage-import: ${cwd} is a folder: name the CSV file\n`]);
  });

  it('writes column names YAML would read as numbers (.nan, .inf, .5) quoted, and no number as a target part: the mapping loads', async () => {
    const cwd = tmp({ 'ev.csv': 'customer_id,event,occurred_at,.nan,.Inf,.5\nC-1,buy,2026-01-05T10:00:00Z,w,x,y\n' });
    const r = await runCli(['init', 'ev.csv', '--resource', 'events', '--out', 'ev.yaml'], { cwd });
    expect([r.code, r.stderr]).toEqual([0, expect.stringMatching(/^Wrote ev\.yaml: /)]);
    const mapping = readFileSync(join(cwd, 'ev.yaml'), 'utf8');
    expect(mapping).toContain('data.nan: ".nan"');
    expect(mapping).toContain('data.inf: ".Inf"');
    // A number would be an array index in a dotted target.
    expect(mapping).toContain('data.column_5: ".5"');
    const validated = await runCli(['validate', 'ev.yaml', '--report', 'r.csv'], { cwd });
    expect(validated.code).toBe(0);
  });

  it('Ctrl-C during the whole-file check stops it: exit 130, the mapping from the sample says how far the check got', async () => {
    const cwd = tmp({ 'a.csv': 'sku,title\nS1,Tent\nS2,Stove\n' });
    const r = await runCli(['init', 'a.csv', '--resource', 'product', '--out', 'm.yaml'], {
      cwd,
      signal: AbortSignal.abort('SIGINT'),
    });
    expect([r.code, r.stderr]).toEqual([
      130,
      'Wrote m.yaml from the sample; interrupted after checking 0 rows of the whole file. Next: engage-import validate m.yaml\n',
    ]);
    expect(readFileSync(join(cwd, 'm.yaml'), 'utf8')).toContain(
      '# Checked the first 0 rows only (interrupted): 0 would fail. Run engage-import validate for the whole file.',
    );
  });

  it('refuses to overwrite a mapping without --force', async () => {
    const cwd = tmp({ 'a.csv': 'sku,title\nS1,Tent\n', 'mapping.yaml': 'mine\n' });
    const refused = await runCli(['init', 'a.csv', '--resource', 'product', '--out', 'mapping.yaml'], { cwd });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe('engage-import: mapping.yaml exists already; pass --force to overwrite it\n');
    expect(readFileSync(join(cwd, 'mapping.yaml'), 'utf8')).toBe('mine\n');
    const forced = await runCli(['init', 'a.csv', '--resource', 'product', '--out', 'mapping.yaml', '--force'], {
      cwd,
    });
    expect(forced.code).toBe(0);
    expect(readFileSync(join(cwd, 'mapping.yaml'), 'utf8')).toContain('custom_id: { column: sku, required: true }');
  });

  it('writes the source path relative to the mapping, wherever it is written', async () => {
    const cwd = tmp({ 'data/a.csv': 'sku,title\nS1,Tent\n' });
    writeFileSync(join(cwd, 'placeholder'), '');
    const init = await runCli(['init', 'data/a.csv', '--resource', 'products', '--out', 'mappings/products.yaml'], {
      cwd,
    });
    expect(init.code).toBe(0);
    expect(readFileSync(join(cwd, 'mappings/products.yaml'), 'utf8')).toContain('  file: ../data/a.csv\n');
    expect((await runCli(['validate', 'mappings/products.yaml', '--quiet', '--report', 'r.csv'], { cwd })).code).toBe(
      0,
    );
  });
});
