import { A2A_EXTENSION_METADATA } from '../a2a.constants.js';
import type { JsonObject } from '../protocol/a2a.types.js';

/** An extension the agent supports (spec §4.6): an entry of the card's `capabilities.extensions`. */
export interface A2aExtensionDeclaration {
  /**
   * The extension's identifier, e.g. `https://example.com/ext/geolocation/v1`. It should carry the version: a breaking
   * change needs a new URI, and a client asking for another version gets nothing (spec §4.6.3).
   */
  uri: string;
  /**
   * Clients must activate it (`A2A-Extensions`) or are refused with ExtensionSupportRequired (spec §4.6.3): declared in
   * option `extensions`, on every operation; with `@A2aExtension` on a skill, on the messages routed to that skill.
   * Default false.
   */
  required?: boolean;
  /** How this agent uses the extension. */
  description?: string;
  /** Extension-specific configuration, published as is (a JSON object). */
  params?: JsonObject;
}

/**
 * Declares an extension a skill supports: it joins the card's `capabilities.extensions`, and the skill's
 * `context.extensions` lists it whenever a call activates it. Stack one per extension on an `@AgentSkill` class;
 * extensions of the whole agent go in option `extensions` instead.
 *
 * ```ts
 * @A2aExtension({ uri: 'https://example.com/ext/geolocation/v1', description: 'Reads the caller position from metadata' })
 * @AgentSkill({ id: 'nearby', … })
 * export class NearbySkill extends A2aSkillHandler { … }
 * ```
 */
export function A2aExtension(declaration: A2aExtensionDeclaration): ClassDecorator {
  // Not SetMetadata: that would keep only the last of several stacked decorators. Decorators apply bottom-up, so each
  // one prepends, and the list reads in source order.
  return (target) => {
    const declared =
      (Reflect.getOwnMetadata(A2A_EXTENSION_METADATA, target) as A2aExtensionDeclaration[] | undefined) ?? [];
    Reflect.defineMetadata(A2A_EXTENSION_METADATA, [declaration, ...declared], target);
  };
}
