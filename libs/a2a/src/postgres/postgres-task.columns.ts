import type { Task, TaskState } from '../protocol/a2a.types.js';

/** `state` holds the protocol's numbers (a2a.proto `TaskState`), so terminal states are `IN (3, 4, 5, 7)` in SQL. */
const STATE_NUMBERS: Readonly<Record<TaskState, number>> = {
  TASK_STATE_UNSPECIFIED: 0,
  TASK_STATE_SUBMITTED: 1,
  TASK_STATE_WORKING: 2,
  TASK_STATE_COMPLETED: 3,
  TASK_STATE_FAILED: 4,
  TASK_STATE_CANCELED: 5,
  TASK_STATE_INPUT_REQUIRED: 6,
  TASK_STATE_REJECTED: 7,
  TASK_STATE_AUTH_REQUIRED: 8,
};

/** The state's number; -1 (no task has it) for a string that is no state. */
export function stateNumber(state: TaskState): number {
  return STATE_NUMBERS[state] ?? -1;
}

/** PostgreSQL's earliest timestamptz (4714-11-24 BC) and JavaScript's latest Date, in ms. */
const EARLIEST_MS = -210_866_803_200_000;
const LATEST_MS = 8_640_000_000_000_000;

/** A page token's timestamp for a task without one: below every instant a task is stored with. */
export const NO_TIMESTAMP_MS = EARLIEST_MS - 1;

/**
 * The status timestamp in ms, as `status_ts` holds it and page tokens carry it; NO_TIMESTAMP_MS when the task has
 * none, or none that parses (stored as `-infinity`: such a task lists last and passes every timestamp filter).
 */
export function statusMs(task: Task): number {
  const ms = Date.parse(task.status.timestamp ?? '');
  return Number.isNaN(ms) ? NO_TIMESTAMP_MS : Math.max(ms, EARLIEST_MS);
}

/**
 * The parameter for `COALESCE(to_timestamp($n::float8 / 1000), '-infinity')`: null for NO_TIMESTAMP_MS and below
 * (a page token's number may be anything), else the ms within what PostgreSQL stores.
 */
export function timestampParam(ms: number): number | null {
  return ms < EARLIEST_MS ? null : Math.min(ms, LATEST_MS);
}

/** A `status_ts` value from a ms parameter (see `timestampParam`). */
export const statusTs = (param: string) => `COALESCE(to_timestamp(${param}::float8 / 1000), '-infinity')`;

/** Code units PostgreSQL text cannot hold exactly (NUL; lone surrogates, which UTF-8 cannot encode), and the escape. */
const UNSTORABLE = /[\u0000\u0001]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * A string as a key column (id, tenant, owner, context id) holds it. Requests may carry any string, and a key must
 * neither fail to store nor collide with another, so each unstorable code unit becomes U+0001 and its 4 hex digits.
 * Keys are compared, and read back only where no JSON holds the exact string (a message id's task).
 */
export function textKey(value: string): string {
  return value.replace(UNSTORABLE, (unit) => `\u0001${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The string a key column holds, as it was before {@link textKey} (U+0001 is itself escaped, so this is exact). */
export function untextKey(key: string): string {
  return key.replace(/\u0001([0-9a-f]{4})/g, (_escape, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
