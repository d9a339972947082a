/**
 * The UPDATEs of a bulk update. PostgreSQL: elements that set the same columns share one statement
 * whatever their values (`UPDATE … FROM json_populate_recordset(…)`, the rows as one JSON
 * parameter), which returns the rows as they now stand. SQLite (in process): elements that set the
 * same columns to the same values share one statement.
 */
import type { Knex } from 'knex';
import type { Row, WriteItem } from './registry.js';
import { isPostgres } from './db.js';
import { asJson } from './insert.js';
import { whereAny } from './any.js';

/** Writes each element's values; on PostgreSQL returns the updated rows by id (null: not returned). */
export async function updateRowsOf(db: Knex, table: string, items: WriteItem[]): Promise<Map<number, Row> | null> {
  const groups = new Map<string, { values: Row; items: WriteItem[] }>();
  const pg = isPostgres(db);
  for (const item of items) {
    if (!Object.keys(item.values).length) continue;
    const key = pg ? Object.keys(item.values).join('\u0000') : JSON.stringify(Object.entries(item.values).map(([k, v]) => [k, Buffer.isBuffer(v) ? v.toString('hex') : v]));
    const group = groups.get(key) ?? { values: item.values, items: [] };
    group.items.push(item);
    groups.set(key, group);
  }
  if (!pg) {
    for (const { values, items: list } of groups.values()) await db(table).whereIn('id', list.map((i) => i.id!)).update(values);
    return null;
  }
  const rows = new Map<number, Row>();
  for (const { values, items: list } of groups.values()) {
    const columns = Object.keys(values);
    // An id named twice is updated in the elements' order, as separate statements would.
    const once = new Set(list.map((i) => i.id)).size === list.length;
    const json = list.length > 1 && once ? asJson(list.map((i) => ({ id: i.id, ...i.values })), ['id', ...columns]) : null;
    if (json !== null) {
      const sql = `update ?? as t set ${columns.map(() => '?? = v.??').join(', ')} from json_populate_recordset(null::??, ?::json) as v where t.id = v.id returning t.*`;
      for (const r of (await db.raw(sql, [table, ...columns.flatMap((c) => [c, c]), table, json])).rows) rows.set(Number(r.id), r);
      continue;
    }
    for (const item of list) {
      for (const r of await whereAny(db, db(table), 'id', [item.id!]).update(item.values).returning('*')) rows.set(Number(r.id), r);
    }
  }
  return rows;
}
