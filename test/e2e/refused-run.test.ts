import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/run-cli.js';
import { cliCommand, exited, spawnCli, spawnCliSync } from '../helpers/spawn-cli.js';
import { tmpTree } from '../helpers/tmp.js';

const ROOT = join(import.meta.dirname, '../..');

let sandbox: Sandbox | undefined;
let hook: Server | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  await new Promise<void>((done) => (hook ? hook.close(() => done()) : done()));
  hook = undefined;
});

/** A webhook receiver on loopback, keeping the bodies it receives. */
async function webhook(): Promise<{ url: string; received: Record<string, unknown>[] }> {
  const received: Record<string, unknown>[] = [];
  hook = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push(JSON.parse(body) as Record<string, unknown>);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => hook!.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`, received };
}

/** The `run_end` line of a JSON log. */
const runEnd = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l['event'] === 'run_end');

/**
 * The CLI run in `dir` with `--api-key-file key.fifo`, a named pipe whose writer (`writes`, a
 * shell line on fd 3, the key in $KEY_HEAD and $KEY_TAIL) opens it, waiting for the CLI to open
 * it too, as `pass show` or `<(…)` would.
 */
function withPipedKey(dir: string, key: string, writes: string, args: readonly string[]) {
  execFileSync('mkfifo', [join(dir, 'key.fifo')]);
  return spawnSync(
    'bash',
    [
      '-c',
      `(exec 3>key.fifo; ${writes}) & "$@" --api-key-file key.fifo; code=$?; wait; exit $code`,
      'bash',
      ...cliCommand(args),
    ],
    {
      cwd: dir,
      env: { ...process.env, ENGAGE_API_KEY: '', KEY_HEAD: key.slice(0, 20), KEY_TAIL: key.slice(20) },
      encoding: 'utf8',
      timeout: 20_000,
    },
  );
}

/** The products mapping run on `input` against the sandbox, as a cron line would. */
const night = (
  out: string,
  input: string,
  extra: string[] = [],
  report = join(out, 'report.csv'),
  onRunFolder?: (resumeCommand: string | undefined) => void,
) =>
  runCli(
    [
      'import',
      'mappings/products.yaml',
      '--input',
      input,
      '--base-url',
      sandbox!.url,
      '--report',
      report,
      '--state-dir',
      join(out, 'state'),
      '--rate',
      '1000',
      ...extra,
    ],
    { cwd: ROOT, env: { ENGAGE_API_KEY: sandbox!.apiKey }, onRunFolder },
  );

const runFolders = (out: string) => {
  const runs = join(out, 'state', 'runs');
  return existsSync(runs) ? readdirSync(runs) : [];
};

describe('a run refused by its input or output checks', () => {
  it('alerts, leaves no unfinished run behind, and the next night runs as usual', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const { url, received } = await webhook();
    const out = tmpTree();
    // Night 1: the export arrives compressed.
    const gz = join(out, 'products.csv.gz');
    writeFileSync(gz, gzipSync(readFileSync(join(ROOT, 'samples/products.csv'))));
    // What a second Ctrl-C would name: the run's folder while it existed, then nothing to resume.
    const told: (string | undefined)[] = [];
    const refused = await night(out, gz, ['--notify-url', url], join(out, 'report.csv'), (c) => told.push(c));
    expect(told).toEqual([
      expect.stringMatching(/^engage-import resume \S+state\/runs\/\d{8}T\d{6}Z-\w+ --report \S+report\.csv$/),
      undefined,
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('gzip');
    expect(sandbox.requests).toHaveLength(0);
    expect(runFolders(out)).toEqual([]);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ outcome: 'refused', exit_code: 2, job: 'products.yaml' });
    expect(String(received[0]!['text'])).toMatch(/^engage-import products\.yaml: refused \(exit 2\): .*gzip/);
    // Night 2: the file is fine again; nothing says to resume a run that sent nothing.
    const next = await night(out, join(ROOT, 'samples/products.csv'));
    expect(next.stderr).not.toContain('unfinished');
    expect(next.code).toBe(1); // the sample holds 3 bad rows on purpose
    expect(next.stderr).toContain('ok 11');
  });

  it('a report path that is a folder: refused, no run left, in json the end is logged with its message', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const out = tmpTree();
    const r = await night(out, join(ROOT, 'samples/products.csv'), ['--log-format', 'json'], out);
    expect(r.code).toBe(2);
    expect(runFolders(out)).toEqual([]);
    const end = runEnd(r.stderr);
    expect(end).toMatchObject({ outcome: 'refused', exit_code: 2, job: 'products.yaml' });
    expect(String(end!['message'])).not.toBe('');
  });

  it('a key file that cannot be read: refused (exit 2), with its alert and its logged end, the key file named', async () => {
    const { url, received } = await webhook();
    const out = tmpTree();
    const r = await runCli(
      [
        'import',
        'mappings/products.yaml',
        '--api-key-file',
        join(out, 'missing.key'),
        '--base-url',
        'http://127.0.0.1:9/api/public/',
        '--state-dir',
        join(out, 'state'),
        '--notify-url',
        url,
        '--log-format',
        'json',
      ],
      { cwd: ROOT, env: {} },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('missing.key: cannot read the file (ENOENT)');
    const end = runEnd(r.stderr);
    expect(end).toMatchObject({ outcome: 'refused', exit_code: 2, job: 'products.yaml' });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ outcome: 'refused', exit_code: 2, job: 'products.yaml' });
    expect(runFolders(out)).toEqual([]);
  });

  it('the key itself given as the key file: neither the alert nor the log nor stderr repeats it', async () => {
    const { url, received } = await webhook();
    const out = tmpTree();
    const key = 'Ab3/xyzSECRETKEY123';
    const r = await runCli(
      ['import', 'mappings/products.yaml', '--api-key-file', key, '--base-url', 'http://127.0.0.1:9/api/public/'],
      { cwd: ROOT, env: { ENGAGE_API_KEY: key, ENGAGE_NOTIFY_URL: url } },
    );
    expect(r.code).toBe(2);
    expect(received).toHaveLength(1);
    expect(JSON.stringify(received[0])).toContain('cannot read the file (ENOENT)');
    expect(JSON.stringify(received[0])).not.toContain('SECRETKEY');
    expect(r.stderr).not.toContain('SECRETKEY');
    expect(runFolders(out)).toEqual([]);
  });

  it('a resume with no job named and no run to resume: the alert names no job, without a gap', async () => {
    const { url, received } = await webhook();
    const out = tmpTree();
    const r = await runCli(['resume', '--state-dir', join(out, 'state'), '--notify-url', url], {
      cwd: out,
      env: { ENGAGE_API_KEY: 'k'.repeat(64), ENGAGE_BASE_URL: 'http://127.0.0.1:9/api/public/' },
    });
    expect(r.code).toBe(2);
    expect(received).toHaveLength(1);
    expect(String(received[0]!['text'])).toMatch(/^engage-import: refused \(exit 2\): no run to resume in /);
  });

  it('a missing input is named with the mapping whose source.file points at it, by validate and import alike', async () => {
    const dir = tmpTree({
      'job.yaml': 'mappings: [m/contacts.yaml, m/events.yaml]\n',
      'm/contacts.yaml':
        'resource: user\nsource: { file: ../contacts.csv }\nkey: id\nfields: { custom_id: { column: id, required: true } }\n',
      'contacts.csv': 'id\nC1\n',
      'm/events.yaml':
        'resource: event\nsource: { file: ../events.csv }\nkey: id\nfields: { user_custom_id: user, name: event }\n',
    });
    const env = { ENGAGE_API_KEY: 'k'.repeat(64), ENGAGE_BASE_URL: 'http://127.0.0.1:9/api/public/' };
    for (const command of ['validate', 'import']) {
      const r = await runCli([command, 'job.yaml'], { cwd: dir, env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`events.csv: file not found (source.file of ${join(dir, 'm/events.yaml')})`);
    }
    // A path given with --input is the user's own: the mapping is not blamed for it.
    const given = await runCli(['validate', 'm/events.yaml', '--input', 'gone.csv'], { cwd: dir, env });
    expect(given.stderr).toContain('gone.csv: file not found\n');
  });

  it('a usage error with a pipe named as the key file ends at once: the pipe is not read to find secrets to hide', async () => {
    const out = tmpTree();
    execFileSync('mkfifo', [join(out, 'key.fifo')]);
    const child = spawnCli(['import', 'job.yaml', '--no-such-option', '--api-key-file', 'key.fifo'], {
      cwd: out,
      env: { ...process.env, ENGAGE_API_KEY: '' },
    });
    const code = await Promise.race([exited(child), new Promise((r) => setTimeout(() => r('hung'), 15_000))]);
    if (code === 'hung') child.kill('SIGKILL');
    expect(code).toBe(2);
  }, 20_000);

  it('a usage error hides a key that a pipe given as the key file holds (/dev/stdin)', () => {
    const out = tmpTree();
    const key = 'Pk'.repeat(32);
    // The key pasted where an option's value goes, and the pipe that holds it named as the key file.
    const run = spawnCliSync(['import', 'job.yaml', '--api-key-file', '/dev/stdin', key], {
      cwd: out,
      input: `${key}\n`,
      env: { ...process.env, ENGAGE_API_KEY: '' },
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('Unknown argument: [redacted]');
    expect(run.stderr).not.toContain(key);
  });

  it('a usage error hides a key that a slow writer puts in the pipe given as the key file', () => {
    const out = tmpTree();
    const key = 'Sk'.repeat(32);
    // The writer (think `pass show`) takes a moment before the key comes.
    const run = withPipedKey(out, key, 'sleep 0.4; printf %s "$KEY_HEAD$KEY_TAIL" >&3', ['import', 'job.yaml', key]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('Unknown argument: [redacted]');
    expect(run.stderr).not.toContain(key);
  });

  it('a usage error hides a key that comes through the pipe in two pieces', () => {
    const out = tmpTree();
    const key = 'Tw'.repeat(32);
    const run = withPipedKey(out, key, 'printf %s "$KEY_HEAD" >&3; sleep 0.3; printf %s "$KEY_TAIL" >&3', [
      'import',
      'job.yaml',
      key,
    ]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('Unknown argument: [redacted]\n');
    expect(run.stderr).not.toContain(key.slice(20));
  });

  it('a run refused after reading its key from a pipe hides that key, which the pipe no longer holds', () => {
    const out = tmpTree({
      'm.yaml': 'resource: user\nsource: { file: users.csv }\nkey: id\nfields: { custom_id: id }\n',
    });
    const key = 'Pr'.repeat(32);
    // The key pasted as the input's path: the run reads the key, then refuses the missing input.
    const run = withPipedKey(out, key, 'printf %s "$KEY_HEAD$KEY_TAIL" >&3', [
      'import',
      'm.yaml',
      '--base-url',
      'http://127.0.0.1:9/api/public/',
      '--input',
      key,
      '--json',
    ]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('[redacted]: file not found');
    expect(run.stderr).not.toContain(key);
    expect(run.stdout).not.toContain(key);
  });

  it('an input that is a pipe with no writer, or a link to /dev/zero, is refused at once, not read forever', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const out = tmpTree();
    execFileSync('mkfifo', [join(out, 'products.csv')]);
    symlinkSync('/dev/zero', join(out, 'zero.csv'));
    for (const [input, kind] of [
      ['products.csv', 'a pipe'],
      ['zero.csv', 'a device'],
    ] as const) {
      const r = await night(out, join(out, input));
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${join(out, input)}: is ${kind}, not a regular file: save it to a file first`);
    }
    expect(sandbox.requests).toHaveLength(0);
    expect(runFolders(out)).toEqual([]);
  });

  it.runIf(existsSync('/dev/full'))(
    'a report on a full disk stops the run with exit 3, and its log and alert say 3 as well',
    async () => {
      sandbox = await startSandbox({ rate: 0 });
      const { url, received } = await webhook();
      const out = tmpTree();
      const r = await night(
        out,
        join(ROOT, 'samples/products.csv'),
        ['--log-format', 'json', '--notify-url', url],
        '/dev/full',
      );
      expect(r.code).toBe(3);
      const end = r.stderr
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l['event'] === 'run_end');
      expect(end).toMatchObject({ exit_code: 3 });
      expect(received).toHaveLength(1);
      expect(received[0]).toMatchObject({ exit_code: 3 });
      expect(String(received[0]!['text'])).toContain('(exit 3): cannot write /dev/full');
      // Rows went: the run is unfinished, and says how to go on.
      expect(r.stderr).toContain(
        'the run stopped unfinished; once the cause is mended, resume with: engage-import resume ',
      );
    },
  );
});
