import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { sandboxCommand, type SandboxArgs } from '../../src/cli/sandbox-command.js';
import type { CliIo } from '../../src/cli/command.js';
import { ConfigError } from '../../src/errors.js';
import { tmpTree } from '../helpers/tmp.js';

const ARGS: SandboxArgs = {
  port: 0,
  host: '127.0.0.1',
  rate: 10,
  'latency-ms': 0,
  'jitter-ms': 0,
  'fail-rate': 0,
  'drop-rate': 0,
  seed: 42,
  'bulk-rows-per-s': 450,
  'bulk-fail-rate': 0,
};

function fakeIo(cwd = tmpTree()) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const controller = new AbortController();
  const io: CliIo = { stdout, stderr, env: {}, cwd, signal: controller.signal };
  return { io, controller, out: () => out, err: () => err };
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
}

describe('engage-import sandbox', () => {
  it('prints the base URL and a generated 64-character key, serves until the signal aborts, then closes and returns 0', async () => {
    const { io, controller, out, err } = fakeIo();
    const running = sandboxCommand.run(ARGS, io);
    await until(() => out().includes('Press Ctrl-C'));
    const url = /Sandbox API: +(http:\/\/127\.0\.0\.1:\d+\/api\/public\/)/.exec(out())?.[1];
    const key = /API key: +([0-9a-f]{64})\n/.exec(out())?.[1];
    expect(url).toBeDefined();
    expect(key).toBeDefined();
    expect(out()).toContain('Rate limit:   10 requests/s; latency 0 ± 0 ms; fail rate 0; drop rate 0; seed 42');
    expect(out()).toContain('Bulk imports: 450 rows/s; fail rate 0');
    const res = await fetch(new URL('events/', url), { headers: { Authorization: `Token ${key}` } });
    expect(res.status).toBe(200);
    controller.abort('SIGINT');
    expect(await running).toBe(0);
    expect(err()).toBe('Sandbox stopped after 1 API request.\n');
    await expect(fetch(new URL('events/', url))).rejects.toThrow();
  });

  it('with --api-key-file: uses that key and does not print it', async () => {
    const key = `FILEKEY${'z'.repeat(57)}`;
    const cwd = tmpTree({ 'sandbox.key': `${key}\n` });
    const { io, controller, out } = fakeIo(cwd);
    const running = sandboxCommand.run({ ...ARGS, 'api-key-file': 'sandbox.key', rate: 0 }, io);
    await until(() => out().includes('Press Ctrl-C'));
    expect(out()).not.toContain('FILEKEY');
    expect(out()).toContain(`API key:      the one in ${join(cwd, 'sandbox.key')}`);
    expect(out()).toContain('Rate limit:   off');
    const url = /(http:\/\/127\.0\.0\.1:\d+\/api\/public\/)/.exec(out())![1]!;
    expect((await fetch(new URL('events/', url), { headers: { Authorization: `Token ${key}` } })).status).toBe(200);
    controller.abort();
    expect(await running).toBe(0);
  });

  it('--fixtures, --log and the fault options reach the sandbox', async () => {
    const cwd = tmpTree({ 'fixtures.json': JSON.stringify({ events: ['Signup'] }) });
    const { io, controller, out } = fakeIo(cwd);
    const running = sandboxCommand.run(
      {
        ...ARGS,
        fixtures: 'fixtures.json',
        log: 'requests.ndjson',
        'latency-ms': 5,
        'fail-rate': 0.1,
        seed: 7,
        'bulk-rows-per-s': 5000,
      },
      io,
    );
    await until(() => out().includes('Press Ctrl-C'));
    expect(out()).toContain('latency 5 ± 0 ms; fail rate 0.1; drop rate 0; seed 7');
    expect(out()).toContain(`Request log:  ${join(cwd, 'requests.ndjson')}`);
    expect(out()).toContain('Bulk imports: 5000 rows/s; fail rate 0');
    const admin = /Admin: +(http:\/\/127\.0\.0\.1:\d+\/__sandbox\/)/.exec(out())![1]!;
    expect(await (await fetch(new URL('faults', admin))).json()).toEqual({
      rate: 10,
      latencyMs: 5,
      jitterMs: 0,
      failRate: 0.1,
      dropRate: 0,
    });
    expect(((await (await fetch(new URL('state', admin))).json()) as { events: unknown[] }).events).toEqual([
      { id: 1, name: 'Signup' },
    ]);
    controller.abort();
    expect(await running).toBe(0);
  });

  it.each([
    [
      'a key of the wrong length',
      { 'api-key-file': 'short.key' },
      /--api-key-file .*short\.key: the key must be 64 characters \(the file holds 9\)/,
    ],
    [
      'a missing key file',
      { 'api-key-file': 'none.key' },
      /--api-key-file .*none\.key: cannot read the file \(ENOENT\)/,
    ],
    ['a bad fault option', { 'fail-rate': 2 }, /sandbox options: failRate: Too big/],
    ['a bad bulk option', { 'bulk-fail-rate': 2 }, /sandbox options: bulkFailRate: must be between 0 and 1 \(got 2\)/],
    ['a missing fixtures file', { fixtures: 'nope.json' }, /nope\.json: cannot read the fixtures file \(ENOENT\)/],
  ])('refuses %s with a ConfigError, before listening', async (_case, over, message) => {
    const cwd = tmpTree({ 'short.key': 'SECRET123' });
    const { io } = fakeIo(cwd);
    const error = await sandboxCommand.run({ ...ARGS, ...over }, io).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('SECRET123');
  });

  it('a port in use is a usage error that says so', async () => {
    const { io, controller, out } = fakeIo();
    const first = sandboxCommand.run(ARGS, io);
    await until(() => out().includes('Press Ctrl-C'));
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(out())![1]);
    const error = await sandboxCommand.run({ ...ARGS, port }, fakeIo().io).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      `port ${port} on 127.0.0.1 is in use: pick another with --port (0: any free port)`,
    );
    controller.abort();
    await first;
  });

  it('returns at once when the signal is already aborted', async () => {
    const { io, controller } = fakeIo();
    controller.abort();
    expect(await sandboxCommand.run(ARGS, io)).toBe(0);
  });
});
