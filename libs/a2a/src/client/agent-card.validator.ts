import { AGENT_CARD_SCHEMA, type FieldSchema, type MessageSchema } from '../card/signing/card-payload.schema.js';

/** Problems reported at most; a card with more is as invalid. */
const MAX_PROBLEMS = 8;

/**
 * What makes `card` not an A2A 1.0 AgentCard, checked against the proto's schema the card signer and verifier use
 * (`card-payload.schema.ts`): REQUIRED fields present (spec §5.7), every known field of its JSON type, lists as lists,
 * maps as objects, at most one member of each oneof; and at least one interface, since a card without any cannot be
 * called. Unknown fields are ignored (spec §5.7). The walk follows the schema, so its depth is the schema's whatever
 * the input's. Empty when the card is valid.
 */
export function agentCardProblems(card: unknown): string[] {
  const problems: string[] = [];
  checkMessage(AGENT_CARD_SCHEMA, card, '', problems);
  const interfaces = (card as { supportedInterfaces?: unknown } | null)?.supportedInterfaces;
  if (Array.isArray(interfaces) && interfaces.length === 0)
    problems.push('supportedInterfaces must list at least one interface');
  return problems.slice(0, MAX_PROBLEMS);
}

function checkMessage(schema: MessageSchema, value: unknown, path: string, problems: string[]): void {
  if (problems.length >= MAX_PROBLEMS) return;
  if (!isObject(value)) {
    problems.push(`${path || 'the card'} must be a JSON object`);
    return;
  }
  const oneofs = new Set<string>();
  for (const field of schema) {
    const given = (value as Record<string, unknown>)[field.name];
    const at = path ? `${path}.${field.name}` : field.name;
    if (given === undefined || given === null) {
      if (field.presence === 'required') problems.push(`${at} is required`);
      continue;
    }
    if (field.oneof !== undefined) {
      if (oneofs.has(field.oneof)) problems.push(`${path || 'the card'} sets more than one ${field.oneof}`);
      oneofs.add(field.oneof);
    }
    if (field.shape === 'repeated') {
      if (!Array.isArray(given)) problems.push(`${at} must be a list`);
      else given.forEach((item, index) => checkSingle(field, item, `${at}[${index}]`, problems));
    } else if (field.shape === 'map') {
      if (!isObject(given)) problems.push(`${at} must be an object`);
      else for (const [key, item] of Object.entries(given)) checkSingle(field, item, `${at}.${key}`, problems);
    } else {
      checkSingle(field, given, at, problems);
    }
  }
}

function checkSingle(field: FieldSchema, value: unknown, path: string, problems: string[]): void {
  if (problems.length >= MAX_PROBLEMS) return;
  switch (field.type) {
    case 'string':
      if (typeof value !== 'string') problems.push(`${path} must be a string`);
      return;
    case 'bool':
      if (typeof value !== 'boolean') problems.push(`${path} must be true or false`);
      return;
    case 'struct':
      if (!isObject(value)) problems.push(`${path} must be an object`);
      return;
    default:
      checkMessage(field.type, value, path, problems);
  }
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
