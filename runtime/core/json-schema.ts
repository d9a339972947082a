/**
 * The JSON Schemas module type profiles define (NetBox 4.3 validates module types' attributes against
 * them with jsonschema, whose default is draft 2020-12), checked by Ajv: a schema must conform to the
 * draft's meta-schema and compile, and a value must conform to the schema. Formats do not constrain,
 * as jsonschema checks none by default. Each answers its first problem as one line, or null.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';

type Schema = Record<string, unknown>;

const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, validateFormats: false });

/** Compiled schemas by their JSON text (bounded: a full map starts again). */
const compiled = new Map<string, ValidateFunction>();

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An error's place as a dotted path (`cores`, `ports[0].name`), from Ajv's JSON pointer. */
function placeOf(pointer: string): string {
  return pointer.split('/').slice(1).map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((out, part) => (/^\d+$/.test(part) ? `${out}[${part}]` : out ? `${out}.${part}` : part), '');
}

/** The first error as one line: its place, what is wrong, and the allowed values or the property named. */
function describe(error: ErrorObject, at: string): string {
  const place = placeOf(error.instancePath);
  const where = at && place ? `${at}.${place}` : at || place;
  const params = error.params as Record<string, unknown>;
  const detail = Array.isArray(params.allowedValues) ? ` ${JSON.stringify(params.allowedValues)}`
    : typeof params.additionalProperty === 'string' ? ` '${params.additionalProperty}'` : '';
  return `${where ? `${where}: ` : ''}${error.message ?? 'is not valid'}${detail}`;
}

/** The validator of a schema, compiled once per schema text; throws when the schema does not compile. */
function validatorOf(schema: Schema): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    try {
      validate = ajv.compile(schema);
    } finally {
      // Ajv keeps every schema it compiled (by object and by $id): the map here is the only cache.
      ajv.removeSchema(schema);
    }
    if (compiled.size >= 200) compiled.clear();
    compiled.set(key, validate);
  }
  return validate;
}

/** The first problem of a schema definition itself, or null when it is usable. */
export function schemaProblem(schema: unknown, at = 'schema'): string | null {
  if (!isObject(schema)) return `${at} must be an object`;
  if (!ajv.validateSchema(schema)) return describe(ajv.errors![0], at);
  try {
    validatorOf(schema);
  } catch (error) {
    return `${at}: ${(error as Error).message}`;
  }
  return null;
}

/** The first way `value` breaks `schema` (a schema schemaProblem accepts), or null when it conforms. */
export function valueProblem(value: unknown, schema: Schema, at = ''): string | null {
  let validate: ValidateFunction;
  try {
    validate = validatorOf(schema);
  } catch (error) {
    return `${at ? `${at}: ` : ''}the schema does not compile: ${(error as Error).message}`;
  }
  return validate(value) ? null : describe(validate.errors![0], at);
}
