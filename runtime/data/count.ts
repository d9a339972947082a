/**
 * A list's `count`. NetBox counts exactly, and so does NetLedger for every table and filter up to
 * `COUNT_EXACT_LIMIT` rows (100,000 by default). Past it an exact COUNT(*) reads every matching row
 * on every page of the list (on the bench machine, about 15-40 ms per million on SQLite and 60-100
 * ms on PostgreSQL), so the count becomes an estimate, never below the limit:
 * - unfiltered on PostgreSQL: exact at any size, from the table's row tally (row-tallies.ts), kept
 *   by the database's triggers: no estimate, and no COUNT(*) (5-7 ms for 100,000 rows).
 * - unfiltered on SQLite (and on a PostgreSQL table without a tally): the table's size from the
 *   planner statistics (PostgreSQL's `reltuples`; SQLite's `sqlite_stat1`, which statistics.ts keeps
 *   with PRAGMA optimize). Without statistics the table is counted.
 * - filtered, once a count capped at the limit has shown there are more: on PostgreSQL the plan's
 *   row estimate; on SQLite, which has none, the share of an even sample of rows that match.
 */
import type { Knex } from 'knex';
import { isPostgres } from './db.js';
import { readAlone, readRows } from './reads.js';
import { talliedRows } from './row-tallies.js';

export interface Count {
  count: number;
  /** true when `count` is an estimate (more rows than the exact limit) */
  estimated: boolean;
}

/**
 * The counts run past knex's runner. On PostgreSQL each on a connection of its own (readAlone): a
 * count reads every matching row (10,000 for IPs ?parent=10.0.0.0/8), and in the batch of the page
 * or of its nested reads it would delay their answer by that long; alone, its backend works beside theirs.
 */
async function exact(db: Knex, query: Knex.QueryBuilder): Promise<number> {
  return Number((await readAlone(db, query.clone().count('* as n')))[0]?.n ?? 0);
}

/** The table's row count from the planner statistics, or -1 when it has none. */
async function tableEstimate(db: Knex, table: string): Promise<number> {
  if (isPostgres(db)) {
    // reltuples is -1 before the first ANALYZE (or VACUUM) of the table.
    const stat = await readRows(db, db.raw('select reltuples::bigint as n from pg_class where oid = to_regclass(?)', [table]));
    return Number(stat[0]?.n ?? -1);
  }
  try {
    // One row per index: "rows-in-table rows-per-key...". sqlite_stat1 exists after the first ANALYZE.
    const rows = await readRows(db, db.raw('select stat from sqlite_stat1 where tbl = ? limit 1', [table]));
    return rows[0] ? Number.parseInt(rows[0].stat, 10) : -1;
  } catch {
    return -1;
  }
}

const SAMPLE = 1000;

/**
 * SQLite has no row estimate for a filter: the share of SAMPLE rows spread evenly over the id range
 * that match it (rowid lookups, about a millisecond), times the table's size. Its error is a few
 * percent of the table.
 */
async function sampled(db: Knex, table: string, query: Knex.QueryBuilder): Promise<number> {
  // Two queries: SQLite reads min() or max() of the key from the b-tree's end only when it is alone; together they scan the table.
  const lo = Number((await db(table).min('id as v').first())?.v ?? 0);
  const span = Number((await db(table).max('id as v').first())?.v ?? 0) - lo + 1;
  const ids = [...new Set(Array.from({ length: Math.min(SAMPLE, span) }, (_, i) => lo + Math.floor((i * span) / Math.min(SAMPLE, span))))];
  const present = Number((await db(table).whereIn('id', ids).count('* as n').first())?.n ?? 0);
  const matching = Number((await query.clone().whereIn(`${table}.id`, ids).count('* as n').first())?.n ?? 0);
  const statistic = await tableEstimate(db, table);
  const rows = statistic > 0 ? statistic : await exact(db, db(table));
  return present ? Math.round((rows * matching) / present) : 0;
}

/** `query`: the list's table with its filters and permission scope, no order, limit or columns. */
export async function countRows(db: Knex, table: string, query: Knex.QueryBuilder, exactLimit: number): Promise<Count> {
  if (!exactLimit) return { count: await exact(db, query), estimated: false };
  const { sql, bindings } = query.clone().select(db.raw('1')).toSQL();
  const unfiltered = bindings.length === 0 && !/\swhere\s/i.test(sql);
  if (unfiltered) {
    const tallied = isPostgres(db) ? await talliedRows(db, table) : null;
    if (tallied !== null) return { count: tallied, estimated: false };
    const estimate = await tableEstimate(db, table);
    if (estimate > exactLimit) return { count: estimate, estimated: true };
    return { count: await exact(db, query), estimated: false };
  }
  // Count at most one row past the limit: exact below it, at a bounded cost above it.
  const capped = Number((await readAlone(db, db.count('* as n').from(query.clone().select(db.raw('1')).limit(exactLimit + 1).as('capped'))))[0]?.n ?? 0);
  if (capped <= exactLimit) return { count: capped, estimated: false };
  if (!isPostgres(db)) return { count: Math.max(exactLimit + 1, await sampled(db, table, query)), estimated: true };
  const plan = await db.raw(`explain (format json) ${sql}`, bindings);
  const rows = Number(plan.rows[0]?.['QUERY PLAN']?.[0]?.Plan?.['Plan Rows'] ?? 0);
  return { count: Math.max(exactLimit + 1, Math.round(rows)), estimated: true };
}
