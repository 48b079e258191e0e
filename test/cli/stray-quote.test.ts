import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

describe('a stray quote in one row', () => {
  it('makes that row invalid and no other: `"Bob" Jr` does not swallow the rows after it', async () => {
    const rows = Array.from({ length: 998 }, (_, i) => `C${i + 3},c${i + 3}@x.com,Cy`);
    const dir = tmpTree({
      'users.csv': `cid,email,name\nC1,a@x.com,Ann\nC2,b@x.com,"Bob" Jr\n${rows.join('\n')}\n`,
      'm.yaml':
        'resource: user\nsource: { file: users.csv }\nkey: cid\nfields: { custom_id: cid, email: email, first_name: name }\n',
    });
    const r = await runCli(['validate', 'm.yaml', '--report', 'report.csv'], { cwd: dir });
    expect(r.code).toBe(1);
    const report = readFileSync(join(dir, 'report.csv'), 'utf8').trim().split('\n').slice(1);
    expect(report).toHaveLength(1000);
    expect(report.filter((l) => l.includes(',invalid,'))).toEqual([
      expect.stringMatching(
        /^users\.csv,3,user,C2,invalid,,,"users\.csv line 3: Invalid Closing Quote: got "" "" in column 3 \(""name""\) at line 3/,
      ),
    ]);
  });
});
