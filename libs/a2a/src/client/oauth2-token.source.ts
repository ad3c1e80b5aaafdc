import { A2aClientError, A2aTransportError } from './a2a-client.errors.js';
import { A2aClientMessages } from './a2a-client.messages.js';
import type { A2aClientCredentials } from './a2a-client.options.js';
import { readJson, type ClientHttp } from './client-http.js';

type OAuth2Credentials = NonNullable<A2aClientCredentials['oauth2']>;

interface CachedToken {
  readonly token: string;
  readonly expiresAt: number;
}

/** Tokens are renewed this long before the `expires_in` they came with runs out. */
const EXPIRY_SKEW_MS = 30_000;
/** How long a token without `expires_in` is used (until then, or a 401). */
const DEFAULT_TOKEN_LIFETIME_MS = 5 * 60_000;
/** A token endpoint's answer larger than this is refused. */
const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;

/**
 * OAuth2 client credentials (RFC 6749 §4.4): one token per token URL and scope set, fetched through the client's
 * SSRF-guarded HTTP stack (the token URL comes from the card), cached until shortly before it expires, shared by
 * concurrent calls, and dropped on demand (the agent answered 401).
 */
export class OAuth2TokenSource {
  private readonly tokens = new Map<string, CachedToken>();
  private readonly pending = new Map<string, Promise<CachedToken>>();

  constructor(
    private readonly credentials: OAuth2Credentials,
    private readonly http: ClientHttp,
  ) {}

  /** A valid access token for `tokenUrl` and `scopes`. @throws A2aTransportError `Credentials`, or the guard's refusal. */
  async token(tokenUrl: string, scopes: readonly string[], signal: AbortSignal): Promise<string> {
    const key = `${tokenUrl} ${[...scopes].sort().join(' ')}`;
    const cached = this.tokens.get(key);
    if (cached && cached.expiresAt > Date.now()) return cached.token;
    let pending = this.pending.get(key);
    if (!pending) {
      pending = this.fetchToken(tokenUrl, scopes, signal).finally(() => this.pending.delete(key));
      this.pending.set(key, pending);
    }
    const fresh = await pending;
    this.tokens.set(key, fresh);
    return fresh.token;
  }

  /** Forgets every cached token; true when there was one (so a retry may get a better one). */
  invalidate(): boolean {
    const had = this.tokens.size > 0;
    this.tokens.clear();
    return had;
  }

  private async fetchToken(tokenUrl: string, scopes: readonly string[], signal: AbortSignal): Promise<CachedToken> {
    let url: URL;
    try {
      url = new URL(tokenUrl);
    } catch (error) {
      throw this.failed(tokenUrl, 'not an absolute URL', error);
    }
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scopes.length > 0) form.set('scope', scopes.join(' '));
    for (const [name, value] of Object.entries(this.credentials.parameters ?? {})) form.set(name, value);
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (this.credentials.authMethod === 'client_secret_post') {
      form.set('client_id', this.credentials.clientId);
      form.set('client_secret', this.credentials.clientSecret);
    } else {
      // RFC 6749 §2.3.1: each part form-urlencoded before the Basic encoding.
      const user = `${encodeForm(this.credentials.clientId)}:${encodeForm(this.credentials.clientSecret)}`;
      headers.authorization = `Basic ${Buffer.from(user).toString('base64')}`;
    }
    const started = Date.now();
    let body: unknown;
    let status: number;
    try {
      const response = await this.http.fetch(url, { method: 'POST', headers, body: form.toString(), signal });
      status = response.status;
      body = await readJson(response, MAX_TOKEN_RESPONSE_BYTES, `POST ${url.href}`).catch(() => undefined);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (error instanceof A2aClientError && error.kind === 'AddressRefused') throw error;
      throw this.failed(url.href, (error as Error).message, error);
    }
    const answer = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    if (status < 200 || status > 299) {
      const reason = typeof answer.error === 'string' ? `: ${answer.error}` : '';
      throw this.failed(url.href, `HTTP ${status}${reason}`);
    }
    if (typeof answer.access_token !== 'string' || answer.access_token === '')
      throw this.failed(url.href, 'the answer has no access_token');
    if (typeof answer.token_type === 'string' && answer.token_type.toLowerCase() !== 'bearer')
      throw this.failed(url.href, `token_type ${answer.token_type} is not Bearer`);
    const lifetime =
      typeof answer.expires_in === 'number' && answer.expires_in > 0
        ? answer.expires_in * 1000 - EXPIRY_SKEW_MS
        : DEFAULT_TOKEN_LIFETIME_MS;
    return { token: answer.access_token, expiresAt: started + Math.max(0, lifetime) };
  }

  private failed(url: string, why: string, cause?: unknown): A2aTransportError {
    return new A2aTransportError('Credentials', A2aClientMessages.tokenEndpointFailed(url, why), { url, cause });
  }
}

function encodeForm(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}
