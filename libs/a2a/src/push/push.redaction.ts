const REDACTED = '[redacted]';

/**
 * A webhook URL fit for logs and dead letters: scheme, host and path only. Queries often carry tokens (`?key=…`);
 * userinfo and fragments are refused at create but never printed either.
 */
export function redactUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}${url.search ? `?${REDACTED}` : ''}`;
}

/** `text` with every occurrence of each secret replaced: a last guard for messages built from third-party errors. */
export function withoutSecrets(text: string, secrets: ReadonlyArray<string | undefined>): string {
  return secrets.reduce<string>((result, secret) => (secret ? result.split(secret).join(REDACTED) : result), text);
}
