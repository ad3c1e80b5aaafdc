import type {
  AgentCard,
  AgentInterface,
  ProtocolBinding,
  SecurityRequirement,
  SecurityScheme,
} from '../protocol/a2a.types.js';
import {
  A2aClientError,
  A2aClientOptionsError,
  A2aCredentialsRefusedError,
  A2aTransportError,
} from './a2a-client.errors.js';
import { A2aClientMessages } from './a2a-client.messages.js';
import type { A2aApiKeyPlacement, A2aClientCredentials, CredentialValue } from './a2a-client.options.js';
import type { ClientHttp } from './client-http.js';
import type { CredentialScope } from './credential.scope.js';
import { OAuth2TokenSource } from './oauth2-token.source.js';

/** What a call carries to authenticate: headers (gRPC metadata) and, on HTTP, query parameters. */
export interface CallCredentials {
  readonly headers: Record<string, string>;
  readonly query: Record<string, string>;
}

const NONE: CallCredentials = { headers: {}, query: {} };

/**
 * Turns the client's credentials into what each call sends, following the card (spec §7.2, §7.4): the first
 * alternative of `securityRequirements` whose every scheme the client has a credential for is used. The card picks
 * the alternative; the options decide where secrets go: only to interfaces inside the {@link CredentialScope}, API keys
 * only where `apiKeyPlacement` says (on gRPC all in metadata), the OAuth2 secret only to the configured token URL or a
 * verified card's. When the only alternatives the client could satisfy are ones the options do not allow, the call is
 * refused with the reason ({@link A2aCredentialsRefusedError}); the client certificate of `mtls` goes with every TLS
 * connection anyway, so an `mtlsSecurityScheme` needs nothing here.
 */
export class ClientCredentials {
  private readonly oauth2?: OAuth2TokenSource;
  private readonly apiKeyPlacement: { readonly location: 'header' | 'query' | 'cookie'; readonly name?: string };

  constructor(
    private readonly credentials: A2aClientCredentials | undefined,
    http: ClientHttp,
    private readonly scope: CredentialScope,
  ) {
    if (credentials?.oauth2) this.oauth2 = new OAuth2TokenSource(credentials.oauth2, http);
    this.apiKeyPlacement = checkedPlacement(credentials?.apiKeyPlacement);
  }

  /**
   * The credentials of one call to `entry`, an interface of `card`; `cardVerified` when the card verified against
   * pinned keys (then its OAuth2 token URL is trusted).
   * @throws A2aCredentialsRefusedError before anything is sent or fetched, when the options do not allow what the card asks.
   */
  async forCall(
    card: AgentCard,
    entry: AgentInterface,
    cardVerified: boolean,
    signal: AbortSignal,
  ): Promise<CallCredentials> {
    if (!this.credentials) return NONE;
    const schemes = card.securitySchemes ?? {};
    const alternatives = (card.securityRequirements ?? []).map((alternative) => ({
      alternative,
      verdicts: Object.keys(alternative.schemes ?? {}).map((name) => this.verdict(name, schemes[name], cardVerified)),
    }));
    const chosen = alternatives.find(({ verdicts }) => verdicts.every((verdict) => verdict === true));
    if (!chosen) {
      // An alternative the client has every credential for, but that the options forbid sending as the card asks.
      const refused = alternatives
        .find(({ verdicts }) => verdicts.every((verdict) => verdict !== false))
        ?.verdicts.find((verdict) => verdict instanceof A2aCredentialsRefusedError);
      if (refused) throw refused;
      return NONE;
    }
    const names = Object.keys(chosen.alternative.schemes ?? {});
    if (names.some((name) => !schemes[name]?.mtlsSecurityScheme)) this.scope.check(entry);
    const applied: CallCredentials = { headers: {}, query: {} };
    for (const name of names) {
      await this.apply(
        name,
        schemes[name],
        scopesOf(chosen.alternative.schemes[name]),
        entry.protocolBinding,
        cardVerified,
        applied,
        signal,
      );
    }
    return applied;
  }

  /** After a 401: drops cached tokens. True when a retry may send a different credential. */
  invalidate(): boolean {
    const dropped = this.oauth2?.invalidate() ?? false;
    return dropped || typeof this.credentials?.bearer === 'function';
  }

  /** Whether the client can satisfy scheme `name`: yes, no (no credential for it), or refused (it has one, the options forbid it). */
  private verdict(
    name: string,
    scheme: SecurityScheme | undefined,
    cardVerified: boolean,
  ): boolean | A2aCredentialsRefusedError {
    const credentials = this.credentials!;
    if (!scheme) return false;
    if (scheme.apiKeySecurityScheme) {
      if (this.apiKeyFor(name) === undefined) return false;
      const { location, name: parameter } = scheme.apiKeySecurityScheme;
      const own = this.apiKeyPlacement;
      const sameName =
        own.name === undefined ||
        (location === 'header' ? own.name.toLowerCase() === parameter.toLowerCase() : own.name === parameter);
      if (location === own.location && sameName) return true;
      return new A2aCredentialsRefusedError(
        A2aClientMessages.apiKeyPlacementRefused(
          name,
          `${location} "${parameter}"`,
          `${own.location}${own.name === undefined ? '' : ` "${own.name}"`}`,
        ),
      );
    }
    if (scheme.httpAuthSecurityScheme) {
      const kind = scheme.httpAuthSecurityScheme.scheme.toLowerCase();
      return kind === 'bearer' ? credentials.bearer !== undefined : kind === 'basic' && credentials.basic !== undefined;
    }
    if (scheme.oauth2SecurityScheme) {
      if (
        credentials.bearer !== undefined ||
        (credentials.oauth2 !== undefined && this.tokenUrlOf(scheme, cardVerified) !== undefined)
      )
        return true;
      const cardTokenUrl = scheme.oauth2SecurityScheme.flows?.clientCredentials?.tokenUrl;
      return credentials.oauth2 !== undefined && cardTokenUrl !== undefined
        ? new A2aCredentialsRefusedError(A2aClientMessages.untrustedTokenUrl(name, cardTokenUrl))
        : false;
    }
    if (scheme.openIdConnectSecurityScheme)
      return credentials.bearer !== undefined || credentials.oauth2?.tokenUrl !== undefined;
    if (scheme.mtlsSecurityScheme) return credentials.mtls !== undefined;
    return false;
  }

  private async apply(
    name: string,
    scheme: SecurityScheme | undefined,
    scopes: readonly string[],
    binding: ProtocolBinding,
    cardVerified: boolean,
    into: CallCredentials,
    signal: AbortSignal,
  ): Promise<void> {
    const credentials = this.credentials!;
    if (!scheme) return;
    if (scheme.apiKeySecurityScheme) {
      // Where the options say; `verdict` refused a card that asks for another place.
      const location = this.apiKeyPlacement.location;
      const parameter = this.apiKeyPlacement.name ?? scheme.apiKeySecurityScheme.name;
      const key = await valueOf(this.apiKeyFor(name)!);
      if (binding === 'GRPC' || location === 'header') into.headers[parameter.toLowerCase()] = key;
      else if (location === 'query') into.query[parameter] = key;
      else
        into.headers.cookie = into.headers.cookie
          ? `${into.headers.cookie}; ${parameter}=${key}`
          : `${parameter}=${key}`;
      return;
    }
    if (scheme.httpAuthSecurityScheme?.scheme.toLowerCase() === 'basic') {
      const { username, password } = credentials.basic!;
      into.headers.authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
      return;
    }
    if (scheme.mtlsSecurityScheme) return;
    // Bearer: an HTTP bearer scheme, or an OAuth2 / OpenID Connect one.
    const tokenUrl = this.oauth2 ? this.tokenUrlOf(scheme, cardVerified) : undefined;
    if (credentials.bearer !== undefined && !(scheme.oauth2SecurityScheme && tokenUrl)) {
      into.headers.authorization = `Bearer ${await valueOf(credentials.bearer)}`;
      return;
    }
    const wanted = credentials.oauth2?.scopes ?? scopes;
    into.headers.authorization = `Bearer ${await this.oauth2!.token(tokenUrl!, wanted, signal)}`;
  }

  private apiKeyFor(schemeName: string): CredentialValue | undefined {
    const apiKey = this.credentials?.apiKey;
    if (apiKey === undefined || typeof apiKey === 'string' || typeof apiKey === 'function') return apiKey;
    return Object.hasOwn(apiKey, schemeName) ? apiKey[schemeName] : undefined;
  }

  /** The token URL of the options, else the card's when the card verified against pinned keys: never an unverified card's. */
  private tokenUrlOf(scheme: SecurityScheme, cardVerified: boolean): string | undefined {
    return (
      this.credentials?.oauth2?.tokenUrl ??
      (cardVerified ? scheme.oauth2SecurityScheme?.flows?.clientCredentials?.tokenUrl : undefined)
    );
  }
}

/** `apiKeyPlacement` with its default (a header, named by the card), checked. */
function checkedPlacement(placement: A2aApiKeyPlacement | undefined): {
  location: 'header' | 'query' | 'cookie';
  name?: string;
} {
  const location = placement?.location ?? 'header';
  if (!['header', 'query', 'cookie'].includes(location))
    throw new A2aClientOptionsError(
      A2aClientMessages.invalidOption('credentials.apiKeyPlacement.location', '"header", "query" or "cookie"'),
    );
  const name = placement?.name;
  if (name !== undefined && (typeof name !== 'string' || name === ''))
    throw new A2aClientOptionsError(
      A2aClientMessages.invalidOption('credentials.apiKeyPlacement.name', 'a non-empty string'),
    );
  return { location, ...(name === undefined ? {} : { name }) };
}

async function valueOf(value: CredentialValue): Promise<string> {
  if (typeof value === 'string') return value;
  try {
    return await value();
  } catch (error) {
    if (error instanceof A2aClientError) throw error;
    throw new A2aTransportError(
      'Credentials',
      A2aClientMessages.credentialProviderFailed((error as Error)?.message ?? String(error)),
      { cause: error },
    );
  }
}

function scopesOf(value: SecurityRequirement['schemes'][string] | undefined): string[] {
  return Array.isArray(value?.list) ? value.list.filter((scope): scope is string => typeof scope === 'string') : [];
}
