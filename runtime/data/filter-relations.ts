/**
 * Filters that follow relations: a path of foreign keys, many-to-many links and generic relations
 * from this model to another (`site.region`), and reverse filters, by rows of another model
 * pointing at this one (`mac_address` of an interface's MAC addresses).
 */
import type { Knex } from 'knex';
import { model } from './registry.js';
import type { FilterDefinition, ModelEntry, PathStep } from '../core/types.js';
import { parseBoolean } from '../core/query-values.js';
import { choiceValue, compare, fieldTarget, parseScalar, valuesOf, type Where } from './filter-compare.js';

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

export function applyPath(qb: Where, entry: ModelEntry, filter: Extract<FilterDefinition, { kind: 'path' }>, lookup: string, values: string[], param: string, db: Knex): void {
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

/** A `reverse` filter: objects that rows of another model point at, when those rows match. */
export function applyReverse(qb: Where, entry: ModelEntry, filter: Extract<FilterDefinition, { kind: 'reverse' }>, lookup: string, values: string[], param: string, db: Knex): void {
  const other = model(filter.model);
  const via = other.definition.fields[filter.field];
  if (via.type === 'm2m') {
    // objects linked from rows of the other model whose `by` matches
    const by = fieldTarget(other, filter.by ?? 'id');
    const from = by.type === 'id' ? valuesOf(param, by, values) : db(other.definition.table).select('id').whereIn(by.column, valuesOf(param, by, values));
    const sub = db(via.through!).select('to_id').whereIn('from_id', from as never);
    if (lookup === 'n') qb.whereNotIn('id', sub);
    else qb.whereIn('id', sub);
    return;
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
    return;
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
}
