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
import { whereAny } from './any.js';
import { isPostgres } from './db.js';
import { onDeleteIn } from '../core/versions.js';
import { idsOfEach, runTogether } from './together.js';
import { TAGGED_ITEMS } from './tagged-items.js';

/** Rows of `other` that `f` ties to these objects of `name` so that they go with them: a cascading fk or generic relation. */
function cascading(db: Knex, other: ModelEntry, f: FieldDefinition, name: string, list: number[], version: string | undefined): Knex.QueryBuilder | null {
  if (onDeleteIn(f, version) !== 'cascade') return null;
  if (f.type === 'fk' && f.to === name) return whereAny(db, db(other.definition.table).select('id'), f.columns[0], list);
  const ct = model(name).definition.contentType;
  if (f.type === 'generic_fk' && Object.keys(f.types!).includes(ct)) return whereAny(db, db(other.definition.table).select('id').where(`${f.name}_type`, ct), `${f.name}_id`, list);
  return null;
}

/**
 * Every object a delete removes, by model: cascading fks and cascading generic relations (contact
 * assignments, journal entries, cable terminations…) followed set-wise, one query per relation and
 * step (one statement per step on PostgreSQL), so each removed object is change-logged like the
 * ones asked for, as NetBox logs its cascades.
 */
async function cascadeClosure(db: Knex, entry: ModelEntry, ids: number[], version: string | undefined): Promise<Map<string, Set<number>>> {
  const closure = new Map<string, Set<number>>([[entry.definition.name, new Set(ids)]]);
  let frontier: [string, number[]][] = [[entry.definition.name, ids]];
  while (frontier.length) {
    const next: [string, number[]][] = [];
    const steps: { other: ModelEntry; query: Knex.QueryBuilder }[] = [];
    for (const [name, list] of frontier) {
      for (const other of modelList) {
        for (const f of Object.values(other.definition.fields)) {
          const query = cascading(db, other, f, name, list, version);
          if (query) steps.push({ other, query });
        }
      }
    }
    const found = await idsOfEach(db, steps.map((s) => s.query));
    steps.forEach(({ other }, i) => {
      const set = closure.get(other.definition.name) ?? new Set<number>();
      const fresh = found[i].filter((id) => !set.has(id));
      if (!fresh.length) return;
      // only models with rows to remove join the closure: every later step costs a query per model
      fresh.forEach((id) => set.add(id));
      closure.set(other.definition.name, set);
      next.push([other.definition.name, fresh]);
    });
    frontier = next;
  }
  return closure;
}

/** Objects outside the deleted set that protect one inside it: a 409 naming the first ten. One statement on PostgreSQL when there are none. */
async function refuseProtected(db: Knex, closure: Map<string, Set<number>>): Promise<void> {
  const relations: { other: ModelEntry; column: string; set: Set<number> }[] = [];
  for (const [name, set] of closure) {
    for (const other of modelList) {
      for (const f of Object.values(other.definition.fields)) {
        if (f.type === 'fk' && f.to === name && f.onDelete === 'protect') relations.push({ other, column: f.columns[0], set });
      }
    }
  }
  const found = await idsOfEach(db, relations.map((r) => whereAny(db, db(r.other.definition.table).select('id'), r.column, [...r.set])));
  const outside = relations.map((r, i) => found[i].filter((id) => !closure.get(r.other.definition.name)?.has(id)));
  const total = outside.reduce((n, ids) => n + ids.length, 0);
  if (!total) return;
  const dependents: string[] = [];
  for (const [i, { other }] of relations.entries()) {
    if (!outside[i].length || dependents.length >= 10) continue;
    const rows = await db(other.definition.table).select('*').whereIn('id', outside[i].slice(0, 10)).orderBy('id');
    for (const r of rows) dependents.push(`${other.definition.verboseName} ${r[other.definition.lookup] ?? r.name ?? ''} (${r.id})`.replace('  ', ' '));
  }
  throw errors.protectedDelete(dependents.slice(0, 10), total);
}

/**
 * SQLite enforces RESTRICT row by row, as each row goes, even when the row that refers to it goes in
 * the same statement (a parent interface deleted with its child, or both through their device's
 * cascade); PostgreSQL checks at the end of the statement. So on SQLite, protecting references held
 * between objects that are all being deleted are let go first: cleared where the column may be empty,
 * else the referring rows deleted first. One statement per such relation, none when there is none.
 */
async function untangle(db: Knex, closure: Map<string, Set<number>>): Promise<void> {
  if (isPostgres(db)) return;
  // any number of ids as one bound parameter
  const among = (qb: Knex.QueryBuilder, column: string, ids: Iterable<number>) => qb.whereRaw('?? in (select value from json_each(?))', [column, JSON.stringify([...ids])]);
  const first: { table: string; ids: number[] }[] = [];
  for (const [name, set] of closure) {
    const other = model(name);
    for (const f of Object.values(other.definition.fields)) {
      const target = f.type === 'fk' && f.onDelete === 'protect' ? closure.get(f.to!) : undefined;
      if (!target) continue;
      const column = f.columns[0];
      const within = among(among(db(other.definition.table), 'id', set), column, target);
      if (f.nullable) await within.update({ [column]: null });
      else first.push({ table: other.definition.table, ids: (await within.clone().select('id')).map((r: Row) => Number(r.id)) });
    }
  }
  for (const { table, ids } of first) if (ids.length) await among(db(table), 'id', ids).delete();
}

/** Does `other` have a protecting fk to a model with rows in the deleted set? */
function holdsProtected(other: ModelEntry, closure: Map<string, Set<number>>): boolean {
  return Object.values(other.definition.fields).some((f) => f.type === 'fk' && f.onDelete === 'protect' && closure.has(f.to!));
}

export async function deleteObjects(entry: ModelEntry, inputs: unknown[], bulk: boolean, ctx: WriteContext, scope?: (qb: Knex.QueryBuilder) => void): Promise<number[]> {
  const { db } = ctx;
  const ids = inputs.map((i) => (typeof i === 'object' && i !== null ? (i as Row).id : i));
  const bad = ids.findIndex((id) => !(typeof id === 'number' || (typeof id === 'string' && /^\d+$/.test(id))));
  if (bad >= 0) throw errors.validation(bulk ? ids.map((_, i) => (i === bad ? { id: ['This field is required.'] } : {})) : { id: ['This field is required.'] });
  const wanted = [...new Set(ids.map(Number))];
  // An id no row can have is missing without asking (PostgreSQL refuses to compare it).
  const q = whereAny(db, db(entry.definition.table).select('id'), 'id', wanted.filter(isStorableId));
  scope?.(q);
  const found = new Set((await q).map((r: Row) => Number(r.id)));
  const missing = wanted.find((id) => !found.has(id));
  if (missing !== undefined) {
    if (!bulk) throw errors.notFound();
    throw errors.validation(ids.map((id) => (Number(id) === missing ? { id: [`Object with id ${missing} does not exist.`] } : {})));
  }
  const closure = await cascadeClosure(db, entry, wanted, ctx.version);
  await refuseProtected(db, closure);
  // At once: on PostgreSQL one model's reads run while another's rows are turned into records.
  const doomed = await Promise.all([...closure].map(([name, set]) => beforeDelete(ctx, model(name), [...set])));
  for (const [name, set] of closure) {
    for (const hook of hooksOf(model(name))) if (hook.beforeDelete) await hook.beforeDelete([...set], { db, entry: model(name), closure, request: ctx });
  }
  // Generic relations have no database constraint: clear (or delete, or keep) the ones pointing at
  // deleted objects. The deletes and plain clears go together (one statement on PostgreSQL), after the delete.
  const cleanups: Knex.QueryBuilder[] = [];
  // a generic cascade's rows that also hold a protecting fk into the deleted set go before it (a 4.x prefix scoped to a deleted site)
  const early: Knex.QueryBuilder[] = [];
  for (const [name, set] of closure) {
    const ct = model(name).definition.contentType;
    for (const other of modelList) {
      for (const f of Object.values(other.definition.fields)) {
        const onDelete = onDeleteIn(f, ctx.version);
        if (f.type !== 'generic_fk' || !Object.keys(f.types!).includes(ct) || onDelete === 'keep') continue;
        const pointing = () => whereAny(db, db(other.definition.table).where(`${f.name}_type`, ct), `${f.name}_id`, [...set]);
        const cleared = { [`${f.name}_type`]: null, [`${f.name}_id`]: null };
        if (onDelete === 'cascade') (holdsProtected(other, closure) ? early : cleanups).push(pointing().delete());
        else if (!other.definition.changelog) cleanups.push(pointing().update(cleared));
        else {
          // a cleared relation is an update of an object that stays: logged like one
          const going = closure.get(other.definition.name);
          const [found] = await idsOfEach(db, [pointing().select('id')]);
          const ids = found.filter((id) => !going?.has(id));
          await updateRows({ db, request: ctx }, other, ids.map((id: number) => ({ id, values: cleared })));
        }
      }
    }
    if (model(name).definition.tags) cleanups.push(whereAny(db, db(TAGGED_ITEMS).where('object_type', ct), 'object_id', [...set]).delete());
  }
  // rows that feed a rollup: their parents are recounted once they are gone
  const fed: ReturnType<typeof parentsOf>[] = [];
  for (const [name, set] of closure) if (rollupsFedBy(model(name)).length) fed.push(parentsOf(model(name), await whereAny(db, db(model(name).definition.table), 'id', [...set])));
  await recordDeletes(ctx, doomed, async () => {
    // one statement on PostgreSQL (one array parameter); SQLite's bound parameters are counted
    await untangle(db, closure);
    await runTogether(db, early);
    const perStatement = isPostgres(db) ? wanted.length : CHUNK * 10;
    for (let i = 0; i < wanted.length; i += perStatement) await whereAny(db, db(entry.definition.table), 'id', wanted.slice(i, i + perStatement)).delete();
    // The generic cleanups after the rows they point at (they have no constraint to keep): a counter
    // trigger on their table then finds its deleted parents gone instead of rewriting each one (and
    // all its indexes) just before the cascade removes it, e.g. 1000 interfaces of 100 devices.
    await runTogether(db, cleanups);
    for (const parents of fed) await refreshRollups(db, parents);
    await bumpCacheVersion(db, closure.keys(), true);
  });
  return wanted;
}
