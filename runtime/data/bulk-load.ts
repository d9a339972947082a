/**
 * A bulk load into tables within one transaction (the NetBox import, netbox-import.ts): what the
 * database keeps beside each row as it is written (counter columns, SQLite's search tables,
 * PostgreSQL's row tallies) and the tables' non-unique indexes are set aside while the rows go in,
 * then rebuilt once, set-based, before the transaction ends. The result is what row-by-row upkeep
 * gives; a failure rolls the pause back with the rows. Unique indexes stay, so a duplicate is still
 * refused by the statement that writes it.
 */
import type { Knex } from 'knex';
import { isPostgres } from './db.js';
import { modelList } from './registry.js';
import { countersOf, pauseCounter, recount } from './counter-columns.js';
import { pauseSearchTables } from './search-index.js';
import { pauseTallies } from './row-tallies.js';

/** The non-unique indexes of `tables` that back no constraint: their names and definitions. */
async function plainIndexes(trx: Knex, tables: string[]): Promise<{ name: string; sql: string }[]> {
  if (isPostgres(trx)) {
    const { rows } = await trx.raw(`select c.relname as name, pg_get_indexdef(i.indexrelid) as sql from pg_index i
      join pg_class c on c.oid = i.indexrelid join pg_class t on t.oid = i.indrelid
      where t.relnamespace = current_schema()::regnamespace and t.relname = any(?) and not i.indisunique and not i.indisprimary
        and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid)`, [tables]);
    return rows;
  }
  const rows: { name: string; sql: string; tbl_name: string }[] = await trx.raw("select name, sql, tbl_name from sqlite_master where type = 'index' and sql is not null and sql not like 'create unique%'");
  const wanted = new Set(tables);
  return rows.filter((r) => wanted.has(r.tbl_name)).map(({ name, sql }) => ({ name, sql }));
}

/**
 * Sets aside the derived data and plain indexes of `tables` (model tables and link tables) for a
 * bulk load; the function returned rebuilds them. Both run inside the load's transaction.
 */
export async function setAsideForBulkLoad(trx: Knex, tables: string[]): Promise<() => Promise<void>> {
  const byName = new Map(modelList.map((e) => [e.definition.name, e.definition]));
  const wanted = new Set(tables);
  const counters = modelList.flatMap((e) => countersOf(e.definition, byName)).filter((c) => wanted.has(c.table) || wanted.has(c.parent));
  for (const c of counters) await pauseCounter(trx, c);
  const refillSearch = await pauseSearchTables(trx);
  const retally = await pauseTallies(trx, tables);
  const indexes = await plainIndexes(trx, tables);
  for (const index of indexes) await trx.raw(`drop index "${index.name}"`);
  return async () => {
    // PostgreSQL sorts an index's keys in memory up to maintenance_work_mem (64 MB by default), then
    // on disk: more for this transaction's rebuilds only (about a fifth less time at 600,000 rows)
    if (isPostgres(trx) && indexes.length) await trx.raw("set local maintenance_work_mem = '256MB'");
    for (const index of indexes) await trx.raw(index.sql);
    for (const c of counters) await recount(trx, c);
    await refillSearch();
    await retally();
  };
}
