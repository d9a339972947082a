/**
 * SQLite's substring indexes for `q`: an FTS5 table with the trigram tokenizer named `<table>_search`
 * over some text columns of a model's table (a migration creates it and its triggers keep it). SQLite
 * has no other index for LIKE '%text%', so on a large table `q` would read every row. The tables are
 * found once per process after the migrations; `q` then looks up those columns through them.
 */
import type { Knex } from 'knex';
import { isPostgres } from './db.js';

/** model table → the columns its `<table>_search` indexes */
const indexed = new Map<string, Set<string>>();

export async function loadSearchIndexes(db: Knex): Promise<void> {
  if (isPostgres(db)) return;
  const tables: { name: string }[] = await db.raw("select name from sqlite_master where type = 'table' and name like '%\\_search' escape '\\' and sql like '%fts5%'");
  for (const { name } of tables) {
    const columns: { name: string }[] = await db.raw(`pragma table_info("${name}")`);
    indexed.set(name.slice(0, -'_search'.length), new Set(columns.map((c) => c.name)));
  }
}

/** The FTS table that indexes `column` of `table` on SQLite, or null. */
export function searchTable(table: string, column: string): string | null {
  return indexed.get(table)?.has(column) ? `${table}_search` : null;
}
