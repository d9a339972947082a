/**
 * Custom fields: definitions live in extras_customfield; values live in each object's
 * `custom_field_data` JSON. Reading shows every field defined for the type (null when unset);
 * writing validates and merges; `cf_<name>` filters compare a JSON expression that an expression
 * index created with the field can answer.
 */
import type { Knex } from 'knex';
import { isPostgres } from './db.js';
import { errors } from '../core/errors.js';
import { parseBoolean } from '../core/query-values.js';
import { orEach } from './or-each.js';
import { byContentType, model, type Row } from './registry.js';
import type { ErrorCollector } from '../core/errors.js';
import type { ModelEntry } from '../core/types.js';
import { processCache, watchModels } from './cache.js';
import { baseChoices } from './base-choices.js';

export interface CustomFieldDef {
  id: number;
  name: string;
  type: string;
  required: boolean;
  default: unknown;
  filterLogic: string;
  minimum: number | null;
  maximum: number | null;
  regex: string;
  /** select / multiselect: allowed values (the set's base choices, then its extra choices) */
  choices: string[];
  /** the same values, to check one without scanning */
  allowed: ReadonlySet<string>;
  /** object / multiobject: target model */
  objectModel: string | null;
}

const truthy = (v: unknown) => v === true || v === 1 || v === '1' || v === 't';

watchModels(['CustomField', 'CustomFieldChoiceSet']);
/** Definitions by model (emptied whenever a custom field or choice set changes, in any process). */
const definitions = processCache<string, CustomFieldDef[]>();

/** Every custom field that applies to a model, ordered by weight and name (two queries at most; none when cached). */
export async function customFieldsFor(db: Knex, entry: ModelEntry): Promise<CustomFieldDef[]> {
  if (!entry.definition.customFields) return [];
  return definitions.get(db, entry.definition.name, () => loadCustomFields(db, entry));
}

async function loadCustomFields(db: Knex, entry: ModelEntry): Promise<CustomFieldDef[]> {
  const ct = entry.definition.contentType;
  const rows: Row[] = (await db(model('CustomField').definition.table).orderBy('weight').orderBy('name'))
    .filter((r: Row) => (JSON.parse(r.content_types || '[]') as string[]).includes(ct));
  const setIds = [...new Set(rows.map((r) => r.choice_set_id).filter((v) => v !== null))];
  const sets = new Map<number, string[]>();
  if (setIds.length) {
    for (const s of await db(model('CustomFieldChoiceSet').definition.table).whereIn('id', setIds)) {
      const extra = (JSON.parse(s.extra_choices || '[]') as [string, string][]).map((c) => String(Array.isArray(c) ? c[0] : c));
      const values = [...baseChoices(s.base_choices).map((p) => p[0]), ...extra];
      sets.set(Number(s.id), truthy(s.order_alphabetically) ? values.sort() : values);
    }
  }
  return rows.map((r) => {
    const choices = r.choice_set_id === null ? [] : sets.get(Number(r.choice_set_id)) ?? [];
    return {
      id: Number(r.id),
      name: r.name,
      type: r.type,
      required: truthy(r.required),
      default: r.default === null || r.default === undefined ? null : JSON.parse(r.default),
      filterLogic: r.filter_logic,
      minimum: r.validation_minimum === null ? null : Number(r.validation_minimum),
      maximum: r.validation_maximum === null ? null : Number(r.validation_maximum),
      regex: r.validation_regex ?? '',
      choices,
      allowed: new Set(choices),
      objectModel: r.object_type ? byContentType.get(r.object_type)?.definition.name ?? null : null,
    };
  });
}

/** A reference to resolve before the value is stored (object and multiobject fields). */
export type ObjectRef = (target: string, value: unknown, apply: (id: number) => void) => void;

/** The allowed values for an error message: all of a short list, the first 20 of a base list of thousands. */
function listed(choices: string[]): string {
  return choices.length <= 50 ? choices.join(', ') : `${choices.slice(0, 20).join(', ')}, ... (${choices.length} in all)`;
}

/** Checks one value; returns the value to store, or records why not. */
function checkValue(def: CustomFieldDef, value: unknown, fail: (reason: string) => void, ref: ObjectRef, store: (v: unknown) => void): void {
  if (value === null || value === '') {
    if (def.required) fail('Required field cannot be empty.');
    else store(null);
    return;
  }
  switch (def.type) {
    case 'text': case 'longtext': case 'url':
      if (typeof value !== 'string') return fail('Value must be a string.');
      if (def.regex && def.type !== 'url' && !new RegExp(`^(?:${def.regex})`).test(value)) return fail(`Value must match regex '${def.regex}'`);
      return store(value);
    case 'integer': case 'decimal': {
      const n = def.type === 'decimal' && typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isFinite(n) || (def.type === 'integer' && !Number.isInteger(n))) return fail(`Value must be ${def.type === 'integer' ? 'an integer' : 'a decimal'}.`);
      if (def.minimum !== null && n < def.minimum) return fail(`Value must be at least ${def.minimum}`);
      if (def.maximum !== null && n > def.maximum) return fail(`Value must not exceed ${def.maximum}`);
      return store(n);
    }
    case 'boolean':
      if (value === true || value === false) return store(value);
      if (value === 1 || value === 0 || value === '1' || value === '0' || value === 'true' || value === 'false') return store(value === 1 || value === '1' || value === 'true');
      return fail('Value must be true or false.');
    case 'date':
      if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value))) return fail('Date values must be in ISO 8601 format (YYYY-MM-DD).');
      return store(value);
    case 'datetime':
      if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) return fail('Date and time values must be in ISO 8601 format (YYYY-MM-DD HH:MM:SS).');
      return store(new Date(value).toISOString());
    case 'json':
      return store(value);
    case 'select':
      if (!def.allowed.has(String(value))) return fail(`Invalid choice (${String(value)}). Available choices are: ${listed(def.choices)}`);
      return store(String(value));
    case 'multiselect': {
      const list = Array.isArray(value) ? value : [value];
      const bad = list.find((v) => !def.allowed.has(String(v)));
      if (bad !== undefined) return fail(`Invalid choice(s) (${String(bad)}). Available choices are: ${listed(def.choices)}`);
      return store(list.map(String));
    }
    case 'object':
      if (!def.objectModel) return fail('The object type of this field is not installed.');
      ref(def.objectModel, value, (id) => store(id));
      return;
    case 'multiobject': {
      if (!def.objectModel) return fail('The object type of this field is not installed.');
      const list = Array.isArray(value) ? value : [value];
      const ids: number[] = [];
      store(ids);
      for (const v of list) ref(def.objectModel, v, (id) => ids.push(id));
      return;
    }
  }
}

/**
 * The data to store after a write: stored values, then the given ones (PATCH and PUT merge), then
 * defaults for fields a new object does not mention. Null when nothing changes.
 */
export function applyCustomFields(defs: CustomFieldDef[], stored: Record<string, unknown> | null, given: unknown, creating: boolean, errs: ErrorCollector, ref: ObjectRef): Record<string, unknown> | null {
  if (given !== undefined && (given === null || typeof given !== 'object' || Array.isArray(given))) {
    errs.add('custom_fields', 'Invalid data: expected a dictionary of custom field names and values.');
    return null;
  }
  if (!creating && given === undefined) return null;
  const data: Record<string, unknown> = { ...(stored ?? {}) };
  const input = (given ?? {}) as Record<string, unknown>;
  const byName = new Map(defs.map((d) => [d.name, d]));
  for (const key of Object.keys(input)) if (!byName.has(key)) errs.add('custom_fields', `Unknown field name '${key}' in custom field data.`);
  for (const def of defs) {
    const fail = (reason: string) => errs.add('custom_fields', `Invalid value for custom field '${def.name}': ${reason}`);
    if (def.name in input) checkValue(def, input[def.name], fail, ref, (v) => { data[def.name] = v; });
    else if (creating && def.default !== null) data[def.name] = def.default;
    if (def.required && (data[def.name] === null || data[def.name] === undefined) && !(def.name in input)) errs.add('custom_fields', `Missing required custom field '${def.name}'.`);
  }
  return data;
}

/** What `custom_fields` shows: every defined field, null when unset; objects through `nested`. */
export function renderCustomFields(defs: CustomFieldDef[], raw: string | null, nested: (model: string, id: unknown) => unknown): Record<string, unknown> {
  const data = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
  const out: Record<string, unknown> = {};
  for (const def of defs) {
    const v = data[def.name];
    if (v === undefined || v === null) out[def.name] = null;
    else if (def.type === 'object' && def.objectModel) out[def.name] = nested(def.objectModel, v);
    else if (def.type === 'multiobject' && def.objectModel && Array.isArray(v)) out[def.name] = v.map((id) => nested(def.objectModel!, id)).filter(Boolean);
    else out[def.name] = v;
  }
  return out;
}

/** Related objects that rendering custom fields will need. */
export function customFieldTargets(defs: CustomFieldDef[], rows: Row[], need: (model: string, id: unknown) => void): void {
  const objectDefs = defs.filter((d) => (d.type === 'object' || d.type === 'multiobject') && d.objectModel);
  if (!objectDefs.length) return;
  for (const row of rows) {
    const data = row.custom_field_data ? JSON.parse(row.custom_field_data) : {};
    for (const def of objectDefs) {
      const v = data[def.name];
      for (const id of Array.isArray(v) ? v : v === null || v === undefined ? [] : [v]) need(def.objectModel!, id);
    }
  }
}

type ExpressionKind = 'text' | 'number' | 'boolean';

function expressionKind(def: CustomFieldDef): ExpressionKind {
  if (['integer', 'decimal', 'object'].includes(def.type)) return 'number';
  if (def.type === 'boolean') return 'boolean';
  return 'text';
}

/**
 * The SQL expression of a custom field's value. Names are [A-Za-z0-9_] (checked when the field is
 * saved), so they are written into the SQL; the index created with the field uses the same text.
 */
export function cfExpression(db: Knex, name: string, kind: ExpressionKind): string {
  if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`unsafe custom field name ${name}`);
  if (isPostgres(db)) {
    const text = `(custom_field_data::jsonb ->> '${name}')`;
    return kind === 'number' ? `(${text}::numeric)` : kind === 'boolean' ? `(${text}::boolean)` : text;
  }
  return `json_extract(custom_field_data, '$.${name}')`;
}

/** Creates the expression index that answers `cf_<name>` equality and range filters on one table. */
export async function indexCustomField(db: Knex, table: string, name: string, type: string): Promise<void> {
  if (['json', 'multiselect', 'multiobject', 'longtext'].includes(type)) return;
  const kind = expressionKind({ type } as CustomFieldDef);
  const index = `cf_${table}_${name}`.slice(0, 63);
  await db.raw(`CREATE INDEX IF NOT EXISTS ?? ON ?? ((${cfExpression(db, name, kind)}))`, [index, table]);
}

const STRING_LOOKUPS = ['exact', 'n', 'ic', 'nic', 'isw', 'nisw', 'iew', 'niew', 'ie', 'nie', 'empty'];
const NUMBER_LOOKUPS = ['exact', 'n', 'lt', 'lte', 'gt', 'gte', 'empty'];

/** The lookups `cf_<name>__<lookup>` accepts for a field (`exact` is the bare name); none when it cannot be filtered. */
export function customFieldLookups(def: CustomFieldDef): string[] {
  if (def.filterLogic === 'disabled' || def.type === 'json') return [];
  if (['multiselect', 'multiobject', 'boolean'].includes(def.type)) return ['exact'];
  if (['text', 'longtext', 'url'].includes(def.type) && def.filterLogic === 'loose') return ['exact'];
  return expressionKind(def) === 'number' || ['date', 'datetime'].includes(def.type) ? NUMBER_LOOKUPS : STRING_LOOKUPS;
}

/** Applies `cf_<name>[__lookup]=value…` to a list query. */
export function applyCustomFieldFilter(qb: Knex.QueryBuilder, db: Knex, def: CustomFieldDef, lookup: string, values: string[], param: string): void {
  if (def.filterLogic === 'disabled' || def.type === 'json') return;
  const kind = expressionKind(def);
  const expr = cfExpression(db, def.name, kind);
  if (def.type === 'multiselect' || def.type === 'multiobject') {
    if (lookup !== 'exact') return;
    const items = values.map((v) => {
      const item = def.type === 'multiobject' ? Number(v) : v;
      if (def.type === 'multiobject' && !(/^\d+$/.test(v) && Number.isSafeInteger(item))) throw errors.badFilter(param, 'Enter a whole number.');
      return item;
    });
    qb.where((w) => orEach(w, items, (x, item) => {
      if (isPostgres(db)) x.whereRaw(`(custom_field_data::jsonb -> ?) @> ?::jsonb`, [def.name, JSON.stringify([item])]);
      else x.whereRaw(`exists (select 1 from json_each(custom_field_data, '$.${def.name}') where value = ?)`, [item]);
    }));
    return;
  }
  if (kind === 'boolean') {
    const b = parseBoolean(param, values[0]);
    qb.whereRaw(`${expr} = ?`, [isPostgres(db) ? b : b ? 1 : 0]);
    return;
  }
  const loose = ['text', 'longtext', 'url'].includes(def.type) && def.filterLogic === 'loose';
  if (loose) {
    if (lookup !== 'exact') return;
    qb.where((w) => orEach(w, values, (x, v) => x.whereRaw(`lower(${expr}) like ?`, [`%${v.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`])));
    return;
  }
  const allowed = kind === 'number' || ['date', 'datetime'].includes(def.type) ? NUMBER_LOOKUPS : STRING_LOOKUPS;
  if (!allowed.includes(lookup)) return;
  const parsed = values.map((v) => {
    if (kind !== 'number') return v;
    if (!/^-?\d+(\.\d+)?$/.test(v) || !Number.isFinite(Number(v))) throw errors.badFilter(param, 'Enter a number.');
    return Number(v);
  });
  switch (lookup) {
    case 'exact': qb.where((w) => orEach(w, parsed, (x, v) => x.whereRaw(`${expr} = ?`, [v]))); return;
    case 'n': qb.where((w) => w.whereRaw(`${expr} is null`).orWhereRaw(`${expr} not in (${parsed.map(() => '?').join(',')})`, parsed)); return;
    case 'lt': case 'lte': case 'gt': case 'gte': {
      const op = { lt: '<', lte: '<=', gt: '>', gte: '>=' }[lookup];
      qb.where((w) => orEach(w, parsed, (x, v) => x.whereRaw(`${expr} ${op} ?`, [v])));
      return;
    }
    case 'empty':
      // A number is never '' (and PostgreSQL cannot compare a numeric with text): only null is empty.
      if (kind === 'number') qb.whereRaw(`${expr} is ${parseBoolean(param, values[0]) ? '' : 'not '}null`);
      else if (parseBoolean(param, values[0])) qb.where((w) => w.whereRaw(`${expr} is null`).orWhereRaw(`${expr} = ''`));
      else qb.whereRaw(`${expr} is not null`).whereRaw(`${expr} <> ''`);
      return;
  }
  const patterns: Record<string, (v: string) => string> = {
    ic: (v) => `%${v}%`, nic: (v) => `%${v}%`, isw: (v) => `${v}%`, nisw: (v) => `${v}%`, iew: (v) => `%${v}`, niew: (v) => `%${v}`, ie: (v) => v, nie: (v) => v,
  };
  const pattern = patterns[lookup];
  const like = (w: Knex.QueryBuilder, v: unknown) => w.whereRaw(`lower(${expr}) like ? escape '\\'`, [pattern(String(v).toLowerCase().replace(/[\\%_]/g, '\\$&'))]);
  if (lookup.startsWith('n')) qb.where((w) => w.whereNot((x) => orEach(x, parsed, like)).orWhereRaw(`${expr} is null`));
  else qb.where((w) => orEach(w, parsed, like));
}
