import { ConfigError } from '../errors.js';

/**
 * A webhook URL holds its secret in the path or query (Slack's `/services/T…/B…/xyz`, Teams'
 * signed query). Only this is ever shown: scheme and host.
 */
export function shownUrl(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

/** `--notify-url` / `ENGAGE_NOTIFY_URL`: an http(s) URL, checked before the run starts. */
export function parseNotifyUrl(text: string, from: '--notify-url' | 'ENGAGE_NOTIFY_URL'): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // The value itself is not repeated: it is a secret, and a typo in it may still be one.
    throw new ConfigError('USAGE', `${from} is not a URL (expected https://…)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new ConfigError('USAGE', `${from} must be an http or https URL, got a ${url.protocol} one`);
  // fetch refuses a URL with credentials, so every delivery would fail at the end of the run.
  if (url.username !== '' || url.password !== '')
    throw new ConfigError(
      'USAGE',
      `${from} holds a user name or password (user:pass@host), which cannot be sent: use a webhook URL whose secret is in its path or query`,
    );
  return url;
}
