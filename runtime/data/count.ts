/**
 * A list's `count`. NetBox counts exactly, and so does NetLedger for every table and filter up to
 * `COUNT_EXACT_LIMIT` rows (100,000 by default). Past it, on PostgreSQL, an exact COUNT(*) reads
 * every matching row (about 60-100 ms for a million on this project's bench machine, on every page of
 * the list), so the count becomes the planner's estimate: the table's `reltuples` when the list is
 * unfiltered, the plan's row estimate otherwise; never below the limit. SQLite counts a table from
 * its b-tree pages and a filtered range from its index in a few milliseconds per million rows, so it
 * stays exact.
 */
import type { Knex } from 'knex';
import { isPostgres } from './db.js';

export interface Count {
  count: number;
  /** true when `count` is an estimate (more rows than the exact limit) */
  estimated: boolean;
}

async function exact(query: Knex.QueryBuilder): Promise<number> {
  return Number((await query.clone().count('* as n').first())?.n ?? 0);
}

/** `query`: the list's table with its filters and permission scope, no order, limit or columns. */
export async function countRows(db: Knex, table: string, query: Knex.QueryBuilder, exactLimit: number): Promise<Count> {
  if (!exactLimit || !isPostgres(db)) return { count: await exact(query), estimated: false };
  const { sql, bindings } = query.clone().select(db.raw('1')).toSQL();
  const unfiltered = bindings.length === 0 && !/\swhere\s/i.test(sql);
  if (unfiltered) {
    // reltuples is -1 before the first ANALYZE (or VACUUM) of the table: then count.
    const stat = await db.raw('select reltuples::bigint as n from pg_class where oid = to_regclass(?)', [table]);
    const estimate = Number(stat.rows[0]?.n ?? -1);
    if (estimate > exactLimit) return { count: estimate, estimated: true };
    return { count: await exact(query), estimated: false };
  }
  // Count at most one row past the limit: exact below it, at a bounded cost above it.
  const capped = Number((await db.count('* as n').from(query.clone().select(db.raw('1')).limit(exactLimit + 1).as('capped')).first())?.n ?? 0);
  if (capped <= exactLimit) return { count: capped, estimated: false };
  const plan = await db.raw(`explain (format json) ${sql}`, bindings);
  const rows = Number(plan.rows[0]?.['QUERY PLAN']?.[0]?.Plan?.['Plan Rows'] ?? 0);
  return { count: Math.max(exactLimit + 1, Math.round(rows)), estimated: true };
}
