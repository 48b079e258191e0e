import { HttpError } from '../errors.js';

/**
 * The URL of a request path. Paths are relative to the base URL ("all paths below
 * are relative to it"); a leading `/` or a scheme would silently leave the API prefix or the
 * host, so it is a bug in the caller and thrown as such.
 */
export function requestUrl(baseUrl: URL, path: string): URL {
  if (path.startsWith('/') || /^[a-z][a-z\d+.-]*:/i.test(path)) {
    throw new TypeError(
      `request path must be relative to the base URL, without a leading "/": ${JSON.stringify(path)}`,
    );
  }
  return new URL(path, baseUrl);
}

/**
 * A path, or a full URL the service handed out (a pagination `next`). A full URL
 * must be on the base URL's origin, scheme included: the API key goes with every request and
 * must never be sent to another host, nor downgraded to http.
 */
export function linkUrl(baseUrl: URL, pathOrUrl: string): URL {
  if (!/^[a-z][a-z\d+.-]*:/i.test(pathOrUrl) && !pathOrUrl.startsWith('//')) return requestUrl(baseUrl, pathOrUrl);
  const url = new URL(pathOrUrl, baseUrl);
  if (url.origin !== baseUrl.origin) {
    throw new HttpError(
      'HTTP_PROTOCOL',
      `the API linked to another origin (${url.origin}, expected ${baseUrl.origin}); not followed, the API key is sent only to the base URL`,
    );
  }
  return url;
}
