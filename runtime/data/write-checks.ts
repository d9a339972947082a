/** Uniqueness against stored rows and within the request, and the one error response for all elements. */
import type { Knex } from 'knex';
import { errors, type FieldErrors } from '../core/errors.js';
import type { Row } from './registry.js';
import type { ModelEntry } from '../core/types.js';
import type { Prepared } from './write-input.js';
import { CHUNK } from './write-context.js';
import { isPostgres } from './db.js';
import { asJson } from './insert.js';

/** Unique fields and unique_together groups, against stored rows and within the request. */
export async function checkUnique(db: Knex, entry: ModelEntry, items: Prepared[]): Promise<void> {
  const d = entry.definition;
  // Each element's row as it will stand, built once (the checks below look at it per column).
  const finals = new Map<Prepared, Row>();
  const finalRow = (item: Prepared) => {
    let row = finals.get(item);
    if (!row) finals.set(item, (row = { ...(item.existing ?? {}), ...item.values }));
    return row;
  };
  const label = d.verboseName.charAt(0).toUpperCase() + d.verboseName.slice(1);
  for (const f of Object.values(d.fields)) {
    if (!f.unique && !f.uniqueCi && f.type !== 'token_key') continue;
    const column = f.columns[0];
    const relevant = items.filter((i) => column in i.values && i.values[column] !== null && i.values[column] !== '');
    if (!relevant.length) continue;
    const norm = (v: unknown) => (f.uniqueCi ? String(v).toLowerCase() : v);
    const values = [...new Set(relevant.map((i) => norm(i.values[column])))];
    const taken = new Map<unknown, number>();
    for (let i = 0; i < values.length; i += CHUNK) {
      const q = db(d.table).select('id', column);
      if (f.uniqueCi) q.whereRaw(`lower(??) in (${values.slice(i, i + CHUNK).map(() => '?').join(',')})`, [column, ...values.slice(i, i + CHUNK) as string[]]);
      else q.whereIn(column, values.slice(i, i + CHUNK) as string[]);
      for (const r of await q) taken.set(norm(r[column]), Number(r.id));
    }
    const seen = new Map<unknown, Prepared>();
    for (const item of relevant) {
      const v = norm(item.values[column]);
      const owner = taken.get(v);
      const message = f.type === 'token_key' ? 'A token with this key already exists.' : `${label} with this ${f.label.toLowerCase()} already exists.`;
      if ((owner !== undefined && owner !== item.id) || (seen.has(v) && seen.get(v) !== item)) item.errors.add(f.name, message);
      seen.set(v, item);
    }
  }
  for (const group of d.uniqueTogether) {
    // A natural name's sort key is not part of the key.
    const columns = group.flatMap((name) => { const f = d.fields[name]; return f.natural ? [f.columns[0]] : f.columns; });
    // A null counts as a value only in the fields the schema names (top-level rows among themselves).
    const nullable = new Set(group.filter((name) => d.uniqueNullsMatch.includes(name)).flatMap((name) => d.fields[name].columns));
    // A blank string exempts the row where the schema says so (unnamed provider accounts).
    const blankExempt = new Set(group.filter((name) => d.uniqueBlankExempt?.includes(name)).map((name) => d.fields[name].columns[0]));
    const relevant = items.filter((i) => columns.some((c) => c in i.values)).filter((i) => columns.every((c) => nullable.has(c) || (finalRow(i)[c] !== null && finalRow(i)[c] !== undefined && !(blankExempt.has(c) && finalRow(i)[c] === ''))));
    if (!relevant.length) continue;
    const key = (row: Row) => JSON.stringify(columns.map((c) => row[c] ?? null));
    const taken = new Map<string, number>();
    const stored = isPostgres(db) ? await matchingRows(db, d.table, columns, nullable, relevant.map(finalRow)) : null;
    for (const r of stored ?? []) taken.set(key(r), Number(r.id));
    for (let i = 0; i < (stored ? 0 : relevant.length); i += 200) {
      const q = db(d.table).select('id', ...columns).where((w) => {
        // Written as the unique index is (a null that counts as a value is indexed as 0), so each term is one index lookup.
        for (const item of relevant.slice(i, i + 200)) {
          w.orWhere((x) => {
            for (const c of columns) {
              const v = finalRow(item)[c];
              if (nullable.has(c)) x.whereRaw('COALESCE(??, 0) = ?', [c, (v ?? 0) as number]);
              else if (v === null || v === undefined) x.whereNull(c);
              else x.where(c, v);
            }
          });
        }
      });
      for (const r of await q) taken.set(key(r), Number(r.id));
    }
    const seen = new Set<string>();
    for (const item of relevant) {
      const k = key(finalRow(item));
      const owner = taken.get(k);
      if ((owner !== undefined && owner !== item.id) || seen.has(k)) item.errors.add('non_field_errors', `The fields ${group.join(', ')} must make a unique set.`);
      seen.add(k);
    }
  }
}

/**
 * PostgreSQL: the stored rows that share a key with any of `rows`, in one statement whatever their
 * number (the keys as one JSON parameter, joined on the unique index's columns); null when a key
 * holds a value JSON cannot carry (then the OR'd lookups below).
 */
async function matchingRows(db: Knex, table: string, columns: string[], nullable: Set<string>, rows: Row[]): Promise<Row[] | null> {
  const json = asJson(rows.map((r) => Object.fromEntries(columns.map((c) => [c, r[c] ?? null]))), columns);
  if (json === null) return null;
  // Written as the unique index is (a null that counts as a value is indexed as 0).
  const on = columns.map((c) => (nullable.has(c) ? 'COALESCE(t.??, 0) = COALESCE(v.??, 0)' : 't.?? = v.??')).join(' and ');
  const sql = `select distinct t.id, ${columns.map(() => 't.??').join(', ')} from ?? as t join json_populate_recordset(null::??, ?::json) as v on ${on}`;
  return (await db.raw(sql, [...columns, table, table, json, ...columns.flatMap((c) => [c, c])])).rows;
}

export function raise(items: Prepared[], bulk: boolean): void {
  if (items.every((i) => i.errors.empty)) return;
  if (!bulk) throw errors.validation(items[0].errors.errors);
  throw errors.validation(items.map((i) => i.errors.errors as FieldErrors));
}
