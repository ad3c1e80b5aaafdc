import { A2aError, type FieldViolation } from '../../errors/a2a.error.js';

type QueryFieldType = 'string' | 'integer' | 'boolean';

/** The query parameters of a GET route and the proto type each decodes to; other parameters are ignored (R3). */
export type QuerySchema = Readonly<Record<string, QueryFieldType>>;

export const GET_TASK_QUERY: QuerySchema = { historyLength: 'integer' };

export const LIST_TASKS_QUERY: QuerySchema = {
  contextId: 'string',
  status: 'string',
  pageSize: 'integer',
  pageToken: 'string',
  historyLength: 'integer',
  statusTimestampAfter: 'string',
  includeArtifacts: 'boolean',
};

/**
 * Decodes query parameters into the JSON values of the request message (§11.5: decimal numbers, `true`/`false`), so the
 * shared validator checks ranges and enums as for any other binding. An empty value counts as unset.
 *
 * @throws A2aError `InvalidParams` for a value that is not of its field's type, or a scalar given more than once.
 */
export function parseRestQuery(query: Readonly<Record<string, unknown>>, schema: QuerySchema): Record<string, string | number | boolean> {
  const decoded: Record<string, string | number | boolean> = {};
  const violations: FieldViolation[] = [];
  for (const [field, type] of Object.entries(schema)) {
    const raw = query[field];
    if (raw === undefined || raw === '') continue;
    if (typeof raw !== 'string') {
      violations.push({ field, description: 'Must be given once, as a single value' });
      continue;
    }
    const value = decode(raw, type);
    if (value === undefined) violations.push({ field, description: type === 'integer' ? 'Must be a decimal integer' : 'Must be true or false' });
    else decoded[field] = value;
  }
  if (violations.length > 0) throw A2aError.invalidParams(violations);
  return decoded;
}

function decode(raw: string, type: QueryFieldType): string | number | boolean | undefined {
  if (type === 'string') return raw;
  if (type === 'integer') return /^[+-]?\d+$/.test(raw) ? Number(raw) : undefined;
  return raw === 'true' ? true : raw === 'false' ? false : undefined;
}
