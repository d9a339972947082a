/**
 * Query-string filters → SQL, from a model's generated filter set.
 * Different parameters AND; repeats of one parameter OR (negations and tags AND); lookups are
 * `<filter>__<lookup>`; unknown parameters are ignored; unparsable values are a 400.
 */
import { errors } from '../core/errors.js';
import { hooksOf, model, type HookContext } from './registry.js';
import type { User } from '../core/user.js';
import type { FilterDefinition, LookupFamily, ModelEntry } from '../core/types.js';
import { parseBoolean } from '../core/query-values.js';
import { applyCustomFieldFilter, type CustomFieldDef } from './customfields.js';
import { conversions } from '../core/conversions.js';
import { choiceValue, compare, compareConverted, fieldTarget, parseScalar, type Where } from './filter-compare.js';
import { applyPath, applyReverse } from './filter-relations.js';
import { applyIp } from './filter-ip.js';
import { applySearch } from './filter-search.js';
import { TAGGED_ITEMS } from './tagged-items.js';

export const LOOKUPS: Record<LookupFamily, string[]> = {
  string: ['n', 'ic', 'nic', 'isw', 'nisw', 'iew', 'niew', 'ie', 'nie', 'empty'],
  number: ['n', 'lt', 'lte', 'gt', 'gte', 'empty'],
  exact: ['n'],
  boolean: [],
};

/** Parameters that are not filters. */
export const RESERVED = new Set(['limit', 'offset', 'ordering', 'brief', 'exclude', 'format', 'fields', 'export']);

/** Which lookups (`<filter>__<lookup>`) a filter takes. */
export function lookupFamily(filter: FilterDefinition): LookupFamily {
  return filter.kind === 'field' || filter.kind === 'path' ? filter.family
    : filter.kind === 'ip' && filter.op === 'mask_length' ? 'number'
      : filter.kind === 'reverse' || filter.kind === 'method' ? filter.family ?? (filter.kind === 'reverse' ? 'exact' : 'boolean')
        : filter.kind === 'tag' || filter.kind === 'request' ? 'exact' : 'boolean';
}

/**
 * Applies every recognised filter of `params` to `qb` (a query on the model's table) and returns
 * the parameters it ignored (unknown names and lookups, empty values): the query string ignores
 * them, but a permission constraint must not be widened by them.
 */
export function applyFilters(qb: Where, entry: ModelEntry, params: URLSearchParams, ctx: HookContext & { customFields?: CustomFieldDef[]; user?: User | null }): string[] {
  const { db } = ctx;
  const ignored: string[] = [];
  const keys = [...new Set(params.keys())].filter((k) => !RESERVED.has(k));
  for (const param of keys) {
    const values = params.getAll(param).filter((v) => v !== '');
    if (!values.length) { ignored.push(param); continue; }
    if (param.startsWith('cf_') && ctx.customFields?.length) {
      const [cfName, cfLookup = 'exact'] = param.slice(3).split('__');
      const def = ctx.customFields.find((c) => c.name === cfName);
      if (def) applyCustomFieldFilter(qb, db, def, cfLookup, values, param);
      else ignored.push(param);
      continue;
    }
    let name = param;
    let lookup = 'exact';
    let filter = entry.filters[param];
    if (!filter) {
      const at = param.lastIndexOf('__');
      name = param.slice(0, at);
      lookup = param.slice(at + 2);
      filter = at < 0 ? undefined as unknown as FilterDefinition : entry.filters[name];
      if (!filter) { ignored.push(param); continue; }
      if (!LOOKUPS[lookupFamily(filter)].includes(lookup)) { ignored.push(param); continue; }
    }
    switch (filter.kind) {
      case 'field': {
        // A declared filter may fix the lookup (created_after = created__gte).
        if (filter.lookup) lookup = filter.lookup;
        const target = fieldTarget(entry, filter.field);
        if (filter.present) {
          // whether the field is set (an image field's file name is blank without one)
          if (parseBoolean(param, values[0])) qb.whereNot(target.column, '');
          else qb.where(target.column, '');
          break;
        }
        if (filter.family === 'boolean') {
          qb.where(target.column, parseBoolean(param, values[0]));
          break;
        }
        if (lookup === 'empty') { compare(qb, target.column, 'empty', values, param, filter.family === 'string'); break; }
        const parsed = values.map((v) => (target.field?.type === 'choice' ? choiceValue(param, target.field, v) : filter.family === 'string' ? v : parseScalar(param, v, target.type)));
        if (target.field?.type === 'choice' && target.field.blank) {
          // NetBox stores "no choice" as an empty string; `null` asks for those.
          const mapped = parsed.map((v) => (v === 'null' ? '' : v));
          compare(qb, target.column, lookup, mapped, param);
          break;
        }
        const bounds = filter.conversion ? conversions[filter.conversion]?.bounds : undefined;
        if (bounds) { compareConverted(qb, target.column, lookup, parsed.map((v) => bounds(Number(v)))); break; }
        compare(qb, target.column, lookup, parsed, param);
        break;
      }
      case 'path': applyPath(qb, entry, filter, lookup, values, param, db); break;
      case 'ip': applyIp(qb, entry, filter, lookup, values, param); break;
      case 'reverse': applyReverse(qb, entry, filter, lookup, values, param, db); break;
      case 'request': {
        // NetBox's created_by_request / updated_by_request / modified_by_request, from the change log
        const uuids = values.map((v) => {
          if (!/^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(v.trim())) throw errors.badFilter(param, 'Enter a valid UUID.');
          const hex = v.trim().replace(/-/g, '').toLowerCase();
          return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
        });
        const changed = db('extras_objectchange').select('changed_object_id').where('changed_object_type', entry.definition.contentType)
          .whereIn('action', filter.actions).whereIn('request_id', uuids);
        if (lookup === 'n') qb.whereNotIn('id', changed);
        else qb.whereIn('id', changed);
        break;
      }
      case 'tag': {
        const tagTable = model('Tag').definition.table;
        const wanted = filter.by === 'id' ? [...new Set(values.map((v) => parseScalar(param, v, 'id')))] : [...new Set(values)];
        const tagIds = filter.by === 'id' ? wanted : db(tagTable).select('id').whereIn('slug', wanted);
        const tagged = db(TAGGED_ITEMS).select('object_id').where('object_type', entry.definition.contentType).whereIn('tag_id', tagIds as never);
        // Repeated tags AND: the object must carry every one (one subquery, however many tags).
        if (lookup === 'n') qb.whereNotIn('id', tagged);
        else qb.whereIn('id', tagged.groupBy('object_id').havingRaw('count(distinct tag_id) = ?', [wanted.length]));
        break;
      }
      case 'q': applySearch(qb, entry, values, db); break;
      case 'ignored': break;
      case 'method': {
        const fn = hooksOf(entry).map((h) => h.filters?.[filter.method]).find(Boolean)!;
        const methodCtx = { ...ctx, entry, table: entry.definition.table };
        if (lookup === 'n') qb.whereNot((w) => fn(w, values, { ...methodCtx, lookup: 'exact' }));
        else fn(qb, values, { ...methodCtx, lookup });
        break;
      }
    }
  }
  return ignored;
}
