import { A2aError, type FieldViolation } from '../../errors/a2a.error.js';

type QueryFieldType = 'string' | 'integer' | 'boolean';

/** The query parameters of a GET route and the proto type each decodes to; other parameters are ignored (spec §5.7). */
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

export const LIST_PUSH_CONFIGS_QUERY: QuerySchema = { pageSize: 'integer', pageToken: 'string' };

/** The proto name of each query field (`historyLength` → `history_length`). */
const PROTO_NAMES: ReadonlyMap<string, string> = new Map(
  [
    ...new Set([
      ...Object.keys(GET_TASK_QUERY),
      ...Object.keys(LIST_TASKS_QUERY),
      ...Object.keys(LIST_PUSH_CONFIGS_QUERY),
    ]),
  ].map((name) => [name, name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)]),
);

/**
 * Decodes query parameters into the JSON values of the request message (§11.5: decimal numbers, `true`/`false`), so the
 * shared validator checks ranges and enums as for any other binding. A parameter may be named by its JSON name
 * (`historyLength`) or its proto name (`history_length`), as ProtoJSON allows. An empty value counts as unset.
 *
 * @throws A2aError `InvalidParams` for a value that is not of its field's type, or a scalar given more than once
 * (under either name).
 */
export function parseRestQuery(
  query: Readonly<Record<string, unknown>>,
  schema: QuerySchema,
): Record<string, string | number | boolean> {
  const decoded: Record<string, string | number | boolean> = {};
  const violations: FieldViolation[] = [];
  for (const [field, type] of Object.entries(schema)) {
    const raw = valueOf(query, field, violations);
    if (raw === undefined || raw === '') continue;
    if (typeof raw !== 'string') {
      violations.push({ field, description: 'Must be given once, as a single value' });
      continue;
    }
    const value = decode(raw, type);
    if (value === undefined)
      violations.push({
        field,
        description: type === 'integer' ? 'Must be a decimal integer' : 'Must be true or false',
      });
    else decoded[field] = value;
  }
  if (violations.length > 0) throw A2aError.invalidParams(violations);
  return decoded;
}

/** The parameter's value under its JSON name or its proto name; both given is the same mistake as giving it twice. */
function valueOf(query: Readonly<Record<string, unknown>>, field: string, violations: FieldViolation[]): unknown {
  const protoName = PROTO_NAMES.get(field) ?? field;
  const byJsonName = Object.hasOwn(query, field) ? query[field] : undefined;
  const byProtoName = protoName !== field && Object.hasOwn(query, protoName) ? query[protoName] : undefined;
  if (byJsonName !== undefined && byProtoName !== undefined) {
    violations.push({ field, description: `Given twice, as ${field} and as ${protoName}; send one of them` });
    return undefined;
  }
  return byJsonName ?? byProtoName;
}

function decode(raw: string, type: QueryFieldType): string | number | boolean | undefined {
  if (type === 'string') return raw;
  if (type === 'integer') return /^[+-]?\d+$/.test(raw) ? Number(raw) : undefined;
  return raw === 'true' ? true : raw === 'false' ? false : undefined;
}
