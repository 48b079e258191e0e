/**
 * The bulk pieces together against the sandbox over loopback: chunk CSV writer → chunk file
 * (re-uploads cut from it) → bulk client (upload through the transport, poll) → settleChunk (bisection). The pipeline's
 * wiring is not here; this proves the pieces give every row its own status, and the same status
 * as the per-row endpoint, on rows that the service alone refuses.
 */
import { openAsBlob } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { headerLine, payloadLine, type BulkColumn } from '../../src/bulk/chunk-csv.js';
import { createChunkFileWriter, writeSubChunk } from '../../src/bulk/chunk-file.js';
import { settleChunk, type ImportAttempt, type RowSettlement } from '../../src/bulk/settle-chunk.js';
import { createBulkClient } from '../../src/transport/bulk-client.js';
import { createTransport } from '../../src/transport/create-transport.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setUp() {
  const sandbox = await startSandbox({ port: 0, rate: 0, bulkRowsPerS: 0, fixtures: { userAttributes: ['tier'] } });
  const dir = await mkdtemp(join(tmpdir(), 'engage-import-bulk-'));
  const transport = createTransport({ baseUrl: new URL(sandbox.url), apiKey: sandbox.apiKey, rate: 10_000 });
  cleanups.push(
    () => sandbox.close(),
    () => rm(dir, { recursive: true, force: true }),
    () => transport.close(),
  );
  // Short real pauses: the sandbox's import runs on the same event loop.
  const client = createBulkClient({ transport, pollDelaysMs: [2] });
  return { sandbox, dir, transport, client };
}

/** `n` contacts; `failing` of them (every `every`-th from the 6th) name a custom attribute the account does not have: refused by the service only. */
function contacts(n: number, failing: number, every = 16) {
  let bad = 0;
  return Array.from({ length: n }, (_, i) => {
    const refused = i % every === 5 % every && bad++ < failing;
    return refused
      ? { custom_id: `C-${i}`, email: `c${i}@example.com`, shoe_size: String(36 + (i % 10)) }
      : { custom_id: `C-${i}`, email: `c${i}@example.com`, tier: 'gold' };
  });
}

const COLUMNS: BulkColumn[] = ['custom_id', 'email', 'tier', 'shoe_size'].map((f) => ({ field: f, header: f }));

async function bulkPath(
  env: Awaited<ReturnType<typeof setUp>>,
  payloads: Record<string, unknown>[],
): Promise<RowSettlement[]> {
  // The chunk file is streamed once from the payloads; re-uploads are cut from it by position.
  const chunk = join(env.dir, 'chunk.csv');
  const writer = createChunkFileWriter(chunk, headerLine(COLUMNS));
  for (const payload of payloads) await writer.write((payloadLine(COLUMNS, payload) as { text: string }).text);
  await writer.close();
  let files = 0;
  const uploadFile = async (path: string): Promise<ImportAttempt> => {
    const up = await env.client.upload({ kind: 'users', file: await openAsBlob(path) });
    if (up.kind === 'refused') return { kind: 'refused', message: up.message };
    if (up.kind !== 'accepted') return { kind: 'given_up', message: up.message, importId: undefined };
    const wait = await env.client.waitForImport(up.importId);
    if (wait.kind === 'ended') return { kind: 'ended', importId: up.importId, report: wait.report };
    return { kind: 'given_up', message: wait.message, importId: up.importId };
  };
  const uploadAndWait = async (positions: readonly number[]): Promise<ImportAttempt> => {
    const sub = join(env.dir, `sub-${++files}.csv`);
    await writeSubChunk(chunk, positions, sub);
    return uploadFile(sub);
  };
  return settleChunk(
    payloads.map((p) => ({ key: p.custom_id as string })),
    await uploadFile(chunk),
    { uploadAndWait },
  );
}

function uploads(sandbox: Sandbox): number {
  return sandbox.requests.filter((e) => e.method === 'POST' && e.path === '/api/public/users/import/').length;
}

describe('bulk pieces against the sandbox', () => {
  it('2,000 contacts in one chunk, 120 refused by the service alone: each refused row failed with its message, the others ok', async () => {
    const env = await setUp();
    const payloads = contacts(2000, 120);
    const out = await bulkPath(env, payloads);
    const message = 'shoe_size: Custom attribute "shoe_size" does not exist in the account.';
    out.forEach((s, i) => {
      if ('shoe_size' in payloads[i]!) expect(s).toMatchObject({ kind: 'failed', message });
      else expect(s).toMatchObject({ kind: 'ok', importId: expect.any(String) });
    });
    expect(out.filter((s) => s.kind === 'failed')).toHaveLength(120);
    expect(env.sandbox.state.users()).toHaveLength(1880);
    // One upload, then a few re-uploads of the unknown rows: far below one request per row.
    expect(uploads(env.sandbox)).toBeGreaterThan(1);
    expect(uploads(env.sandbox)).toBeLessThanOrEqual(12);
  });

  it('the invariant on a generated file: per row and by bulk, every row gets the same status', async () => {
    const payloads = contacts(400, 70, 5);
    const bulkEnv = await setUp();
    const bulk = (await bulkPath(bulkEnv, payloads)).map((s) => s.kind);
    const perRowEnv = await setUp();
    const perRow: string[] = [];
    for (const body of payloads) {
      const outcome = await perRowEnv.transport.send({
        method: 'POST',
        path: 'users/update_or_create/',
        body,
        idempotent: true,
      });
      perRow.push(outcome.kind);
    }
    expect(bulk).toEqual(perRow);
    expect(bulk.filter((k) => k === 'failed')).toHaveLength(70);
    const records = (s: Sandbox) => s.state.users().map(({ created_at: _c, updated_at: _u, id: _i, ...u }) => u);
    expect(records(bulkEnv.sandbox)).toEqual(records(perRowEnv.sandbox));
  });
});
