/**
 * Deletes, one object or many, in the caller's transaction: cascades followed set-wise, protecting
 * relations refused with a 409, generic relations cleared (each cleared object logged as updated),
 * the change log fed before the rows go.
 */
import type { Knex } from 'knex';
import { errors } from '../core/errors.js';
import { isStorableId } from '../core/ids.js';
import { hooksOf, model, modelList, type Row } from './registry.js';
import type { FieldDefinition, ModelEntry } from '../core/types.js';
import { beforeDelete, recordDeletes } from './changes.js';
import { updateRows } from './side-writes.js';
import { bumpCacheVersion } from './cache.js';
import { parentsOf, refreshRollups, rollupsFedBy } from './rollups.js';
import { CHUNK, type WriteContext } from './write-context.js';

/** Rows of `other` that `f` ties to these objects of `name` so that they go with them: a cascading fk or generic relation. */
function cascading(db: Knex, other: ModelEntry, f: FieldDefinition, name: string, list: number[]): Knex.QueryBuilder | null {
  if (f.onDelete !== 'cascade') return null;
  if (f.type === 'fk' && f.to === name) return db(other.definition.table).select('id').whereIn(f.columns[0], list);
  const ct = model(name).definition.contentType;
  if (f.type === 'generic_fk' && Object.keys(f.types!).includes(ct)) return db(other.definition.table).select('id').where(`${f.name}_type`, ct).whereIn(`${f.name}_id`, list);
  return null;
}

/**
 * Every object a delete removes, by model: cascading fks and cascading generic relations (contact
 * assignments, journal entries, cable terminations…) followed set-wise, one query per relation and
 * step, so each removed object is change-logged like the ones asked for, as NetBox logs its cascades.
 */
async function cascadeClosure(db: Knex, entry: ModelEntry, ids: number[]): Promise<Map<string, Set<number>>> {
  const closure = new Map<string, Set<number>>([[entry.definition.name, new Set(ids)]]);
  let frontier: [string, number[]][] = [[entry.definition.name, ids]];
  while (frontier.length) {
    const next: [string, number[]][] = [];
    for (const [name, list] of frontier) {
      for (const other of modelList) {
        for (const f of Object.values(other.definition.fields)) {
          const query = cascading(db, other, f, name, list);
          if (!query) continue;
          const rows = await query;
          const set = closure.get(other.definition.name) ?? new Set<number>();
          const fresh = rows.map((r: Row) => Number(r.id)).filter((id: number) => !set.has(id));
          if (!fresh.length) continue;
          // only models with rows to remove join the closure: every later step costs a query per model
          fresh.forEach((id: number) => set.add(id));
          closure.set(other.definition.name, set);
          next.push([other.definition.name, fresh]);
        }
      }
    }
    frontier = next;
  }
  return closure;
}

export async function deleteObjects(entry: ModelEntry, inputs: unknown[], bulk: boolean, ctx: WriteContext, scope?: (qb: Knex.QueryBuilder) => void): Promise<number[]> {
  const { db } = ctx;
  const ids = inputs.map((i) => (typeof i === 'object' && i !== null ? (i as Row).id : i));
  const bad = ids.findIndex((id) => !(typeof id === 'number' || (typeof id === 'string' && /^\d+$/.test(id))));
  if (bad >= 0) throw errors.validation(bulk ? ids.map((_, i) => (i === bad ? { id: ['This field is required.'] } : {})) : { id: ['This field is required.'] });
  const wanted = [...new Set(ids.map(Number))];
  // An id no row can have is missing without asking (PostgreSQL refuses to compare it).
  const q = db(entry.definition.table).select('id').whereIn('id', wanted.filter(isStorableId));
  scope?.(q);
  const found = new Set((await q).map((r: Row) => Number(r.id)));
  const missing = wanted.find((id) => !found.has(id));
  if (missing !== undefined) {
    if (!bulk) throw errors.notFound();
    throw errors.validation(ids.map((id) => (Number(id) === missing ? { id: [`Object with id ${missing} does not exist.`] } : {})));
  }
  const closure = await cascadeClosure(db, entry, wanted);
  // Objects outside the deleted set that protect one inside it block the delete (409).
  const dependents: string[] = [];
  let total = 0;
  for (const [name, set] of closure) {
    for (const other of modelList) {
      for (const f of Object.values(other.definition.fields)) {
        if (f.type !== 'fk' || f.to !== name || f.onDelete !== 'protect') continue;
        const inside = closure.get(other.definition.name) ?? new Set<number>();
        const rows = (await db(other.definition.table).select('*').whereIn(f.columns[0], [...set])).filter((r: Row) => !inside.has(Number(r.id)));
        total += rows.length;
        for (const r of rows.slice(0, 10)) dependents.push(`${other.definition.verboseName} ${r[other.definition.lookup] ?? r.name ?? ''} (${r.id})`.replace('  ', ' '));
      }
    }
  }
  if (total) throw errors.protectedDelete(dependents.slice(0, 10), total);
  const doomed = [];
  for (const [name, set] of closure) doomed.push(await beforeDelete(ctx, model(name), [...set]));
  for (const [name, set] of closure) {
    for (const hook of hooksOf(model(name))) if (hook.beforeDelete) await hook.beforeDelete([...set], { db, entry: model(name), closure, request: ctx });
  }
  // Generic relations have no database constraint: clear (or delete, or keep) the ones pointing at deleted objects.
  for (const [name, set] of closure) {
    const ct = model(name).definition.contentType;
    for (const other of modelList) {
      for (const f of Object.values(other.definition.fields)) {
        if (f.type !== 'generic_fk' || !Object.keys(f.types!).includes(ct) || f.onDelete === 'keep') continue;
        const pointing = db(other.definition.table).where(`${f.name}_type`, ct).whereIn(`${f.name}_id`, [...set]);
        const cleared = { [`${f.name}_type`]: null, [`${f.name}_id`]: null };
        if (f.onDelete === 'cascade') await pointing.delete();
        else if (!other.definition.changelog) await pointing.update(cleared);
        else {
          // a cleared relation is an update of an object that stays: logged like one
          const going = closure.get(other.definition.name);
          const ids = (await pointing.select('id')).map((r: Row) => Number(r.id)).filter((id: number) => !going?.has(id));
          await updateRows({ db, request: ctx }, other, ids.map((id: number) => ({ id, values: cleared })));
        }
      }
    }
    if (model(name).definition.tags) await db('extras_taggeditem').where('content_type', ct).whereIn('object_id', [...set]).delete();
  }
  // rows that feed a rollup: their parents are recounted once they are gone
  const fed = [];
  for (const [name, set] of closure) if (rollupsFedBy(model(name)).length) fed.push(parentsOf(model(name), await db(model(name).definition.table).whereIn('id', [...set])));
  for (let i = 0; i < wanted.length; i += CHUNK * 10) await db(entry.definition.table).whereIn('id', wanted.slice(i, i + CHUNK * 10)).delete();
  for (const parents of fed) await refreshRollups(db, parents);
  await bumpCacheVersion(db, closure.keys(), true);
  await recordDeletes(ctx, doomed);
  return wanted;
}
