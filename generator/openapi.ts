/**
 * OpenAPI 3.1 description of every model endpoint, built from the same resolved tables the runtime
 * serves, so the document and the behaviour cannot drift apart.
 */
import type { ChoiceSet, FieldDefinition, FilterDefinition, LookupFamily, ModelDefinition, ModelEntry } from '../runtime/types.js';

type Schema = Record<string, unknown>;

export const LOOKUPS: Record<LookupFamily, string[]> = {
  string: ['n', 'ic', 'nic', 'isw', 'nisw', 'iew', 'niew', 'ie', 'nie', 'empty'],
  number: ['n', 'lt', 'lte', 'gt', 'gte', 'empty'],
  exact: ['n'],
  boolean: [],
};

const nullable = (schema: Schema): Schema => (schema.$ref ? { oneOf: [schema, { type: 'null' }] } : { ...schema, type: [schema.type, 'null'] });

function scalarSchema(f: FieldDefinition, sets: Map<string, ChoiceSet>): Schema {
  switch (f.type) {
    case 'integer': return { type: 'integer', ...(f.minValue !== undefined ? { minimum: f.minValue } : {}), ...(f.maxValue !== undefined ? { maximum: f.maxValue } : {}) };
    case 'decimal': return { type: 'number' };
    case 'boolean': return { type: 'boolean' };
    case 'date': return { type: 'string', format: 'date' };
    case 'datetime': return { type: 'string', format: 'date-time' };
    case 'json': return {};
    case 'choice': {
      const set = sets.get(f.choices!)!;
      return { type: set.integer ? 'integer' : 'string', enum: [...set.choices.map((c) => c.value), ...(f.blank ? [''] : [])] };
    }
    default: return { type: 'string', ...(f.maxLength ? { maxLength: f.maxLength } : {}) };
  }
}

function readSchema(d: ModelDefinition, name: string, sets: Map<string, ChoiceSet>, models: Map<string, ModelDefinition>): Schema {
  const f = d.fields[name];
  switch (name) {
    case 'id': return { type: 'integer', readOnly: true };
    case 'url': return { type: 'string', format: 'uri', readOnly: true };
    case 'display': return { type: 'string', readOnly: true };
    case 'tags': return { type: 'array', items: { $ref: '#/components/schemas/NestedTag' } };
    case 'custom_fields': return { type: 'object' };
    case 'created': return d.timestamps ? { type: ['string', 'null'], format: 'date', readOnly: true } : { type: ['string', 'null'], format: 'date-time', readOnly: true };
    case 'last_updated': return { type: ['string', 'null'], format: 'date-time', readOnly: true };
  }
  if (d.counts[name]) return { type: 'integer', readOnly: true };
  if (!f) return name.endsWith('_id') ? { type: ['integer', 'null'] } : { type: ['string', 'null'] };
  const of = f.type === 'alias' ? d.fields[f.of!] : f;
  let schema: Schema;
  switch (of.type) {
    case 'fk': schema = { $ref: `#/components/schemas/Nested${of.to}` }; break;
    case 'm2m': schema = { type: 'array', items: { $ref: `#/components/schemas/Nested${of.to}` } }; break;
    case 'generic_fk': schema = { type: 'object' }; break;
    case 'choice': {
      const set = sets.get(of.choices!)!;
      schema = { type: 'object', properties: { value: scalarSchema(of, sets), label: { type: 'string' } } };
      if (of.blank) return nullable(schema);
      if (set.integer && name === 'family') schema.readOnly = true;
      break;
    }
    case 'computed': schema = of.source === 'display' ? { type: 'string' } : {}; break;
    case 'token_key': schema = { type: 'string' }; break;
    default: schema = scalarSchema(of, sets);
  }
  void models;
  return of.nullable && Object.keys(schema).length ? nullable(schema) : schema;
}

function writeSchema(f: FieldDefinition, d: ModelDefinition, sets: Map<string, ChoiceSet>): Schema | null {
  if (f.readOnly || f.type === 'computed') return null;
  const of = f.type === 'alias' ? d.fields[f.of!] : f;
  let schema: Schema;
  switch (of.type) {
    case 'fk': schema = { oneOf: [{ type: 'integer' }, { type: 'object' }] }; break;
    case 'm2m': schema = { type: 'array', items: { oneOf: [{ type: 'integer' }, { type: 'object' }] } }; break;
    case 'generic_fk': return null;
    case 'password': case 'token_key': schema = { type: 'string', writeOnly: of.type === 'password' }; break;
    default: schema = scalarSchema(of, sets);
  }
  return of.nullable ? (schema.oneOf ? { oneOf: [...(schema.oneOf as Schema[]), { type: 'null' }] } : nullable(schema)) : schema;
}

function parameters(filters: Record<string, FilterDefinition>, d: ModelDefinition): Schema[] {
  const params: Schema[] = [];
  const add = (name: string, schema: Schema, description?: string) => params.push({ name, in: 'query', required: false, schema, ...(description ? { description } : {}), explode: true, style: 'form' });
  for (const [name, filter] of Object.entries(filters)) {
    let family: LookupFamily = 'exact';
    let schema: Schema = { type: 'array', items: { type: 'string' } };
    if (filter.kind === 'field') {
      family = filter.family;
      if (filter.family === 'boolean') schema = { type: 'boolean' };
    } else if (filter.kind === 'path') {
      family = filter.boolean ? 'boolean' : filter.family;
      if (filter.boolean) schema = { type: 'boolean' };
    } else if (filter.kind === 'reverse') {
      family = filter.boolean ? 'boolean' : 'exact';
      if (filter.boolean) schema = { type: 'boolean' };
    } else if (filter.kind === 'ip') family = filter.op === 'mask_length' ? 'number' : 'boolean';
    else if (filter.kind === 'q') { add('q', { type: 'string' }, 'Search'); continue; }
    else if (filter.kind === 'method') family = 'boolean';
    add(name, schema);
    for (const lookup of LOOKUPS[family]) add(`${name}__${lookup}`, lookup === 'empty' ? { type: 'boolean' } : schema);
  }
  void d;
  add('limit', { type: 'integer' }, 'Number of results to return per page.');
  add('offset', { type: 'integer' }, 'The initial index from which to return the results.');
  add('ordering', { type: 'string' }, 'Which field to use when ordering the results.');
  add('brief', { type: 'boolean' }, 'Return the brief representation.');
  return params;
}

export function buildOpenApi(entries: ModelEntry[], choiceSets: ChoiceSet[]): Schema {
  const sets = new Map(choiceSets.map((s) => [s.name, s]));
  const models = new Map(entries.map((e) => [e.definition.name, e.definition]));
  const schemas: Record<string, Schema> = {};
  const paths: Record<string, Schema> = {};
  const error = { description: 'Error', content: { 'application/json': { schema: { type: ['object', 'array'] } } } };
  for (const { definition: d, serializer, filters, routes } of entries) {
    // A generic relation reads as three keys: <name>_type, <name>_id and the nested <name>.
    const expand = (names: string[]) => names.flatMap((n) => (d.fields[n]?.type === 'generic_fk' ? [`${n}_type`, `${n}_id`, n] : [n]));
    const props = (names: string[]) => Object.fromEntries(expand(names).map((n) => [n, readSchema(d, n, sets, models)]));
    schemas[d.name] = { type: 'object', properties: props(serializer.full), required: expand(serializer.full).filter((n) => !['config_context'].includes(n)) };
    schemas[`Brief${d.name}`] = { type: 'object', properties: props(serializer.brief) };
    schemas[`Nested${d.name}`] = { type: 'object', properties: props(serializer.nested), required: ['id', 'url', 'display'] };
    const writable = Object.values(d.fields).map((f) => [f.name, writeSchema(f, d, sets)] as const).filter(([, s]) => s);
    const writeProps: Record<string, Schema> = Object.fromEntries(writable) as Record<string, Schema>;
    for (const f of Object.values(d.fields)) if (f.type === 'generic_fk') { writeProps[`${f.name}_type`] = { type: ['string', 'null'], enum: [...Object.keys(f.types!), null] }; writeProps[`${f.name}_id`] = { type: ['integer', 'null'] }; }
    if (d.tags) writeProps.tags = { type: 'array', items: { oneOf: [{ type: 'integer' }, { type: 'object' }] } };
    if (d.customFields) writeProps.custom_fields = { type: 'object' };
    schemas[`Writable${d.name}`] = { type: 'object', properties: writeProps, required: Object.values(d.fields).filter((f) => f.required).map((f) => f.name) };
    schemas[`Paginated${d.name}List`] = {
      type: 'object', required: ['count', 'next', 'previous', 'results'],
      properties: { count: { type: 'integer' }, next: { type: ['string', 'null'], format: 'uri' }, previous: { type: ['string', 'null'], format: 'uri' }, results: { type: 'array', items: { $ref: `#/components/schemas/${d.name}` } } },
    };
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    const json = (schema: Schema) => ({ 'application/json': { schema } });
    const tag = [d.app];
    const id = { name: 'id', in: 'path', required: true, schema: { type: 'integer' } };
    const bulkBody = { required: true, content: json({ type: 'array', items: { allOf: [ref(`Writable${d.name}`), { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } }] } }) };
    paths[routes.list] = {
      get: { operationId: `${d.app}_${d.endpoint.replace(/-/g, '_')}_list`, tags: tag, parameters: parameters(filters, d), responses: { 200: { description: 'OK', content: json(ref(`Paginated${d.name}List`)) } } },
      post: {
        operationId: `${d.app}_${d.endpoint.replace(/-/g, '_')}_create`, tags: tag,
        requestBody: { required: true, content: json({ oneOf: [ref(`Writable${d.name}`), { type: 'array', items: ref(`Writable${d.name}`) }] }) },
        responses: { 201: { description: 'Created', content: json({ oneOf: [ref(d.name), { type: 'array', items: ref(d.name) }] }) }, 400: error, 403: error },
      },
      put: { operationId: `${d.app}_${d.endpoint.replace(/-/g, '_')}_bulk_update`, tags: tag, requestBody: bulkBody, responses: { 200: { description: 'OK', content: json({ type: 'array', items: ref(d.name) }) }, 400: error } },
      patch: { operationId: `${d.app}_${d.endpoint.replace(/-/g, '_')}_bulk_partial_update`, tags: tag, requestBody: bulkBody, responses: { 200: { description: 'OK', content: json({ type: 'array', items: ref(d.name) }) }, 400: error } },
      delete: { operationId: `${d.app}_${d.endpoint.replace(/-/g, '_')}_bulk_destroy`, tags: tag, requestBody: { required: true, content: json({ type: 'array', items: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } } }) }, responses: { 204: { description: 'Deleted' }, 400: error, 409: error } },
    };
    const detail = routes.detail.replace(':id', '{id}');
    paths[detail] = {
      get: { operationId: `${d.app}_${d.endpoint.replace(/-/g, '_')}_retrieve`, tags: tag, parameters: [id], responses: { 200: { description: 'OK', content: json(ref(d.name)) }, 404: error } },
      put: { operationId: `${d.app}_${d.endpoint.replace(/-/g, '_')}_update`, tags: tag, parameters: [id], requestBody: { required: true, content: json(ref(`Writable${d.name}`)) }, responses: { 200: { description: 'OK', content: json(ref(d.name)) }, 400: error, 404: error } },
      patch: { operationId: `${d.app}_${d.endpoint.replace(/-/g, '_')}_partial_update`, tags: tag, parameters: [id], requestBody: { required: true, content: json(ref(`Writable${d.name}`)) }, responses: { 200: { description: 'OK', content: json(ref(d.name)) }, 400: error, 404: error } },
      delete: { operationId: `${d.app}_${d.endpoint.replace(/-/g, '_')}_destroy`, tags: tag, parameters: [id], responses: { 204: { description: 'Deleted' }, 404: error, 409: error } },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'NetLedger REST API', version: '3.7.8 (NetLedger 0.1.0)', description: 'Infrastructure inventory API, compatible with NetBox 3.7.' },
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes: { tokenAuth: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`Token <key>`' } },
    },
    security: [{ tokenAuth: [] }],
  };
}
