import type { RowStatus } from './report-line.js';

/** Groups listed per file in the summary: the most frequent first. */
export const TOP_GROUPS = 10;
/** Lines kept per group, to show where the mistake first appears. */
const FIRST_LINES = 3;
/**
 * Distinct messages tracked per file. A file whose errors all differ (a free-text message per
 * row) would otherwise hold one group per row; past this bound new kinds are counted together
 * under OTHER, so memory stays bounded whatever the file holds.
 */
const MAX_KINDS = 1000;
const OTHER = '(other messages)';

/** One kind of error of one file, as the summary prints it and `--json` writes it. */
export interface ErrorGroup {
  /** The report status of these rows: `invalid`, `failed`, `unknown` or `skipped`. */
  readonly status: RowStatus;
  /** The message with the row's own values left out: `email: expected an email address, got …`. */
  readonly message: string;
  readonly count: number;
  /** The first lines (in input order) where it occurs; the header is line 1. */
  readonly lines: readonly number[];
}

const JSON_STRING = String.raw`"(?:[^"\\]|\\.)*"`;
/**
 * The parts of a message that quote the row's own cell: `got "x"`, `got 41: "…"`, a leading
 * `"EURO" is not…`, `(did you mean "EUR"?)`. Everything else in a message (field names, the
 * expected grammar, the allowed choices) comes from the mapping and is the same for every row.
 */
const VALUE_PATTERNS: readonly [RegExp, string][] = [
  [new RegExp(String.raw`\bgot (?:${JSON_STRING}|[^\s,;:()]+)(?:: ${JSON_STRING})?`, 'g'), 'got …'],
  [new RegExp(`(?<=^|: )${JSON_STRING}(?= (?:is not|does not|holds a|cannot be))`, 'g'), '…'],
  [new RegExp(String.raw`\(did you mean ${JSON_STRING}\?\)`, 'g'), '(did you mean …?)'],
  [/\b(?:line|lines) \d+(?:[-–]\d+)?/g, 'line …'],
  // csv-parse ends a quote error with the cell as it read it, quotes unescaped: `, value is "=X("`.
  [/, value is ".*?"(?= \(the parser read|$)/g, ', value is …'],
  // A number too long to send exactly: `the number 4111… in this JSON would be sent as 4111…`,
  // `got "4111…", which would be sent as 4111…`.
  [/\bthe number \S+ in this JSON would be sent as \S+/g, 'the number … in this JSON would be sent as …'],
  [/\bwhich would be sent as [^\s(]+/g, 'which would be sent as …'],
  // The API's own words quote the value in other ways (docs/api-contract.md, error bodies):
  // `Invalid pk "12" - object does not exist.`, `Client user with ID '42' does not exist`,
  // `Object with custom_id=C-1 does not exist.`, `Couldn't find product with custom_id = SKU-1`.
  [new RegExp(String.raw`\bpk ${JSON_STRING}`, 'g'), 'pk …'],
  [/'[^']*'(?= does not exist)/g, '…'],
  // The value runs to the sentence's end, spaces included (`custom_id=Jane Doe does not exist.`).
  [/\b(custom_id|id) ?= ?.+?(?=\.? does not exist)/g, '$1=…'],
  [/(?<=\bCouldn't find \w+ with )(custom_id|id) ?= ?.+$/g, '$1=…'],
  [/\b(custom_id|id) ?= ?\S+?(?=\.?(?:\s|$))/g, '$1=…'],
  // A bulk row names its import (`bulk import <id>: …`, `import <id> did not end within 30 min
  // (last status "running", 120 of 5,000 rows done)`): one kind whichever import said it. An
  // import id has a digit, which keeps prose (`the bulk import updates …`) as it is.
  [/\bimport (?=[^\s:,;()]*\d)[^\s:,;()]+/gi, 'import …'],
  [/\b[\d,]+ of [\d,]+ rows done\b/g, '… of … rows done'],
  // A row in doubt names the run, the time and the key: `in doubt since run R at 2026-…Z`, `--key <hash>`.
  [/\brun \S+ at \d{4}-\d{2}-\d{2}T[\d:.]+Z/g, 'run … at …'],
  [/--key \S+/g, '--key …'],
  // A skipped row names its parent: `depends on user custom_id 'C-1', which failed at …`.
  [/(?<=^depends on \S+ \S+ )'.*?'(?=, which (?:failed|was))/, '…'],
];

/** A row's message is `field: message; field: message`: split on `; ` outside quoted values. */
export function splitMessage(message: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < message.length; i++) {
    const c = message[i];
    if (c === '\\' && quoted) i++;
    else if (c === '"') quoted = !quoted;
    else if (!quoted && c === ';' && message[i + 1] === ' ') {
      parts.push(message.slice(start, i));
      start = i + 2;
    }
  }
  parts.push(message.slice(start));
  return parts.filter((p) => p !== '');
}

/** A quoted value anywhere in a message: the service's own words quote the row's values (`Invalid custom_id "P-1"`). */
const QUOTED = new RegExp(JSON_STRING, 'g');

/** The grouping key of one error: its text with the row's values left out. */
export function errorKind(error: string): string {
  // A malformed record's message starts with `file.csv line 7: ` (`lines 7–9: ` when a quote
  // error joined lines): the file is the group's already.
  let text = error.replace(/^\S+\.\w+ lines? \d+(?:[-–]\d+)?: /, '');
  for (const [pattern, replacement] of VALUE_PATTERNS) text = text.replace(pattern, replacement);
  return text;
}

/**
 * A `failed` row's message is the service's, which may quote the row's values anywhere: its
 * group leaves every quoted text out. The group shows a quoted text once two rows or more have
 * it, and while every row of it does (`Custom attribute "shoe_size" does not exist`: the
 * mapping's, not a row's), see `ErrorGroups.add`; a group of one row shows none.
 */
/** Whether every text a message quotes reads as a field or attribute name (`shoe_size`), not as words or an address. */
const quotesNamesOnly = (message: string): boolean =>
  (message.match(QUOTED) ?? []).every((q) => /^"[A-Za-z_][\w.-]*"$/.test(q));

const groupKey = (kind: string, status: RowStatus) => (status === 'failed' ? kind.replace(QUOTED, '"…"') : kind);

/**
 * Statuses whose message lists one error per field (`field: message; field: message`), each its
 * own kind: local checks, and the service's field errors. Other messages are one sentence.
 */
const PER_FIELD: ReadonlySet<RowStatus> = new Set(['invalid', 'failed']);

// `not_sent` is counted: its message says why the row did not go (the API unreachable, the
// run stopped), which is what an exit 1 with no failed row must explain in the summary and alert.
const NOT_ERRORS: ReadonlySet<RowStatus> = new Set(['ok', 'valid', 'unchanged', 'already_sent', 'superseded']);

interface Tally {
  status: RowStatus;
  message: string;
  count: number;
  lines: number[];
  /** The first row's kind, and whether every row since has said it in the same words. */
  readonly first: string;
  same: boolean;
}

/**
 * The errors of one input file, grouped by kind as rows are reported: a count and the first
 * lines of each kind. Serialises (`--json`) as its top groups.
 */
export class ErrorGroups {
  private readonly tallies = new Map<string, Tally>();

  /**
   * Count one report line; rows that are `ok`/`valid`, rows an incremental run did not need to
   * send (`unchanged`, `already_sent`, `superseded`: their message says why), or have no message,
   * are not errors.
   */
  add(status: RowStatus, line: number, message: string | undefined): void {
    if (message === undefined || message === '' || NOT_ERRORS.has(status)) return;
    for (const error of PER_FIELD.has(status) ? splitMessage(message) : [message]) {
      const kind = errorKind(error);
      const grouped = groupKey(kind, status);
      let key = `${status}\u0000${grouped}`;
      let tally = this.tallies.get(key);
      if (tally === undefined && this.tallies.size >= MAX_KINDS) {
        key = `${status}\u0000${OTHER}`;
        tally = this.tallies.get(key);
      }
      if (tally === undefined) {
        const other = key === `${status}\u0000${OTHER}`;
        tally = { status, message: other ? OTHER : grouped, count: 0, lines: [], first: kind, same: !other };
        this.tallies.set(key, tally);
      } else if (tally.same && kind !== tally.first) {
        tally.same = false;
        tally.message = grouped;
      }
      tally.count++;
      // Words every row of the group shares, two rows or more, are the mapping's (an attribute's
      // name): shown whole, when what they quote reads as a name, not a person's or a product's.
      if (tally.same && tally.count >= 2 && quotesNamesOnly(tally.first)) tally.message = tally.first;
      // The earliest lines in the file, whatever order rows are reported in (product events go in
      // time order); one row with two errors of one kind (two list elements) names its line once.
      if (!tally.lines.includes(line) && (tally.lines.length < FIRST_LINES || line < tally.lines.at(-1)!)) {
        tally.lines.push(line);
        tally.lines.sort((a, b) => a - b);
        if (tally.lines.length > FIRST_LINES) tally.lines.pop();
      }
    }
  }

  /** The `limit` most frequent kinds; ties keep the order in which the kinds first appeared. */
  top(limit = TOP_GROUPS): ErrorGroup[] {
    return [...this.tallies.values()]
      .sort((a, b) => b.count - a.count)
      .slice(0, limit)
      .map((t) => ({ status: t.status, message: t.message, count: t.count, lines: [...t.lines] }));
  }

  /** Kinds beyond the top ones, for "… and N more kinds". */
  get kinds(): number {
    return this.tallies.size;
  }

  toJSON(): ErrorGroup[] {
    return this.top();
  }
}

const number = new Intl.NumberFormat('en-US');

/** `1,204 × email: not a valid email address (lines 17, 88, 301 …)` */
export function formatErrorGroup(group: ErrorGroup): string {
  const status = group.status === 'invalid' ? '' : `[${group.status}] `;
  const more = group.count > group.lines.length ? ' …' : '';
  const lines = `${group.lines.length === 1 ? 'line' : 'lines'} ${group.lines.join(', ')}${more}`;
  return `${number.format(group.count)} × ${status}${group.message} (${lines})`;
}
