const REDACTED = '[redacted]';
const ELIDED = '…';
/** A first path segment longer than this may itself be the secret (`https://example.test/<token>`): elided too. */
const MAX_SHOWN_SEGMENT_LENGTH = 16;

/**
 * A webhook URL fit for logs and dead letters: scheme, host and the first path segment only, the rest elided. Many
 * webhooks carry their secret in the path (Slack `/services/T…/B…/<secret>`, Discord `/api/webhooks/<id>/<token>`,
 * Teams `/webhookb2/…/IncomingWebhook/…`) or the query (`?key=…`); userinfo and fragments are refused at create and
 * never printed either.
 */
export function redactUrl(url: URL): string {
  const [first = '', ...rest] = url.pathname.slice(1).split('/');
  const shown = first.length <= MAX_SHOWN_SEGMENT_LENGTH ? first : ELIDED;
  const more = rest.length > 0 ? `/${ELIDED}` : '';
  return `${url.protocol}//${url.host}/${shown}${more}${url.search ? `?${ELIDED}` : ''}`;
}

/** `text` with every occurrence of each secret replaced: a last guard for messages built from third-party errors. */
export function withoutSecrets(text: string, secrets: ReadonlyArray<string | undefined>): string {
  return secrets.reduce<string>((result, secret) => (secret ? result.split(secret).join(REDACTED) : result), text);
}
