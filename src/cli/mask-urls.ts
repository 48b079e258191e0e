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
    // The URL starts at the first of: a scheme; a host (a name with a dot, localhost or an IPv4
    // address, maybe after `user:password@`) and a port, followed by a path, a query or a
    // fragment; or credentials and a host. What comes before it (`ENGAGE_NOTIFY_URL=`,
    // `—notify-url=`) stays; from there on only the host is shown, so a URL inside the query
    // of another cannot show the outer one's path.
    const starts = [SCHEME, BARE_WITH_PATH, BARE_WITH_CREDENTIALS, BARE_USER_AT_HOST]
      .map((re) => re.exec(whole))
      .filter((m): m is RegExpExecArray => m !== null)
      .sort((a, b) => a.index - b.index);
    const first = starts[0];
    if (first === undefined) return word;
    const name = whole.slice(0, first.index);
    if (first.groups?.host === undefined) {
      try {
        return `${open}${name}${shownUrl(new URL(whole.slice(first.index)))}/…${close}`;
      } catch {
        return `${open}${name}(a URL)${close}`;
      }
    }
    return `${open}${name}${first.groups.host}${first.groups.port ?? ''}/…${close}`;
  });
}

/**
 * A host: localhost, an IPv4 or a bracketed IPv6 address, a dotted name (in any script, an IDN's
 * `xn--` label too, maybe with its final dot), or a single label when a port follows
 * (`intranet-hook:8080`); then the port.
 */
const HOST = String.raw`(?<host>localhost|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]+\]|(?:[\p{L}\p{N}-]+\.)+(?:\p{L}{2,}|xn--[a-z0-9-]+)\.?|[a-z][a-z0-9-]*(?=:\d))(?<port>:\d+)?`;
/** A scheme, also percent-encoded (`https%3A%2F%2F`). */
const SCHEME = /[a-z][a-z0-9+.-]*(?::\/\/|%3a%2f%2f)/i;
/** What may follow a host in a URL: a path (with `/`, `\` or `%2F`), a query or a fragment (maybe percent-encoded). */
const BARE_WITH_PATH = new RegExp(String.raw`(?:[^\s/]+@)?${HOST}(?=[/?#\\]|%2f|%3f|%23)`, 'iu');
/**
 * A user and a password (`user:password@`, up to the word's last `@`, as a URL parser reads it),
 * then any host, or none: only the host is shown. At the start of the word or after `=`, so that
 * the name before it stays.
 */
const BARE_WITH_CREDENTIALS = /(?<=^|=)[^\s/=]*:[^\s/]*@(?<host>[^\s/@:?#\\%]*)(?<port>:\d+)?/iu;
/**
 * A user alone (a token) at the start of the word or after `=`, then a host that reads as one
 * (dotted, or with a port) ending the word. A single word after the `@`, as in `alice@acme`,
 * reads as a name, and `exports/contacts@2026-01-05.csv` as a path.
 */
const BARE_USER_AT_HOST = new RegExp(String.raw`(?<=^|=)[^\s/@=]+@${HOST}$`, 'iu');
