// The basic checks of a data part against a skill's input schema (JSON Schema), shown before the message is sent:
// required fields, undeclared fields of a closed object, the types and enums of the fields the schema describes,
// through the schema's local `$ref`s. The agent still validates the input itself.

/** Problems of `value` against `schema`, as sentences; none when it passes these checks. */
export function schemaProblems(schema, value, at = 'data', root = schema) {
  const node = resolved(schema, root);
  if (!node || typeof node !== 'object') return [];
  const problems = [];
  if (node.type && !matchesType(node.type, value))
    return [`${at}: expected ${[node.type].flat().join(' or ')}, got ${typeName(value)}`];
  if (Array.isArray(node.enum) && !node.enum.some((option) => JSON.stringify(option) === JSON.stringify(value)))
    problems.push(`${at}: must be one of ${node.enum.map((option) => JSON.stringify(option)).join(', ')}`);
  if (isObject(value)) {
    const properties = node.properties ?? {};
    for (const name of node.required ?? []) if (!(name in value)) problems.push(`${at}.${name}: required`);
    for (const [name, field] of Object.entries(value)) {
      if (name in properties) problems.push(...schemaProblems(properties[name], field, `${at}.${name}`, root));
      else if (node.additionalProperties === false) problems.push(`${at}.${name}: not a field of this input`);
    }
  }
  if (Array.isArray(value) && node.items)
    value.forEach((item, index) => problems.push(...schemaProblems(node.items, item, `${at}[${index}]`, root)));
  return problems;
}

/** The schema a local `$ref` (`#/$defs/Name`) points to; the schema itself otherwise. */
function resolved(schema, root) {
  let node = schema;
  for (let hops = 0; typeof node?.$ref === 'string' && node.$ref.startsWith('#/') && hops < 32; hops++) {
    node = node.$ref
      .slice(2)
      .split('/')
      .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce((parent, key) => parent?.[key], root);
  }
  return node;
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
