/**
 * JSON Schemas of one model's fields for the OpenAPI document (generator/openapi.ts): the read forms
 * (full, brief, nested), the writable bodies, and every filter as query parameters with its lookups.
 */
import type { ChoiceSet, FieldDefinition, FilterDefinition, LookupFamily, ModelDefinition, ModelEntry } from '../runtime/core/types.js';

export type Schema = Record<string, unknown>;
type Mode = 'full' | 'brief' | 'nested';

/** `fields` and `omit`, in a version with field selection (`field_selection:`) */
export const FIELD_SELECTION: Schema[] = [
  { name: 'fields', in: 'query', required: false, schema: { type: 'string' }, description: 'Comma-separated names of the only fields to return (wins over omit and brief).' },
  { name: 'omit', in: 'query', required: false, schema: { type: 'string' }, description: 'Comma-separated names of fields to leave out.' },
];

/** The lookups runtime/data/filters.ts accepts for each family. */
export const LOOKUPS: Record<LookupFamily, string[]> = {
  string: ['n', 'ic', 'nic', 'isw', 'nisw', 'iew', 'niew', 'ie', 'nie', 'empty'],
  number: ['n', 'lt', 'lte', 'gt', 'gte', 'empty'],
  exact: ['n'],
  boolean: [],
};

/** What a field shown through a named conversion (runtime/core/conversions.ts) reads as. */
const CONVERSIONS: Record<string, Schema> = {
  date_time: { type: ['string', 'null'], format: 'date-time', readOnly: true },
};

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
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

export class Builder {
  private sets: Map<string, ChoiceSet>;
  private models: Map<string, ModelEntry>;

  /** `cursor`: the version's lists take `start` (cursor pagination); `fieldSelection`: `fields` and `omit`; `partialTags`: bodies take `add_tags` and `remove_tags` */
  constructor(entries: ModelEntry[], choiceSets: ChoiceSet[], private cursor = false, private fieldSelection = false, private partialTags = false) {
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
        if ((write || f.plain) && f.blank) values.push('');
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

  /** A generic relation's target in its nested form, with the keys the relation's `extra` adds to that type. */
  private nestedWithExtra(f: FieldDefinition, contentType: string, model: string): Schema {
    const extra = Object.entries(f.extra ?? {}).filter(([, x]) => x.on.includes(contentType));
    const target = this.models.get(model);
    if (!extra.length || !target) return this.nestedRef(model);
    const nested = this.representation(target.definition, target.serializer.nested, 'nested', target.serializer.nested);
    const properties = { ...(nested.properties as Schema), ...Object.fromEntries(extra.map(([key, x]) => [key, { type: x.type, readOnly: true }])) };
    return { ...nested, properties, required: [...(nested.required as string[]), ...extra.map(([key]) => key)] };
  }

  /** One field of a response in the given form. */
  read(d: ModelDefinition, name: string, mode: Mode): Schema {
    switch (name) {
      case 'id': return { type: 'integer', readOnly: true };
      case 'url': return { type: 'string', format: 'uri', readOnly: true };
      case 'display': return { type: 'string', readOnly: true };
      case 'tags': return { type: 'array', items: this.nestedRef('Tag') };
      case 'custom_fields': return { type: 'object' };
      case 'display_url': return { type: 'string', format: 'uri', readOnly: true };
    }
    const converted = CONVERSIONS[this.models.get(d.name)?.serializer.convert?.[name] ?? ''];
    if (converted) return converted;
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
      case 'generic_fk': return orNull({ anyOf: Object.entries(f.types!).sort(([, a], [, b]) => a.localeCompare(b)).map(([ct, m]) => this.nestedWithExtra(f, ct, m)) });
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
        if (f.source === 'revealed') return orNull({ type: 'string', readOnly: true });
        // the other model's rows pointing here; read-only unless a hook writes them (a user's permissions)
        if (f.source?.startsWith('reverse:')) return { type: 'array', items: this.nestedRef(f.source.slice(8).split('.')[0]), ...(raw.readOnly ? { readOnly: true } : {}) };
        // the first related row in its nested form (or the fields the schema lists), null where the object is nested itself
        if (f.source?.startsWith('reverse_one:') && !f.form) return orNull({ ...this.nestedRef(f.source.slice(12).split('.')[0]), readOnly: true });
        if (f.source?.startsWith('coalesce:')) return orNull({ ...this.nestedRef(d.fields[f.source.slice(9).split(',')[0]].to!), readOnly: true });
        if (f.source?.startsWith('any:')) return { type: 'boolean', readOnly: true };
        // a hook's relation (`to:`): the related object's nested form or null (3.7's one contact group)
        if (f.to) return orNull({ ...this.nestedRef(f.to), ...(raw.readOnly ? { readOnly: true } : {}) });
        // computed by a hook: any JSON value (null where the object is nested in another one); written through the hook when not read-only
        return raw.readOnly ? { readOnly: true } : {};
      // null where a version shows another key in its place (4.6: a v1 token has no v2 key)
      case 'token_key': return orNull({ type: 'string' });
      // the URL the file is served at, null without one
      case 'image': return orNull({ type: 'string', format: 'uri', ...(raw.readOnly ? { readOnly: true } : {}) });
      case 'json': return {};
      default: schema = this.scalar(f, false);
    }
    if (raw.readOnly) schema = { ...schema, readOnly: true };
    return this.readsNull(f) ? orNull(schema) : schema;
  }

  /** Names as they appear in a representation: a generic relation reads as <name>_type, <name>_id and <name>. */
  expand(d: ModelDefinition, names: string[]): string[] {
    return names.flatMap((n) => (d.fields[n]?.type === 'generic_fk' ? [d.fields[n].typeKey!, `${n}_id`, d.fields[n].nestedKey ?? n] : [n]));
  }

  representation(d: ModelDefinition, names: string[], mode: Mode, required: string[]): Schema {
    const expanded = this.expand(d, names);
    const properties = Object.fromEntries(expanded.map((n) => {
      if (d.fields[n]?.type === 'generic_fk') return [n, this.read(d, n, mode)];
      const nestedOf = this.nestedOf(d, n);
      if (nestedOf) return [n, this.read(d, nestedOf.name, mode)];
      const generic = this.genericOf(d, n);
      if (generic && !d.fields[n]) {
        return [n, n === generic.typeKey ? { type: ['string', 'null'], enum: [...Object.keys(generic.types!).sort(), null] } : { type: ['integer', 'null'] }];
      }
      return [n, this.read(d, n, mode)];
    }));
    return { type: 'object', properties, required: expanded.filter((n) => required.includes((this.genericOf(d, n) ?? this.nestedOf(d, n))?.name ?? n)), additionalProperties: false };
  }

  /** The generic relation shown under another key (`nested_key`). */
  private nestedOf(d: ModelDefinition, key: string): FieldDefinition | undefined {
    return Object.values(d.fields).find((f) => f.type === 'generic_fk' && f.nestedKey === key);
  }

  /** The generic relation whose type or id half a representation key is. */
  private genericOf(d: ModelDefinition, key: string): FieldDefinition | undefined {
    return Object.values(d.fields).find((f) => f.type === 'generic_fk' && (f.typeKey === key || `${f.name}_id` === key));
  }

  /** A writable field of a request body, or null when it cannot be written. */
  write(f: FieldDefinition, d: ModelDefinition): Schema | null {
    const related = (model: string): Schema => ({
      oneOf: [{ type: 'integer', minimum: 1 }, { type: 'string', pattern: '^\\d+$' }, { type: 'object', description: `Attributes identifying one ${model}` }],
    });
    // a computed field a hook writes (read_only: false, an event rule's event_types): any JSON value,
    // or one related object (`to:`) or null
    if (f.type === 'computed' && !f.readOnly && f.source?.startsWith('reverse:')) return { type: 'array', items: related(f.source.slice(8).split('.')[0]) };
    if (f.type === 'computed' && !f.readOnly) return f.to ? orNull(related(f.to)) : f.helpText ? { description: f.helpText } : {};
    if (f.readOnly || f.type === 'computed' || f.type === 'generic_fk') return null;
    const of = this.target(f, d);
    let schema: Schema;
    switch (of.type) {
      case 'fk': schema = related(of.to!); break;
      case 'm2m': return { type: 'array', items: related(of.to!) };
      case 'password': schema = { type: 'string', writeOnly: true, ...(of.maxLength ? { maxLength: of.maxLength } : {}) }; break;
      case 'token_key': schema = { type: 'string', pattern: '^([0-9a-fA-F]{40})?$' }; break;
      // a multipart form's file, or a data URL in JSON; null or blank clears it
      case 'image': return orNull({ type: 'string', format: 'binary', description: 'A file (multipart/form-data) or a data URL; null or blank removes the image' });
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
    const tagList = { type: 'array', items: { oneOf: [{ type: 'integer' }, { type: 'string', description: 'slug' }, { type: 'object' }] } };
    if (d.tags) properties.tags = tagList;
    if (d.tags && this.partialTags) {
      properties.add_tags = { ...tagList, writeOnly: true, description: 'Tags added to those the object has' };
      properties.remove_tags = { ...tagList, writeOnly: true, description: 'Tags removed from those the object has (not on create)' };
    }
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
    if (this.cursor) add('start', { type: 'integer', minimum: 0 }, 'Cursor-based pagination: the objects whose id is at least this, ordered by id, without a count. Mutually exclusive with offset.');
    add('ordering', { type: 'string' }, 'Which field to use when ordering the results (comma-separated, `-` for descending).');
    add('brief', { type: 'boolean' }, 'Return the brief representation.');
    if (d.fields.config_context) add('exclude', { type: 'string', enum: ['config_context'] }, 'Omit the rendered configuration context.');
    if (this.fieldSelection) params.push(...FIELD_SELECTION);
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
      case 'reverse': return filter.boolean ? { family: 'boolean', item: { type: 'boolean' } } : { family: filter.family ?? 'exact', item: { type: 'string' } };
      case 'ip':
        if (filter.op === 'mask_length') return { family: 'number', item: { type: 'integer' } };
        return { family: 'boolean', item: { type: 'string' } };
      case 'tag': return { family: 'exact', item: filter.by === 'id' ? { type: 'integer' } : { type: 'string' }, description: `Tag ${filter.by}; repeated values must all match` };
      case 'q': return { family: 'boolean', item: { type: 'string' }, description: 'Search' };
      case 'request': return { family: 'exact', item: { type: 'string', format: 'uuid' }, description: `Objects ${filter.actions.map((a) => `${a}d`).join(' or ')} by the request with this ID (from the change log)` };
      case 'method': return { family: filter.family ?? 'boolean', item: filter.family === 'number' ? { type: 'integer' } : { type: 'string' } };
      case 'ignored': return { family: 'boolean', item: { type: 'string' }, description: `Accepted and ignored: ${filter.reason}` };
    }
  }
}
