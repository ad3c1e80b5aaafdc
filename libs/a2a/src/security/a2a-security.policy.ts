import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { A2A_MODULE_OPTIONS } from '../a2a-module-definition.js';
import type { A2aModuleOptions } from '../a2a-module.options.js';
import { A2aMessages } from '../a2a.messages.js';
import type { A2aOperationName } from '../context/a2a-invocation.js';
import { ANONYMOUS_PRINCIPAL, modulePrincipal, type A2aPrincipal } from '../context/call-context.js';
import { A2aError } from '../errors/a2a.error.js';
import { InvalidSecurityConfigError } from '../errors/security-config.error.js';
import type { AgentSkill, SecurityRequirement, SecurityScheme } from '../protocol/a2a.types.js';
import type { RegisteredSkill } from '../skills/skill.registry.js';
import { SkillRegistry } from '../skills/skill.registry.js';
import { A2A_REALM, type A2aSecurityScheme, type SchemeGrant, type SchemeOutcome } from './a2a-security-scheme.js';
import type { A2aSecurityOptions, A2aSecurityRequirement } from './a2a-security.options.js';
import type { CredentialSource } from './credential-source.js';
import { evaluateRequirements, toCardRequirements } from './security-requirements.js';

/** Seconds a client should wait before retrying when the identity provider could not be reached. */
const IDP_RETRY_AFTER_SECONDS = '5';
/** Owner-key namespaces of principals not made by a scheme (`user:…`, `app:…`, `anonymous`): no scheme may take them. */
const RESERVED_SCHEME_NAMES = ['anonymous', 'app', 'user'];

/**
 * Option `security` as enforced: checked at bootstrap (every named scheme declared and verifiable), then asked by the
 * module's guard on every call of every binding, and by the engine once a message is routed to a skill.
 */
@Injectable()
export class A2aSecurityPolicy implements OnApplicationBootstrap {
  private readonly logger = new Logger('A2aSecurity');
  private readonly options: A2aSecurityOptions;
  private readonly schemes: ReadonlyArray<[string, A2aSecurityScheme]>;
  private readonly requirements: readonly A2aSecurityRequirement[];

  constructor(
    @Inject(A2A_MODULE_OPTIONS) moduleOptions: A2aModuleOptions,
    private readonly skills: SkillRegistry,
  ) {
    this.options = moduleOptions.security ?? {};
    this.schemes = Object.entries(this.options.schemes ?? {});
    const byDefault = this.schemes.map(([name]): A2aSecurityRequirement => ({ [name]: [] }));
    for (const [name] of this.schemes) {
      if (RESERVED_SCHEME_NAMES.includes(name))
        throw new InvalidSecurityConfigError(A2aMessages.reservedSchemeName(name, RESERVED_SCHEME_NAMES));
    }
    this.requirements = [
      ...(this.options.requirements ?? byDefault),
      ...(this.options.allowAnonymous && this.schemes.length > 0 ? [{}] : []),
    ];
  }

  /** Whether any scheme is declared: without one, every call is the anonymous principal's. */
  get enabled(): boolean {
    return this.schemes.length > 0;
  }

  get extendedCard(): A2aSecurityOptions['extendedCard'] {
    return this.options.extendedCard;
  }

  /**
   * Refuses an operation that reaches beyond the tasks whose ids the caller holds (ListTasks) or stores secrets for
   * it (push configs), to an unauthenticated caller while anonymous callers are isolated.
   */
  requireOwnerFor(operation: A2aOperationName, principal: A2aPrincipal): void {
    if (principal.authenticated || this.options.anonymousCallers === 'shared') return;
    throw new A2aError('PermissionDenied', A2aMessages.anonymousCallerRefused(operation), { operation });
  }

  get maxActiveTasksPerPrincipal(): number {
    return this.options.maxActiveTasksPerPrincipal ?? Infinity;
  }

  /** What the card declares: `securitySchemes` and `securityRequirements` (the anonymous alternative included). */
  cardSecurity(): { securitySchemes?: Record<string, SecurityScheme>; securityRequirements?: SecurityRequirement[] } {
    if (!this.enabled) return {};
    return {
      securitySchemes: Object.fromEntries(this.schemes.map(([name, scheme]) => [name, scheme.declaration])),
      securityRequirements: toCardRequirements(this.requirements),
    };
  }

  // After the skills are registered (onModuleInit): their requirements are checked too.
  onApplicationBootstrap(): void {
    const declared = this.schemes.map(([name]) => name);
    const check = (where: string, alternatives: readonly A2aSecurityRequirement[] | undefined) => {
      for (const alternative of alternatives ?? []) {
        for (const scheme of Object.keys(alternative)) {
          if (!declared.includes(scheme))
            throw new InvalidSecurityConfigError(A2aMessages.undeclaredScheme(where, scheme, declared));
        }
      }
    };
    check('Option security.requirements', this.options.requirements);
    for (const [operation, alternatives] of Object.entries(this.options.operations ?? {}))
      check(`Option security.operations.${operation}`, alternatives);
    for (const id of this.skills.ids()) check(`@AgentSkill "${id}"`, this.skills.get(id)!.security);
    for (const [id, alternatives] of Object.entries(this.options.skills ?? {})) {
      if (!this.skills.get(id)) throw new InvalidSecurityConfigError(A2aMessages.unknownSkill(id, this.skills.ids()));
      check(`Option security.skills.${id}`, alternatives);
    }
    if (this.options.extendedCard && !this.enabled)
      throw new InvalidSecurityConfigError(A2aMessages.extendedCardWithoutScheme());
    if (!this.enabled && !this.options.allowAnonymous) this.logger.warn(A2aMessages.anonymousAgent());
  }

  /**
   * Who is calling, once every credential sent is valid and the card's and the operation's requirements hold, and the
   * principal may use the tenant. Throws Unauthenticated (401, with a challenge per scheme), PermissionDenied (403)
   * or Unavailable (503, when an identity provider could not be asked). Synchronous when every scheme answers at once
   * (API keys, Basic, a token verified within the minute): most calls then cost no promise round.
   */
  authenticate(
    source: CredentialSource,
    operation: A2aOperationName,
    tenant: string,
  ): A2aPrincipal | Promise<A2aPrincipal> {
    const outcomes = this.schemes.map(([, scheme]) => safely(scheme, source));
    return outcomes.some((outcome) => outcome instanceof Promise)
      ? Promise.all(outcomes).then((settled) => this.decide(settled, operation, tenant))
      : this.decide(outcomes as SchemeOutcome[], operation, tenant);
  }

  private decide(
    outcomes: readonly SchemeOutcome[],
    operation: A2aOperationName,
    tenant: string,
  ): A2aPrincipal | Promise<A2aPrincipal> {
    const grants = new Map<string, SchemeGrant>();
    const invalid: string[] = [];
    outcomes.forEach((outcome, index) => {
      const name = this.schemes[index][0];
      if (outcome.status === 'granted') grants.set(name, outcome.grant);
      else if (outcome.status === 'invalid') {
        invalid.push(name);
        this.logger.debug(`Refused a credential of scheme "${name}": ${outcome.reason}`);
      } else if (outcome.status === 'unavailable') {
        this.logger.warn(`Could not check a credential of scheme "${name}": ${outcome.reason}`);
        throw new A2aError(
          'Unavailable',
          'The identity provider could not be reached; try again later',
          { scheme: name },
          [],
          { 'Retry-After': IDP_RETRY_AFTER_SECONDS },
        );
      } else if (outcome.status === 'forbidden') {
        this.logger.debug(`Refused the subject of scheme "${name}": ${outcome.reason}`);
        throw new A2aError('PermissionDenied', 'This credential may not use this agent', { scheme: name });
      }
    });
    // A bad credential is refused even if another would pass: it is never silently ignored.
    if (invalid.length > 0) throw this.unauthenticated(this.requirements, invalid);
    const cardVerdict = evaluateRequirements(this.requirements, grants);
    if (!cardVerdict.met) throw this.refusal(this.requirements, cardVerdict.missingScopes);
    const operationRequirements = this.options.operations?.[operation];
    if (operationRequirements) {
      const verdict = evaluateRequirements(operationRequirements, grants);
      if (!verdict.met) throw this.refusal(operationRequirements, verdict.missingScopes);
    }
    const principal = principalOf(cardVerdict.met, grants);
    const allowed = this.options.tenantPolicy?.(principal, tenant) ?? true;
    return allowed instanceof Promise
      ? allowed.then((ok) => (ok ? principal : refuseTenant()))
      : allowed
        ? principal
        : refuseTenant();
  }

  /** A skill's own requirements (option `security.skills`, else `@AgentSkill({ security })`), against what the caller's credentials granted. */
  authorizeSkill(skill: RegisteredSkill, principal: A2aPrincipal): void {
    const requirements = this.options.skills?.[skill.card.id] ?? skill.security;
    if (requirements.length === 0) return;
    const verdict = evaluateRequirements(requirements, new Map(Object.entries(principal.schemes ?? {})));
    if (!verdict.met) throw this.refusal(requirements, verdict.missingScopes);
  }

  /** A skill's card entry with the requirements option `security.skills` gives it, if any. */
  skillCard(card: AgentSkill): AgentSkill {
    const requirements = this.options.skills?.[card.id];
    if (!requirements) return card;
    const { securityRequirements: _replaced, ...rest } = card;
    return requirements.length > 0 ? { ...rest, securityRequirements: toCardRequirements(requirements) } : rest;
  }

  private refusal(
    alternatives: readonly A2aSecurityRequirement[],
    missing: { alternative: A2aSecurityRequirement; scopes: readonly string[] } | undefined,
  ): A2aError {
    if (!missing) return this.unauthenticated(alternatives, []);
    const scope = missing.scopes.join(' ');
    // RFC 6750 §3.1: a token that lacks scopes is told which, in the Bearer challenge.
    const byToken = Object.keys(missing.alternative).some((name) => isTokenScheme(this.scheme(name)?.declaration));
    const headers: Record<string, string> = byToken
      ? { 'WWW-Authenticate': `Bearer realm="${A2A_REALM}", error="insufficient_scope", scope="${scope}"` }
      : {};
    return new A2aError('PermissionDenied', `Missing scopes: ${scope}`, { scope }, [], headers);
  }

  private unauthenticated(alternatives: readonly A2aSecurityRequirement[], invalid: readonly string[]): A2aError {
    const names = [...new Set([...alternatives.flatMap((alternative) => Object.keys(alternative)), ...invalid])];
    const challenges = names.flatMap((name) => this.scheme(name)?.challenge?.(invalid.includes(name)) ?? []);
    return new A2aError(
      'Unauthenticated',
      'Authentication required',
      { schemes: names.join(' ') },
      [],
      challenges.length > 0 ? { 'WWW-Authenticate': challenges } : {},
    );
  }

  private scheme(name: string): A2aSecurityScheme | undefined {
    return this.options.schemes?.[name];
  }
}

/**
 * The owner key comes from the first scheme of the alternative that held (else the first credential sent):
 * `scheme:issuer|subject`, so equal subjects of two issuers, or of two schemes, never share tasks; scheme names are
 * never `user`, `app` or `anonymous`, the namespaces of the other principals. Without any credential: anonymous.
 */
export function principalOf(met: A2aSecurityRequirement, grants: ReadonlyMap<string, SchemeGrant>): A2aPrincipal {
  if (grants.size === 0) return ANONYMOUS_PRINCIPAL;
  const owner = Object.keys(met)[0] ?? grants.keys().next().value!;
  const grant = grants.get(owner)!;
  const scopes = grants.size === 1 ? grant.scopes : [...new Set([...grants.values()].flatMap((g) => g.scopes))];
  return modulePrincipal({
    id: grant.issuer ? `${owner}:${grant.issuer}|${grant.subject}` : `${owner}:${grant.subject}`,
    authenticated: true,
    subject: grant.subject,
    scopes,
    schemes: grants.size === 1 ? { [owner]: grant } : Object.fromEntries(grants),
    claims: grant.claims,
  });
}

/** A verifier that throws (or rejects) is treated as a refusal, never as a pass. */
function safely(scheme: A2aSecurityScheme, source: CredentialSource): SchemeOutcome | Promise<SchemeOutcome> {
  try {
    const outcome = scheme.authenticate(source);
    return outcome instanceof Promise ? outcome.catch(thrown) : outcome;
  } catch (error) {
    return thrown(error);
  }
}

function thrown(error: unknown): SchemeOutcome {
  return { status: 'invalid', reason: error instanceof Error ? error.message : String(error) };
}

function refuseTenant(): never {
  throw new A2aError('PermissionDenied', 'This caller may not use this tenant');
}

function isTokenScheme(declaration: SecurityScheme | undefined): boolean {
  if (!declaration) return false;
  return (
    declaration.oauth2SecurityScheme !== undefined ||
    declaration.openIdConnectSecurityScheme !== undefined ||
    declaration.httpAuthSecurityScheme?.scheme.toLowerCase() === 'bearer'
  );
}
