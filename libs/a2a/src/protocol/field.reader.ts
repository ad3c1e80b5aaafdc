import { ALL_TASK_STATES } from '../task/task-states.js';
import type { FieldViolation } from '../errors/a2a.error.js';
import { tooDeepAt } from '../json/json-depth.js';
import type { JsonObject, JsonValue, TaskState } from './a2a.types.js';

const INT32_MAX = 2_147_483_647;
const TASK_STATES: ReadonlySet<string> = new Set(ALL_TASK_STATES);
// Standard or URL-safe alphabet (not mixed), padding optional; lengths are checked separately.
const BASE64 = /^(?:[A-Za-z0-9+/]*|[A-Za-z0-9_-]*)={0,2}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/i;

/** Shared by every reader of one request. */
export interface ReadState {
  readonly violations: FieldViolation[];
  readonly maxJsonDepth: number;
}

/** Sets `target[key]` only when the value is present, so unset optional fields stay absent (spec §5.7). */
export function assign<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void {
  if (value !== undefined) target[key] = value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads the fields of one JSON object, recording a violation (with its full path, e.g. `message.parts[0].raw`) for
 * each bad one and returning undefined for it, so reading carries on and every problem is reported.
 */
export class FieldReader {
  private readonly fields: Record<string, unknown>;
  /** Fields given under both names, reported when read (unknown fields are ignored either way). */
  private readonly givenTwice: Map<string, string> | undefined;

  constructor(
    fields: Record<string, unknown>,
    private readonly path: string,
    private readonly state: ReadState,
  ) {
    ({ fields: this.fields, givenTwice: this.givenTwice } = withJsonNames(fields));
  }

  violation(name: string, description: string): void {
    this.state.violations.push({ field: this.pathOf(name), description });
  }

  /** The raw value; `null` counts as unset (ProtoJSON). */
  value(name: string): unknown {
    const protoName = this.givenTwice?.get(name);
    if (protoName !== undefined) {
      this.givenTwice!.delete(name);
      this.violation(name, `Given twice, as ${name} and as ${protoName}; send one of them`);
    }
    const value = Object.hasOwn(this.fields, name) ? this.fields[name] : undefined;
    return value === null ? undefined : value;
  }

  /** A REQUIRED identifier: a non-empty string. Returns '' after recording the violation. */
  id(name: string): string {
    const value = this.value(name);
    if (typeof value === 'string' && value !== '') return value;
    this.violation(name, value === undefined || value === '' ? 'Required: a non-empty string' : 'Must be a string');
    return '';
  }

  string(name: string, { keepEmpty = false } = {}): string | undefined {
    const value = this.value(name);
    if (value === undefined) return undefined;
    if (typeof value !== 'string') return this.invalid(name, 'Must be a string');
    return value === '' && !keepEmpty ? undefined : value;
  }

  boolean(name: string): boolean | undefined {
    const value = this.value(name);
    if (value === undefined || typeof value === 'boolean') return value;
    return this.invalid(name, 'Must be true or false');
  }

  /** An int32 field, within `min` and `max` (default: the int32 maximum). */
  integer(name: string, { min, max = INT32_MAX }: { min: number; max?: number }): number | undefined {
    const value = this.value(name);
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      return this.invalid(name, `Must be an integer from ${min} to ${max}`);
    }
    return value;
  }

  /** A `google.protobuf.Struct` (e.g. `metadata`): any JSON object within the depth limit. */
  struct(name: string): JsonObject | undefined {
    const value = this.value(name);
    if (value === undefined) return undefined;
    if (!isPlainObject(value)) return this.invalid(name, 'Must be a JSON object');
    return this.withinDepth(name, value) as JsonObject | undefined;
  }

  /** A `google.protobuf.Value` (a part's `data`): any JSON value within the depth limit. */
  json(name: string): JsonValue | undefined {
    const value = this.value(name);
    return value === undefined ? undefined : (this.withinDepth(name, value) as JsonValue | undefined);
  }

  stringList(name: string): string[] | undefined {
    const list = this.array(name);
    if (!list) return undefined;
    list.forEach((item, index) => {
      if (typeof item !== 'string') this.violation(`${name}[${index}]`, 'Must be a string');
    });
    return list.filter((item): item is string => typeof item === 'string');
  }

  /** A nested message, read by a child reader. */
  object(name: string, { required = false } = {}): FieldReader | undefined {
    const value = this.value(name);
    if (value === undefined) {
      if (required) this.violation(name, 'Required');
      return undefined;
    }
    if (!isPlainObject(value)) return this.invalid(name, 'Must be a JSON object');
    return new FieldReader(value, this.pathOf(name), this.state);
  }

  /** A repeated message field, as one reader per element. */
  objects(name: string, options: { required?: boolean; nonEmpty?: boolean } = {}): FieldReader[] | undefined {
    return this.array(name, options)?.flatMap((item, index) => {
      const element = `${name}[${index}]`;
      if (isPlainObject(item)) return [new FieldReader(item, this.pathOf(element), this.state)];
      this.violation(element, 'Must be a JSON object');
      return [];
    });
  }

  array(name: string, { required = false, nonEmpty = false } = {}): unknown[] | undefined {
    const value = this.value(name);
    if (value === undefined) {
      if (required) this.violation(name, nonEmpty ? 'Required: at least one element' : 'Required');
      return undefined;
    }
    if (!Array.isArray(value)) return this.invalid(name, 'Must be an array');
    if (nonEmpty && value.length === 0) return this.invalid(name, 'At least one element is required');
    return value;
  }

  taskState(name: string): TaskState | undefined {
    const value = this.value(name);
    if (value === undefined) return undefined;
    if (typeof value === 'string' && TASK_STATES.has(value)) return value as TaskState;
    // v0.3 spelled states in kebab case ("input-required").
    const v1Name = typeof value === 'string' ? `TASK_STATE_${value.toUpperCase().replace(/-/g, '_')}` : '';
    if (TASK_STATES.has(v1Name)) return this.invalid(name, `"${value}" is a v0.3 state name; A2A v1.0 uses ${v1Name}`);
    return this.invalid(name, `Must be one of ${ALL_TASK_STATES.join(', ')}`);
  }

  /** A `google.protobuf.Timestamp` (RFC 3339), returned in UTC with `Z`. */
  timestamp(name: string): string | undefined {
    const value = this.value(name);
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !TIMESTAMP.test(value) || Number.isNaN(Date.parse(value))) {
      return this.invalid(name, 'Must be an ISO 8601 timestamp, e.g. 2026-01-05T10:15:00.000Z');
    }
    return new Date(value).toISOString();
  }

  /** `bytes`: standard or URL-safe base64, returned as the padded standard form ProtoJSON writes. */
  base64(name: string): string | undefined {
    const value = this.value(name);
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !isBase64(value))
      return this.invalid(name, 'Must be base64 (standard or URL-safe)');
    return Buffer.from(value, 'base64').toString('base64');
  }

  url(name: string, { required = false, httpOnly = false } = {}): string | undefined {
    const value = this.value(name);
    if (value === undefined || (required && value === '')) {
      if (required) this.violation(name, 'Required: an absolute URL');
      return undefined;
    }
    if (typeof value !== 'string' || !URL.canParse(value)) return this.invalid(name, 'Must be an absolute URL');
    if (httpOnly && !/^https?:$/.test(new URL(value).protocol))
      return this.invalid(name, 'Must be an http or https URL');
    return value;
  }

  private withinDepth(name: string, value: unknown): unknown {
    const max = this.state.maxJsonDepth;
    const at = tooDeepAt(value, max);
    if (at === undefined) return value;
    return this.invalid(name, `Nested deeper than ${max} levels (limits.maxJsonDepth), at ${name}${at}`);
  }

  private pathOf(name: string): string {
    if (name === '') return this.path;
    return this.path ? `${this.path}.${name}` : name;
  }

  private invalid(name: string, description: string): undefined {
    this.violation(name, description);
    return undefined;
  }
}

/**
 * `fields` with every proto field name (`message_id`) under its JSON name (`messageId`), as ProtoJSON parsers accept
 * both; the object itself when it has none, which is the usual case. Where both names are given, the JSON name's
 * value is kept and the pair is returned in `givenTwice` (JSON name → proto name).
 */
function withJsonNames(fields: Record<string, unknown>): {
  fields: Record<string, unknown>;
  givenTwice?: Map<string, string>;
} {
  let renamed: Record<string, unknown> | undefined;
  let givenTwice: Map<string, string> | undefined;
  for (const key in fields) {
    if (!key.includes('_')) continue;
    renamed ??= { ...fields };
    const name = jsonNameOf(key);
    if (Object.hasOwn(fields, name)) (givenTwice ??= new Map()).set(name, key);
    else renamed[name] = fields[key];
    delete renamed[key];
  }
  return { fields: renamed ?? fields, givenTwice };
}

/** protoc's JSON name of a field: each underscore dropped and the letter after it capitalized. */
function jsonNameOf(protoName: string): string {
  return protoName.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}

function isBase64(value: string): boolean {
  if (!BASE64.test(value)) return false;
  const unpadded = value.replace(/=+$/, '');
  if (unpadded.length !== value.length && value.length % 4 !== 0) return false;
  return unpadded.length % 4 !== 1;
}
