import { resolve } from 'node:path';
import type { Argv } from 'yargs';
import { DEFAULTS } from '../defaults.js';
import { ConfigError } from '../errors.js';
import { API_KEY_LENGTH } from '../sandbox/api-key.js';
import type { Sandbox } from '../sandbox/index.js';
import {
  DEFAULT_BULK_FAIL_RATE,
  DEFAULT_BULK_ROWS_PER_S,
  DEFAULT_FAULTS,
  DEFAULT_HOST,
  DEFAULT_SEED,
} from '../sandbox/options.js';
import { defineCommand, type CliIo, type OptionsOf } from './command.js';
import { commandApiKey } from './credentials.js';
import { EXIT } from './exit-codes.js';

function sandboxOptions(y: Argv) {
  return y
    .option('port', { type: 'number', default: DEFAULTS.sandboxPort, describe: 'TCP port (0: any free port)' })
    .option('host', {
      type: 'string',
      default: DEFAULT_HOST,
      describe: 'Address to listen on (the admin endpoints need no key: keep it on loopback)',
    })
    .option('api-key-file', {
      type: 'string',
      describe: `File holding the ${API_KEY_LENGTH}-character API key (default: a random key, printed)`,
    })
    .option('fixtures', {
      type: 'string',
      describe:
        'JSON file with the starting pipelines, stages, campaigns, users, products, event names and user custom attributes (userAttributes: only those exist)',
    })
    .option('rate', {
      type: 'number',
      default: DEFAULT_FAULTS.rate,
      describe: 'Requests per second per key, sliding window (0: no limit)',
    })
    .option('latency-ms', { type: 'number', default: DEFAULT_FAULTS.latencyMs, describe: 'Delay of every answer' })
    .option('jitter-ms', {
      type: 'number',
      default: DEFAULT_FAULTS.jitterMs,
      describe: 'The delay varies by ± this much',
    })
    .option('fail-rate', {
      type: 'number',
      default: DEFAULT_FAULTS.failRate,
      describe: 'Fraction of requests answered 500 (half before the write, half after)',
    })
    .option('drop-rate', {
      type: 'number',
      default: DEFAULT_FAULTS.dropRate,
      describe: 'Fraction of requests whose connection is closed without an answer (after the write)',
    })
    .option('seed', {
      type: 'number',
      default: DEFAULT_SEED,
      describe: 'Seed of the fault dice: the same seed gives the same faults',
    })
    .option('log', { type: 'string', describe: 'Write the request log to this NDJSON file' })
    .option('bulk-rows-per-s', {
      type: 'number',
      default: DEFAULT_BULK_ROWS_PER_S,
      describe: 'Rows a bulk CSV import applies per second (0: no pause)',
    })
    .option('bulk-fail-rate', {
      type: 'number',
      default: DEFAULT_BULK_FAIL_RATE,
      describe: 'Fraction of bulk CSV imports that stop part-way with status "failed"',
    })
    .example(`$0 sandbox --port ${DEFAULTS.sandboxPort}`, 'Print the base URL and the key, serve until Ctrl-C')
    .example(
      '$0 sandbox --rate 0 --fail-rate 0.05 --drop-rate 0.01 --seed 7 --log requests.ndjson',
      'Faults, no limit, every request logged',
    );
}

export type SandboxArgs = OptionsOf<typeof sandboxOptions>;

/**
 * `engage-import sandbox`: runs the local API sandbox until Ctrl-C (io.signal). Prints the base
 * URL and the API key to use. A generated key is printed (it is the sandbox's own, throwaway);
 * a key read from --api-key-file is not echoed: it may be a real one, and no key goes into a
 * terminal log that the user did not type.
 */
export const sandboxCommand = defineCommand({
  command: 'sandbox',
  describe: "Run the local API sandbox (the API's rules, see docs/api-contract.md) until Ctrl-C",
  builder: sandboxOptions,
  run: async (args: SandboxArgs, io: CliIo) => {
    const keyFile = args['api-key-file'];
    const apiKey = keyFile === undefined ? undefined : commandApiKey(io, keyFile);
    if (apiKey !== undefined && apiKey.length !== API_KEY_LENGTH) {
      throw new ConfigError(
        'USAGE',
        `--api-key-file ${resolve(io.cwd, keyFile ?? '')}: the key must be ${API_KEY_LENGTH} characters (the file holds ${apiKey.length})`,
      );
    }
    // The server is loaded when it starts; the other commands never load it.
    const { startSandbox } = await import('../sandbox/server.js');
    let sandbox: Sandbox;
    try {
      sandbox = await startSandbox({
        port: args.port,
        host: args.host,
        ...(apiKey !== undefined && { apiKey }),
        ...(args.fixtures !== undefined && { fixtures: resolve(io.cwd, args.fixtures) }),
        ...(args.log !== undefined && { log: resolve(io.cwd, args.log) }),
        rate: args.rate,
        latencyMs: args['latency-ms'],
        jitterMs: args['jitter-ms'],
        failRate: args['fail-rate'],
        dropRate: args['drop-rate'],
        seed: args.seed,
        bulkRowsPerS: args['bulk-rows-per-s'],
        bulkFailRate: args['bulk-fail-rate'],
      });
    } catch (error) {
      if (error instanceof RangeError) throw new ConfigError('USAGE', error.message, { cause: error });
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE')
        throw new ConfigError(
          'USAGE',
          `port ${args.port} on ${args.host} is in use: pick another with --port (0: any free port)`,
          { cause: error },
        );
      if (code === 'EACCES' || code === 'ENOENT' || code === 'EISDIR')
        throw new ConfigError('USAGE', `cannot start the sandbox: ${(error as Error).message}`, { cause: error });
      throw error;
    }
    const f = sandbox.faults();
    io.stdout.write(
      [
        `Sandbox API:  ${sandbox.url}`,
        apiKey === undefined
          ? `API key:      ${sandbox.apiKey}`
          : `API key:      the one in ${resolve(io.cwd, keyFile ?? '')}`,
        `Admin:        ${sandbox.adminUrl} (sandbox only: state, requests, reset, faults)`,
        `Rate limit:   ${f.rate === 0 ? 'off' : `${f.rate} requests/s`}; latency ${f.latencyMs} ± ${f.jitterMs} ms; fail rate ${f.failRate}; drop rate ${f.dropRate}; seed ${args.seed}`,
        `Bulk imports: ${args['bulk-rows-per-s'] === 0 ? 'no pause' : `${args['bulk-rows-per-s']} rows/s`}; fail rate ${args['bulk-fail-rate']}`,
        ...(args.log !== undefined ? [`Request log:  ${resolve(io.cwd, args.log)}`] : []),
        'Press Ctrl-C to stop.',
        '',
      ].join('\n'),
    );
    if (!io.signal.aborted)
      await new Promise<void>((done) => io.signal.addEventListener('abort', () => done(), { once: true }));
    await sandbox.close();
    io.stderr.write(
      `Sandbox stopped after ${sandbox.requests.length} API request${sandbox.requests.length === 1 ? '' : 's'}.\n`,
    );
    return EXIT.OK;
  },
});
