/**
 * `column IN (list)` for the long id lists of bulk writes. On PostgreSQL `column = ANY($1)` with the
 * list as ONE array parameter: the client no longer numbers and sends a parameter per value, the
 * server no longer parses them one by one, and the plan is the same (PostgreSQL turns an IN list into
 * `= ANY (ARRAY[…])` itself). On SQLite a plain IN list, in process.
 */
import type { Knex } from 'knex';
import { isPostgres } from './db.js';

export function whereAny(db: Knex, qb: Knex.QueryBuilder, column: string, values: readonly unknown[]): Knex.QueryBuilder {
  return isPostgres(db) ? qb.whereRaw('?? = any(?)', [column, values as Knex.Value]) : qb.whereIn(column, values as string[]);
}
