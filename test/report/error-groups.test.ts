import { describe, expect, it } from 'vitest';
import { ErrorGroups, errorKind, formatErrorGroup, splitMessage } from '../../src/report/error-groups.js';
import { formatSummary, newFileSummary, summarise } from '../../src/report/summary.js';

describe("errorKind: the row's values are left out of the key", () => {
  it.each([
    [
      'price: expected a number without thousands separators, got "1,299.00"',
      'price: expected a number without thousands separators, got …',
    ],
    ['first_name: at most 40 characters, got 41: "Maximilian-Alexander"', 'first_name: at most 40 characters, got …'],
    [
      'currency: "EURO" is not an ISO 4217 currency code (did you mean "EUR"?)',
      'currency: … is not an ISO 4217 currency code (did you mean …?)',
    ],
    ['products.csv line 13: Invalid Record Length: expect 6, got 7', 'Invalid Record Length: expect 6, got …'],
    ['custom_id: is required', 'custom_id: is required'],
    [
      'user_custom_id: Object with custom_id=C-10099 does not exist.',
      'user_custom_id: Object with custom_id=… does not exist.',
    ],
    ["Client user with ID '42' does not exist", 'Client user with ID … does not exist'],
    ["Couldn't find product with custom_id = TNT-9", "Couldn't find product with custom_id=…"],
    ["Couldn't find product with custom_id = Gift card for Jane", "Couldn't find product with custom_id=…"],
    [
      'user_custom_id: Object with custom_id=Jane Doe does not exist.',
      'user_custom_id: Object with custom_id=… does not exist.',
    ],
    ['pipeline: Invalid pk "12" - object does not exist.', 'pipeline: Invalid pk … - object does not exist.'],
    [
      'import 3f2a9c1e-77aa: it ended with status "failed", 3 times; it may have applied some rows',
      'import …: it ended with status "failed", 3 times; it may have applied some rows',
    ],
    [
      "depends on user custom_id 'C-1', which failed at contacts.csv line 3",
      'depends on user custom_id …, which failed at contacts.csv line …',
    ],
    [
      "depends on user custom_id 'O'Brien', which was skipped at contacts.csv line 3",
      'depends on user custom_id …, which was skipped at contacts.csv line …',
    ],
    [
      'import 5678fd8c-1a2b did not end within 3 s (last status "running", 2 of 10 rows done); its rows are unknown',
      'import … did not end within 3 s (last status "running", … of … rows done); its rows are unknown',
    ],
    [
      'stopped while waiting for import 3be10e37-9f: its rows are unknown',
      'stopped while waiting for import …: its rows are unknown',
    ],
    [
      'in doubt since run 20261122T020000Z-ab12 at 2026-11-22T02:01:00.123Z (a 5xx, a lost answer, or the run stopped while it was in flight): check the account, then engage-import state forget --job job.yaml --resource event --key 9354ed83aa',
      'in doubt since run … at … (a 5xx, a lost answer, or the run stopped while it was in flight): check the account, then engage-import state forget --job job.yaml --resource event --key …',
    ],
    ['the bulk import updates a product', 'the bulk import updates a product'],
    [
      'u.csv line 2: Invalid Opening Quote: a quote is found in column 1 ("custom_id") at line 2, value is "=HYPERLINK("',
      'Invalid Opening Quote: a quote is found in column 1 ("custom_id") at line …, value is …',
    ],
    [
      'u.csv lines 2–3: Invalid Closing Quote: got "4" in column 2 ("card") at line 2, value is "41"1" (the parser read lines 2–3 as this one record: check its quotes)',
      'Invalid Closing Quote: got … in column 2 ("card") at line …, value is … (the parser read line … as this one record: check its quotes)',
    ],
    [
      'data: the number 41111111111111111111 in this JSON would be sent as 41111111111111110000 (a JSON number keeps about 15 significant digits): write it as a string, in quotes',
      'data: the number … in this JSON would be sent as … (a JSON number keeps about 15 significant digits): write it as a string, in quotes',
    ],
    [
      'card: expected a number that can be sent exactly, got "41111111111111111111", which would be sent as 41111111111111110000 (type text keeps it as written)',
      'card: expected a number that can be sent exactly, got …, which would be sent as … (type text keeps it as written)',
    ],
    [
      'user_custom_id: "john.doe@secret.com/x" holds a "/", which the users-by-id endpoint cannot carry (map the user\'s id to user_id instead)',
      'user_custom_id: … holds a "/", which the users-by-id endpoint cannot carry (map the user\'s id to user_id instead)',
    ],
    ['custom_id: ".." cannot be sent in a URL path', 'custom_id: … cannot be sent in a URL path'],
  ])('%s', (message, kind) => {
    expect(errorKind(message)).toBe(kind);
  });

  it('splits a row\'s errors on "; " but not inside a quoted value', () => {
    expect(splitMessage('a: got "x; y"; b: is required')).toEqual(['a: got "x; y"', 'b: is required']);
  });
});

describe('ErrorGroups: one kind per error, and a row counted once per kind', () => {
  it("an unknown row's message is one sentence, even with '; ' in it: one group, counted once a row", () => {
    const groups = new ErrorGroups();
    const message =
      'HTTP 500: Server Error; the request may have been applied and was not resent to avoid a duplicate: check the account; if it is not there, resume --resend-unknown';
    for (let line = 2; line < 57; line++) groups.add('unknown', line, message);
    expect(groups.top().map((g) => [g.count, g.message])).toEqual([[55, message]]);
  });

  it('rows not sent are counted with their reason (an exit 1 with no failed row says why); rows an incremental run skipped are not', () => {
    const groups = new ErrorGroups();
    const why = 'not sent: no answer from the API (ECONNREFUSED) after 5 attempts';
    for (let line = 2; line < 15; line++) groups.add('not_sent', line, why);
    groups.add('unchanged', 15, 'same request as accepted by run 20261123T020000Z-ab12 at 2026-11-23T02:00:00.000Z');
    expect(groups.top().map((g) => [g.status, g.count, g.message])).toEqual([['not_sent', 13, why]]);
  });

  it('a failed row alone in its group shows no quoted text; words two rows share are shown', () => {
    const groups = new ErrorGroups();
    groups.add(
      'failed',
      2,
      'products_custom_id: Invalid custom_id "Gift card for Jane Smith" - object does not exist.',
    );
    groups.add('failed', 3, 'data: Custom attribute "shoe_size" does not exist');
    groups.add('failed', 4, 'data: Custom attribute "shoe_size" does not exist');
    // A value two rows share is still a value when it reads as words or an address.
    groups.add('failed', 5, 'owner: Invalid custom_id "Jane Smith" - object does not exist.');
    groups.add('failed', 6, 'owner: Invalid custom_id "Jane Smith" - object does not exist.');
    expect(groups.top().map((g) => [g.count, g.message])).toEqual([
      [2, 'data: Custom attribute "shoe_size" does not exist'],
      [2, 'owner: Invalid custom_id "…" - object does not exist.'],
      [1, 'products_custom_id: Invalid custom_id "…" - object does not exist.'],
    ]);
  });

  it("the service's messages of failed rows group though they quote each row's values", () => {
    const groups = new ErrorGroups();
    for (let i = 0; i < 12; i++)
      groups.add(
        'failed',
        i + 2,
        `products_custom_id: Invalid custom_id "P-0000${i}" - object does not exist. (bulk import 3f2a9c1e-77aa)`,
      );
    expect(groups.top().map((g) => [g.count, g.message])).toEqual([
      [12, 'products_custom_id: Invalid custom_id "…" - object does not exist. (bulk import …)'],
    ]);
    expect(groups.kinds).toBe(1);
  });
});

describe('ErrorGroups on a file with 10,000 errors of 3 kinds', () => {
  const groups = new ErrorGroups();
  const summary = newFileSummary('contacts.csv', 'user');
  for (let i = 0; i < 10_000; i++) {
    const line = i + 2;
    if (i % 10 < 6) groups.add('invalid', line, `email: expected an email address, got "user${i}@"`);
    else if (i % 10 < 9)
      groups.add(
        'invalid',
        line,
        `first_name: at most 40 characters, got ${41 + (i % 7)}: "${'x'.repeat(41 + (i % 7))}"`,
      );
    else groups.add('failed', line, `HTTP 400: custom_id: "C-${i}" is not unique`);
    summary.counts.invalid++;
  }
  // Valid rows and rows without a message are not errors.
  groups.add('ok', 3, undefined);
  groups.add('valid', 4, 'ignored');

  it('counts each kind once, most frequent first, with its first three lines', () => {
    expect(groups.top()).toEqual([
      { status: 'invalid', message: 'email: expected an email address, got …', count: 6000, lines: [2, 3, 4] },
      { status: 'invalid', message: 'first_name: at most 40 characters, got …', count: 3000, lines: [8, 9, 10] },
      { status: 'failed', message: 'HTTP 400: custom_id: … is not unique', count: 1000, lines: [11, 21, 31] },
    ]);
  });

  it('names the earliest lines of the file when rows are reported out of order (product events go in time order)', () => {
    const shuffled = new ErrorGroups();
    for (const line of [9, 4, 7, 3, 2, 8])
      shuffled.add('invalid', line, `email: expected an email address, got "x${line}"`);
    expect(shuffled.top()[0]?.lines).toEqual([2, 3, 4]);
    expect(formatErrorGroup(shuffled.top()[0]!)).toBe('6 × email: expected an email address, got … (lines 2, 3, 4 …)');
  });

  it('prints `count × message (lines …)` in the summary and the same groups in --json', () => {
    expect(formatErrorGroup(groups.top()[0]!)).toBe(
      '6,000 × email: expected an email address, got … (lines 2, 3, 4 …)',
    );
    const file = { ...summary, errors: groups };
    const run = summarise(
      'dry-run',
      [file],
      { report: 'out/report.csv', rejects: [], payloads: undefined },
      { rate: 10, limit: undefined, aborted: undefined },
    );
    expect(formatSummary(run)).toContain(
      '      1,000 × [failed] HTTP 400: custom_id: … is not unique (lines 11, 21, 31 …)\n',
    );
    const json = JSON.parse(JSON.stringify(run));
    expect(json.files[0].errors).toEqual(groups.top());
  });

  it('keeps the top 10 and says how many kinds more', () => {
    const many = new ErrorGroups();
    for (let k = 0; k < 12; k++) for (let n = 0; n <= k; n++) many.add('invalid', n + 2, `field_${k}: is required`);
    expect(many.top().map((g) => g.count)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3]);
    const file = { ...newFileSummary('a.csv', 'user'), errors: many };
    const run = summarise(
      'dry-run',
      [file],
      { report: undefined, rejects: [], payloads: undefined },
      { rate: 10, limit: undefined, aborted: undefined },
    );
    expect(formatSummary(run)).toContain('… and 2 more kinds of error (see the report)');
  });
});
