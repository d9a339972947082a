/**
 * A small JSON Schema checker for the schemas module type profiles define (NetBox 4.3 validates
 * module types' attributes against them with jsonschema): the keywords such schemas use, `type`,
 * `enum`, `const`, `properties`, `required`, `additionalProperties` (false or a schema), `items`,
 * `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`, `minLength`,
 * `maxLength`, `pattern`, `minItems`, `maxItems`, `uniqueItems`. Other keywords (titles,
 * descriptions, defaults, formats) do not constrain.
 */

type Schema = Record<string, unknown>;

const TYPES = new Set(['string', 'integer', 'number', 'boolean', 'array', 'object', 'null']);
const NUMERIC = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'minItems', 'maxItems'];

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

const equal = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The first problem of a schema definition itself, or null when it is usable. */
export function schemaProblem(schema: unknown, at = 'schema'): string | null {
  if (!isObject(schema)) return `${at} must be an object`;
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  for (const t of types) if (typeof t !== 'string' || !TYPES.has(t)) return `${at}.type: '${String(t)}' is not a JSON Schema type`;
  for (const k of NUMERIC) if (k in schema && typeof schema[k] !== 'number') return `${at}.${k} must be a number`;
  if ('enum' in schema && !Array.isArray(schema.enum)) return `${at}.enum must be an array`;
  if ('required' in schema && !(Array.isArray(schema.required) && schema.required.every((r) => typeof r === 'string'))) return `${at}.required must be an array of strings`;
  if ('pattern' in schema) {
    if (typeof schema.pattern !== 'string') return `${at}.pattern must be a string`;
    try { new RegExp(schema.pattern, 'u'); } catch { return `${at}.pattern is not a valid regular expression`; }
  }
  if ('properties' in schema) {
    if (!isObject(schema.properties)) return `${at}.properties must be an object`;
    for (const [name, sub] of Object.entries(schema.properties)) {
      const problem = schemaProblem(sub, `${at}.properties.${name}`);
      if (problem) return problem;
    }
  }
  if ('items' in schema) { const problem = schemaProblem(schema.items, `${at}.items`); if (problem) return problem; }
  if ('additionalProperties' in schema && typeof schema.additionalProperties !== 'boolean') {
    const problem = schemaProblem(schema.additionalProperties, `${at}.additionalProperties`);
    if (problem) return problem;
  }
  return null;
}

/** The first way `value` breaks `schema` (a schema schemaProblem accepts), or null when it conforms. */
export function valueProblem(value: unknown, schema: Schema, at = ''): string | null {
  const where = at ? `${at}: ` : '';
  const shown = JSON.stringify(value);
  if (schema.type !== undefined) {
    const types = (Array.isArray(schema.type) ? schema.type : [schema.type]) as string[];
    const actual = typeOf(value);
    if (!types.some((t) => t === actual || (t === 'number' && actual === 'integer'))) return `${where}${shown} is not of type ${types.map((t) => `'${t}'`).join(', ')}`;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => equal(e, value))) return `${where}${shown} is not one of ${JSON.stringify(schema.enum)}`;
  if ('const' in schema && !equal(schema.const, value)) return `${where}${JSON.stringify(schema.const)} was expected`;
  if (typeof value === 'number') {
    const n = schema as Record<string, number>;
    if (n.minimum !== undefined && value < n.minimum) return `${where}${value} is less than the minimum of ${n.minimum}`;
    if (n.maximum !== undefined && value > n.maximum) return `${where}${value} is greater than the maximum of ${n.maximum}`;
    if (n.exclusiveMinimum !== undefined && value <= n.exclusiveMinimum) return `${where}${value} is less than or equal to the minimum of ${n.exclusiveMinimum}`;
    if (n.exclusiveMaximum !== undefined && value >= n.exclusiveMaximum) return `${where}${value} is greater than or equal to the maximum of ${n.exclusiveMaximum}`;
    if (n.multipleOf !== undefined && n.multipleOf > 0 && !Number.isInteger(value / n.multipleOf)) return `${where}${value} is not a multiple of ${n.multipleOf}`;
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (typeof schema.minLength === 'number' && length < schema.minLength) return `${where}${shown} is too short`;
    if (typeof schema.maxLength === 'number' && length > schema.maxLength) return `${where}${shown} is too long`;
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) return `${where}${shown} does not match '${schema.pattern}'`;
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) return `${where}${shown} is too short`;
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) return `${where}${shown} is too long`;
    if (schema.uniqueItems === true && new Set(value.map((v) => JSON.stringify(v))).size !== value.length) return `${where}${shown} has non-unique elements`;
    if (isObject(schema.items)) {
      for (const [i, item] of value.entries()) { const problem = valueProblem(item, schema.items, `${at}[${i}]`); if (problem) return problem; }
    }
  }
  if (isObject(value)) {
    for (const name of (schema.required as string[] | undefined) ?? []) if (!(name in value)) return `${where}'${name}' is a required property`;
    const properties = isObject(schema.properties) ? schema.properties : {};
    for (const [name, v] of Object.entries(value)) {
      const sub = properties[name] ?? schema.additionalProperties;
      if (sub === false && !(name in properties)) return `${where}additional property '${name}' is not allowed`;
      if (isObject(sub)) { const problem = valueProblem(v, sub, at ? `${at}.${name}` : name); if (problem) return problem; }
    }
  }
  return null;
}
