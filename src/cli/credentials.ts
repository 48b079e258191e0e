import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../errors.js';

/**
 * The API key comes from ENGAGE_API_KEY or --api-key-file, never from argv: argv is visible to
 * every user of the machine in `ps` (issue 4). The key is returned, never echoed.
 */
export function readApiKey(env: Readonly<Record<string, string | undefined>>, keyFile: string | undefined, cwd: string): string {
  if (keyFile !== undefined) {
    const path = resolve(cwd, keyFile);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (cause) {
      throw new ConfigError('USAGE', `--api-key-file ${path}: cannot read the file (${(cause as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    const key = text.trim();
    if (key === '') throw new ConfigError('USAGE', `--api-key-file ${path}: the file is empty`);
    return key;
  }
  const key = env.ENGAGE_API_KEY?.trim();
  if (!key) throw new ConfigError('USAGE', 'no API key: set ENGAGE_API_KEY or pass --api-key-file FILE (the key is never read from the command line)');
  return key;
}

/** The API root from --base-url or ENGAGE_BASE_URL. */
export function readBaseUrl(env: Readonly<Record<string, string | undefined>>, flag: string | undefined): string {
  const raw = flag ?? env.ENGAGE_BASE_URL;
  if (!raw) throw new ConfigError('USAGE', 'no API address: pass --base-url or set ENGAGE_BASE_URL (e.g. https://acme.example.com/api/public/)');
  return raw;
}
