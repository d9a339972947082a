/**
 * Reverse relations shown as lists (`source: "reverse:<Model>.<field>"`): for a page of objects,
 * the ids of the other model's rows whose fk, generic relation or m2m points at each, in one query.
 */
import type { Knex } from 'knex';
import { model } from './registry.js';
import { readByIds, whenAnyRow } from './reads.js';
import type { ModelEntry } from '../core/types.js';

export function reverseSource(source: string): { model: string; field: string } {
  const [other, field] = source.slice('reverse:'.length).split('.');
  return { model: other, field };
}

export async function reverseIds(db: Knex, entry: ModelEntry, source: string, ids: number[]): Promise<Map<number, number[]>> {
  const { model: other, field } = reverseSource(source);
  const target = model(other);
  const f = target.definition.fields[field];
  // the other model's m2m: its links to each object, from its join table (a user's permissions)
  if (f.type === 'm2m') return m2mIds(db, `reverse:${entry.definition.name}:${source}`, f.through!, ids);
  const column = f.type === 'generic_fk' ? `${field}_id` : f.columns[0];
  // A compiled read (readByIds): on PostgreSQL in the round trip of the page's other reads.
  const rows = await readByIds(db, `reverse:${entry.definition.name}:${source}`, ids, (chunk) => {
    const q = whenAnyRow(db, db(target.definition.table).select('id', `${column} as owner`).whereIn(column, chunk).orderBy('id'), target.definition.table);
    if (f.type === 'generic_fk') q.where(`${field}_type`, entry.definition.contentType);
    return q;
  });
  return byOwner(rows);
}

/** Per object, the rows of the other model whose m2m (join table `through`) links to it, by id. */
async function m2mIds(db: Knex, key: string, through: string, ids: number[]): Promise<Map<number, number[]>> {
  const rows = await readByIds(db, key, ids, (chunk) => whenAnyRow(db, db(through).select('from_id as id', 'to_id as owner').whereIn('to_id', chunk).orderBy('from_id'), through));
  return byOwner(rows);
}

/** Rows of `id` and `owner`, as each owner's ids in the rows' order. */
function byOwner(rows: Record<string, unknown>[]): Map<number, number[]> {
  const map = new Map<number, number[]>();
  for (const r of rows) {
    const owner = Number(r.owner);
    const list = map.get(owner);
    if (list) list.push(Number(r.id));
    else map.set(owner, [Number(r.id)]);
  }
  return map;
}
