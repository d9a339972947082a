/**
 * Multi-row INSERTs sized by bound parameters rather than rows: one statement per request for
 * anything short of tens of thousands of values. On SQLite a plain `VALUES (…), (…)` list, which
 * SQLite parses several times faster than the `SELECT … UNION ALL` form knex emits for it (and which
 * is not limited to 500 rows).
 */
import type { Knex } from 'knex';
import { isPostgres } from './db.js';

/** Bound parameters per statement: under SQLite's 32,766 and PostgreSQL's 65,535. */
const MAX_PARAMETERS = 30_000;

/** Inserts rows (objects with the same or fewer keys); returns the new ids in order when asked. */
export async function insertRows(db: Knex, table: string, rows: Record<string, unknown>[], returnIds = false): Promise<number[]> {
  if (!rows.length) return [];
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / Math.max(1, columns.length)));
  const ids: number[] = [];
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement);
    if (isPostgres(db)) {
      const q = db(table).insert(chunk);
      const result = returnIds ? await q.returning('id') : await q;
      if (returnIds) for (const r of result as ({ id: number } | number)[]) ids.push(Number(typeof r === 'object' ? r.id : r));
      continue;
    }
    const tuple = `(${columns.map(() => '?').join(', ')})`;
    const sql = `insert into ?? (${columns.map(() => '??').join(', ')}) values ${chunk.map(() => tuple).join(', ')}${returnIds ? ' returning ??' : ''}`;
    const values = chunk.flatMap((r) => columns.map((c) => (r[c] === undefined ? null : r[c]))) as Knex.RawBinding[];
    const result = await db.raw(sql, [table, ...columns, ...values, ...(returnIds ? ['id'] : [])]);
    if (returnIds) for (const r of result as { id: number }[]) ids.push(Number(r.id));
  }
  return ids;
}
