/**
 * OpenAPI 3.1 description of the API, built from the same resolved tables the runtime serves, so the
 * document and the behaviour cannot drift apart. The test suite holds it to that: every JSON answer a
 * test receives is validated against it (test/openapi-check.ts).
 *
 * Per model: `<Model>` (full form), `Brief<Model>` (?brief=1), `Nested<Model>` (inside other
 * objects), `Writable<Model>` (POST and PUT bodies), `PatchedWritable<Model>` (PATCH bodies) and
 * `Paginated<Model>List`. Every filter appears as a query parameter with each lookup it accepts.
 * Paths are `/api/<app>/<endpoint>/` (nb_inventory reads `paths["/api/dcim/devices/"].get.parameters`).
 * The output is deterministic: names are sorted and nothing depends on time or environment.
 */
import type { ChoiceSet, FieldDefinition, FilterDefinition, LookupFamily, ModelDefinition, ModelEntry } from '../runtime/core/types.js';

type Schema = Record<string, unknown>;
type Mode = 'full' | 'brief' | 'nested';

/** The lookups runtime/data/filters.ts accepts for each family. */
export const LOOKUPS: Record<LookupFamily, string[]> = {
  string: ['n', 'ic', 'nic', 'isw', 'nisw', 'iew', 'niew', 'ie', 'nie', 'empty'],
  number: ['n', 'lt', 'lte', 'gt', 'gte', 'empty'],
  exact: ['n'],
  boolean: [],
};

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const NULL: Schema = { type: 'null' };

/** The schema, or null as well. */
function orNull(schema: Schema): Schema {
  if (!Object.keys(schema).length) return schema;
  if (typeof schema.type === 'string' && !schema.$ref && !schema.oneOf && !schema.anyOf) {
    const out: Schema = { ...schema, type: [schema.type, 'null'] };
    if (Array.isArray(schema.enum)) out.enum = [...schema.enum, null];
    return out;
  }
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, NULL] };
  if (Array.isArray(schema.oneOf)) return { ...schema, oneOf: [...schema.oneOf, NULL] };
  return { anyOf: [schema, NULL] };
}

class Builder {
  private sets: Map<string, ChoiceSet>;
  private models: Map<string, ModelEntry>;

  constructor(entries: ModelEntry[], choiceSets: ChoiceSet[]) {
    this.sets = new Map(choiceSets.map((s) => [s.name, s]));
    this.models = new Map(entries.map((e) => [e.definition.name, e]));
  }

  private target(f: FieldDefinition, d: ModelDefinition): FieldDefinition {
    return f.type === 'alias' ? d.fields[f.of!] : f;
  }

  /** A stored value of a scalar field (the raw value of a choice). */
  scalar(f: FieldDefinition, write: boolean): Schema {
    const bounds = { ...(f.minValue !== undefined ? { minimum: f.minValue } : {}), ...(f.maxValue !== undefined ? { maximum: f.maxValue } : {}) };
    switch (f.type) {
      case 'integer': return { type: 'integer', ...bounds };
      case 'decimal': return { type: 'number', ...bounds };
      case 'boolean': return { type: 'boolean' };
      case 'date': return { type: 'string', format: 'date' };
      case 'datetime': return { type: 'string', format: 'date-time' };
      case 'json': return {};
      case 'choice': {
        const set = this.sets.get(f.choices!)!;
        const values: unknown[] = set.choices.map((c) => c.value);
        if (write && f.blank) values.push('');
        return { type: set.integer ? 'integer' : 'string', enum: values };
      }
      case 'ip_prefix': case 'ip_address': return { type: 'string' };
      case 'slug': return { type: 'string', pattern: '^[-a-zA-Z0-9_]+$', ...(f.maxLength ? { maxLength: f.maxLength } : {}) };
      // An optional colour may be blank (a port without a colour).
      case 'color': return { type: 'string', pattern: f.required || f.default !== '' ? '^[0-9a-f]{6}$' : '^([0-9a-f]{6})?$' };
      default: return { type: 'string', ...(f.maxLength ? { maxLength: f.maxLength } : {}) };
    }
  }

  /**
   * Whether a stored field may read as null: declared nullable, or optional without a default where
   * the runtime stores null (numbers, dates, JSON, relations; an unset choice reads as null too).
   */
  readsNull(f: FieldDefinition): boolean {
    if (f.nullable) return true;
    if (f.type === 'choice') return !!f.blank || (!f.required && f.default === undefined);
    if (['boolean', 'string', 'text', 'slug', 'color', 'mac', 'password', 'token_key', 'm2m', 'computed', 'alias'].includes(f.type)) return false;
    return f.readOnly ? f.type !== 'datetime' : !f.required && f.default === undefined;
  }

  nestedRef(model: string): Schema {
    return ref(`Nested${model}`);
  }

  /** One field of a response in the given form. */
  read(d: ModelDefinition, name: string, mode: Mode): Schema {
    switch (name) {
      case 'id': return { type: 'integer', readOnly: true };
      case 'url': return { type: 'string', format: 'uri', readOnly: true };
      case 'display': return { type: 'string', readOnly: true };
      case 'tags': return { type: 'array', items: this.nestedRef('Tag') };
      case 'custom_fields': return { type: 'object' };
    }
    if ((name === 'created' || name === 'last_updated') && (d.timestamps || d.fields[name])) {
      return d.timestamps && name === 'created' ? { type: ['string', 'null'], format: 'date', readOnly: true } : { type: ['string', 'null'], format: 'date-time', readOnly: true };
    }
    if (d.counts[name]) return { type: 'integer', readOnly: true };
    const raw = d.fields[name];
    if (!raw) {
      // a column of a generic relation named on its own (e.g. changed_object_type in a brief form)
      const generic = d.fields[name.replace(/_(type|id)$/, '')];
      if (generic?.type === 'generic_fk') return name.endsWith('_id') ? { type: ['integer', 'null'] } : { type: ['string', 'null'] };
      return {};
    }
    const f = this.target(raw, d);
    let schema: Schema;
    switch (f.type) {
      case 'fk': schema = this.nestedRef(f.to!); break;
      case 'm2m': return { type: 'array', items: this.nestedRef(f.to!) };
      case 'generic_fk': return orNull({ anyOf: Object.values(f.types!).sort().map((m) => this.nestedRef(m)) });
      case 'choice': {
        const value = this.scalar(f, false);
        schema = mode === 'full' && !f.plain
          ? { type: 'object', properties: { value, label: { type: 'string' } }, required: ['value', 'label'], additionalProperties: false }
          : value;
        break;
      }
      case 'computed':
        if (f.source === 'display') return { type: 'string', readOnly: true };
        if (f.source === 'tree_depth') return { type: 'integer', readOnly: true };
        if (f.source?.startsWith('reverse:')) return { type: 'array', items: this.nestedRef(f.source.slice(8).split('.')[0]), readOnly: true };
        if (f.source?.startsWith('coalesce:')) return orNull({ ...this.nestedRef(d.fields[f.source.slice(9).split(',')[0]].to!), readOnly: true });
        if (f.source?.startsWith('any:')) return { type: 'boolean', readOnly: true };
        // the related row in its nested form (or the fields the schema lists), null where the object is nested itself
        if (f.source?.startsWith('reverse_one:') && !f.form) return orNull({ ...this.nestedRef(f.source.slice(12).split('.')[0]), readOnly: true });
        // computed by a hook: any JSON value (null where the object is nested in another one)
        return { readOnly: true };
      case 'token_key': return { type: 'string' };
      case 'json': return {};
      default: schema = this.scalar(f, false);
    }
    if (raw.readOnly) schema = { ...schema, readOnly: true };
    return this.readsNull(f) ? orNull(schema) : schema;
  }

  /** Names as they appear in a representation: a generic relation reads as <name>_type, <name>_id and <name>. */
  expand(d: ModelDefinition, names: string[]): string[] {
    return names.flatMap((n) => (d.fields[n]?.type === 'generic_fk' ? [d.fields[n].typeKey!, `${n}_id`, n] : [n]));
  }

  representation(d: ModelDefinition, names: string[], mode: Mode, required: string[]): Schema {
    const expanded = this.expand(d, names);
    const properties = Object.fromEntries(expanded.map((n) => {
      if (d.fields[n]?.type === 'generic_fk') return [n, this.read(d, n, mode)];
      const generic = this.genericOf(d, n);
      if (generic && !d.fields[n]) {
        return [n, n === generic.typeKey ? { type: ['string', 'null'], enum: [...Object.keys(generic.types!).sort(), null] } : { type: ['integer', 'null'] }];
      }
      return [n, this.read(d, n, mode)];
    }));
    return { type: 'object', properties, required: expanded.filter((n) => required.includes(this.genericOf(d, n)?.name ?? n)), additionalProperties: false };
  }

  /** The generic relation whose type or id half a representation key is. */
  private genericOf(d: ModelDefinition, key: string): FieldDefinition | undefined {
    return Object.values(d.fields).find((f) => f.type === 'generic_fk' && (f.typeKey === key || `${f.name}_id` === key));
  }

  /** A writable field of a request body, or null when it cannot be written. */
  write(f: FieldDefinition, d: ModelDefinition): Schema | null {
    if (f.readOnly || f.type === 'computed' || f.type === 'generic_fk') return null;
    const of = this.target(f, d);
    const related = (model: string): Schema => ({
      oneOf: [{ type: 'integer', minimum: 1 }, { type: 'string', pattern: '^\\d+$' }, { type: 'object', description: `Attributes identifying one ${model}` }],
    });
    let schema: Schema;
    switch (of.type) {
      case 'fk': schema = related(of.to!); break;
      case 'm2m': return { type: 'array', items: related(of.to!) };
      case 'password': schema = { type: 'string', writeOnly: true, ...(of.maxLength ? { maxLength: of.maxLength } : {}) }; break;
      case 'token_key': schema = { type: 'string', pattern: '^([0-9a-fA-F]{40})?$' }; break;
      case 'json': return {};
      default: schema = this.scalar(of, true);
    }
    if (of.helpText) schema = { ...schema, description: of.helpText };
    return of.nullable ? orNull(schema) : schema;
  }

  writable(d: ModelDefinition, partial: boolean): Schema {
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    for (const f of Object.values(d.fields)) {
      if (f.type === 'generic_fk' && !f.readOnly) {
        properties[f.typeKey!] = { type: ['string', 'null'], enum: [...Object.keys(f.types!).sort(), null] };
        properties[`${f.name}_id`] = { type: ['integer', 'null'] };
        if (f.required) required.push(f.typeKey!, `${f.name}_id`);
        continue;
      }
      const schema = this.write(f, d);
      if (!schema) continue;
      properties[f.name] = schema;
      if (f.required && f.type !== 'token_key') required.push(f.name);
    }
    if (d.tags) properties.tags = { type: 'array', items: { oneOf: [{ type: 'integer' }, { type: 'string', description: 'slug' }, { type: 'object' }] } };
    if (d.customFields) properties.custom_fields = { type: 'object' };
    return { type: 'object', properties, ...(partial || !required.length ? {} : { required }) };
  }

  /** One query parameter per filter and per lookup the runtime accepts for it. */
  parameters(entry: ModelEntry): Schema[] {
    const d = entry.definition;
    const params: Schema[] = [];
    const add = (name: string, schema: Schema, description?: string) => {
      const multi = schema.type === 'array';
      params.push({ name, in: 'query', required: false, schema, ...(description ? { description } : {}), ...(multi ? { style: 'form', explode: true } : {}) });
    };
    const many = (item: Schema): Schema => ({ type: 'array', items: item });
    for (const [name, filter] of Object.entries(entry.filters)) {
      const { family, item, description } = this.filterShape(entry, name, filter);
      if (filter.kind === 'q') { add(name, { type: 'string' }, description); continue; }
      if (family === 'boolean') { add(name, { type: 'boolean' }, description); continue; }
      add(name, many(item), description);
      for (const lookup of LOOKUPS[family]) add(`${name}__${lookup}`, lookup === 'empty' ? { type: 'boolean' } : many(item));
    }
    add('limit', { type: 'integer', minimum: 0 }, 'Number of results to return per page (0: the maximum page size).');
    add('offset', { type: 'integer', minimum: 0 }, 'The initial index from which to return the results.');
    add('ordering', { type: 'string' }, 'Which field to use when ordering the results (comma-separated, `-` for descending).');
    add('brief', { type: 'boolean' }, 'Return the brief representation.');
    if (d.fields.config_context) add('exclude', { type: 'string', enum: ['config_context'] }, 'Omit the rendered configuration context.');
    return params;
  }

  private filterShape(entry: ModelEntry, name: string, filter: FilterDefinition): { family: LookupFamily; item: Schema; description?: string } {
    const d = entry.definition;
    const byField = (model: ModelDefinition, field: string): Schema => {
      if (field === 'id') return { anyOf: [{ type: 'integer' }, { const: 'null' }] };
      const f = model.fields[field];
      if (!f) return field.endsWith('_id') ? { type: 'integer' } : { type: 'string' };
      if (f.type === 'choice') return this.scalar(f, false);
      if (f.type === 'integer') return { type: 'integer' };
      if (f.type === 'decimal') return { type: 'number' };
      if (f.type === 'date') return { type: 'string', format: 'date' };
      return { type: 'string' };
    };
    switch (filter.kind) {
      case 'field': {
        if (filter.field === 'created' || filter.field === 'last_updated') return { family: filter.family, item: { type: 'string' } };
        return { family: filter.family, item: filter.field === 'id' ? { type: 'integer' } : byField(d, filter.field) };
      }
      case 'path': {
        if (filter.boolean) return { family: 'boolean', item: { type: 'boolean' } };
        const end = this.models.get(filter.path[filter.path.length - 1].model)!.definition;
        const item = filter.by === 'id' ? { anyOf: [{ type: 'integer' }, { const: 'null' }] } : byField(end, filter.by);
        return { family: filter.family, item, description: `${end.verboseName} ${filter.by}${filter.tree ? ' (descendants included)' : ''}` };
      }
      case 'reverse': return filter.boolean ? { family: 'boolean', item: { type: 'boolean' } } : { family: 'exact', item: { type: 'string' } };
      case 'ip':
        if (filter.op === 'mask_length') return { family: 'number', item: { type: 'integer' } };
        return { family: 'boolean', item: { type: 'string' } };
      case 'tag': return { family: 'exact', item: filter.by === 'id' ? { type: 'integer' } : { type: 'string' }, description: `Tag ${filter.by}; repeated values must all match` };
      case 'q': return { family: 'boolean', item: { type: 'string' }, description: 'Search' };
      case 'request': return { family: 'exact', item: { type: 'string', format: 'uuid' }, description: `Objects ${filter.actions.map((a) => `${a}d`).join(' or ')} by the request with this ID (from the change log)` };
      case 'method': return { family: 'boolean', item: { type: 'string' } };
    }
  }
}

/** Error bodies: `{detail}`, `{field: [messages]}`, and for bulk requests one such object per element. */
const ERROR_SCHEMAS: Record<string, Schema> = {
  ErrorDetail: { type: 'object', properties: { detail: { type: 'string' } }, required: ['detail'], additionalProperties: false },
  FieldErrors: {
    type: 'object',
    description: 'Messages by field; `non_field_errors` and `__all__` for the object as a whole.',
    additionalProperties: { type: 'array', items: { type: 'string' } },
  },
  BulkFieldErrors: { type: 'array', description: 'One entry per element of the request ({} where it is valid).', items: ref('FieldErrors') },
  InternalError: { type: 'object', properties: { error: { type: 'string' }, request_id: { type: 'string' } }, required: ['error'] },
};

const json = (schema: Schema) => ({ 'application/json': { schema } });
const respond = (description: string, schema: Schema) => ({ description, content: json(schema) });
const ERRORS = {
  400: respond('Invalid request: a malformed body, a bad filter value or field errors', { anyOf: [ref('ErrorDetail'), ref('FieldErrors'), ref('BulkFieldErrors')] }),
  403: respond('Authentication credentials were not provided, or the action is not permitted', ref('ErrorDetail')),
  404: respond('Not found', ref('ErrorDetail')),
  405: respond('Method not allowed', ref('ErrorDetail')),
  409: respond('Dependent objects prevent the deletion', ref('ErrorDetail')),
  413: respond('Request body too large', ref('ErrorDetail')),
  415: respond('Unsupported media type', ref('ErrorDetail')),
  429: respond('Too many failed password attempts from this client; see Retry-After', ref('ErrorDetail')),
  500: respond('Unexpected server error', ref('InternalError')),
};
type ErrorCode = keyof typeof ERRORS;
const errorResponses = (...codes: ErrorCode[]) => Object.fromEntries(codes.map((c) => [c, ERRORS[c]]));
const READ_ERRORS: ErrorCode[] = [400, 403, 500];
const WRITE_ERRORS: ErrorCode[] = [400, 403, 413, 415, 500];

/** Routes of the runtime that are not model endpoints. */
function servicePaths(): Record<string, Schema> {
  const status: Schema = {
    type: 'object',
    required: ['netbox-version', 'netledger-version', 'database', 'installed-apps', 'plugins', 'rq-workers-running'],
    properties: {
      'django-version': { type: ['string', 'null'] },
      'installed-apps': { type: 'object', additionalProperties: { type: ['string', 'null'] } },
      'netbox-version': { type: 'string' },
      'netledger-version': { type: 'string' },
      'node-version': { type: 'string' },
      database: { type: 'string', enum: ['postgresql', 'sqlite'] },
      plugins: { type: 'object', additionalProperties: { type: ['string', 'null'] } },
      'python-version': { type: ['string', 'null'] },
      'rq-workers-running': { type: 'integer', minimum: 0, description: 'Webhook workers running' },
    },
    additionalProperties: false,
  };
  const format = { name: 'format', in: 'query', required: false, schema: { type: 'string', enum: ['json', 'yaml'] } };
  return {
    '/api/schema/': {
      get: {
        operationId: 'schema_retrieve', tags: ['schema'], security: [{}], parameters: [format],
        description: 'This OpenAPI document: JSON, or YAML with `?format=yaml` or an Accept header asking for YAML.',
        responses: { 200: { description: 'The OpenAPI document', content: { 'application/json': { schema: { type: 'object' } }, 'application/vnd.oai.openapi': { schema: { type: 'object' } } } } },
      },
    },
    '/api/status/': {
      get: { operationId: 'status_retrieve', tags: ['status'], security: [{}], responses: { 200: respond('Versions and workers', status), ...errorResponses(500) } },
    },
    '/api/users/tokens/provision/': {
      post: {
        operationId: 'users_tokens_provision_create', tags: ['users'], security: [{}],
        description: 'A username and password buy a new write-enabled token; its key is shown in full once.',
        requestBody: {
          required: true,
          content: json({ type: 'object', required: ['username', 'password'], properties: { username: { type: 'string' }, password: { type: 'string', writeOnly: true }, expires: { type: ['string', 'null'], format: 'date-time' }, description: { type: 'string' }, write_enabled: { type: 'boolean' } } }),
        },
        responses: { 201: respond('The new token', ref('Token')), ...errorResponses(...WRITE_ERRORS, 429) },
      },
    },
  };
}

export function buildOpenApi(entries: ModelEntry[], choiceSets: ChoiceSet[]): Schema {
  const b = new Builder(entries, choiceSets);
  const schemas: Record<string, Schema> = { ...ERROR_SCHEMAS };
  const paths: Record<string, Schema> = {};
  for (const entry of entries) {
    const { definition: d, serializer, routes } = entry;
    const name = d.name;
    // config_context may be left out with ?exclude=config_context.
    schemas[name] = b.representation(d, serializer.full, 'full', serializer.full.filter((n) => n !== 'config_context'));
    schemas[`Brief${name}`] = b.representation(d, serializer.brief, 'brief', serializer.brief);
    schemas[`Nested${name}`] = b.representation(d, serializer.nested, 'nested', serializer.nested);
    schemas[`Paginated${name}List`] = {
      type: 'object', required: ['count', 'next', 'previous', 'results'], additionalProperties: false,
      properties: {
        count: { type: 'integer', minimum: 0 },
        next: { type: ['string', 'null'], format: 'uri' },
        previous: { type: ['string', 'null'], format: 'uri' },
        results: { type: 'array', items: { anyOf: [ref(name), ref(`Brief${name}`)] } },
      },
    };
    const op = (suffix: string) => `${d.app}_${d.endpoint.replace(/-/g, '_')}_${suffix}`;
    const tags = [d.app];
    const id = { name: 'id', in: 'path', required: true, schema: { type: 'integer' }, description: `A unique integer value identifying this ${d.verboseName}.` };
    const briefParam = { name: 'brief', in: 'query', required: false, schema: { type: 'boolean' }, description: 'Return the brief representation.' };
    const excludeParam = d.fields.config_context ? [{ name: 'exclude', in: 'query', required: false, schema: { type: 'string', enum: ['config_context'] }, description: 'Omit the rendered configuration context.' }] : [];
    const one = { anyOf: [ref(name), ref(`Brief${name}`)] };
    const list: Schema = {
      get: { operationId: op('list'), tags, parameters: b.parameters(entry), responses: { 200: respond('OK', ref(`Paginated${name}List`)), ...errorResponses(...READ_ERRORS) } },
    };
    const detail: Schema = {
      get: { operationId: op('retrieve'), tags, parameters: [id, briefParam, ...excludeParam], responses: { 200: respond('OK', one), ...errorResponses(403, 404, 500) } },
    };
    if (!d.readOnly) {
      schemas[`Writable${name}`] = b.writable(d, false);
      schemas[`PatchedWritable${name}`] = b.writable(d, true);
      const withId = (schema: string) => ({ allOf: [ref(schema), { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } }] });
      const bulk = (schema: string) => ({ required: true, content: json({ type: 'array', items: withId(schema) }) });
      const many = { type: 'array', items: ref(name) };
      list.post = {
        operationId: op('create'), tags,
        requestBody: { required: true, content: json({ oneOf: [ref(`Writable${name}`), { type: 'array', items: ref(`Writable${name}`) }] }) },
        responses: { 201: respond('Created: the object, or the objects of a list in order', { oneOf: [ref(name), many] }), ...errorResponses(...WRITE_ERRORS) },
      };
      list.put = { operationId: op('bulk_update'), tags, requestBody: bulk(`Writable${name}`), responses: { 200: respond('OK', many), ...errorResponses(...WRITE_ERRORS) } };
      list.patch = { operationId: op('bulk_partial_update'), tags, requestBody: bulk(`PatchedWritable${name}`), responses: { 200: respond('OK', many), ...errorResponses(...WRITE_ERRORS) } };
      list.delete = {
        operationId: op('bulk_destroy'), tags,
        requestBody: { required: true, content: json({ type: 'array', items: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } } }) },
        responses: { 204: { description: 'Deleted' }, ...errorResponses(...WRITE_ERRORS, 409) },
      };
      detail.put = { operationId: op('update'), tags, parameters: [id], requestBody: { required: true, content: json(ref(`Writable${name}`)) }, responses: { 200: respond('OK', ref(name)), ...errorResponses(...WRITE_ERRORS, 404) } };
      detail.patch = { operationId: op('partial_update'), tags, parameters: [id], requestBody: { required: true, content: json(ref(`PatchedWritable${name}`)) }, responses: { 200: respond('OK', ref(name)), ...errorResponses(...WRITE_ERRORS, 404) } };
      detail.delete = { operationId: op('destroy'), tags, parameters: [id], responses: { 204: { description: 'Deleted' }, ...errorResponses(403, 404, 409, 500) } };
    }
    paths[routes.list] = list;
    paths[routes.detail.replace(':id', '{id}')] = detail;
    // `actions:` in the YAML: extra detail routes, answered with the object after the action
    for (const extra of routes.extra) {
      const action = extra.path.split('/').at(-2)!.replace(/-/g, '_');
      paths[extra.path.replace(':id', '{id}')] = Object.fromEntries(extra.methods.map((m) => {
        const returns = extra.returns?.[m];
        const status = returns?.status ?? 200;
        const body = returns?.model
          ? (returns.many ? { oneOf: [ref(returns.model), { type: 'array', items: ref(returns.model) }] } : ref(returns.model))
          : returns?.schema ?? ref(name);
        return [m.toLowerCase(), {
          operationId: op(extra.methods.length > 1 ? `${action}_${m.toLowerCase()}` : action), tags, parameters: extra.app ? [] : [id],
          responses: { [status]: respond(returns ? 'OK' : 'OK: the object after the action', body), ...errorResponses(400, 403, 404, 409, 500) },
        }];
      }));
    }
  }
  Object.assign(paths, servicePaths());
  const sorted = <T>(o: Record<string, T>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
  return {
    openapi: '3.1.0',
    info: { title: 'NetLedger REST API', version: '3.7.8 (NetLedger 0.1.0)', description: 'Infrastructure inventory API, compatible with NetBox 3.7.' },
    paths: sorted(paths),
    components: {
      schemas: sorted(schemas),
      securitySchemes: { tokenAuth: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`Token <key>`' } },
    },
    security: [{ tokenAuth: [] }],
  };
}
