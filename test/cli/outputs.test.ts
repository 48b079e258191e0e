import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

const USERS =
  'resource: user\nsource: { file: users.csv }\nkey: cid\nfields: { custom_id: cid, email: { column: email, required: true } }\n';
const CSV = 'cid,email\nA1,a@x\nB2,\nC3,c@x\n';

describe('output files', () => {
  it.each([
    [
      '--rejects is the input',
      ['--input', 'users.csv', '--rejects', 'users.csv'],
      '--rejects users.csv is the CSV read by m.yaml: writing it would destroy what the run reads; name another file',
    ],
    [
      '--report is the input',
      ['--report', 'users.csv'],
      '--report users.csv is the CSV read by m.yaml: writing it would destroy what the run reads; name another file',
    ],
    [
      '--report is the mapping',
      ['--report', 'm.yaml'],
      '--report m.yaml is the mapping file: writing it would destroy what the run reads; name another file',
    ],
    [
      '--report and --rejects are one file',
      ['--report', 'out.csv', '--rejects', './out.csv'],
      '--rejects and --report both name out.csv: give each its own file',
    ],
  ])(
    'refuses a run when %s, before reading anything (exit 2), and leaves the input as it was',
    async (_name, args, message) => {
      const dir = tmpTree({ 'm.yaml': USERS, 'users.csv': CSV });
      const r = await runCli(['validate', 'm.yaml', ...args], { cwd: dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`engage-import: ${message}\n`);
      expect(readFileSync(join(dir, 'users.csv'), 'utf8')).toBe(CSV);
      expect(readFileSync(join(dir, 'm.yaml'), 'utf8')).toBe(USERS);
    },
  );

  it('an output path that cannot be written is a clear error (exit 2), not an internal one', async () => {
    const dir = tmpTree({ 'm.yaml': USERS, 'users.csv': CSV });
    mkdirSync(join(dir, 'taken'));
    const r = await runCli(['validate', 'm.yaml', '--report', 'taken'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('engage-import: --report taken is a folder: name a file (for example taken/report.csv)\n');
  });

  it('an output named with a trailing slash is refused instead of creating a file of that name', async () => {
    const dir = tmpTree({ 'm.yaml': USERS, 'users.csv': CSV });
    const r = await runCli(['validate', 'm.yaml', '--report', 'somedir/'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'engage-import: --report somedir/ is a folder: name a file (for example somedir/report.csv)\n',
    );
    expect(existsSync(join(dir, 'somedir'))).toBe(false);
  });

  it('an output that is a hard link to the input is refused (same device and inode), and the input is kept', async () => {
    const dir = tmpTree({ 'm.yaml': USERS, 'users.csv': CSV });
    linkSync(join(dir, 'users.csv'), join(dir, 'hl.csv'));
    const r = await runCli(['validate', 'm.yaml', '--report', 'hl.csv'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'engage-import: --report hl.csv is the CSV read by m.yaml: writing it would destroy what the run reads; name another file\n',
    );
    expect(readFileSync(join(dir, 'users.csv'), 'utf8')).toBe(CSV);
  });

  it('a report is written beside its target and renamed at the end: no temporary file is left, the old report is replaced whole', async () => {
    const dir = tmpTree({ 'm.yaml': USERS, 'users.csv': CSV, 'out/report.csv': 'old report\n' });
    const r = await runCli(['validate', 'm.yaml', '--report', 'out/report.csv'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(readdirSync(join(dir, 'out'))).toEqual(['report.csv']);
    expect(readFileSync(join(dir, 'out/report.csv'), 'utf8').split('\n')[0]).toBe(
      'file,line,resource,key,status,http_status,id,message',
    );
  });

  it.runIf(existsSync('/dev/full'))(
    'a disk that fails while the report is written (/dev/full) is exit 3 with the reason, not an internal error',
    async () => {
      const dir = tmpTree({ 'm.yaml': USERS, 'users.csv': CSV });
      const r = await runCli(['validate', 'm.yaml', '--report', '/dev/full'], { cwd: dir });
      expect(r.stderr).toBe('engage-import: cannot write /dev/full: no space left on the device\n');
      expect(r.code).toBe(3);
    },
  );
});

describe('signals in a dry run', () => {
  it('a Ctrl-C stops validate at once: exit 130, the report written with the rows read, the summary says so', async () => {
    const dir = tmpTree({ 'm.yaml': USERS, 'users.csv': CSV });
    const controller = new AbortController();
    controller.abort('SIGINT');
    const r = await runCli(['validate', 'm.yaml'], { cwd: dir, signal: controller.signal });
    expect(r.code).toBe(130);
    expect(r.stderr).toContain(
      'Stopped early: interrupted (SIGINT): the report holds every row read before it; run the command again to check the rest',
    );
    expect(readFileSync(join(dir, 'out/report.csv'), 'utf8')).toBe(
      'file,line,resource,key,status,http_status,id,message\n',
    );
  });
});

describe('rejects files', () => {
  it('two sources of one name in a job get one rejects file each, so no row is lost', async () => {
    const mapping = (folder: string) => USERS.replace('users.csv', `${folder}/users.csv`);
    const dir = tmpTree({
      'a.yaml': mapping('a'),
      'b.yaml': mapping('b'),
      'a/users.csv': 'cid,email\nA1,\n',
      'b/users.csv': 'cid,email\nB1,\n',
      'job.yaml': 'mappings: [a.yaml, b.yaml]\n',
    });
    const r = await runCli(['validate', 'job.yaml', '--rejects', 'rej.csv'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Rejects: rej.users.csv');
    expect(r.stderr).toContain('Rejects: rej.users-2.csv');
    expect(readFileSync(join(dir, 'rej.users.csv'), 'utf8')).toBe('cid,email,error\nA1,,email: is required\n');
    expect(readFileSync(join(dir, 'rej.users-2.csv'), 'utf8')).toBe('cid,email,error\nB1,,email: is required\n');
  });

  it('a rejects file fed back keeps one error column, round after round', async () => {
    const dir = tmpTree({ 'm.yaml': USERS, 'users.csv': CSV });
    expect((await runCli(['validate', 'm.yaml', '--rejects', 'rej1.csv'], { cwd: dir })).code).toBe(1);
    expect(
      (await runCli(['validate', 'm.yaml', '--input', 'rej1.csv', '--rejects', 'rej2.csv'], { cwd: dir })).code,
    ).toBe(1);
    const third = await runCli(['validate', 'm.yaml', '--input', 'rej2.csv', '--rejects', 'rej3.csv'], { cwd: dir });
    expect(third.code).toBe(1);
    expect(readFileSync(join(dir, 'rej3.csv'), 'utf8')).toBe('cid,email,error\nB2,,email: is required\n');
  });

  it('a UTF-16 rejects file has one byte order mark, however many rows it holds', async () => {
    const rows = Array.from({ length: 600 }, (_, i) => `C${i},`).join('\r\n');
    const dir = tmpTree({ 'm.yaml': USERS.replace('users.csv }', 'users.csv, encoding: utf-16 }') });
    writeFileSync(join(dir, 'users.csv'), iconv.encode(`cid,email\r\n${rows}\r\n`, 'utf-16'));
    expect((await runCli(['validate', 'm.yaml', '--rejects', 'rej.csv'], { cwd: dir })).code).toBe(1);
    const bytes = readFileSync(join(dir, 'rej.csv'));
    const text = iconv.decode(bytes, 'utf-16le', { stripBOM: false });
    expect([...text].filter((c) => c === '\uFEFF')).toHaveLength(1);
    expect(text.startsWith('\uFEFFcid,email,error\n')).toBe(true);
    expect(text.trimEnd().split('\n')).toHaveLength(601);
  });
});

describe('numeric options', () => {
  it.each([
    [
      ['validate', 'm.yaml', '--limit', 'abc'],
      '--limit must be a whole number of at least 1, got something that is not a number',
    ],
    [['validate', 'm.yaml', '--limit', '-1'], '--limit must be a whole number of at least 1, got -1'],
    [['validate', 'm.yaml', '--limit', '2.5'], '--limit must be a whole number of at least 1, got 2.5'],
    [['validate', 'm.yaml', '--rate', '0'], '--rate must be a number above 0, got 0'],
    [['import', 'm.yaml', '--concurrency', '0'], '--concurrency must be a whole number of at least 1, got 0'],
    [
      ['import', 'm.yaml', '--max-attempts', 'x'],
      '--max-attempts must be a whole number of at least 1, got something that is not a number',
    ],
  ])('%j is a usage error (exit 2) that names the option', async (argv, message) => {
    const dir = tmpTree({ 'm.yaml': USERS, 'users.csv': CSV });
    const r = await runCli(argv, { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`engage-import: ${message}\nRun 'engage-import --help' for the commands and options.\n`);
  });
});

describe('spaces around ids', () => {
  it('are removed from an id and the report line says so', async () => {
    const dir = tmpTree({ 'm.yaml': USERS, 'users.csv': 'cid,email\n P2 ,p@x\nP3,q@x\n' });
    const r = await runCli(['validate', 'm.yaml'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, 'out/report.csv'), 'utf8').split('\n').slice(1, 3)).toEqual([
      'users.csv,2,user,P2,valid,,,"custom_id: spaces around "" P2 "" were removed (set trim: false to keep them)"',
      'users.csv,3,user,P3,valid,,,',
    ]);
  });
});

describe('a record the parser cannot split', () => {
  it('goes to the rejects whole, as it was, its error after it: not as the few cells read before the quote error', async () => {
    const dir = tmpTree({ 'm.yaml': USERS, 'users.csv': 'cid,email\nA1,a@x\nB2,x"y,z\nC3,c@x\n' });
    const r = await runCli(['validate', 'm.yaml', '--rejects', 'rej.csv'], { cwd: dir });
    expect(r.code).toBe(1);
    const rejects = readFileSync(join(dir, 'rej.csv'), 'utf8');
    expect(rejects.split('\n')[0]).toBe('cid,email,error');
    expect(rejects.split('\n')[1]).toBe(
      `B2,x"y,z,"users.csv line 3: Invalid Opening Quote: a quote is found in column 2 (""email"") at line 3, value is ""x"""`,
    );
  });
});
