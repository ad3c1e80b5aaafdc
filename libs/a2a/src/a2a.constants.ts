/** Reflect-metadata key of `@AgentSkill`. */
export const AGENT_SKILL_METADATA = 'nestjs-a2a:agent-skill';

/** Reflect-metadata key of `@A2aExtension`: the list of a skill class's extension declarations. */
export const A2A_EXTENSION_METADATA = 'nestjs-a2a:extensions';

/** The service parameter that activates extensions and, in a response, echoes those activated (spec §4.6, §14.2.2). */
export const A2A_EXTENSIONS_HEADER = 'A2A-Extensions';

/** Message or request metadata key that names the skill a new message is for. */
export const SKILL_ID_METADATA_KEY = 'nestjs-a2a/skillId';

/** The protocol versions this module serves. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = ['1.0'];
/** The A2A protocol version this module implements (`1.0`), as its card's interfaces advertise it. */
export const PROTOCOL_VERSION = '1.0';

/** Default bound of a task's history (`limits.maxHistoryLength`). */
export const DEFAULT_MAX_HISTORY = 1000;

/** Media type of HTTP+JSON requests, responses and webhook bodies (§11.1). */
export const A2A_JSON_MEDIA_TYPE = 'application/a2a+json';
