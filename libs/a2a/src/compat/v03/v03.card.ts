import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type {
  AgentCard,
  AgentSkill,
  OAuthFlows,
  SecurityRequirement,
  SecurityScheme,
} from '../../protocol/a2a.types.js';
import { V03_CARD_PROTOCOL_VERSION, V03_PROTOCOL_VERSION, type V03CardFields } from './v03.types.js';

/**
 * The card a v0.3 client reads: the v1.0 card with v0.3's fields added, so one document serves both versions.
 *
 * - `url`, `preferredTransport`, `additionalInterfaces`: from the card's interfaces with `protocolVersion` 0.3 (the
 *   JSON-RPC endpoint, listed a second time under option `compat.v03`); `protocolVersion: '0.3.0'`;
 * - `supportsAuthenticatedExtendedCard`: v1.0's `capabilities.extendedAgentCard`;
 * - `security` (card and skills): v1.0's `securityRequirements` as v0.3's `{ scheme: scopes }` list;
 * - each entry of `securitySchemes` gets v0.3's members (`type`, `in`, `scheme`, `flows`, …) beside v1.0's single
 *   member (`httpAuthSecurityScheme`, …): the one map both versions name alike, in different shapes.
 *
 * Every v1.0 field is kept as it is, `signatures` included: a v1.0 signature covers the card's v1.0 fields only
 * (§8.4: the ProtoJSON of AgentCard, in which other members do not exist), so it verifies on this view too. The
 * fields added are not covered by it. A card without a 0.3 interface is returned unchanged: a v0.3 client would find
 * nothing it can call.
 */
export function v03AgentCard(card: AgentCard): AgentCard | (AgentCard & V03CardFields) {
  const legacy = card.supportedInterfaces.filter((entry) => majorMinor(entry.protocolVersion) === V03_PROTOCOL_VERSION);
  if (legacy.length === 0) return card;
  const view: AgentCard & V03CardFields = {
    ...card,
    protocolVersion: V03_CARD_PROTOCOL_VERSION,
    url: legacy[0].url,
    preferredTransport: legacy[0].protocolBinding,
    additionalInterfaces: legacy.map((entry) => ({ url: entry.url, transport: entry.protocolBinding })),
  };
  if (card.capabilities.extendedAgentCard !== undefined)
    view.supportsAuthenticatedExtendedCard = card.capabilities.extendedAgentCard;
  if (card.securitySchemes) {
    view.securitySchemes = Object.fromEntries(
      Object.entries(card.securitySchemes).map(([name, scheme]) => [name, withV03Scheme(scheme)]),
    );
  }
  if (card.securityRequirements?.length) view.security = card.securityRequirements.map(v03Requirement);
  if (card.skills.some((skill) => skill.securityRequirements?.length))
    view.skills = card.skills.map(withV03SkillSecurity);
  return view;
}

/** Whether a card request asks for v0.3's view: `A2A-Version` (header, else query parameter) absent, empty or 0.3. */
export function wantsV03Card(req: IncomingMessage): boolean {
  const header = req.headers['a2a-version'];
  let raw = Array.isArray(header) ? header[0] : header;
  if (raw === undefined && req.url?.includes('A2A-Version='))
    raw = new URL(req.url, 'http://card').searchParams.get('A2A-Version') ?? undefined;
  const trimmed = raw?.trim();
  return !trimmed || majorMinor(trimmed) === V03_PROTOCOL_VERSION;
}

/** The serialized v0.3 view of a card and its ETag, made once per card (the card service replaces it when it changes). */
export class V03CardView {
  private source?: AgentCard;
  private served?: { json: string; etag: string };

  /** `source`'s view; `fallback` (the v1.0 card as served) when the view is the card itself. */
  of(source: AgentCard, fallback: { readonly json: string; readonly etag: string }): { json: string; etag: string } {
    if (source !== this.source || !this.served) {
      const view = v03AgentCard(source);
      const json = view === source ? fallback.json : JSON.stringify(view);
      this.served = {
        json,
        etag:
          view === source ? fallback.etag : `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`,
      };
      this.source = source;
    }
    return this.served;
  }
}

function majorMinor(version: string): string {
  return version.trim().split('.').slice(0, 2).join('.');
}

function v03Requirement(requirement: SecurityRequirement): Record<string, string[]> {
  return Object.fromEntries(Object.entries(requirement.schemes).map(([name, scopes]) => [name, scopes.list ?? []]));
}

function withV03SkillSecurity(skill: AgentSkill): AgentSkill & { security?: Array<Record<string, string[]>> } {
  return skill.securityRequirements?.length
    ? { ...skill, security: skill.securityRequirements.map(v03Requirement) }
    : skill;
}

/** v1.0's scheme with v0.3's members beside it (v0.3's OpenAPI-like object, `type` its discriminator). */
function withV03Scheme(scheme: SecurityScheme): SecurityScheme {
  const described = (description: string | undefined) => (description ? { description } : {});
  if (scheme.apiKeySecurityScheme) {
    const { location, name, description } = scheme.apiKeySecurityScheme;
    return merged(scheme, { type: 'apiKey', in: location, name, ...described(description) });
  }
  if (scheme.httpAuthSecurityScheme) {
    const { scheme: name, bearerFormat, description } = scheme.httpAuthSecurityScheme;
    return merged(scheme, {
      type: 'http',
      scheme: name,
      ...(bearerFormat ? { bearerFormat } : {}),
      ...described(description),
    });
  }
  if (scheme.oauth2SecurityScheme) {
    const { flows, oauth2MetadataUrl, description } = scheme.oauth2SecurityScheme;
    return merged(scheme, {
      type: 'oauth2',
      flows: v03Flows(flows),
      ...(oauth2MetadataUrl ? { oauth2MetadataUrl } : {}),
      ...described(description),
    });
  }
  if (scheme.openIdConnectSecurityScheme) {
    const { openIdConnectUrl, description } = scheme.openIdConnectSecurityScheme;
    return merged(scheme, { type: 'openIdConnect', openIdConnectUrl, ...described(description) });
  }
  if (scheme.mtlsSecurityScheme)
    return merged(scheme, { type: 'mutualTLS', ...described(scheme.mtlsSecurityScheme.description) });
  return scheme;
}

/** A new object: v1.0's member and v0.3's members side by side (no name is in both). */
function merged(scheme: SecurityScheme, v03: Record<string, unknown>): SecurityScheme {
  return Object.assign({}, scheme, v03);
}

/** v0.3's flows: v1.0's without `deviceCode` (not in v0.3) and without `pkceRequired`. */
function v03Flows(flows: OAuthFlows): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (flows.authorizationCode) {
    const { pkceRequired: _pkce, ...flow } = flows.authorizationCode;
    out.authorizationCode = flow;
  }
  if (flows.clientCredentials) out.clientCredentials = flows.clientCredentials;
  if (flows.implicit) out.implicit = flows.implicit;
  if (flows.password) out.password = flows.password;
  return out;
}
