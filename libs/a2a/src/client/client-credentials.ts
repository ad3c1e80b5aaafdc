import type { AgentCard, ProtocolBinding, SecurityRequirement, SecurityScheme } from '../protocol/a2a.types.js';
import { A2aClientError, A2aTransportError } from './a2a-client.errors.js';
import { A2aClientMessages } from './a2a-client.messages.js';
import type { A2aClientCredentials, CredentialValue } from './a2a-client.options.js';
import type { ClientHttp } from './client-http.js';
import { OAuth2TokenSource } from './oauth2-token.source.js';

/** What a call carries to authenticate: headers (gRPC metadata) and, on HTTP, query parameters. */
export interface CallCredentials {
  readonly headers: Record<string, string>;
  readonly query: Record<string, string>;
}

const NONE: CallCredentials = { headers: {}, query: {} };

/**
 * Turns the client's credentials into what each call sends, following the card (spec §7.2, R67): the first
 * alternative of `securityRequirements` whose every scheme the client has a credential for is used, each credential
 * where its scheme says (API keys in their header, query parameter or cookie; on gRPC all in metadata). The client
 * certificate of `mtls` goes with every TLS connection anyway, so an `mtlsSecurityScheme` needs nothing here.
 */
export class ClientCredentials {
  private readonly oauth2?: OAuth2TokenSource;

  constructor(
    private readonly credentials: A2aClientCredentials | undefined,
    http: ClientHttp,
  ) {
    if (credentials?.oauth2) this.oauth2 = new OAuth2TokenSource(credentials.oauth2, http);
  }

  /** Whether anything was configured at all. */
  get configured(): boolean {
    return this.credentials !== undefined && Object.values(this.credentials).some((value) => value !== undefined);
  }

  /** The credentials of one call to an interface of `card` over `binding`. */
  async forCall(card: AgentCard, binding: ProtocolBinding, signal: AbortSignal): Promise<CallCredentials> {
    if (!this.credentials) return NONE;
    const schemes = card.securitySchemes ?? {};
    const requirement = (card.securityRequirements ?? []).find((alternative) => Object.keys(alternative.schemes ?? {}).every((name) => this.canSatisfy(name, schemes[name])));
    if (!requirement) return NONE;
    const applied: CallCredentials = { headers: {}, query: {} };
    for (const [name, scopes] of Object.entries(requirement.schemes ?? {})) {
      await this.apply(name, schemes[name], scopesOf(scopes), binding, applied, signal);
    }
    return applied;
  }

  /** After a 401: drops cached tokens. True when a retry may send a different credential. */
  invalidate(): boolean {
    const dropped = this.oauth2?.invalidate() ?? false;
    return dropped || typeof this.credentials?.bearer === 'function';
  }

  private canSatisfy(name: string, scheme: SecurityScheme | undefined): boolean {
    const credentials = this.credentials!;
    if (!scheme) return false;
    if (scheme.apiKeySecurityScheme) return this.apiKeyFor(name) !== undefined;
    if (scheme.httpAuthSecurityScheme) {
      const kind = scheme.httpAuthSecurityScheme.scheme.toLowerCase();
      return kind === 'bearer' ? credentials.bearer !== undefined : kind === 'basic' && credentials.basic !== undefined;
    }
    if (scheme.oauth2SecurityScheme) return credentials.bearer !== undefined || (credentials.oauth2 !== undefined && this.tokenUrlOf(scheme) !== undefined);
    if (scheme.openIdConnectSecurityScheme) return credentials.bearer !== undefined || credentials.oauth2?.tokenUrl !== undefined;
    if (scheme.mtlsSecurityScheme) return credentials.mtls !== undefined;
    return false;
  }

  private async apply(name: string, scheme: SecurityScheme | undefined, scopes: readonly string[], binding: ProtocolBinding, into: CallCredentials, signal: AbortSignal): Promise<void> {
    const credentials = this.credentials!;
    if (!scheme) return;
    if (scheme.apiKeySecurityScheme) {
      const { location, name: parameter } = scheme.apiKeySecurityScheme;
      const key = await valueOf(this.apiKeyFor(name)!);
      if (binding === 'GRPC' || location === 'header') into.headers[parameter.toLowerCase()] = key;
      else if (location === 'query') into.query[parameter] = key;
      else into.headers.cookie = into.headers.cookie ? `${into.headers.cookie}; ${parameter}=${key}` : `${parameter}=${key}`;
      return;
    }
    if (scheme.httpAuthSecurityScheme?.scheme.toLowerCase() === 'basic') {
      const { username, password } = credentials.basic!;
      into.headers.authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
      return;
    }
    if (scheme.mtlsSecurityScheme) return;
    // Bearer: an HTTP bearer scheme, or an OAuth2 / OpenID Connect one.
    if (credentials.bearer !== undefined && !(scheme.oauth2SecurityScheme && this.oauth2 && this.tokenUrlOf(scheme))) {
      into.headers.authorization = `Bearer ${await valueOf(credentials.bearer)}`;
      return;
    }
    const tokenUrl = this.tokenUrlOf(scheme)!;
    const wanted = credentials.oauth2?.scopes ?? scopes;
    into.headers.authorization = `Bearer ${await this.oauth2!.token(tokenUrl, wanted, signal)}`;
  }

  private apiKeyFor(schemeName: string): CredentialValue | undefined {
    const apiKey = this.credentials?.apiKey;
    if (apiKey === undefined || typeof apiKey === 'string' || typeof apiKey === 'function') return apiKey;
    return apiKey[schemeName];
  }

  private tokenUrlOf(scheme: SecurityScheme): string | undefined {
    return this.credentials?.oauth2?.tokenUrl ?? scheme.oauth2SecurityScheme?.flows?.clientCredentials?.tokenUrl;
  }
}

async function valueOf(value: CredentialValue): Promise<string> {
  if (typeof value === 'string') return value;
  try {
    return await value();
  } catch (error) {
    if (error instanceof A2aClientError) throw error;
    throw new A2aTransportError('Credentials', A2aClientMessages.credentialProviderFailed((error as Error)?.message ?? String(error)), { cause: error });
  }
}

function scopesOf(value: SecurityRequirement['schemes'][string] | undefined): string[] {
  return Array.isArray(value?.list) ? value.list.filter((scope): scope is string => typeof scope === 'string') : [];
}
