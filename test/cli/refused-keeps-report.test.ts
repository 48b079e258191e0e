import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

describe('a dry run refused part-way through a file', () => {
  it('leaves the previous report, rejects and payloads whole, not the first part of a new one', async () => {
    // Declared windows-1252; byte 0x81 (undefined there) on line 5,002, after thousands of good rows.
    const rows = Array.from({ length: 5000 }, (_, i) => `C${i},c${i}@x.com`).join('\n');
    const dir = tmpTree({
      'm.yaml':
        'resource: user\nsource: { file: users.csv, encoding: windows-1252 }\nkey: cid\nfields: { custom_id: cid, email: email }\n',
    });
    writeFileSync(
      join(dir, 'users.csv'),
      Buffer.concat([Buffer.from(`cid,email\n${rows}\n`), Buffer.from([0x43, 0x81, 0x2c, 0x7a, 0x0a])]),
    );
    for (const f of ['report.csv', 'rejects.csv', 'payloads.ndjson']) writeFileSync(join(dir, f), 'PREVIOUS\n');
    const r = await runCli(
      [
        'import',
        'm.yaml',
        '--dry-run',
        '--report',
        'report.csv',
        '--rejects',
        'rejects.csv',
        '--payloads',
        'payloads.ndjson',
      ],
      { cwd: dir },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('line 5002');
    for (const f of ['report.csv', 'rejects.csv', 'payloads.ndjson'])
      expect(readFileSync(join(dir, f), 'utf8')).toBe('PREVIOUS\n');
    // The new files' temporary copies are gone too.
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
