import { A2aMessages } from '../a2a.messages.js';
import { A2aError, type FieldViolation } from '../errors/a2a.error.js';
import { InvalidSkillClassError } from '../errors/skill-bootstrap.errors.js';
import { textOf } from '../task/message-text.js';
import type { AgentSkillOptions } from './agent-skill.decorator.js';
import { invalidInputContent, type SkillInput, type SkillInputResult } from './skill-input.js';
import type { InputValidationError, SkillInputPackages } from './skill-input.packages.js';
import { requireInput } from './skill-events.helpers.js';

/** Most violations reported for one input; a last one says how many more there were. */
export const MAX_INPUT_VIOLATIONS = 100;

const INVALID_INPUT_MODES = new Set(['reject', 'input-required']);

/** Whether `options` declare a typed input; throws InvalidSkillClassError for input options that make no sense. */
export function declaresInput(className: string, options: AgentSkillOptions): boolean {
  const problem = (text: string) => new InvalidSkillClassError(A2aMessages.invalidSkillMetadata(className, text));
  if (options.input === undefined) {
    for (const field of ['onInvalidInput', 'parseText', 'invalidInputMessage'] as const) {
      if (options[field] !== undefined) throw problem(`"${field}" needs "input" (a class-validator DTO class)`);
    }
    return false;
  }
  if (typeof options.input !== 'function') throw problem('"input" must be a class-validator DTO class');
  if (options.onInvalidInput !== undefined && !INVALID_INPUT_MODES.has(options.onInvalidInput)) {
    throw problem(
      `"onInvalidInput" must be 'reject' or 'input-required', not ${JSON.stringify(options.onInvalidInput)}`,
    );
  }
  for (const field of ['parseText', 'invalidInputMessage'] as const) {
    if (options[field] !== undefined && typeof options[field] !== 'function')
      throw problem(`"${field}" must be a function`);
  }
  return true;
}

/**
 * Compiles a skill's typed input at bootstrap: its JSON Schema, and how a message's input is read (first data part,
 * else `parseText(text)`, else `{}`), transformed and validated.
 */
export function compileSkillInput(
  className: string,
  options: AgentSkillOptions,
  packages: SkillInputPackages,
): SkillInput {
  const type = options.input as new () => object;
  const schema = inputSchemaOf(type, packages.schemas());
  if (!schema) {
    throw new InvalidSkillClassError(
      A2aMessages.invalidSkillMetadata(
        className,
        `the input class ${type.name} has no class-validator decorators, so every input would be refused`,
      ),
    );
  }
  const { parseText, invalidInputMessage } = options;
  return {
    mode: options.onInvalidInput ?? 'reject',
    schema,
    async read(message, context): Promise<SkillInputResult> {
      const dataPart = message.parts.find((part) => part.data !== undefined);
      const given = dataPart
        ? dataPart.data
        : parseText
          ? await parseText(textOf(message), { message, ...context })
          : {};
      if (typeof given !== 'object' || given === null || Array.isArray(given)) {
        return { valid: false, violations: [{ field: '', description: 'The input must be a JSON object' }], given };
      }
      let instance: object;
      try {
        instance = packages.toInstance(type, given);
      } catch {
        return {
          valid: false,
          violations: [{ field: '', description: `The input cannot be read as ${type.name}` }],
          given,
        };
      }
      const errors = await packages.validate(instance);
      return errors.length === 0
        ? { valid: true, value: instance }
        : { valid: false, violations: violationsOf(errors), given };
    },
    invalidEvent({ violations, given }) {
      const question =
        invalidInputMessage?.(violations, given) ?? A2aMessages.invalidInputQuestion(describeViolations(violations));
      return requireInput(invalidInputContent(question, violations));
    },
  };
}

/** The InvalidParams error of an input refused in mode `'reject'`: every violation in its `google.rpc.BadRequest`. */
export function invalidInputError(skillId: string, violations: FieldViolation[]): A2aError {
  return new A2aError(
    'InvalidParams',
    A2aMessages.invalidSkillInput(skillId, describeViolations(violations)),
    { skillId },
    violations,
  );
}

function describeViolations(violations: readonly FieldViolation[]): string {
  return violations.map((v) => (v.field ? `${v.field}: ${v.description}` : v.description)).join('; ');
}

/**
 * One field violation per failed constraint, in the order class-validator reports them, with the path inside the
 * input: properties dotted, array items in brackets (`passengers[0].name`). Walked with a stack, not recursion: a
 * self-referencing DTO nests as deep as the data (which ingress bounds, but the walk need not rely on it).
 */
export function violationsOf(errors: readonly InputValidationError[], limit = MAX_INPUT_VIOLATIONS): FieldViolation[] {
  const violations: FieldViolation[] = [];
  let omitted = 0;
  const pending: Array<{ error: InputValidationError; path: string }> = errors
    .map((error) => ({ error, path: error.property }))
    .reverse();
  while (pending.length > 0) {
    const { error, path } = pending.pop()!;
    for (const description of Object.values(error.constraints ?? {})) {
      if (violations.length < limit) violations.push({ field: path, description });
      else omitted++;
    }
    const children = error.children ?? [];
    for (let i = children.length - 1; i >= 0; i--)
      pending.push({ error: children[i], path: childPath(path, error.value, children[i].property) });
  }
  if (omitted > 0)
    violations.push({ field: '', description: `${omitted} more violation${omitted > 1 ? 's' : ''} not listed` });
  return violations;
}

function childPath(path: string, parentValue: unknown, property: string): string {
  if (Array.isArray(parentValue) && /^\d+$/.test(property)) return `${path}[${property}]`;
  return path ? `${path}.${property}` : property;
}

/**
 * The JSON Schema of `type` as one self-contained document: the class's schema, closed (`additionalProperties: false`,
 * as validation forbids undeclared properties), with every class it references, transitively, in `$defs`. Undefined
 * when class-validator knows nothing of the class. Classes are named by their `name`, so two DTO classes of one name
 * would share one schema.
 */
export function inputSchemaOf(
  type: { name: string },
  all: Record<string, Record<string, unknown>>,
): Record<string, unknown> | undefined {
  const root = all[type.name];
  if (!root) return undefined;
  const defs: Record<string, unknown> = {};
  const pending = refsOf(root);
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (Object.hasOwn(defs, name) || !Object.hasOwn(all, name)) continue;
    defs[name] = closed(all[name]);
    pending.push(...refsOf(all[name]));
  }
  const schema: Record<string, unknown> = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: type.name,
    ...closed(root),
  };
  if (Object.keys(defs).length > 0) schema.$defs = defs;
  // Plain JSON: the card is served as JSON, signed, and sent over gRPC as a google.protobuf.Struct.
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

function closed(schema: Record<string, unknown>): Record<string, unknown> {
  return schema.type === 'object' ? { ...schema, additionalProperties: false } : schema;
}

/** The class names a schema's `$ref`s point to. */
function refsOf(schema: unknown): string[] {
  const names: string[] = [];
  const pending: unknown[] = [schema];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== 'object' || value === null) continue;
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith('#/$defs/'))
        names.push(child.slice('#/$defs/'.length));
      else pending.push(child);
    }
  }
  return names;
}
