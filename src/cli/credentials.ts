import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import type { CliIo } from './command.js';

/** The command's API key (`readApiKey`), told to `io.keyRead` so that a refusal after it hides it. */
export function commandApiKey(io: CliIo, keyFile: string | undefined): string {
  const key = readApiKey(io.env, keyFile, io.cwd);
  io.keyRead?.(key);
  return key;
}

/**
 * The API key comes from ENGAGE_API_KEY or --api-key-file, never from argv: argv is visible to
 * every user of the machine in `ps`. The key is returned, never echoed.
 */
export function readApiKey(
  env: Readonly<Record<string, string | undefined>>,
  keyFile: string | undefined,
  cwd: string,
): string {
  if (keyFile !== undefined) {
    const path = resolve(cwd, keyFile);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code ?? 'error';
      // A name with neither a dot nor a slash may be the key itself, pasted where its file's path
      // goes (`--api-key-file 5c80…`): not repeated into a cron job's log.
      const shown = /[./\\]/.test(keyFile)
        ? `--api-key-file ${path}`
        : '--api-key-file (the name given is not repeated: with neither a dot nor a slash, it may be the key itself; give the path of a file that holds the key)';
      throw new ConfigError('USAGE', `${shown}: cannot read the file (${code})`);
    }
    const key = text.trim();
    if (key === '') throw new ConfigError('USAGE', `--api-key-file ${path}: the file is empty`);
    return checked(key, `--api-key-file ${path}`);
  }
  const key = env.ENGAGE_API_KEY?.trim();
  if (!key)
    throw new ConfigError(
      'USAGE',
      'no API key: set ENGAGE_API_KEY or pass --api-key-file FILE (the key is never read from the command line)',
    );
  return checked(key, 'ENGAGE_API_KEY');
}

/**
 * Visible ASCII only (0x21–0x7E: what an `Authorization` header can carry, and every character
 * of a real key). A key with a space, a line break or a non-ASCII character in it would be
 * refused by fetch with an error that quotes the header, key and all. Refused here instead, with
 * a message that says where the bad character is but never shows the key.
 */
function checked(key: string, from: string): string {
  const at = key.search(/[^\x21-\x7e]/);
  if (at === -1) return key;
  const bad = key.charAt(at);
  const what = /[\r\n]/.test(bad)
    ? 'a line break'
    : /\s/.test(bad)
      ? 'a space'
      : 'a character that is not visible ASCII';
  throw new ConfigError(
    'USAGE',
    `${from}: the API key holds ${what} after its first ${at} characters; it must be the key alone, on one line`,
  );
}

/** The API root from --base-url or ENGAGE_BASE_URL. */
export function readBaseUrl(env: Readonly<Record<string, string | undefined>>, flag: string | undefined): string {
  const raw = flag ?? env.ENGAGE_BASE_URL;
  if (!raw)
    throw new ConfigError(
      'USAGE',
      'no API address: pass --base-url or set ENGAGE_BASE_URL (e.g. https://acme.example.com/api/public/)',
    );
  return raw;
}
