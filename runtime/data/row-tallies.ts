/**
 * Row tallies (PostgreSQL): the exact number of rows of every model table, so that an unfiltered
 * list's `count` is a sum of a few small rows instead of COUNT(*) over the table (5-7 ms for 100,000
 * interfaces, and past COUNT_EXACT_LIMIT only an estimate).
 *
 * A single counter row per table would make every writer of the table wait for the one before it
 * (the row stays locked until commit). Instead each write statement adds a row of its own to
 * `row_tally` (`table_name`, `delta`: the rows it inserted, or minus those it deleted), from a
 * statement trigger with a transition table: inserts only, so concurrent writers never wait for each
 * other, and a reader sums the deltas its snapshot sees, which is exactly the table's row count in
 * that snapshot, cascades and raw SQL included. Compaction folds a table's deltas into one row in
 * one statement (below). SQLite needs none of this: its exact count stays cheap at the bench's
 * scale, and it has no statement triggers.
 *
 * The generated migrations add a tally to every model table (`tally` lines, generator/migration.ts).
 */
import type { Knex } from 'knex';
import { readRows } from './reads.js';
import { inSchema } from './counter-columns.js';
import { log } from '../core/log.js';

const isPg = (knex: Knex) => knex.client.driverName === 'pg';

/**
 * The table and the three trigger functions, shared by every tallied table of the schema (the
 * functions read the table's name from TG_TABLE_NAME), made by the first addTally of a schema.
 */
async function ensureStore(knex: Knex): Promise<void> {
  if ((await knex.raw("select to_regclass('row_tally') is not null as present")).rows[0].present) return;
  // The triggers' functions write to the schema's table whatever search path the writing session has.
  const table = await inSchema(knex, 'row_tally');
  await knex.raw(`create table ${table} (table_name text not null, delta bigint not null)`);
  await knex.raw('create index row_tally_table_idx on row_tally (table_name)');
  for (const [name, transition, sign] of [['row_tally_insert', 'new_rows', ''], ['row_tally_delete', 'old_rows', '-']]) {
    await knex.raw(`create or replace function ${name}() returns trigger language plpgsql as $$ begin
      insert into ${table} (table_name, delta) select TG_TABLE_NAME, ${sign}count(*) from ${transition} having count(*) > 0;
      return null;
    end $$`);
  }
  // TRUNCATE leaves no rows: one delta of zero stays, the mark that the table is tallied.
  await knex.raw(`create or replace function row_tally_truncate() returns trigger language plpgsql as $$ begin
    delete from ${table} where table_name = TG_TABLE_NAME;
    insert into ${table} (table_name, delta) values (TG_TABLE_NAME, 0);
    return null;
  end $$`);
}

/** Starts tallying `table`: its present row count, then the triggers that keep it. */
export async function addTally(knex: Knex, table: string): Promise<void> {
  if (!isPg(knex)) return;
  await ensureStore(knex);
  await knex.raw(`delete from row_tally where table_name = ?`, [table]);
  await knex.raw(`insert into row_tally (table_name, delta) select ?, count(*) from ${table}`, [table]);
  await knex.raw(`create trigger ${table}_tally_ins after insert on ${table} referencing new table as new_rows for each statement execute function row_tally_insert()`);
  await knex.raw(`create trigger ${table}_tally_del after delete on ${table} referencing old table as old_rows for each statement execute function row_tally_delete()`);
  await knex.raw(`create trigger ${table}_tally_trunc after truncate on ${table} for each statement execute function row_tally_truncate()`);
}

/** Stops tallying `table` (before it is dropped, or when its tally goes). */
export async function dropTally(knex: Knex, table: string): Promise<void> {
  if (!isPg(knex)) return;
  for (const suffix of ['ins', 'del', 'trunc']) await knex.raw(`drop trigger if exists ${table}_tally_${suffix} on ${table}`);
  await knex.raw(`delete from row_tally where table_name = ?`, [table]);
  // Every tallied table keeps at least one row (addTally's count, a fold's sum, TRUNCATE's zero):
  // none left, none tallied, and the store goes with the last.
  const { rows } = await knex.raw('select exists (select 1 from row_tally) as tallied');
  if (rows[0].tallied) return;
  await knex.raw('drop table row_tally');
  await knex.raw('drop function row_tally_insert(), row_tally_delete(), row_tally_truncate()');
}

/**
 * A bulk load's pause of the tallies of `tables` (those tallied): their triggers disabled within the
 * transaction; the function returned sets each tally to the table's count, once, and enables them.
 */
export async function pauseTallies(knex: Knex, tables: string[]): Promise<() => Promise<void>> {
  if (!isPg(knex)) return async () => {};
  const { rows } = await knex.raw(`select c.relname as name from pg_trigger t join pg_class c on c.oid = t.tgrelid
    where c.relnamespace = current_schema()::regnamespace and t.tgname = c.relname || '_tally_ins' and c.relname = any(?)`, [tables]);
  const tallied = rows.map((r: { name: string }) => r.name);
  for (const table of tallied) for (const suffix of ['ins', 'del']) await knex.raw(`alter table ${table} disable trigger ${table}_tally_${suffix}`);
  return async () => {
    for (const table of tallied) {
      await knex.raw('delete from row_tally where table_name = ?', [table]);
      await knex.raw(`insert into row_tally (table_name, delta) select ?, count(*) from ${table}`, [table]);
      for (const suffix of ['ins', 'del']) await knex.raw(`alter table ${table} enable trigger ${table}_tally_${suffix}`);
    }
  };
}

/** Deltas of one table past which a read folds them (in the background; the keeper folds every table each minute). */
const FOLD_AT = 64;
/** Tables this process is folding now: one fold at a time each. */
const folding = new Set<string>();

/**
 * Folding deltas into one row per table, in one statement: the rows it deletes are exactly those it
 * sums. A concurrent fold blocks on the rows the first one deletes, then skips them, so it sums only
 * what it deleted itself; readers see either the deltas or their sum, never both; deltas of writers
 * not yet committed are not seen, so they stay.
 */
const fold = (which: string) => `with gone as (delete from row_tally where ${which} returning table_name, delta)
  insert into row_tally (table_name, delta) select table_name, sum(delta) from gone group by table_name`;

/** Folds the deltas of every table that has more than one (the statistics round, statistics.ts). */
export const FOLD_EVERY_TABLE = fold('table_name in (select table_name from row_tally group by table_name having count(*) > 1)');

async function foldTable(db: Knex, table: string): Promise<void> {
  await db.raw(fold('table_name = ?'), [table]);
}

/**
 * The exact row count of `table` in the reader's snapshot, or null when the table is not tallied
 * (then the caller counts). Read through readRows, so on PostgreSQL it rides in the batch of the
 * page's own reads instead of a round trip of its own.
 */
export async function talliedRows(db: Knex, table: string): Promise<number | null> {
  const [row] = await readRows(db, db.raw('select coalesce(sum(delta), 0)::bigint as n, count(*)::int as parts from row_tally where table_name = ?', [table]));
  const parts = Number(row?.parts ?? 0);
  if (!parts) return null;
  if (parts > FOLD_AT && !db.isTransaction && !folding.has(table)) {
    folding.add(table);
    foldTable(db, table)
      .catch((error) => log.debug({ err: error, table }, 'folding row tallies failed; the next read or round retries'))
      .finally(() => folding.delete(table));
  }
  return Number(row.n);
}
