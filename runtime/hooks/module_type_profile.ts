/** Module type profiles (NetBox 4.3): the schema, when given, must be a usable JSON Schema (core/json-schema.ts). */
import type { ModelHooks } from '../data/registry.js';
import { schemaProblem } from '../core/json-schema.js';
import { jsonValue } from './module_type.js';

export const moduleTypeProfile: ModelHooks = {
  prepare(item) {
    if (!('schema' in item.values)) return;
    const schema = jsonValue(item.values.schema);
    if (schema === null) return;
    const problem = schemaProblem(schema);
    if (problem) item.errors.add('schema', `Invalid JSON schema definition: ${problem}`);
  },
};
