import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkStateDir } from '../../src/cli/output-args.js';
import { ConfigError } from '../../src/errors.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

const USERS = 'resource: user\nsource: { file: users.csv }\nkey: cid\nfields: { custom_id: cid, email: email }\n';
const CSV = 'cid,email\nA1,a@x\n';

/**
 * Ordinary mistakes, as a careless user makes them: each is refused with one line naming what
 * to change, never an internal error (exit 70) or a stack trace.
 */
describe('user mistakes are usage errors, never internal ones', () => {
  const bomb = [
    'a: &a [x,x,x,x,x,x,x,x,x]',
    ...['b', 'c', 'd', 'e', 'f'].map(
      (n) =>
        `${n}: &${n} [${Array(9)
          .fill(`*${String.fromCharCode(n.charCodeAt(0) - 1)}`)
          .join(',')}]`,
    ),
  ].join('\n');
  it.each([
    [
      '--report given twice',
      ['validate', 'm.yaml', '--report', 'a.csv', '--report', 'b.csv'],
      2,
      '--report was given 2 times ("a.csv", "b.csv"): give it once',
    ],
    [
      '--rejects given twice',
      ['validate', 'm.yaml', '--rejects', 'a.csv', '--rejects=b.csv'],
      2,
      '--rejects was given 2 times ("a.csv", "b.csv"): give it once',
    ],
    [
      '--notify-url given twice: its secret path is not repeated',
      [
        'import',
        'm.yaml',
        '--notify-url',
        'https://hooks.example.com/services/T0/B0/SECRET1',
        '--notify-url',
        'https://hooks.example.com/services/T0/B0/SECRET2',
      ],
      2,
      '--notify-url was given 2 times: give it once',
    ],
    [
      '--notify-url given twice, once without a scheme: no value is repeated',
      [
        'import',
        'm.yaml',
        '--notify-url=https://hooks.example.com/services/T0/B0/SECRET1',
        '--notify-url',
        'hooks.example.com/services/T1/B1/SECRET2',
      ],
      2,
      '--notify-url was given 2 times: give it once',
    ],
    [
      'a webhook URL without its scheme left as an extra argument: shown by its host only',
      ['import', 'm.yaml', 'hooks.example.com/services/T0/B0/SECRET1'],
      2,
      'Unknown argument: hooks.example.com/…',
    ],
    [
      'URLs without a dotted host or with a password, left as extra arguments: shown by their hosts only',
      [
        'import',
        'm.yaml',
        'localhost:8080/hook/SECRET5',
        '10.0.0.5:8080/hook/SECRET8',
        'user:pwSECRET@api.example.com/v1',
      ],
      2,
      'Unknown arguments: localhost:8080/…, 10.0.0.5:8080/…, api.example.com/…',
    ],
    [
      'a webhook URL after a name and =, with or without its scheme: shown by its host only',
      [
        'import',
        'm.yaml',
        'ENGAGE_NOTIFY_URL=https://hooks.slack.com/services/T0/B0/SECRET5',
        'x=hooks.example.com/SECRET6',
      ],
      2,
      'Unknown arguments: ENGAGE_NOTIFY_URL=https://hooks.slack.com/…, x=hooks.example.com/…',
    ],
    [
      "URLs whose query or path hold '=', with or without a scheme or a name before them: shown by their hosts only",
      [
        'import',
        'm.yaml',
        'https://hooks.slack.com/services/T0/B0/SECRET7?v=2',
        'https://user:SECRET8@hooks.example.com/x=y',
        'ENGAGE_NOTIFY_URL=hooks.example.com/SECRET9?token=SECRET10',
      ],
      2,
      'Unknown arguments: https://hooks.slack.com/…, https://hooks.example.com/…, ENGAGE_NOTIFY_URL=hooks.example.com/…',
    ],
    [
      "URLs without a scheme whose query or password hold '=': shown by their hosts only",
      [
        'import',
        'm.yaml',
        'hooks.example.com?token=SECRET11',
        'svc:dG9rZW4xMjM0NQ==@api.example.com/v1',
        'user:p=SECRET12@hooks.example.com/x',
      ],
      2,
      'Unknown arguments: hooks.example.com/…, api.example.com/…, hooks.example.com/…',
    ],
    [
      'a URL after a name that is not a plain word (an em dash a chat turned -- into), or holding another URL in its query: shown by its host only',
      [
        'import',
        'm.yaml',
        '—notify-url=hooks.slack.com/services/T0/B0/SECRET13',
        'notify.url=hooks.example.com/SECRET14',
        'hooks.example.com/hook/SECRET15?redirect=https://app.example.com/cb',
        'user:SECRET16@hooks.example.com/x?u=http://a.b',
      ],
      2,
      'Unknown arguments: —notify-url=hooks.slack.com/…, notify.url=hooks.example.com/…, hooks.example.com/…, hooks.example.com/…',
    ],
    [
      '--notify-url given twice, the camel-case spelling first: no value is repeated',
      [
        'import',
        'm.yaml',
        '--notifyUrl',
        'https://hooks.example.com/services/T0/B0/SECRET17',
        '--notify-url',
        'https://hooks.example.com/services/T1/B1/SECRET18',
      ],
      2,
      '--notify-url was given 2 times: give it once',
    ],
    [
      'an option given twice in its camel-case spelling only: refused too',
      ['import', 'm.yaml', '--stateDir', 'a', '--stateDir', 'b', '--dry-run'],
      2,
      '--state-dir was given 2 times ("a", "b"): give it once',
    ],
    [
      'URLs with a single-label host and a port, an IPv6 host, a backslash, an IDN, percent-encoding: shown by their hosts only',
      [
        'import',
        'm.yaml',
        'intranet-hook:8080/SECRET19',
        '[::1]:8080/SECRET20',
        'a.example.com\\SECRET21',
        'a.example.xn--p1ai/SECRET22',
        'hooks.slack.com%2Fservices%2FSECRET23',
        'https%3A%2F%2Fhooks.example.com%2FSECRET24',
        'admin:SECRET25@intranet/hook',
        'admin:SECRET26@intranet',
        'hooks.slack.com./services/SECRET27',
        'hooks.example.рф/SECRET28',
        'hooks.example.com%3Ftoken%3DSECRET29',
        'admin:p@SECRET30@hooks.example.com/services/X',
        'alice@acme',
        'tok_SECRET31@hooks.example.com:8443',
        'ghp_SECRET32@hooks.example.com',
        'admin:SECRET33@',
        'admin:SECRET34@%68ooks.example.com/x',
        'admin:pw@intranet%2Fhooks%2FSECRET35',
        'exports/contacts@2026-01-05.csv',
        'x=admin:SECRET36@intranet',
      ],
      2,
      'Unknown arguments: intranet-hook:8080/…, [::1]:8080/…, a.example.com/…, a.example.xn--p1ai/…, hooks.slack.com/…, (a URL), intranet/…, /…, hooks.slack.com./…, hooks.example.рф/…, hooks.example.com/…, hooks.example.com/…, alice@acme, hooks.example.com:8443/…, hooks.example.com/…, /…, /…, intranet/…, exports/contacts@2026-01-05.csv, /…',
    ],
    [
      "credentials after a mistyped or missing scheme, or in a token with '=', and a file name with '@': only the host is shown, the file as it is",
      [
        'import',
        'm.yaml',
        '//admin:SECRET37@intranet',
        'https:/admin:SECRET38@hooks.example.com',
        'https//admin:SECRET39@hooks.example.com',
        'dXNlcjpTRUNSRVQ=@hooks.example.com',
        'tok_SE=CRET40@hooks.example.com',
        'ad=min:SECRET41@intranet',
        '—notify-url=admin:SECRET42@hooks.example.com',
        'ENGAGE_NOTIFY_URL=tok_SECRET43@hooks.example.com',
        'contacts@2026-01-05.csv',
        'tok_SECRET44@[::1]:8080',
        'admin:SECRET45@[2001:db8::1]/x',
        '//intranet/hook?token=SECRET46',
        'https:/intranet/services/SECRET47',
        'tok_SECRET48@intranet/hook',
        'admin:pw@hooks.example.com;sig=SECRET49',
        'admin:p@SECRET50',
        'TOK_SE=CRET51@hooks.example.com',
        'contacts@2026-01-05.xlsx',
        '//tok_SECRET52@intranet',
        'https//tok_SECRET53@intranet',
        'C:/data/contacts.csv',
        'exports//contacts.csv',
      ],
      2,
      'Unknown arguments: intranet/…, hooks.example.com/…, hooks.example.com/…, hooks.example.com/…, hooks.example.com/…, /…, —notify-url=hooks.example.com/…, ENGAGE_NOTIFY_URL=hooks.example.com/…, contacts@2026-01-05.csv, [::1]:8080/…, [2001:db8::1]/…, intranet/…, intranet/…, intranet/…, hooks.example.com/…, /…, hooks.example.com/…, contacts@2026-01-05.xlsx, intranet/…, intranet/…, C:/data/contacts.csv, exports//contacts.csv',
    ],
    [
      'a webhook URL whose path holds a comma: shown by its host only',
      ['import', 'm.yaml', 'https://hooks.example.com/a,SECRET6'],
      2,
      'Unknown argument: https://hooks.example.com/…',
    ],
    [
      'a webhook URL left as an extra argument: shown by its host only',
      ['import', 'm.yaml', 'https://hooks.example.com/services/T0/B0/SECRET1'],
      2,
      'Unknown argument: https://hooks.example.com/…',
    ],
    [
      '--input given twice',
      ['validate', 'm.yaml', '--input', 'users.csv', '--input', 'users.csv'],
      2,
      '--input was given 2 times ("users.csv", "users.csv"): give it once',
    ],
    [
      '--limit given twice',
      ['validate', 'm.yaml', '--limit', '1', '--limit', '2'],
      2,
      '--limit was given 2 times ("1", "2"): give it once',
    ],
    [
      '--state-dir given twice',
      ['import', 'm.yaml', '--state-dir', 'a', '--state-dir', 'b'],
      2,
      '--state-dir was given 2 times ("a", "b"): give it once',
    ],
    [
      '--report naming a folder',
      ['validate', 'm.yaml', '--report', 'out/'],
      2,
      '--report out/ is a folder: name a file (for example out/report.csv)',
    ],
    ['a YAML alias bomb as the mapping', ['validate', 'bomb.yaml'], 2, 'its aliases (*name) expand to too much'],
    [
      'a mapping target through the prototype',
      ['validate', 'proto.yaml'],
      2,
      'target "constructor.prototype.polluted" uses "constructor"',
    ],
    [
      'a gzip file as the CSV',
      ['validate', 'm.yaml', '--input', 'users.csv.gz'],
      2,
      'users.csv.gz is a gzip-compressed file, not a CSV',
    ],
    [
      "a file as the preview's --state-dir",
      ['validate', 'm.yaml', '--incremental', '--state-dir', 'afile'],
      2,
      '--state-dir afile is a file, not a folder',
    ],
    [
      "a file as the state commands' --state-dir",
      ['state', 'show', '--state-dir', 'afile'],
      2,
      '--state-dir afile is a file, not a folder',
    ],
    [
      "a file of the default state directory as a dry run's --report",
      ['import', 'm.yaml', '--dry-run', '--report', '.engage-import/sync/afile'],
      2,
      'the state directory (run ledgers, sync state)',
    ],
    [
      "the key file as a dry run's --report",
      ['import', 'm.yaml', '--dry-run', '--api-key-file', 'afile', '--report', 'afile'],
      2,
      '--report afile is the --api-key-file',
    ],
  ])('%s', async (_name, argv, code, message) => {
    const dir = tmpTree({
      afile: 'a key to keep',
      'm.yaml': USERS,
      'users.csv': CSV,
      'users.csv.gz': Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0]),
      'bomb.yaml': `${bomb}\n${USERS}`,
      'proto.yaml': `${USERS.replace('email: email }', 'email: email, constructor.prototype.polluted: cid }')}`,
    });
    const r = await runCli(argv, { cwd: dir });
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toContain('SECRET');
    expect(r.stderr.trimEnd().split('\n').length).toBeLessThanOrEqual(2);
    expect(r.code).toBe(code);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(readFileSync(join(dir, 'afile'), 'utf8')).toBe('a key to keep');
  });
});

describe('the API key pasted where an argument goes', () => {
  it('is not repeated in the usage error, on stderr or in --json', async () => {
    const key = `k${'3'.repeat(30)}y`;
    const dir = tmpTree({ 'm.yaml': 'resource: user\nsource: { file: u.csv }\nkey: id\nfields: { custom_id: id }\n' });
    const r = await runCli(['import', 'm.yaml', key, '--json'], { cwd: dir, env: { ENGAGE_API_KEY: key } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Unknown argument: [redacted]');
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { message: 'Unknown argument: [redacted]' } });
    expect(`${r.stderr}${r.stdout}`).not.toContain(key);
  });

  it('is not repeated either when the environment holds it with a newline, or only its file does, or --api-key-file is given it twice', async () => {
    const key = `k${'4'.repeat(30)}y`;
    const dir = tmpTree({
      'm.yaml': 'resource: user\nsource: { file: u.csv }\nkey: id\nfields: { custom_id: id }\n',
      'key.txt': `${key}\n`,
    });
    for (const [argv, env] of [
      [['import', 'm.yaml', key], { ENGAGE_API_KEY: `${key}\n` }],
      [['import', 'm.yaml', '--api-key-file', 'key.txt', key], {}],
      [['import', 'm.yaml', '--api-key-file', key, '--api-key-file', 'key.txt'], {}],
    ] as const) {
      const r = await runCli([...argv], { cwd: dir, env });
      expect(r.code).toBe(2);
      expect(r.stderr).not.toContain(key);
    }
  });
});

describe('--state-dir checked before a ledger is opened there', () => {
  it('a file is refused, naming the option', () => {
    const dir = tmpTree({ state: 'not a folder' });
    expect(() => checkStateDir(dir, 'state')).toThrow(
      new ConfigError(
        'USAGE',
        '--state-dir state is a file, not a folder: name a folder where run ledgers can be kept',
      ),
    );
  });

  it('a folder that cannot be created (/proc/1) is refused at once, not retried forever', () => {
    expect(() => checkStateDir('/', '/proc/1/engage')).toThrow(
      /^--state-dir \/proc\/1\/engage: run ledgers cannot be written there \(/,
    );
  });

  it.runIf(process.getuid?.() !== 0)('a read-only folder is refused', () => {
    const dir = tmpTree();
    chmodSync(dir, 0o500);
    try {
      expect(() => checkStateDir(dir, '.')).toThrow(/run ledgers cannot be written there \(permission denied\)/);
    } finally {
      chmodSync(dir, 0o700);
    }
  });

  it('a writable folder is created and left empty', () => {
    const dir = tmpTree();
    expect(checkStateDir(dir, 'a/b')).toBe(join(dir, 'a/b'));
    expect(readdirSync(join(dir, 'a/b'))).toEqual([]);
  });
});

describe('events list', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

  it('prints names with control characters escaped and leaves out a null item, instead of crashing', async () => {
    server = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          count: 3,
          next: null,
          previous: null,
          results: [{ id: 1, name: '\u001b[2Jevil\r\nok\tfake' }, null, { id: 2, name: 'plain' }],
        }),
      );
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/public/`;
    const dir = tmpTree();
    writeFileSync(join(dir, 'key'), 'k'.repeat(64));
    const r = await runCli(['events', 'list', '--api-key-file', 'key', '--base-url', url], { cwd: dir });
    expect(r.stdout).toBe('1\t\\u001b[2Jevil\\u000d\\u000aok\\u0009fake\n2\tplain\n');
    expect(r.stderr).toBe(
      '2 event definitions\nengage-import: 1 item of the list was not an event definition (null or not an object) and was left out\n',
    );
    expect(r.code).toBe(0);
  });
});

describe('a mapping refused by the import leaves no run behind', () => {
  it('bulk: true on a deal create: exit 2 before any run exists, so the next import is not told to resume', async () => {
    const dir = tmpTree({
      'deals.yaml':
        'resource: deal\noperation: create\nbulk: true\nsource: { file: deals.csv }\nkey: id\nfields:\n  custom_id: { column: id, bulk_header: Deal Id }\n  name: { column: name, bulk_header: Name }\n',
      'deals.csv': 'id,name\nD-1,One\n',
    });
    const env = { ENGAGE_API_KEY: 'k'.repeat(40), ENGAGE_BASE_URL: 'http://127.0.0.1:9/api/public/' };
    for (let attempt = 0; attempt < 2; attempt++) {
      const r = await runCli(['import', 'deals.yaml'], { cwd: dir, env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('`bulk: true` needs operation update_or_create');
      expect(r.stderr).not.toContain('unfinished run');
    }
    expect(existsSync(join(dir, '.engage-import', 'runs'))).toBe(false);
  });
});

describe('import --dry-run with options of the live run only', () => {
  it('says --notify-url and --max-failed do nothing there, without repeating the URL', async () => {
    const dir = tmpTree({ 'm.yaml': USERS, 'users.csv': CSV });
    const r = await runCli(
      ['import', 'm.yaml', '--dry-run', '--notify-url', 'https://hooks.example.com/T/B/SECRET', '--max-failed', '5%'],
      { cwd: dir },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'engage-import: --notify-url and --max-failed apply to a live run only: a dry run sends nothing, posts no alert and exits by its rows\n',
    );
    expect(r.stderr).not.toContain('SECRET');
  });
});
