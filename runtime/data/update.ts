/**
 * The UPDATEs of a bulk update. Elements that set the same columns to the same values share one
 * statement. On PostgreSQL those that set the same columns to different values share one too
 * (`UPDATE … FROM json_populate_recordset(…)`, the rows as one JSON parameter). On both engines every
 * statement returns the rows as they now stand. Ids named twice are updated in the same order as before.
 */
import type { Knex } from 'knex';
import type { Row, WriteItem } from './registry.js';
import { isPostgres } from './db.js';
import { asJson } from './insert.js';
import { whereAny } from './any.js';

/** Writes each element's values; returns the updated rows by id. */
export async function updateRowsOf(db: Knex, table: string, items: WriteItem[]): Promise<Map<number, Row>> {
  // elements setting the same columns to the same values
  const same = new Map<string, { values: Row; items: WriteItem[] }>();
  for (const item of items) {
    if (!Object.keys(item.values).length) continue;
    const key = JSON.stringify(Object.entries(item.values).map(([k, v]) => [k, Buffer.isBuffer(v) ? v.toString('hex') : v]));
    const group = same.get(key) ?? { values: item.values, items: [] };
    group.items.push(item);
    same.set(key, group);
  }
  const rows = new Map<number, Row>();
  if (!isPostgres(db)) {
    // RETURNING (SQLite 3.35+) as on PostgreSQL: the change capture need not read the rows again
    for (const { values, items: list } of same.values()) {
      for (const r of await db(table).whereIn('id', list.map((i) => i.id!)).update(values, '*') as Row[]) rows.set(Number(r.id), r);
    }
    return rows;
  }
  // PostgreSQL: those setting the same columns, whatever the values
  const groups = new Map<string, { values: Row; items: WriteItem[]; alike: number }>();
  for (const { values, items: list } of same.values()) {
    const key = Object.keys(values).join('\u0000');
    const group = groups.get(key) ?? { values, items: [], alike: 0 };
    group.items.push(...list);
    group.alike++;
    groups.set(key, group);
  }
  for (const { values, items: list, alike } of groups.values()) {
    if (alike === 1) {
      // one set of values: a plain UPDATE of the ids
      for (const r of await whereAny(db, db(table), 'id', list.map((i) => i.id!)).update(values).returning('*')) rows.set(Number(r.id), r);
      continue;
    }
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
