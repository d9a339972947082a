/**
 * Several statements of one step in one round trip on PostgreSQL, where each round trip costs more
 * than a short statement does: the cascade and protection lookups of a delete as one UNION ALL, its
 * generic-relation cleanups as one statement of data-modifying CTEs. On SQLite (in process, no round
 * trip) each runs alone, and not at all when its table is empty.
 */
import type { Knex } from 'knex';
import { isPostgres } from './db.js';

/** The table a query reads or writes, when it names one plainly (`table` or `table as alias`). */
function tableOf(q: Knex.QueryBuilder): string | null {
  const table = (q as unknown as { _single: { table?: unknown } })._single.table;
  return typeof table === 'string' ? table.split(/\s+as\s+/i)[0] : null;
}

/**
 * SQLite: is the query's table empty? (Always false on PostgreSQL, where the lookups travel
 * together.) A lookup of 1000 ids in an empty table still binds and sorts the 1000 ids (0.15-0.9
 * ms); asking whether the table has a row takes microseconds. A delete looks in a dozen tables of
 * generic relations (journal entries, terminations, assignments) that are often empty.
 */
export async function emptyOnSqlite(db: Knex, q: Knex.QueryBuilder): Promise<boolean> {
  if (isPostgres(db)) return false;
  const table = tableOf(q);
  return table !== null && !(await db(table).select(db.raw('1 as one')).limit(1)).length;
}

/** The ids each query (a `select id …`) finds, in query order. */
export async function idsOfEach(db: Knex, queries: Knex.QueryBuilder[]): Promise<number[][]> {
  const out = queries.map(() => [] as number[]);
  if (!isPostgres(db) || queries.length < 2) {
    for (const [i, q] of queries.entries()) {
      if (await emptyOnSqlite(db, q)) continue;
      out[i] = (await q).map((r: { id: unknown }) => Number(r.id));
    }
    return out;
  }
  const parts = queries.map((q) => q.toSQL());
  const sql = parts.map((p, i) => `select ${i} as q, s${i}.id from (${p.sql}) as s${i}`).join(' union all ');
  const result = await db.raw(sql, parts.flatMap((p) => p.bindings as Knex.RawBinding[]));
  for (const r of result.rows) out[r.q].push(Number(r.id));
  return out;
}

/**
 * Deletes and updates whose results nobody reads. Together only where no row can be touched twice:
 * the sub-statements of one PostgreSQL statement share a snapshot, so a table an update touches is
 * left to a statement of its own.
 */
export async function runTogether(db: Knex, statements: Knex.QueryBuilder[]): Promise<void> {
  if (!isPostgres(db) || statements.length < 2) {
    for (const q of statements) if (!(await emptyOnSqlite(db, q))) await q;
    return;
  }
  const compiled = statements.map((q) => ({ ...q.toSQL(), table: tableOf(q) }));
  const updated = new Set(compiled.filter((c) => c.method === 'update').map((c) => c.table));
  const alone = compiled.filter((c) => c.method === 'update' || updated.has(c.table));
  const together = compiled.filter((c) => !alone.includes(c));
  for (const c of alone) await db.raw(c.sql, c.bindings as Knex.RawBinding[]);
  if (together.length === 1) await db.raw(together[0].sql, together[0].bindings as Knex.RawBinding[]);
  else if (together.length) {
    const sql = `with ${together.map((c, i) => `d${i} as (${c.sql})`).join(', ')} select 1`;
    await db.raw(sql, together.flatMap((c) => c.bindings as Knex.RawBinding[]));
  }
}
