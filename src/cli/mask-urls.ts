import { shownUrl } from '../notify/notify-url.js';

/**
 * A parse problem's message as it may be shown: any URL in it (an unknown argument that was a
 * webhook URL, say) only by scheme and host, never its path, query or password. Read word by word
 * (a comma inside a word is the URL's, as in `…/a,b`), with or without a scheme.
 */
export function withoutUrls(message: string): string {
  return message.replace(/\S+/g, (word) => {
    // Punctuation that ends a sentence or a list, and quotes, are the message's, not the URL's.
    const [, open = '', whole = '', close = ''] = /^(["'`(]*)(.*?)([,;.:)"'`]*)$/.exec(word) ?? [];
    const name = NAME.exec(whole)?.[0] ?? '';
    const value = whole.slice(name.length);
    const credentials = credentialsHost(value);
    if (credentials !== undefined) {
      // `tok_SE=CRET@host` reads as a name and a value too: before credentials, only a name that
      // cannot be part of a token (an option, an environment variable) stays.
      const kept = OPTION_NAME.test(name) || ENV_NAME.test(name) ? name : '';
      return `${open}${kept}${credentials}/…${close}`;
    }
    const shown = urlHost(value);
    return shown === undefined ? word : `${open}${name}${shown}${close}`;
  });
}

/** What may come before a URL and stay: a name and `=` (`--notify-url=`, `ENGAGE_NOTIFY_URL=`, `x=`). */
const NAME = /^[-\u2010-\u2015\u2212]*[\p{L}_][\p{L}\p{N}_.-]*=/u;
/** An option's name, maybe with the dash a chat made of `--` (`—notify-url=`). */
const OPTION_NAME = /^[-\u2010-\u2015\u2212]+[\p{L}\p{N}_.-]*=$/u;
/** One of this tool's environment variables (`ENGAGE_NOTIFY_URL=`): another `NAME_X=` may be a token's start. */
const ENV_NAME = /^ENGAGE_[A-Z0-9_]*=$/;

/**
 * A host: localhost, an IPv4 or a bracketed IPv6 address, a dotted name (in any script, an IDN's
 * `xn--` label too, maybe with its final dot), or a single label when a port follows
 * (`intranet-hook:8080`); then the port.
 */
const HOST = String.raw`(?<host>localhost|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]+\]|(?:[\p{L}\p{N}-]+\.)+(?:\p{L}{2,}|xn--[a-z0-9-]+)\.?|[a-z][a-z0-9-]*(?=:\d))(?<port>:\d+)?`;
/** A scheme, also percent-encoded (`https%3A%2F%2F`). */
const SCHEME = /[a-z][a-z0-9+.-]*(?::\/\/|%3a%2f%2f)/i;
/** A host followed by a path (with `/`, `\` or `%2F`), a query or a fragment (maybe percent-encoded). */
const BARE_WITH_PATH = new RegExp(String.raw`${HOST}(?=[/?#\\]|%2f|%3f|%23)`, 'iu');
/** What follows the last `@`: a host (a bracketed IPv6 address, or a name's characters; maybe none), then the port. */
const AFTER_AT = /^(?<host>\[[^\]\s]*\]|[\p{L}\p{N}._~-]*)(?<port>:\d+)?/u;
/** What may follow a host in a URL: a path, a query or a fragment (maybe percent-encoded). */
const PATH_NEXT = /^(?:[/?#\\]|%2f|%3f|%23)/i;
/**
 * The start of a web URL whose scheme is mistyped (`https:/host`, `https//host`) or left out
 * (`//host`): what follows is a host, a single label too, since the slashes say it is one. Only
 * http(s): `C:/data/contacts.csv` or `exports//contacts.csv` are paths.
 */
const SLASHED_START = /^(?:https?:\/{1,3}|https?\/\/|\/\/)(?=[^/])/i;
/** A host after `SLASHED_START` (credentials are read first, by `credentialsHost`). */
const SLASHED_HOST = /^(?<host>\[[^\]\s]*\]|[\p{L}\p{N}._~-]+)(?<port>:\d+)?/u;
/** The whole of a host that reads as one: a token before it is then a password. */
const WHOLE_HOST = new RegExp(`^${HOST}$`, 'iu');
/** A file name's extension, which no public host name ends with: `contacts@2026-01-05.csv` is a file. */
const DATA_FILE = /\.(?:csv|tsv|txt|ya?ml|json|ndjson|jsonl|xlsx?|zip|parquet|gz|bz2|xz|tgz)$/i;

/**
 * The host shown for a value that holds credentials (`user:password@`, from the start of the
 * value to its last `@`, as a URL parser reads them, or a token before a host that reads as one),
 * or undefined. Nothing before the host is shown: a scheme mistyped (`https:/`, `//`) or a token
 * with `=` in it is still part of the credentials. A scheme written in full is left to `urlHost`.
 */
function credentialsHost(value: string): string | undefined {
  const at = value.lastIndexOf('@');
  if (at === -1 || SCHEME.exec(value)?.index === 0) return undefined;
  const rest = value.slice(at + 1);
  const after = AFTER_AT.exec(rest)!;
  const host = `${after.groups!.host}${after.groups!.port ?? ''}`;
  const password = value.slice(0, at).includes(':');
  const reads = WHOLE_HOST.test(host) && !DATA_FILE.test(after.groups!.host!);
  const pathNext = PATH_NEXT.test(rest.slice(after[0].length));
  // After `//` or a scheme, what follows the `@` is a host, whatever it reads as.
  const slashed = SLASHED_START.test(value);
  // `alice@acme`: a name; `exports/contacts@2026-01-05.csv`: a file.
  if (!password && !reads && !pathNext && !slashed) return undefined;
  // `admin:p@ss`: a single word after a password may be the password's end, not a host.
  return reads || pathNext || slashed ? host : '';
}

/** The first URL in a value without credentials, shown by its scheme and host (`…/` after), or undefined. */
function urlHost(value: string): string | undefined {
  const start = SCHEME.exec(value)?.index === 0 ? null : SLASHED_START.exec(value);
  const slashed = start === null ? null : SLASHED_HOST.exec(value.slice(start[0].length));
  if (slashed !== null) return `${slashed.groups!.host}${slashed.groups!.port ?? ''}/…`;
  const first = [SCHEME, BARE_WITH_PATH]
    .map((re) => re.exec(value))
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => a.index - b.index)[0];
  if (first === undefined) return undefined;
  // Text before a URL that starts inside the value is not a name: it is not shown.
  if (first.groups?.host !== undefined) return `${first.groups.host}${first.groups.port ?? ''}/…`;
  try {
    return `${shownUrl(new URL(value.slice(first.index)))}/…`;
  } catch {
    return '(a URL)';
  }
}
