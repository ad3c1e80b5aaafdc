import type { Type } from '@nestjs/common';
import type { FieldViolation } from '../errors/a2a.error.js';
import type { Message, Task } from '../protocol/a2a.types.js';
import type { AgentContent, StatusEvent } from './skill-event.js';

/**
 * The card extension that publishes the JSON Schema of every skill's typed input: its `params` map a skill id to a
 * self-contained JSON Schema (draft 2020-12; nested classes in its own `$defs`, referenced as `#/$defs/<Class>`).
 */
export const SKILL_INPUT_SCHEMA_EXTENSION_URI = 'https://nestjs-a2a.dev/extensions/skill-input-schema/v1';

/**
 * What happens to a message whose input does not validate:
 * - `'reject'` (default): InvalidParams (JSON-RPC -32602, HTTP 400, gRPC INVALID_ARGUMENT) listing every violation in
 *   a `google.rpc.BadRequest`, before any task exists; nothing is stored.
 * - `'input-required'`: the task is created (or, on a follow-up, continued) and goes INPUT_REQUIRED with the violations
 *   as a data part ({@link InvalidInputData}); the skill is not called. A follow-up message on that task with corrected
 *   input runs the skill.
 */
export type InvalidInputMode = 'reject' | 'input-required';

/** What `parseText` gets besides the text: the message it came from and, on a follow-up, the task's earlier messages. */
export interface ParseTextContext {
  readonly message: Message;
  /** Earlier messages of the task, oldest first (empty for a new task). */
  readonly history: readonly Message[];
  /** The task before this message; undefined for a new task. */
  readonly task?: Readonly<Task>;
}

/** The typed-input options of `@AgentSkill` (see `AgentSkillOptions`). */
export interface SkillInputOptions<TInput = unknown> {
  /**
   * A class-validator / class-transformer DTO class: the skill's `context.input` is an instance of it, transformed and
   * validated, read from the message's first data part or, when it has none, from `parseText`. Needs the optional peers
   * `class-validator`, `class-transformer` and `class-validator-jsonschema`; its JSON Schema is published in the card.
   */
  input?: Type<TInput>;
  /** What an invalid input gets: see {@link InvalidInputMode}. Default `'reject'`. */
  onInvalidInput?: InvalidInputMode;
  /**
   * The plain object to validate when the message has no data part (a plain-text request). Without it, such a message's
   * input is `{}`. Return anything: what is not an object is a violation.
   */
  parseText?: (text: string, context: ParseTextContext) => unknown;
  /**
   * With `onInvalidInput: 'input-required'`: the question the INPUT_REQUIRED status asks, from the violations and the
   * plain input that failed (what the data part or `parseText` gave). The violations data part is added after it.
   * Default: a sentence listing the violations.
   */
  invalidInputMessage?: (violations: readonly FieldViolation[], given: unknown) => string;
}

/**
 * The data part of an INPUT_REQUIRED status set by an invalid input: the same field violations as the
 * `google.rpc.BadRequest` detail of a rejected one (paths inside the input, e.g. `passengers[0].name`).
 */
export type InvalidInputData = { fieldViolations: Array<{ field: string; description: string }> };

/** The outcome of reading one message's input: the validated instance, or why there is none. */
export type SkillInputResult =
  | { readonly valid: true; readonly value: unknown }
  | { readonly valid: false; readonly violations: FieldViolation[]; readonly given: unknown };

/** A skill's typed input, compiled at bootstrap: how the engine reads, judges and publishes it. */
export interface SkillInput {
  readonly mode: InvalidInputMode;
  /** The input's JSON Schema, as published in the card. */
  readonly schema: Record<string, unknown>;
  /** Reads and validates the input of `message`. */
  read(message: Message, context: Omit<ParseTextContext, 'message'>): Promise<SkillInputResult>;
  /** The INPUT_REQUIRED status event of an invalid input (mode `'input-required'`). */
  invalidEvent(result: Extract<SkillInputResult, { valid: false }>): StatusEvent;
}

/** The status message of an INPUT_REQUIRED set by an invalid input: the question, then the violations as data. */
export function invalidInputContent(question: string, violations: FieldViolation[]): AgentContent {
  const data: InvalidInputData = {
    fieldViolations: violations.map(({ field, description }) => ({ field, description })),
  };
  return [{ text: question }, { data, mediaType: 'application/json' }];
}
