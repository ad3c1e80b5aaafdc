// The basic checks of a data part against a skill's input schema (JSON Schema), shown before the message is sent:
// required fields, and the types of the fields the schema describes. The agent still validates the input itself.

/** Problems of `value` against `schema`, as sentences; none when it passes these checks. */
export function schemaProblems(schema, value, at = 'data') {
  if (!schema || typeof schema !== 'object') return [];
  const problems = [];
  const expected = schema.type;
  if (expected && !matchesType(expected, value)) {
    problems.push(`${at}: expected ${[expected].flat().join(' or ')}, got ${typeName(value)}`);
    return problems;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(value)))
    problems.push(`${at}: must be one of ${schema.enum.map((option) => JSON.stringify(option)).join(', ')}`);
  if (isObject(value)) {
    for (const name of schema.required ?? []) if (!(name in value)) problems.push(`${at}.${name}: required`);
    for (const [name, property] of Object.entries(schema.properties ?? {}))
      if (name in value) problems.push(...schemaProblems(property, value[name], `${at}.${name}`));
  }
  if (Array.isArray(value) && schema.items)
    value.forEach((item, index) => problems.push(...schemaProblems(schema.items, item, `${at}[${index}]`)));
  return problems;
}

function matchesType(expected, value) {
  return [expected].flat().some((type) => {
    if (type === 'integer') return Number.isInteger(value);
    if (type === 'null') return value === null;
    if (type === 'array') return Array.isArray(value);
    if (type === 'object') return isObject(value);
    return typeof value === type;
  });
}

function typeName(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
