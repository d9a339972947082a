/**
 * Cumulative counts of tree models (a region's sites, its descendants' included), a page's counts
 * in one statement.
 */
import type { Knex } from 'knex';
import { model } from './registry.js';
import type { ModelEntry } from '../core/types.js';
import { readByIds } from './reads.js';
import { CHUNK } from './row-cache.js';

/**
 * The query counting objects of `countedModel` pointing at each of `ids` or their descendants through
 * `field` (columns `id` and `n`): a tree's cumulative count. Every other count is a counter column
 * of the row itself, kept by triggers (data/counter-columns.ts), and never counted here.
 */
function countQuery(db: Knex, entry: ModelEntry, countedModel: string, field: string, ids: number[]): Knex.QueryBuilder {
  const counted = model(countedModel);
  const f = counted.definition.fields[field];
  const table = entry.definition.table;
  // an m2m: the links to the node or its descendants, each object once (a contact in two of them)
  if (f.type === 'm2m') {
    return db(`${table} as a`).joinRaw(`join ?? as d on d._path like a._path || '%'`, [table])
      .join(`${f.through!} as o`, 'o.to_id', 'd.id').whereIn('a.id', ids).groupBy('a.id').select('a.id as id').countDistinct('o.from_id as n');
  }
  const column = f.type === 'generic_fk' ? `${field}_id` : f.columns[0];
  return db(`${table} as a`).joinRaw(`join ?? as d on d._path like a._path || '%'`, [table])
    .join(`${counted.definition.table} as o`, `o.${column}`, 'd.id').whereIn('a.id', ids).groupBy('a.id').select('a.id as id').count('* as n');
}

/**
 * Every cumulative count field of a page in ONE statement (the counts UNION ALL'd, each tagged with
 * its position `k`): a region's counts cost one round trip, not one each.
 */
export async function countAll(db: Knex, entry: ModelEntry, names: string[], ids: number[]): Promise<Map<string, Map<number, number>>> {
  const out = new Map(names.map((name) => [name, new Map<number, number>()]));
  // Each part binds the ids once: keep the whole statement under the bound-parameter limit (SQLite
  // 32,766, PostgreSQL 65,535), so a 1,000-row page still takes one statement for ten counts.
  const step = Math.max(1, Math.min(CHUNK, Math.floor(30_000 / names.length)));
  for (let i = 0; i < ids.length; i += step) {
    const rows = await readByIds(db, `counts:${entry.definition.name}:${names.join(',')}`, ids.slice(i, i + step), (chunk) => {
      const parts = names.map((name, k) => {
        const c = entry.definition.counts[name];
        return countQuery(db, entry, c.model, c.field, chunk).select(db.raw(`${k} as k`));
      });
      // Joined by hand: knex's unionAll would move the first part's GROUP BY after the union.
      const compiled = parts.map((p) => p.toSQL());
      return db.raw(compiled.map((c) => c.sql).join(' union all '), compiled.flatMap((c) => c.bindings) as Knex.RawBinding[]);
    });
    for (const r of rows) out.get(names[Number(r.k)])!.set(Number(r.id), Number(r.n));
  }
  return out;
}
