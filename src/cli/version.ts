import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Run from src/ by tsx, or from dist/src/ once built: the package.json is two or three levels up.
const candidates = ['../../package.json', '../../../package.json'].map((p) =>
  fileURLToPath(new URL(p, import.meta.url)),
);
const packageJson = candidates.find(
  (p) => existsSync(p) && (JSON.parse(readFileSync(p, 'utf8')) as { name?: string }).name === 'engage-import',
);

/** The package version, for `--version` and the User-Agent header. */
export const VERSION: string = packageJson
  ? (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version
  : '0.0.0';
