import { Injectable } from '@nestjs/common';
import { A2aMessages } from '../a2a.messages.js';
import { canonicalJson } from '../json/jcs.js';
import { A2aError } from '../errors/a2a.error.js';
import { ConflictingExtensionError, InvalidExtensionError } from '../errors/extension-bootstrap.errors.js';
import type { AgentExtension } from '../protocol/a2a.types.js';
import { copyData } from '../store/data-copy.js';
import type { A2aExtensionDeclaration } from './a2a-extension.decorator.js';

/** The skill whose class declares an extension with `@A2aExtension`. */
export interface DeclaringSkill {
  readonly id: string;
  readonly className: string;
}

/** What a call activated when the agent declares none, or the client asked for none: shared, never mutated. */
const NONE: readonly string[] = Object.freeze([]);

/** Clients list URIs comma-separated in one header (spec §4.6): a URI with a comma or whitespace could never be activated. */
const USABLE_URI = /^[^\s,]+$/;

interface Declared {
  readonly extension: AgentExtension;
  /** What two declarations of one URI must agree on, canonical. */
  readonly fields: string;
  readonly declaredBy: string;
}

interface SkillExtensions {
  readonly uris: Set<string>;
  readonly required: string[];
}

/**
 * The extensions the agent declares (spec §4.6), filled at bootstrap by the ExtensionExplorer: the card's
 * `capabilities.extensions`, and per call, which of the client's requested URIs are activated and whether a required
 * one is missing. A URI may be declared more than once (by the module and by skills) only identically.
 */
@Injectable()
export class ExtensionRegistry {
  private readonly declared = new Map<string, Declared>();
  private readonly moduleWide = new Set<string>();
  private readonly moduleRequired: string[] = [];
  private readonly skills = new Map<string, SkillExtensions>();

  /**
   * Records `declaration`: the whole agent's (option `extensions`) without `skill`, else that skill's.
   *
   * @throws InvalidExtensionError for an unusable declaration; ConflictingExtensionError when its URI is already
   * declared with other fields.
   */
  declare(declaration: A2aExtensionDeclaration, skill?: DeclaringSkill): void {
    const declaredBy = skill ? `@A2aExtension on ${skill.className}` : 'option extensions';
    const extension = toAgentExtension(declaration, declaredBy);
    const fields = canonicalJson({ ...extension, uri: undefined });
    const earlier = this.declared.get(extension.uri);
    if (earlier && earlier.fields !== fields) {
      throw new ConflictingExtensionError(
        A2aMessages.conflictingExtension(extension.uri, earlier.declaredBy, declaredBy),
      );
    }
    if (!earlier) this.declared.set(extension.uri, { extension, fields, declaredBy });
    if (!skill) {
      if (!this.moduleWide.has(extension.uri) && extension.required) this.moduleRequired.push(extension.uri);
      this.moduleWide.add(extension.uri);
      return;
    }
    let own = this.skills.get(skill.id);
    if (!own) this.skills.set(skill.id, (own = { uris: new Set(), required: [] }));
    if (!own.uris.has(extension.uri) && extension.required) own.required.push(extension.uri);
    own.uris.add(extension.uri);
  }

  /** The card's `capabilities.extensions`, in declaration order (module-wide first); undefined when there are none. */
  cardExtensions(): AgentExtension[] | undefined {
    return this.declared.size === 0 ? undefined : [...this.declared.values()].map((d) => copyData(d.extension));
  }

  /**
   * The URIs a call activates: those the client requested (`A2A-Extensions`) that the agent declares, in the client's
   * order, once each; the others are ignored (spec §4.6.3), never mapped to another version.
   *
   * @throws A2aError `ExtensionSupportRequired` when a module-wide required extension is not among them (spec §4.6.3).
   */
  negotiate(requested: readonly string[]): readonly string[] {
    const activated =
      requested.length === 0 || this.declared.size === 0
        ? NONE
        : [...new Set(requested)].filter((uri) => this.declared.has(uri));
    if (this.moduleRequired.length === 0) return activated;
    const missing = this.moduleRequired.filter((uri) => !activated.includes(uri));
    if (missing.length > 0)
      throw new A2aError('ExtensionSupportRequired', A2aMessages.extensionsRequired(missing), {
        extensions: missing.join(','),
      });
    return activated;
  }

  /**
   * For a message routed to skill `skillId`, before anything is stored.
   *
   * @throws A2aError `ExtensionSupportRequired` when an extension the skill requires is not in `activated` (spec §4.6.3).
   */
  requireForSkill(skillId: string, activated: readonly string[]): void {
    const missing = this.skills.get(skillId)?.required.filter((uri) => !activated.includes(uri));
    if (missing?.length) {
      throw new A2aError('ExtensionSupportRequired', A2aMessages.skillExtensionsRequired(skillId, missing), {
        extensions: missing.join(','),
        skillId,
      });
    }
  }

  /** Of the call's activated extensions, those the skill may use: the module's and its own. */
  forSkill(skillId: string, activated: readonly string[]): readonly string[] {
    if (activated.length === 0) return NONE;
    const own = this.skills.get(skillId)?.uris;
    return Object.freeze(activated.filter((uri) => this.moduleWide.has(uri) || own?.has(uri) === true));
  }
}

/** The card's entry for a declaration, checked: the declaration is the app's, but a bad one must fail at bootstrap. */
function toAgentExtension(declaration: A2aExtensionDeclaration, declaredBy: string): AgentExtension {
  const invalid = (problem: string) => new InvalidExtensionError(A2aMessages.invalidExtension(declaredBy, problem));
  if (typeof declaration !== 'object' || declaration === null)
    throw invalid('a declaration must be an object { uri, required?, description?, params? }');
  const { uri, required, description, params } = declaration;
  if (typeof uri !== 'string' || !USABLE_URI.test(uri)) {
    throw invalid(
      `"uri" must be a non-empty string without spaces or commas (clients list URIs comma-separated in A2A-Extensions); it is ${JSON.stringify(uri)}`,
    );
  }
  if (required !== undefined && typeof required !== 'boolean') throw invalid(`"required" of ${uri} must be a boolean`);
  if (description !== undefined && typeof description !== 'string')
    throw invalid(`"description" of ${uri} must be a string`);
  const extension: AgentExtension = {
    uri,
    ...(description === undefined ? {} : { description }),
    required: required === true,
  };
  if (params === undefined) return extension;
  const notJsonObject = () => invalid(`"params" of ${uri} must be a JSON object`);
  if (typeof params !== 'object' || params === null || Array.isArray(params)) throw notJsonObject();
  try {
    // Also what the card's signature and its gRPC form need: plain JSON, at most 64 levels deep.
    canonicalJson(params);
  } catch {
    throw notJsonObject();
  }
  return { ...extension, params: copyData(params) };
}
