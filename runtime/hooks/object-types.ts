/**
 * The `content_types` list several extras models carry (event rules, webhooks, export templates,
 * saved filters, custom links): a JSON list of `app.model` names, checked against the registry, and
 * the `?content_types=dcim.site` filter on it.
 */
import type { Knex } from 'knex';
import type { WriteItem } from '../data/registry.js';
import { byContentType, model } from '../data/registry.js';
import { errors } from '../core/errors.js';
import { parseBoolean } from '../core/query-values.js';
import type { ModelEntry } from '../core/types.js';

export function parseJson(text: unknown): unknown {
  if (typeof text !== 'string') return text ?? null;
  try { return JSON.parse(text); } catch { return undefined; }
}

/** The stored list, as strings ([] when absent or malformed). */
export function contentTypesOf(stored: unknown): string[] {
  const list = parseJson(stored);
  return Array.isArray(list) ? list.map(String) : [];
}

/**
 * Checks the list on a write: one or more known object types, each accepted by `allowed` (for
 * example: its changes are captured). `what` names the kind in the message.
 */
export function checkContentTypes(item: WriteItem, field = 'content_types', allowed: (entry: ModelEntry) => boolean = () => true, what = 'an object type'): void {
  const list = parseJson({ ...(item.existing ?? {}), ...item.values }[field]);
  if (!Array.isArray(list) || !list.length) {
    item.errors.add(field, 'Give a list of one or more object types (app.model).');
    return;
  }
  for (const ct of list) {
    const entry = typeof ct === 'string' ? byContentType.get(ct) : undefined;
    if (!entry || !allowed(entry)) item.errors.add(field, `${JSON.stringify(ct)} is not ${what}.`);
  }
}

type FilterContext = { db: Knex; table: string; lookup: string };

/** Like-patterns of the stored JSON text (`["dcim.site", ...]`) for a name and a text lookup. */
const PATTERNS: Record<string, (v: string) => string> = {
  exact: (v) => `%"${v}"%`, ie: (v) => `%"${v}"%`, ic: (v) => `%${v}%`, isw: (v) => `%"${v}%`, iew: (v) => `%${v}"%`,
};
const escape = (v: string) => v.replace(/[\\%_"]/g, (c) => `\\${c}`);

/**
 * `?content_types=dcim.site`: rows whose list names that type (repeat for any of several), with
 * NetBox's text lookups (`__ic=dcim`: a type containing the text; `__nic`: none does; `__empty`).
 */
export function contentTypesFilter(field = 'content_types') {
  return (qb: Knex.QueryBuilder, values: string[], { lookup }: FilterContext) => {
    if (lookup === 'empty') {
      const empty = parseBoolean(`${field}__empty`, values[0]);
      qb.where((w) => (empty ? w.whereNull(field).orWhere(field, '[]') : w.whereNotNull(field).whereNot(field, '[]')));
      return;
    }
    const negated = lookup.startsWith('n') && lookup !== 'n';
    const pattern = PATTERNS[negated ? lookup.slice(1) : lookup] ?? PATTERNS.exact;
    const any = (w: Knex.QueryBuilder) => { for (const v of values) w.orWhereRaw(`lower(??) like ? escape '\\'`, [field, pattern(escape(v.toLowerCase()))]); };
    if (negated) qb.whereNot(any);
    else qb.where(any);
  };
}

/**
 * `?content_type_id=4`: rows whose list names the content type with that id (the number lookups
 * compare ids: `__gt=4`), or `__empty`.
 */
export function contentTypeIdsFilter(field = 'content_types') {
  return (qb: Knex.QueryBuilder, values: string[], { db, table, lookup }: FilterContext) => {
    if (lookup === 'empty') { contentTypesFilter(field)(qb, values, { db, table, lookup }); return; }
    const ids = values.map((v) => {
      if (!/^\d+$/.test(v)) throw errors.badFilter(`${field === 'content_types' ? 'content_type_id' : field}${lookup === 'exact' ? '' : `__${lookup}`}`, 'Enter a whole number.');
      return Number(v);
    });
    const op = ({ gt: '>', gte: '>=', lt: '<', lte: '<=' } as Record<string, string>)[lookup];
    const types = db(model('ContentType').definition.table).whereRaw(`?? like '%"' || app_label || '.' || model || '"%'`, [`${table}.${field}`]);
    if (op) types.where((w) => { for (const id of ids) w.orWhere('id', op, id); });
    else types.whereIn('id', ids);
    qb.whereExists(types);
  };
}

/** `?for_object_type_id=4`: rows whose list is empty (any type) or names that content type. */
export function forObjectTypeFilter(field = 'object_types') {
  return (qb: Knex.QueryBuilder, values: string[], ctx: FilterContext) => {
    qb.where((w) => {
      w.whereNull(field).orWhere(field, '[]').orWhere((x) => contentTypeIdsFilter(field)(x, values, { ...ctx, lookup: 'exact' }));
    });
  };
}
