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

describe('malformed records in the rejects file', () => {
  it('are written as they were, so that the rejects file fed back unfixed refuses them again instead of sending them', async () => {
    const dir = tmpTree({
      'data.csv':
        'customer_id,email,first_name,last_name\nC-1,u1@ex.com,"Bob" Jr,L\nC-2,u2@ex.com,Ann\nC-3,u3@ex.com,Cy,Doe,extra\nC-4,u4@ex.com,Ann,Lee\nC-5,u5@ex.com,"open,X\nC-6,u6@ex.com,Eve,Fox\n',
      'm.yaml':
        'resource: user\nsource: { file: data.csv }\nkey: customer_id\nfields: { custom_id: customer_id, email: email, first_name: first_name, last_name: last_name }\n',
    });
    const statuses = (file: string) =>
      readFileSync(join(dir, file), 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => l.split(',').slice(1, 5).join(' '));
    const first = await runCli(['validate', 'm.yaml', '--report', 'r1.csv', '--rejects', 'rejects.csv'], { cwd: dir });
    expect(first.code).toBe(1);
    expect(statuses('r1.csv')).toEqual([
      '2 user C-1 invalid',
      '3 user C-2 invalid',
      '4 user C-3 invalid',
      '5 user C-4 valid',
      '6 user C-5 invalid',
    ]);
    // Fed back as it is, nothing in it is valid: each record is refused again as malformed.
    const again = await runCli(['validate', 'm.yaml', '--input', 'rejects.csv', '--report', 'r2.csv'], { cwd: dir });
    expect(again.code).toBe(1);
    const report = readFileSync(join(dir, 'r2.csv'), 'utf8');
    expect(report).not.toContain(',valid,');
    expect(report).toContain('Invalid Closing Quote');
    expect(report).toContain('but the header has 5 columns');
    // Round after round: the short record keeps its own fields, never growing into a valid row.
    for (let round = 3; round <= 5; round++) {
      const input = round === 3 ? 'rejects.csv' : `rejects${round - 1}.csv`;
      const r = await runCli(
        ['validate', 'm.yaml', '--input', input, '--report', `r${round}.csv`, '--rejects', `rejects${round}.csv`],
        { cwd: dir },
      );
      expect(r.code).toBe(1);
      expect(readFileSync(join(dir, `r${round}.csv`), 'utf8')).not.toContain(',valid,');
    }
    // Its three fields and this round's error: no error of an earlier round is kept as a field.
    const c2 = readFileSync(join(dir, 'rejects5.csv'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('C-2,'));
    expect(c2).toMatch(/^C-2,u2@ex\.com,Ann,"rejects4\.csv line \d+: (?:[^"]|"")*"$/);
  });
});

describe('malformed records fed back from a rejects file, round after round', () => {
  it('keep their own fields, whatever the file is called and whether the parser could split them', async () => {
    const dir = tmpTree({
      'my data.csv': 'customer_id,email,first_name,last_name\nC-2,u2@ex.com,Ann\nC-5,u5@ex.com,"Ann" X,Lee\n',
      'm.yaml':
        'resource: user\nsource: { file: my data.csv }\nkey: customer_id\nfields: { custom_id: customer_id, email: email, first_name: first_name, last_name: last_name }\n',
    });
    let input = 'my data.csv';
    for (let round = 1; round <= 4; round++) {
      const r = await runCli(
        ['validate', 'm.yaml', '--input', input, '--report', `r${round}.csv`, '--rejects', `rej ${round}.csv`],
        {
          cwd: dir,
        },
      );
      expect(r.code).toBe(1);
      expect(readFileSync(join(dir, `r${round}.csv`), 'utf8')).not.toContain(',valid,');
      input = `rej ${round}.csv`;
    }
    // Each record as the source had it, and only the last round's error after it.
    const lines = readFileSync(join(dir, 'rej 4.csv'), 'utf8').split('\n');
    expect(lines[1]).toMatch(/^C-2,u2@ex\.com,Ann,"rej 3\.csv line 2: (?:[^"]|"")*"$/);
    expect(lines[2]).toMatch(/^C-5,u5@ex\.com,"Ann" X,Lee,"?rej 3\.csv line 3: (?:[^"]|"")*"?$/);
  });
});
