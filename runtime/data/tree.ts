/**
 * Tree models keep three columns beside `parent`: `_path` (ancestor ids, `/1/5/9/`), `_depth`, and
 * `_sort` (the names along the path, hex-encoded so every collation orders them alike). Descendants
 * are then a prefix match on an index, and tree order (depth first, siblings by name) is `_sort`.
 */
import type { Knex } from 'knex';
import { updateEach } from './db.js';
import type { Row, WriteItem } from './registry.js';
import type { ModelEntry } from '../core/types.js';

function sortKey(name: string): string {
  return Buffer.from(String(name).toLowerCase(), 'utf8').toString('hex') + '00';
}

interface Placement { _path: string; _depth: number; _sort: string }

function place(row: Row, parent: Row | undefined): Placement {
  return parent
    ? { _path: `${parent._path}${row.id}/`, _depth: Number(parent._depth) + 1, _sort: parent._sort + sortKey(row.name) }
    : { _path: `/${row.id}/`, _depth: 0, _sort: sortKey(row.name) };
}

/** A node may not move under itself or one of its descendants. */
export async function checkTreeParent(db: Knex, entry: ModelEntry, items: (WriteItem & { id: number | null })[]): Promise<void> {
  const moving = items.filter((i) => i.id !== null && i.values.parent_id !== undefined && i.values.parent_id !== null);
  if (!moving.length) return;
  const parents = new Map<number, Row>((await db(entry.definition.table).select('id', '_path').whereIn('id', moving.map((i) => i.values.parent_id))).map((r: Row) => [Number(r.id), r]));
  for (const item of moving) {
    const parent = parents.get(Number(item.values.parent_id));
    if (parent && (Number(parent.id) === item.id || String(parent._path).startsWith(String(item.existing!._path)))) {
      item.errors.add('parent', 'Cannot assign self or child as parent.');
    }
  }
}

export async function treeAfterCreate(db: Knex, entry: ModelEntry, ids: number[]): Promise<void> {
  const table = entry.definition.table;
  const rows: Row[] = await db(table).select('id', 'parent_id', 'name').whereIn('id', ids);
  const parentIds = [...new Set(rows.map((r) => r.parent_id).filter((p) => p !== null))];
  const parents = new Map<number, Row>(parentIds.length ? (await db(table).select('id', '_path', '_depth', '_sort').whereIn('id', parentIds)).map((r: Row) => [Number(r.id), r]) : []);
  await updateEach(db, table, rows.map((row) => ({ id: Number(row.id), values: { ...place(row, parents.get(Number(row.parent_id))) } })));
}

/** Re-places nodes whose parent or name changed, and moves their subtrees with them. */
export async function treeAfterUpdate(db: Knex, entry: ModelEntry, changes: { id: number; before: Row }[]): Promise<void> {
  const table = entry.definition.table;
  for (const { id, before } of changes) {
    const row: Row = await db(table).select('id', 'parent_id', 'name').where('id', id).first();
    if (row.parent_id === before.parent_id && row.name === before.name) continue;
    const parent: Row | undefined = row.parent_id === null ? undefined : await db(table).select('_path', '_depth', '_sort').where('id', row.parent_id).first();
    const next = place(row, parent);
    const old = { _path: String(before._path), _depth: Number(before._depth), _sort: String(before._sort) };
    await db(table).where('_path', 'like', `${old._path}%`).update({
      _path: db.raw('? || substr(_path, ?)', [next._path, old._path.length + 1]),
      _depth: db.raw('_depth + ?', [next._depth - old._depth]),
      _sort: db.raw('? || substr(_sort, ?)', [next._sort, old._sort.length + 1]),
    });
  }
}
