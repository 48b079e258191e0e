import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { expect, it } from 'vitest';
import { removeTmpTrees, TMP_PREFIX, tmpTree } from './tmp.js';

const ours = () => readdirSync(tmpdir()).filter((name) => name.startsWith(TMP_PREFIX)).length;

it('tmpTree writes the files it is given, and removeTmpTrees leaves the temp directory as it found it', () => {
  const before = ours();
  const dirs = [tmpTree({ 'a.csv': 'x\n1\n' }), tmpTree({ 'nested/b.yaml': 'k: v\n' }), tmpTree()];
  expect(ours()).toBe(before + 3);
  expect(existsSync(`${dirs[1]}/nested/b.yaml`)).toBe(true);
  removeTmpTrees();
  expect(ours()).toBe(before);
  expect(dirs.some(existsSync)).toBe(false);
});
