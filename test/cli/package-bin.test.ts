import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const { bin } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };

/** `npm ci` builds the CLI (`prepare`); `npx engage-import` and a cron line naming the file run it as a program. */
describe('the built command', () => {
  it.each(Object.entries(bin))('%s (%s) is executable and starts with its interpreter line', (_name, file) => {
    const path = join(ROOT, file);
    expect(statSync(path).mode & 0o111).toBe(0o111);
    expect(readFileSync(path, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
  });
});
