/**
 * Query-string filters → SQL, from a model's generated filter set.
 * Different parameters AND; repeats of one parameter OR (negations and tags AND); lookups are
 * `<filter>__<lookup>`; unknown parameters are ignored; unparsable values are a 400.
 */
import type { Knex } from 'knex';
import { errors } from '../core/errors.js';
import { MAX_ID } from '../core/ids.js';
import { parseNetwork } from '../core/ipnet.js';
import { byContentType, choiceSet, hooksOf, model, type HookContext } from './registry.js';
import type { User } from '../auth/authenticate.js';
import type { FieldDefinition, FilterDefinition, LookupFamily, ModelEntry, PathStep } from '../core/types.js';
import { parseBoolean } from '../core/query-values.js';
import { applyCustomFieldFilter, type CustomFieldDef } from './customfields.js';
import { orEach } from './or-each.js';
import { conversions } from '../core/conversions.js';
import { noteParent } from './parent-order.js';
import { isPostgres } from './db.js';
import { searchTable } from './search-index.js';
import { splitPath } from '../core/paths.js';

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


type Where = Knex.QueryBuilder;

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function parseScalar(param: string, value: string, type: string): string | number {
  switch (type) {
    case 'integer': case 'id': case 'fk': {
      if (!/^-?\d+$/.test(value)) throw errors.badFilter(param, 'Enter a whole number.');
      // Ids are 32-bit columns; other integers are 64-bit, of which JavaScript counts exactly up to 2^53.
      const max = type === 'integer' ? Number.MAX_SAFE_INTEGER : MAX_ID;
      const n = Number(value);
      if (!(Math.abs(n) <= max)) throw errors.badFilter(param, `Ensure this value is between ${-max} and ${max}.`);
      return n;
    }
    case 'decimal':
      if (!/^-?\d+(\.\d+)?$/.test(value) || !Number.isFinite(Number(value))) throw errors.badFilter(param, 'Enter a number.');
      return Number(value);
    case 'date':
      if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) throw errors.badFilter(param, 'Enter a valid date (YYYY-MM-DD).');
      return value;
    case 'datetime':
      if (!/^\d{4}-\d{2}-\d{2}([T ][\d:.]+Z?)?$/.test(value)) throw errors.badFilter(param, 'Enter a valid date/time.');
      return storedDateTime(value.replace(' ', 'T'));
    default:
      return value;
  }
}

/**
 * A date-time as stored (UTC, with milliseconds), so `2099-12-31T23:59:59Z` finds what was written
 * as such; a date alone stays as given (it compares as the start of that day).
 */
function storedDateTime(value: string): string {
  if (!value.includes('T')) return value;
  const time = Date.parse(value.endsWith('Z') ? value : `${value}Z`);
  return Number.isNaN(time) ? value : new Date(time).toISOString();
}

/** Column and value type a `field` filter compares. */
function fieldTarget(entry: ModelEntry, name: string): { column: string; type: string; field?: FieldDefinition } {
  const field = entry.definition.fields[name];
  if (field) return { column: field.columns[0], type: field.type === 'generic_fk' ? 'string' : field.type, field };
  if (name === 'id') return { column: name, type: 'id' };
  if (name.endsWith('_id')) return { column: name, type: 'integer' };
  return { column: name, type: 'datetime' };
}

function choiceValue(param: string, field: FieldDefinition | undefined, value: string): string | number {
  if (field?.type === 'choice' && choiceSet(field.choices!).integer) return parseScalar(param, value, 'id');
  return value;
}

/**
 * A filter's values parsed as the type of the column they are compared with: PostgreSQL refuses to
 * compare 'abc' with a number column or 2147483648 with an id column (an error, not an empty result).
 */
function valuesOf(param: string, target: { type: string; field?: FieldDefinition }, values: string[]): (string | number)[] {
  return values.map((v) => (target.field?.type === 'choice' ? choiceValue(param, target.field, v) : parseScalar(param, v, target.type)));
}

/** Applies one lookup of a scalar column; `text`: the column holds text, so `empty` matches '' too. */
function compare(qb: Where, column: string, lookup: string, values: (string | number)[], param: string, text = true): void {
  const col = column;
  switch (lookup) {
    case 'exact': qb.whereIn(col, values); return;
    case 'n': qb.where((w) => w.whereNotIn(col, values).orWhereNull(col)); return;
    case 'lt': case 'lte': case 'gt': case 'gte': {
      const op = { lt: '<', lte: '<=', gt: '>', gte: '>=' }[lookup];
      qb.where((w) => orEach(w, values, (x, v) => x.where(col, op, v)));
      return;
    }
    case 'empty': {
      const empty = parseBoolean(param, String(values[0]));
      if (!text) { if (empty) qb.whereNull(col); else qb.whereNotNull(col); return; }
      if (empty) qb.where((w) => w.whereNull(col).orWhere(col, ''));
      else qb.whereNotNull(col).whereNot(col, '');
      return;
    }
  }
  const patterns: Record<string, (v: string) => string> = {
    ic: (v) => `%${escapeLike(v)}%`, nic: (v) => `%${escapeLike(v)}%`,
    isw: (v) => `${escapeLike(v)}%`, nisw: (v) => `${escapeLike(v)}%`,
    iew: (v) => `%${escapeLike(v)}`, niew: (v) => `%${escapeLike(v)}`,
    ie: (v) => escapeLike(v), nie: (v) => escapeLike(v),
  };
  const pattern = patterns[lookup];
  const negated = lookup.startsWith('n');
  const like = (w: Where, v: string | number) => w.whereRaw(`lower(??) like ? escape '\\'`, [col, pattern(String(v).toLowerCase())]);
  if (negated) qb.where((w) => w.whereNot((x) => orEach(x, values, like)).orWhereNull(col));
  else qb.where((w) => orEach(w, values, like));
}

/**
 * A comparison in a version's units of a field stored in others: each value stands for the stored
 * values [lo, hi) that read as it (3.7's `disk=2`: 1500 <= disk < 2500 MB).
 */
function compareConverted(qb: Knex.QueryBuilder, col: string, lookup: string, ranges: [number, number][]): void {
  const within = (w: Knex.QueryBuilder, [lo, hi]: [number, number]) => w.where((x) => x.where(col, '>=', lo).where(col, '<', hi));
  switch (lookup) {
    case 'exact': qb.where((w) => orEach(w, ranges, within)); return;
    case 'n': qb.where((w) => w.whereNot((x) => orEach(x, ranges, within)).orWhereNull(col)); return;
    case 'lt': qb.where((w) => orEach(w, ranges, (x, [lo]) => x.where(col, '<', lo))); return;
    case 'lte': qb.where((w) => orEach(w, ranges, (x, [, hi]) => x.where(col, '<', hi))); return;
    case 'gt': qb.where((w) => orEach(w, ranges, (x, [, hi]) => x.where(col, '>=', hi))); return;
    case 'gte': qb.where((w) => orEach(w, ranges, (x, [lo]) => x.where(col, '>=', lo))); return;
  }
}

/** Ids of a tree model's nodes and all their descendants. */
function withDescendants(db: Knex, table: string, ids: Knex.QueryBuilder | (string | number)[]): Knex.QueryBuilder {
  return db(`${table} as d`).select('d.id').whereExists(
    db(`${table} as a`).whereRaw(`d._path like a._path || '%'`).whereIn('a.id', ids as never),
  );
}

/**
 * Ids of the path's first model, walking from the last model back: `site.region` with region ids R
 * becomes `site_id IN (SELECT id FROM site WHERE region_id IN (R))`.
 */
function pathSubquery(db: Knex, steps: PathStep[], last: Knex.QueryBuilder | (string | number)[]): Knex.QueryBuilder | (string | number)[] {
  let inner = last;
  for (let i = steps.length - 1; i >= 1; i--) {
    const from = model(steps[i - 1].model);
    const step = steps[i];
    const field = from.definition.fields[step.field];
    // a many-to-many step reads the join table: the rows linked to any of the inner ids
    if (field.type === 'm2m') { inner = db(field.through!).select('from_id').whereIn('to_id', inner as never); continue; }
    const q = db(from.definition.table).select('id');
    if (field.type === 'generic_fk') {
      q.where(`${step.field}_type`, model(step.model).definition.contentType).whereIn(`${step.field}_id`, inner as never);
    } else q.whereIn(field.columns[0], inner as never);
    inner = q;
  }
  return inner;
}

function applyPath(qb: Where, entry: ModelEntry, filter: Extract<FilterDefinition, { kind: 'path' }>, lookup: string, values: string[], param: string, db: Knex): void {
  const first = filter.path[0];
  const firstField = entry.definition.fields[first.field];
  const firstColumn = firstField.type === 'generic_fk' ? `${first.field}_id` : firstField.columns[0];
  const typeCondition = (w: Where) => {
    if (firstField.type === 'generic_fk' && first.contentType) w.where(`${first.field}_type`, first.contentType);
  };
  if (filter.boolean) {
    const has = parseBoolean(param, values[0]);
    if (has) qb.where((w) => { w.whereNotNull(firstColumn); typeCondition(w); });
    else qb.where((w) => w.whereNull(firstColumn).orWhere((x) => { if (firstField.type === 'generic_fk' && first.contentType) x.whereNot(`${first.field}_type`, first.contentType); else x.whereRaw('1 = 0'); }));
    return;
  }
  const end = model(filter.path[filter.path.length - 1].model);
  const wantsNull = values.includes('null') && filter.path.length === 1;
  const real = values.filter((v) => v !== 'null');
  let endIds: Knex.QueryBuilder | (string | number)[] = [];
  if (real.length) {
    if (filter.by === 'id' && (filter.family === 'exact' || lookup === 'exact' || lookup === 'n')) endIds = real.map((v) => parseScalar(param, v, 'id'));
    else {
      const target = fieldTarget(end, filter.by);
      const parsed = real.map((v) => (target.field?.type === 'choice' ? choiceValue(param, target.field, v) : parseScalar(param, v, target.type)));
      const q = db(end.definition.table).select('id');
      if (filter.family === 'exact' || lookup === 'exact' || lookup === 'n') q.whereIn(target.column, parsed);
      else compare(q, target.column, lookup, parsed, param, filter.family === 'string');
      endIds = q;
    }
    if (filter.tree) endIds = withDescendants(db, end.definition.table, endIds);
  }
  let ids = pathSubquery(db, filter.path, endIds);
  const negate = lookup === 'n';
  if (firstField.type === 'm2m') {
    // objects linked to a match (or, for `null`, linked to nothing at all)
    const linked = (to: Knex.QueryBuilder | (string | number)[]) => db(firstField.through!).select('from_id').whereIn('to_id', to as never);
    const anyLink = db(firstField.through!).select('from_id');
    qb.where((w) => {
      if (real.length) w.orWhere((x) => (negate ? x.whereNotIn('id', linked(ids)) : x.whereIn('id', linked(ids))));
      if (wantsNull) w.orWhere((x) => (negate ? x.whereIn('id', anyLink) : x.whereNotIn('id', anyLink)));
    });
    return;
  }
  qb.where((w) => {
    if (negate) {
      w.where((x) => { if (real.length) x.whereNotIn(firstColumn, ids as never); if (wantsNull) x.whereNotNull(firstColumn); }).orWhere((x) => { if (!wantsNull) x.whereNull(firstColumn); else x.whereRaw('1 = 0'); });
    } else {
      if (real.length) w.orWhere((x) => { x.whereIn(firstColumn, ids as never); typeCondition(x); });
      if (wantsNull) w.orWhereNull(firstColumn);
    }
  });
}

function applyIp(qb: Where, entry: ModelEntry, filter: Extract<FilterDefinition, { kind: 'ip' }>, lookup: string, values: string[], param: string): void {
  const f = filter.field;
  const isAddress = entry.definition.fields[f].type === 'ip_address';
  if (filter.op === 'mask_length') {
    const ints = values.map((v) => parseScalar(param, v, 'id'));
    compare(qb, `${f}_length`, lookup, ints, param, false);
    return;
  }
  const nets = values.map((raw) => {
    const n = parseNetwork(raw);
    if (!n) throw errors.badFilter(param, `'${raw}' is not a valid ${isAddress && filter.op === 'exact' ? 'IP address' : 'prefix'}.`);
    return { raw, n };
  });
  qb.where((w) => {
    orEach(w, nets, (x, { raw, n }) => {
      x.where('family', n.family);
      switch (filter.op) {
        case 'exact':
          // A bare address matches any mask; with a mask the whole value must match.
          if (isAddress && !raw.includes('/')) x.where(`${f}_host`, n.host);
          else x.where(f, n.text);
          break;
        case 'within': x.where(`${f}_first`, '>=', n.first).where(`${f}_last`, '<=', n.last).where(`${f}_length`, '>', n.length); break;
        case 'within_include': x.where(`${f}_first`, '>=', n.first).where(`${f}_last`, '<=', n.last).where(`${f}_length`, '>=', n.length); break;
        case 'contains': x.where(`${f}_first`, '<=', n.first).where(`${f}_last`, '>=', n.last).where(`${f}_length`, '<=', n.length); break;
        case 'parent': x.where(`${f}_host`, '>=', n.first).where(`${f}_host`, '<=', n.last); break;
      }
    });
  });
  // One parent network: a page in the address's order can read it as ordered index ranges (parent-order.ts).
  if (filter.op === 'parent' && nets.length === 1) noteParent(qb, f, nets[0].n);
}

/**
 * `q` on an IP address matches addresses whose text (`192.0.2.1/24`) starts with the text, as
 * NetBox's `address__istartswith` does (`10.0.1.` finds 10.0.1.0-255, whatever the mask;
 * `192.0.2.1/24` finds that address), so an index answers it: the stored text is canonical lowercase
 * and holds only hex digits, dots, colons, '/' and the mask, so text with anything else (a name)
 * matches no address. Both engines answer
 * the case-sensitive prefix match on the lower-cased text from an index on the column: PostgreSQL's
 * LIKE through a text_pattern_ops index, SQLite's GLOB through a plain one.
 */
function addressStartsWith(w: Where, column: string, text: string, postgres: boolean): void {
  const prefix = text.toLowerCase();
  if (!/^[0-9a-f.:/]+$/.test(prefix)) { w.orWhereRaw('1 = 0'); return; }
  if (postgres) w.orWhereRaw('?? like ?', [column, `${prefix}%`]);
  else w.orWhereRaw('?? glob ?', [column, `${prefix}*`]);
}

/**
 * `q` on a text column: icontains. SQLite's LIKE ignores ASCII case already, as lower() does there,
 * so the column is compared as stored; where an FTS5 trigram table indexes the column
 * (search-index.ts) it answers a plain LIKE from its index (with an ESCAPE clause it would scan, and
 * a trigram needs three characters). PostgreSQL's trigram indexes are on lower(column), without
 * empty text.
 */
function textContains(w: Where, db: Knex, table: string, column: string, text: string, postgres: boolean): void {
  const pattern = `%${escapeLike(text.toLowerCase())}%`;
  // `?? <> ''` lets PostgreSQL use a trigram index that leaves empty text out (0041): the same answer.
  if (postgres) { w.orWhereRaw(`(lower(??) like ? escape '\\' and ?? <> '')`, [column, pattern, column]); return; }
  const fts = searchTable(table, column);
  if (fts && text.length >= 3 && !/[%_\\]/.test(text)) w.orWhereIn('id', db(fts).select('rowid').whereRaw('?? like ?', [column, `%${text}%`]));
  else w.orWhereRaw(`?? like ? escape '\\'`, [column, pattern]);
}

/**
 * `q` on a field of a related object (`contact.name`, or through a generic relation
 * `member[circuits.circuit].cid`): the rows whose related row's field contains the text, walking the
 * relations back to this model.
 */
function relatedMatch(db: Knex, entry: ModelEntry, path: string, pattern: string): (w: Knex.QueryBuilder) => void {
  const parts = splitPath(path);
  const chain: { from: ModelEntry; column: string; type?: [string, string] }[] = [];
  let current = entry;
  for (const part of parts.slice(0, -1)) {
    const [, name, type] = /^(\w+)(?:\[([\w.]+)\])?$/.exec(part)!;
    if (type) {
      chain.push({ from: current, column: `${name}_id`, type: [`${name}_type`, type] });
      current = byContentType.get(type)!;
    } else {
      const f = current.definition.fields[name];
      chain.push({ from: current, column: f.columns[0] });
      current = model(f.to!);
    }
  }
  const column = current.definition.fields[parts[parts.length - 1]].columns[0];
  let ids = db(current.definition.table).select('id').whereRaw(`lower(??) like ? escape '\\'`, [column, pattern]);
  const step = (q: Knex.QueryBuilder, link: typeof chain[number], inner: Knex.QueryBuilder) => {
    if (link.type) q.where(link.type[0], link.type[1]);
    return q.whereIn(link.column, inner);
  };
  for (let i = chain.length - 1; i >= 1; i--) ids = step(db(chain[i].from.definition.table).select('id'), chain[i], ids);
  return (w) => { w.orWhere((x) => { step(x, chain[0], ids); }); };
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
      case 'reverse': {
        const other = model(filter.model);
        const via = other.definition.fields[filter.field];
        if (via.type === 'm2m') {
          // objects linked from rows of the other model whose `by` matches
          const by = fieldTarget(other, filter.by ?? 'id');
          const from = by.type === 'id' ? valuesOf(param, by, values) : db(other.definition.table).select('id').whereIn(by.column, valuesOf(param, by, values));
          const sub = db(via.through!).select('to_id').whereIn('from_id', from as never);
          if (lookup === 'n') qb.whereNotIn('id', sub);
          else qb.whereIn('id', sub);
          break;
        }
        const generic = via.type === 'generic_fk';
        const column = generic ? `${via.name}_id` : via.columns[0];
        // ids of this model that rows of the other one point at (a generic relation: of this content type)
        const pointing = () => {
          const sub = db(other.definition.table).select(column).whereNotNull(column);
          if (generic) sub.where(`${via.name}_type`, entry.definition.contentType);
          return sub;
        };
        if (filter.boolean) {
          if (parseBoolean(param, values[0])) qb.whereIn('id', pointing());
          else qb.whereNotIn('id', pointing());
          break;
        }
        let sub = pointing();
        let negateReverse = false;
        if (filter.path) applyPath(sub, other, { kind: 'path', path: filter.path, by: filter.by ?? 'id', family: 'exact', tree: !!filter.tree }, 'exact', values, param, db);
        else {
          const by = fieldTarget(other, filter.by ?? 'id');
          if (filter.family === 'string') {
            // text lookups ignore case (a MAC address); a negated one excludes objects any row matches
            const positive = lookup === 'exact' || lookup === 'n' ? 'ie' : lookup.startsWith('n') ? lookup.slice(1) : lookup;
            if (positive !== lookup && lookup !== 'exact') negateReverse = true;
            compare(sub, by.column, positive, values, param);
          } else if (lookup === 'exact' || lookup === 'n') sub.whereIn(by.column, valuesOf(param, by, values));
          else compare(sub, by.column, lookup, valuesOf(param, by, values), param, false);
        }
        // a chain (CircuitTermination.circuit.provider): from the rows' circuits on to their providers
        if (filter.then) {
          let from = model(via.to!);
          for (const step of filter.then) {
            const column = from.definition.fields[step.field].columns[0];
            sub = db(from.definition.table).select(column).whereNotNull(column).whereIn('id', sub);
            from = model(step.model);
          }
        }
        if (lookup === 'n' || negateReverse) qb.whereNotIn('id', sub);
        else qb.whereIn('id', sub);
        break;
      }
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
        const tagged = db('extras_taggeditem').select('object_id').where('content_type', entry.definition.contentType).whereIn('tag_id', tagIds as never);
        // Repeated tags AND: the object must carry every one (one subquery, however many tags).
        if (lookup === 'n') qb.whereNotIn('id', tagged);
        else qb.whereIn('id', tagged.groupBy('object_id').havingRaw('count(distinct tag_id) = ?', [wanted.length]));
        break;
      }
      case 'q': {
        const text = values[0].trim();
        if (!text) break;
        const pattern = `%${escapeLike(text.toLowerCase())}%`;
        const network = parseNetwork(text);
        const postgres = isPostgres(db);
        qb.where((w) => {
          // objects other rows point at when those rows match (a provider by its accounts)
          for (const r of entry.definition.searchRelated ?? []) {
            const other = model(r.model);
            w.orWhereIn('id', db(other.definition.table).select(other.definition.fields[r.field].columns[0])
              .where((x) => { for (const f of r.fields) x.orWhereRaw(`lower(??) like ? escape '\\'`, [other.definition.fields[f].columns[0], pattern]); }));
          }
          for (const name of entry.definition.search) {
            if (name.includes('.')) { relatedMatch(db, entry, name, pattern)(w); continue; }
            const field = entry.definition.fields[name];
            const column = field?.columns[0] ?? name;
            // A number field matches the whole number only (an ASN, a VLAN ID).
            if (field?.type === 'integer') { if (/^\d+$/.test(text)) w.orWhere(column, Number(text)); else w.orWhereRaw('1 = 0'); continue; }
            if (field?.type === 'ip_address') { addressStartsWith(w, column, text, postgres); continue; }
            textContains(w, db, entry.definition.table, column, text, postgres);
            // A network searches prefixes containing or equal to it too.
            if (network && field?.type === 'ip_prefix') {
              w.orWhere((x) => x.where('family', network.family).where(`${name}_first`, '<=', network.first).where(`${name}_last`, '>=', network.last).where(`${name}_length`, '<=', network.length));
            }
          }
        });
        break;
      }
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
