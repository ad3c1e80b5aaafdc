import { verifyAgentCard, type AgentCardVerification } from '../card/signing/agent-card.verifier.js';
import { PROTOCOL_VERSION } from '../a2a.constants.js';
import type { AgentCard } from '../protocol/a2a.types.js';
import { A2aCardError, A2aCardVerificationError, A2aClientError, A2aTransportError } from './a2a-client.errors.js';
import { A2aClientMessages } from './a2a-client.messages.js';
import type { A2aCardVerificationOptions } from './a2a-client.options.js';
import { agentCardProblems } from './agent-card.validator.js';
import { readBody, type ClientHttp } from './client-http.js';
import { RetryPolicy, sleep, withDeadline } from './retry.policy.js';

/** The well-known path of the card (spec §8.2, RFC 8615). */
export const AGENT_CARD_WELL_KNOWN_PATH = '/.well-known/agent-card.json';

/** A card as the client holds it. */
export interface ResolvedAgentCard {
  /** The card: as received, or, when keys are pinned, rebuilt from the payload that verified, so unsigned fields never reach the caller. */
  readonly card: AgentCard;
  readonly url: string;
  /** The `ETag` it came with, sent back as `If-None-Match` to revalidate it. */
  readonly etag?: string;
  /** When it was last fetched or revalidated, and until when it is used without asking again (ms since the epoch). */
  readonly fetchedAt: number;
  readonly expiresAt: number;
  /**
   * How this resolution got it: `network` (a 200), `not-modified` (a 304 to `If-None-Match`: the held card is still
   * current), `cache` (still fresh: no request), `stale` (a refresh failed on the network: the held card is kept).
   */
  readonly source: 'network' | 'not-modified' | 'cache' | 'stale';
  /** Which pinned key verified it, and over which payload; absent when no keys are pinned. */
  readonly verification?: Pick<AgentCardVerification, 'kid' | 'coverage'>;
}

/** The resolver's bounds and trust, from the agent's options. */
export interface AgentCardResolverOptions {
  readonly maxCardBytes: number;
  readonly defaultMaxAgeMs: number;
  readonly maxAgeCapMs: number;
  readonly timeoutMs: number;
  readonly retry: RetryPolicy;
  readonly verification?: A2aCardVerificationOptions;
}

/**
 * Fetches and keeps an agent's public card (spec §8.2, §8.6): through the SSRF-guarded HTTP stack, at most
 * `maxCardBytes` (counted as it arrives), checked against the AgentCard schema, verified against pinned keys when the
 * options pin any (spec §8.4.3; unsigned or unverifiable is refused), and cached for its `Cache-Control: max-age`
 * (capped; a default when absent). Once stale it is revalidated with `If-None-Match`, so an unchanged card costs a 304
 * (spec §8.6). Concurrent resolutions share one request.
 */
export class AgentCardResolver {
  private current: ResolvedAgentCard | undefined;
  private inFlight: Promise<ResolvedAgentCard> | undefined;

  constructor(
    readonly url: string,
    private readonly http: ClientHttp,
    private readonly options: AgentCardResolverOptions,
  ) {}

  /** The card the client last resolved, if any, without fetching. */
  get cached(): ResolvedAgentCard | undefined {
    return this.current;
  }

  /** The card: the held one while fresh (unless `refresh`), else fetched or revalidated. */
  resolve(options: { refresh?: boolean; signal?: AbortSignal } = {}): Promise<ResolvedAgentCard> {
    const held = this.current;
    if (held && !options.refresh && held.expiresAt > Date.now()) return Promise.resolve({ ...held, source: 'cache' });
    this.inFlight ??= this.fetchWithRetries(options.signal).finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  /**
   * Another card of this agent (the extended card, §3.1.11) checked as the public one is: against the schema, and
   * against the pinned keys when there are any.
   * @throws A2aCardError `InvalidCard`, A2aCardVerificationError.
   */
  async checked(card: unknown): Promise<AgentCard> {
    const problems = agentCardProblems(card);
    if (problems.length > 0)
      throw new A2aCardError('InvalidCard', A2aClientMessages.invalidCard(this.url, problems), { url: this.url });
    return (await this.verified(card as AgentCard)).card;
  }

  private async fetchWithRetries(signal: AbortSignal | undefined): Promise<ResolvedAgentCard> {
    for (let failures = 1; ; failures++) {
      try {
        return await withDeadline(`GET ${this.url}`, this.options.timeoutMs, signal, (attempt) =>
          this.fetchOnce(attempt),
        );
      } catch (error) {
        if (this.options.retry.shouldRetry(error, failures)) {
          await sleep(this.options.retry.delayMs(failures, error), signal);
          continue;
        }
        // A refresh that cannot reach the agent keeps the card it had; a card that changed and is now invalid does not.
        const held = this.current;
        if (held && error instanceof A2aClientError && error.retryable) return { ...held, source: 'stale' };
        if (error instanceof A2aTransportError && (error.kind === 'Network' || error.kind === 'Timeout')) {
          throw new A2aCardError('CardUnavailable', A2aClientMessages.cardUnavailable(this.url, error.message), {
            url: this.url,
            cause: error,
          });
        }
        throw error;
      }
    }
  }

  private async fetchOnce(signal: AbortSignal): Promise<ResolvedAgentCard> {
    const url = new URL(this.url);
    const held = this.current;
    const headers: Record<string, string> = { accept: 'application/json', 'a2a-version': PROTOCOL_VERSION };
    if (held?.etag) headers['if-none-match'] = held.etag;
    const response = await this.http.fetch(url, { method: 'GET', headers, signal }, { url: this.url });
    const now = Date.now();
    if (response.status === 304 && held) {
      this.current = {
        ...held,
        fetchedAt: now,
        expiresAt: now + this.maxAgeOf(response),
        etag: response.headers.get('etag') ?? held.etag,
        source: 'not-modified',
      };
      return this.current;
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      if (response.status === 503 || response.status === 502 || response.status === 504) {
        throw new A2aTransportError('Network', A2aClientMessages.cardStatus(this.url, response.status), {
          url: this.url,
        });
      }
      throw new A2aCardError(
        'CardUnavailable',
        A2aClientMessages.cardUnavailable(this.url, A2aClientMessages.cardStatus(this.url, response.status)),
        { url: this.url },
      );
    }
    const bytes = await readBody(response, this.options.maxCardBytes, `GET ${this.url}`, { url: this.url }).catch(
      (error: unknown) => {
        if (error instanceof A2aTransportError && error.kind === 'InvalidResponse')
          throw new A2aCardError('InvalidCard', A2aClientMessages.cardTooLarge(this.url, this.options.maxCardBytes), {
            url: this.url,
          });
        throw error;
      },
    );
    const { card, verification } = await this.verified(this.parse(bytes));
    this.current = {
      card,
      url: this.url,
      etag: response.headers.get('etag') ?? undefined,
      fetchedAt: now,
      expiresAt: now + this.maxAgeOf(response),
      source: 'network',
      ...(verification ? { verification } : {}),
    };
    return this.current;
  }

  private parse(bytes: Buffer): AgentCard {
    let card: unknown;
    try {
      card = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch (error) {
      throw new A2aCardError('InvalidCard', A2aClientMessages.cardNotJson(this.url), { url: this.url, cause: error });
    }
    const problems = agentCardProblems(card);
    if (problems.length > 0)
      throw new A2aCardError('InvalidCard', A2aClientMessages.invalidCard(this.url, problems), { url: this.url });
    return card as AgentCard;
  }

  private async verified(
    card: AgentCard,
  ): Promise<{ card: AgentCard; verification?: Pick<AgentCardVerification, 'kid' | 'coverage'> }> {
    const pinned = this.options.verification;
    if (!pinned || (pinned.keys === undefined && pinned.jwksUrl === undefined)) return { card };
    if (!Array.isArray(card.signatures) || card.signatures.length === 0)
      throw new A2aCardVerificationError(A2aClientMessages.cardUnsigned(this.url), { url: this.url });
    const result = await verifyAgentCard(card, {
      keys: pinned.keys,
      jwksUrl: pinned.jwksUrl,
      algorithms: pinned.algorithms,
    });
    if (!result.valid || !result.card)
      throw new A2aCardVerificationError(A2aClientMessages.cardSignatureInvalid(this.url), { url: this.url });
    // The signed payload is what counts; it must still be a card (defaults dropped from it are optional fields).
    const problems = agentCardProblems(result.card);
    if (problems.length > 0)
      throw new A2aCardError('InvalidCard', A2aClientMessages.invalidCard(this.url, problems), { url: this.url });
    return { card: result.card, verification: { kid: result.kid, coverage: result.coverage } };
  }

  /** `max-age` of `Cache-Control` less `Age`, capped; `no-cache`/`no-store` mean revalidate every time. */
  private maxAgeOf(response: Response): number {
    const cacheControl = (response.headers.get('cache-control') ?? '').toLowerCase();
    if (/(?:^|,)\s*(?:no-cache|no-store)\b/.test(cacheControl)) return 0;
    const maxAge = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/.exec(cacheControl)?.[1];
    if (maxAge === undefined) return Math.min(this.options.defaultMaxAgeMs, this.options.maxAgeCapMs);
    const age = Number(response.headers.get('age') ?? 0);
    return Math.max(0, Math.min(this.options.maxAgeCapMs, (Number(maxAge) - (Number.isFinite(age) ? age : 0)) * 1000));
  }
}

/** The card URL of `cardUrl`: itself, or the well-known path when it is an origin (no path). */
export function cardUrlOf(cardUrl: string): string {
  let url: URL;
  try {
    url = new URL(cardUrl);
  } catch {
    return cardUrl;
  }
  if (url.pathname === '/' && url.search === '') url.pathname = AGENT_CARD_WELL_KNOWN_PATH;
  return url.href;
}
