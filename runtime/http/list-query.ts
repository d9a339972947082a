/**
 * A list's query: its order (`?ordering=`, else the model's), and the query of one page's rows.
 */
import type { Knex } from 'knex';
import { storedField } from '../data/registry.js';
import type { ModelEntry } from '../core/types.js';
import { isPostgres } from '../data/db.js';
import { parentOf, parentParts } from '../data/parent-order.js';

export function excluded(params: URLSearchParams): string[] {
  return params.getAll('exclude').flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);
}

/** The names a list is ordered by: ?ordering=a,-b (unknown names dropped), else the default order. */
function orderingNames(entry: ModelEntry, params: URLSearchParams): { names: string[]; requested: string[] } {
  const d = entry.definition;
  const known = (raw: string) => {
    const name = raw.replace(/^-/, '');
    return ['id', 'created', 'last_updated'].includes(name) || !!d.counts[name]?.column || (!!d.fields[name] && storedField(entry, d.fields[name]).columns.length > 0);
  };
  // Unknown names are dropped; when none is left, the default order applies.
  const requested = (params.get('ordering') ?? '').split(',').map((s) => s.trim()).filter(known);
  return { names: requested.length ? requested : d.tree ? ['_sort'] : d.ordering, requested };
}

/** Default order, then ?ordering=a,-b (unknown names dropped); id always breaks ties. */
export function applyOrdering(qb: Knex.QueryBuilder, entry: ModelEntry, params: URLSearchParams): void {
  const d = entry.definition;
  const { names, requested } = orderingNames(entry, params);
  for (const raw of names) {
    const desc = raw.startsWith('-');
    const name = raw.replace(/^-/, '');
    const dir = desc ? 'desc' : 'asc';
    if (name === 'id') continue;
    if (name === '_sort' || name === 'created' || name === 'last_updated') { qb.orderBy(name, dir); continue; }
    // A stored count (never null), as NetBox orders by its annotated counts.
    const counter = d.counts[name]?.column;
    if (counter) { qb.orderBy(counter, dir); continue; }
    const f = d.fields[name] ? storedField(entry, d.fields[name]) : undefined;
    if (!f || !f.columns.length || f.type === 'password' || f.type === 'token_key' || f.type === 'json') continue;
    if (f.type === 'ip_prefix' || f.type === 'ip_address') {
      qb.orderBy('family', dir).orderBy(`${name}_first`, dir).orderBy(`${name}_length`, dir);
      if (f.type === 'ip_address') qb.orderBy(`${name}_host`, dir);
      continue;
    }
    // Nulls first ascending (last descending) on both databases, whose defaults differ; natural names by their key.
    const column = f.natural ? f.columns[1] : f.columns[0];
    qb.orderByRaw(`case when ?? is null then 0 else 1 end ${dir}, ?? ${dir}`, [column, column]);
  }
  qb.orderBy('id', requested[0] === '-id' ? 'desc' : 'asc');
}

/** Sorting whole rows costs more than this many rows read twice (see pageQuery). */
const LATE_ROWS = 250;

/**
 * The query of a page's rows (`base`: all of them, unordered; `columns`: those to read, null for
 * all, page-columns.ts). On SQLite, a small page takes the ids first, sorted and cut with only the
 * columns the order needs, then those rows whole: SQLite
 * sorts whole rows otherwise, and IPs ?parent=10.0.0.0/8&limit=100 sorted 10,000 rows of every
 * column to keep 100 (9 -> 7 ms of CPU). PostgreSQL's top-N sort showed no such cost; a big page
 * would sort its own rows twice. With statistics SQLite still sorted all 10,000 ids of that page;
 * a `parent=` page in the address's order now reads them as ordered index ranges (parent-order.ts).
 */
export function pageQuery(db: Knex, entry: ModelEntry, base: Knex.QueryBuilder, params: URLSearchParams, page: { limit: number | null; offset: number }, columns: string[] | null): Knex.QueryBuilder {
  const sqlite = !isPostgres(db) && page.limit !== null;
  // `parent=` in the address's own order: the ids from the index in order, whatever the statistics
  // (for a page of any size: 1000 rows of 10.0.0.0/8 sorted whole took 9 ms, their ids in order 4).
  const parent = sqlite ? parentOf(base) : undefined;
  const ordered = parent && orderingNames(entry, params).names.join() === parent.field;
  const late = !!ordered || (sqlite && page.limit! <= LATE_ROWS);
  const cut = ordered ? parentParts(base, parent) : late ? base.clone().select('id') : base.clone().select(columns ?? '*');
  applyOrdering(cut, entry, params);
  if (page.limit !== null) cut.limit(page.limit);
  if (page.offset) cut.offset(page.offset);
  if (!late) return cut;
  const rows = db(entry.definition.table).select(columns ?? '*').whereIn('id', ordered ? db.select('id').from(cut.as('page')) : cut);
  applyOrdering(rows, entry, params);
  return rows;
}
