/**
 * `text` with every occurrence of each secret (the API key, the notify URL) replaced by
 * `[redacted]`. An empty or missing secret is skipped: an empty string is in every text.
 */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) if (secret !== undefined && secret !== '') out = out.split(secret).join('[redacted]');
  return out;
}
