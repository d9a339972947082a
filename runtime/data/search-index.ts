/**
 * SQLite's substring indexes for `q`: an FTS5 table with the trigram tokenizer named `<table>_search`
 * over some text columns of a model's table (a migration creates it and its triggers keep it). SQLite
 * has no other index for LIKE '%text%', so on a large table `q` would read every row. The tables are
 * found once per process after the migrations; `q` then looks up those columns through them.
 *
 * SQLite rebuilds a table to add a column with a foreign key, and the rebuild drops the table's
 * triggers: after migrations, restoreSearchTriggers puts back the triggers of every search table
 * and fills it anew from its table.
 */
import type { Knex } from 'knex';
import { isPostgres } from './db.js';

/** The FTS5 tables named `<table>_search`. */
async function searchTables(knex: Knex): Promise<string[]> {
  const tables: { name: string }[] = await knex.raw("select name from sqlite_master where type = 'table' and name like '%\\_search' escape '\\' and sql like '%fts5%'");
  return tables.map((t) => t.name);
}

/** model table → the columns its `<table>_search` indexes */
const indexed = new Map<string, Set<string>>();

export async function loadSearchIndexes(db: Knex): Promise<void> {
  if (isPostgres(db)) return;
  for (const name of await searchTables(db)) {
    const columns: { name: string }[] = await db.raw(`pragma table_info("${name}")`);
    indexed.set(name.slice(0, -'_search'.length), new Set(columns.map((c) => c.name)));
  }
}

/** The FTS table that indexes `column` of `table` on SQLite, or null. */
export function searchTable(table: string, column: string): string | null {
  return indexed.get(table)?.has(column) ? `${table}_search` : null;
}

/**
 * The triggers that keep `<table>_search` in step with `table`. Rows whose columns are all empty
 * (most IP addresses have neither a DNS name nor a description) are left out, on every path alike:
 * they cannot match three characters, and a bulk write of them then costs the index nothing.
 */
export async function createSearchTriggers(knex: Knex, table: string, columns: string[]): Promise<void> {
  const fts = `${table}_search`;
  const list = columns.join(', ');
  const values = (row: string) => columns.map((c) => `${row}.${c}`).join(', ');
  const someText = (row: string) => columns.map((c) => `${row}.${c} <> ''`).join(' or ');
  const add = (row: string) => `insert into ${fts}(rowid, ${list}) select ${row}.id, ${values(row)} where ${someText(row)};`;
  const remove = (row: string) => `insert into ${fts}(${fts}, rowid, ${list}) select 'delete', ${row}.id, ${values(row)} where ${someText(row)};`;
  await knex.raw(`create trigger ${fts}_insert after insert on ${table} begin ${add('new')} end`);
  await knex.raw(`create trigger ${fts}_delete after delete on ${table} begin ${remove('old')} end`);
  // One trigger, so the old entry always goes before the new one comes.
  await knex.raw(`create trigger ${fts}_update after update of ${list} on ${table} begin ${remove('old')} ${add('new')} end`);
}

/** `<table>_search`'s rows anew from `table`: those with some text in `columns`. */
export async function fillSearchTable(knex: Knex, table: string, columns: string[]): Promise<void> {
  const fts = `${table}_search`;
  const list = columns.join(', ');
  await knex.raw(`insert into ${fts}(${fts}) values ('delete-all')`);
  await knex.raw(`insert into ${fts}(rowid, ${list}) select id, ${list} from ${table} where ${columns.map((c) => `${c} <> ''`).join(' or ')}`);
}

/** On SQLite, every search table whose triggers a table rebuild dropped gets them back, and its rows anew. */
export async function restoreSearchTriggers(knex: Knex): Promise<void> {
  if (isPostgres(knex)) return;
  for (const fts of await searchTables(knex)) {
    const table = fts.slice(0, -'_search'.length);
    const triggers = [`${fts}_insert`, `${fts}_delete`, `${fts}_update`];
    const present: { name: string }[] = await knex.raw(`select name from sqlite_master where type = 'trigger' and tbl_name = ? and name in (${triggers.map(() => '?').join(', ')})`, [table, ...triggers]);
    if (present.length === triggers.length) continue;
    const columns = ((await knex.raw(`pragma table_info("${fts}")`)) as { name: string }[]).map((c) => c.name);
    for (const trigger of triggers) await knex.raw(`drop trigger if exists ${trigger}`);
    await createSearchTriggers(knex, table, columns);
    await fillSearchTable(knex, table, columns);
  }
}

/**
 * A bulk load's pause (SQLite): every search table's triggers are dropped; the function returned
 * fills the tables anew from their model tables, once, and puts the triggers back.
 */
export async function pauseSearchTables(knex: Knex): Promise<() => Promise<void>> {
  if (isPostgres(knex)) return async () => {};
  const paused: { table: string; columns: string[] }[] = [];
  for (const fts of await searchTables(knex)) {
    const columns = ((await knex.raw(`pragma table_info("${fts}")`)) as { name: string }[]).map((c) => c.name);
    for (const event of ['insert', 'delete', 'update']) await knex.raw(`drop trigger if exists ${fts}_${event}`);
    paused.push({ table: fts.slice(0, -'_search'.length), columns });
  }
  return async () => {
    for (const { table, columns } of paused) {
      await fillSearchTable(knex, table, columns);
      await createSearchTriggers(knex, table, columns);
    }
  };
}
