/**
 * Writes a hook makes on rows of other models (a cable's terminations, a webhook's companion event
 * rule, the devices installed in a moved device's bays), set-wise, and captured like the request's
 * own writes: change-log rows and events for every model with a change log, as NetBox records every
 * save and delete of such a model whoever makes it. The captured changes wait for the request's own
 * record (changes.ts `defer`), so the request still inserts its change rows at once.
 *
 * `ctx` is the request's change context (hooks receive it as `request`); without one (start-up
 * repairs) the rows are written with no record, as a migration would.
 */
import type { Knex } from 'knex';
import type { ModelEntry } from '../core/types.js';
import type { Row } from './registry.js';
import { beforeDelete, defer, deleteChanges, snapshots, unchanged, writeChanges, type ChangeContext } from './changes.js';
import { insertReturning } from './insert.js';
import { bumpCacheVersion } from './cache.js';
import { CHUNK } from './write-context.js';
import { whereAny } from './any.js';

/** Where a side write goes: the transaction, and the request that caused it (none at start-up). */
export interface Target {
  db: Knex;
  request?: ChangeContext | null;
}

/** The request's context, bound to the transaction the hook writes in. */
function recorder(target: Target): ChangeContext | null {
  return target.request ? { ...target.request, db: target.db } : null;
}

/** Inserts rows of `entry` (one statement per chunk) and records their creation; returns the new ids in order. */
export async function createRows(target: Target, entry: ModelEntry, rows: Row[]): Promise<number[]> {
  if (!rows.length) return [];
  const inserted = await insertReturning(target.db, entry.definition.table, rows);
  const ids = inserted.map((r) => Number(r.id));
  await bumpCacheVersion(target.db, [entry.definition.name]);
  const ctx = recorder(target);
  // the rows as inserted, with no tags or links yet: nothing to read back
  if (ctx) await defer(ctx, await writeChanges(ctx, entry, 'create', ids, null, { loaded: inserted, unlinked: true }));
  return ids;
}

/** Sets values on rows of `entry` (rows sharing the same values share one UPDATE) and records the updates. */
export async function updateRows(target: Target, entry: ModelEntry, updates: { id: number; values: Row }[]): Promise<void> {
  if (!updates.length) return;
  const ctx = recorder(target);
  const ids = [...new Set(updates.map((u) => Number(u.id)))];
  const before = ctx && entry.definition.changelog ? await snapshots(target.db, entry, ids) : null;
  const groups = new Map<string, { values: Row; ids: number[] }>();
  for (const u of updates) {
    const values = entry.definition.timestamps && ctx ? { ...u.values, last_updated: ctx.now } : u.values;
    const key = JSON.stringify(values);
    const group = groups.get(key) ?? { values, ids: [] };
    group.ids.push(Number(u.id));
    groups.set(key, group);
  }
  for (const { values, ids: list } of groups.values()) {
    for (let i = 0; i < list.length; i += CHUNK) await whereAny(target.db, target.db(entry.definition.table), 'id', list.slice(i, i + CHUNK)).update(values);
  }
  await bumpCacheVersion(target.db, [entry.definition.name]);
  // a mirror that rewrote what was already stored is no change (no change row, no event)
  if (ctx) await defer(ctx, (await writeChanges(ctx, entry, 'update', ids, before)).filter((c) => !unchanged(c)));
}

/** Deletes rows of `entry` (their database cascades follow) and records the deletes, taken before the rows go. */
export async function deleteRows(target: Target, entry: ModelEntry, ids: number[]): Promise<void> {
  if (!ids.length) return;
  const ctx = recorder(target);
  const doomed = ctx ? await beforeDelete(ctx, entry, ids) : null;
  for (let i = 0; i < ids.length; i += CHUNK) await whereAny(target.db, target.db(entry.definition.table), 'id', ids.slice(i, i + CHUNK)).delete();
  await bumpCacheVersion(target.db, [entry.definition.name], true);
  if (ctx) await defer(ctx, deleteChanges([doomed]));
}
