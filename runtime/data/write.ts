/**
 * Creates and updates, one element or many, always inside the caller's transaction: every element
 * is validated and every error collected before anything is written, relations are resolved in
 * batches, and rows are written set-wise. Any error aborts the whole request. Deletes: delete.ts.
 */
import type { Knex } from 'knex';
import { errors } from '../core/errors.js';
import { isStorableId } from '../core/ids.js';
import { hooksOf, type Row } from './registry.js';
import type { ModelEntry } from '../core/types.js';
import { treeAfterCreate, treeAfterUpdate, checkTreeParent } from './tree.js';
import { customFieldsFor } from './customfields.js';
import { recordWrites, snapshots } from './changes.js';
import { bumpCacheVersion } from './cache.js';
import { insertReturning, insertRows } from './insert.js';
import { whereAny } from './any.js';
import { updateRowsOf } from './update.js';
import type { WriteContext } from './write-context.js';
import { prepareItem, type Prepared, type Ref } from './write-input.js';
import { resolveRefs } from './write-relations.js';
import { applyTagEdits, readTagEdits } from './tag-edits.js';
import { TAGGED_ITEMS } from './tagged-items.js';
import { checkUnique, raise } from './write-checks.js';
import { checkSharedRelations } from './shared-relations.js';
import { instantiateTemplates } from './templates.js';
import { checkRollups, parentsOf, refreshRollups } from './rollups.js';

export type { WriteContext } from './write-context.js';
export { deleteObjects } from './delete.js';

/** Tags and many-to-many links as the elements name them (`created`: new rows, which have none to replace). */
async function writeAssignments(db: Knex, entry: ModelEntry, items: Prepared[], created: boolean): Promise<void> {
  const d = entry.definition;
  const withTags = items.filter((i) => i.tags);
  if (withTags.length) {
    if (!created) await whereAny(db, db(TAGGED_ITEMS).where('object_type', d.contentType), 'object_id', withTags.map((i) => i.id!)).delete();
    await insertRows(db, TAGGED_ITEMS, withTags.flatMap((i) => i.tags!.map((tag) => ({ tag_id: tag, object_type: d.contentType, object_id: i.id! }))));
  }
  for (const f of Object.values(d.fields).filter((x) => x.type === 'm2m')) {
    const touched = items.filter((i) => i.m2m[f.name]);
    if (!touched.length) continue;
    if (!created) await whereAny(db, db(f.through!), 'from_id', touched.map((i) => i.id!)).delete();
    await insertRows(db, f.through!, touched.flatMap((i) => [...new Set(i.m2m[f.name])].map((to) => ({ from_id: i.id!, to_id: to }))));
  }
}

function asObjects(inputs: unknown[], bulk: boolean): Record<string, unknown>[] {
  const bad = inputs.findIndex((i) => i === null || typeof i !== 'object' || Array.isArray(i));
  if (bad >= 0) {
    const message = { non_field_errors: ['Invalid data. Expected a dictionary, but got ' + (Array.isArray(inputs[bad]) ? 'list' : typeof inputs[bad]) + '.'] };
    throw errors.validation(bulk ? inputs.map((_, i) => (i === bad ? message : {})) : message);
  }
  return inputs as Record<string, unknown>[];
}

/** Every check of a create or update, for all elements at once; a 400 naming each failing field. */
async function validate(entry: ModelEntry, items: Prepared[], refs: Ref[], ctx: WriteContext, bulk: boolean): Promise<void> {
  const { db } = ctx;
  await resolveRefs(db, refs, items);
  await applyTagEdits(db, entry, items);
  await checkSharedRelations(db, entry, items);
  await runHooks(entry, items, ctx);
  if (entry.definition.tree) await checkTreeParent(db, entry, items);
  await checkUnique(db, entry, items);
  await checkRollups(db, entry, items);
  raise(items, bulk);
}

async function runHooks(entry: ModelEntry, items: Prepared[], ctx: WriteContext): Promise<void> {
  for (const item of items) if (item.customFields) item.values.custom_field_data = JSON.stringify(item.customFields);
  for (const hook of hooksOf(entry)) {
    if (!hook.prepare) continue;
    for (const item of items) if (item.errors.empty) await hook.prepare(item, { db: ctx.db, entry, user: ctx.user, rules: ctx.rules });
  }
  for (const hook of hooksOf(entry)) {
    if (hook.prepareMany) await hook.prepareMany(items.filter((i) => i.errors.empty), { db: ctx.db, entry, user: ctx.user, rules: ctx.rules });
  }
}

/**
 * Runs the model's afterWrite hooks; resolves to whether any may have written (one that did not
 * says so). `fresh`: the rows as they now stand, when the caller has them (no read then).
 */
async function afterWrite(entry: ModelEntry, items: Prepared[], ctx: WriteContext, fresh?: Row[]): Promise<boolean> {
  const hooks = hooksOf(entry).filter((h) => h.afterWrite);
  if (!hooks.length) return false;
  const rows = fresh ?? await whereAny(ctx.db, ctx.db(entry.definition.table), 'id', items.map((i) => i.id!));
  let wrote = false;
  for (const hook of hooks) if ((await hook.afterWrite!(rows, { db: ctx.db, entry, items, request: ctx })) !== false) wrote = true;
  return wrote;
}

export interface WriteResult {
  ids: number[];
  reveal: Map<number, Record<string, unknown>>;
  /** representations rendered for the change capture, reused by the response (null when not captured) */
  data: Map<number, Record<string, unknown>> | null;
}

export async function createObjects(entry: ModelEntry, inputs: unknown[], bulk: boolean, ctx: WriteContext): Promise<WriteResult> {
  const { db } = ctx;
  const objects = asObjects(inputs, bulk);
  const refs: Ref[] = [];
  const customFields = await customFieldsFor(db, entry);
  const items = objects.map((input, i) => prepareItem(entry, input, null, 'create', refs, i, ctx.now, customFields, ctx.version));
  if (ctx.partialTags && entry.definition.tags) items.forEach((item, i) => readTagEdits(item, objects[i], true, refs, i));
  await validate(entry, items, refs, ctx, bulk);
  const table = entry.definition.table;
  // The rows as stored come back from the INSERT: no read after it while nothing else writes them
  // (a tree fills its columns afterwards; an afterWrite hook may write its own rows).
  const inserted = await insertReturning(db, table, items.map((item) => item.values));
  inserted.forEach((row, j) => { items[j].id = Number(row.id); });
  const tree = entry.definition.tree;
  if (tree) await treeAfterCreate(db, entry, items.map((i) => i.id!));
  await writeAssignments(db, entry, items, true);
  await instantiateTemplates(ctx, entry, items, bulk);
  await bumpCacheVersion(db, [entry.definition.name]);
  const ids = items.map((i) => i.id!);
  const hooksWrote = await afterWrite(entry, items, ctx, tree ? undefined : inserted);
  await refreshRollups(db, parentsOf(entry, items.map((i) => i.values)));
  // The inserted rows stand unless a tree, a hook or the components made from templates (through
  // the counters their triggers keep) wrote them since.
  const settled = !tree && !hooksWrote && !entry.definition.templates;
  // New rows have the tags and links the elements gave them, and no others (hooks write other rows,
  // or columns: none tags or links a row it has just seen created).
  const unlinked = items.every((i) => !i.tags?.length && Object.values(i.m2m).every((l) => !l.length));
  // Settled, nothing written since the insert points at the new rows either (fresh): their
  // representations need no reverse relations read.
  const data = await recordWrites(ctx, entry, 'create', ids, null, { loaded: settled ? inserted : undefined, unlinked, fresh: settled });
  return { ids, reveal: new Map(items.map((i) => [i.id!, i.reveal])), data };
}

export async function updateObjects(entry: ModelEntry, inputs: unknown[], partial: boolean, bulk: boolean, ctx: WriteContext, scope?: (qb: Knex.QueryBuilder) => void): Promise<WriteResult> {
  const { db } = ctx;
  const objects = asObjects(inputs, bulk);
  const ids = objects.map((o) => o.id);
  const missingId = ids.findIndex((id) => !(typeof id === 'number' || (typeof id === 'string' && /^\d+$/.test(id))));
  if (missingId >= 0) {
    const message = { id: ['This field is required.'] };
    throw errors.validation(bulk ? objects.map((_, i) => (i === missingId ? message : {})) : message);
  }
  // An id no row can have is not found without asking (PostgreSQL refuses to compare it).
  const q = whereAny(db, db(entry.definition.table), 'id', ids.map(Number).filter(isStorableId));
  scope?.(q);
  const rows = new Map<number, Row>((await q).map((r: Row) => [Number(r.id), r]));
  const notFound = ids.findIndex((id) => !rows.has(Number(id)));
  if (notFound >= 0) {
    if (!bulk) throw errors.notFound();
    throw errors.validation(objects.map((_, i) => (i === notFound ? { id: [`Object with id ${ids[i]} does not exist.`] } : {})));
  }
  const refs: Ref[] = [];
  const customFields = await customFieldsFor(db, entry);
  const items = objects.map((input, i) => prepareItem(entry, input, rows.get(Number(ids[i]))!, partial ? 'patch' : 'put', refs, i, ctx.now, customFields, ctx.version));
  if (ctx.partialTags && entry.definition.tags) items.forEach((item, i) => readTagEdits(item, objects[i], false, refs, i));
  await validate(entry, items, refs, ctx, bulk);
  // The rows read above are the objects as they were: their snapshots need no second read.
  const prechange = entry.definition.changelog ? await snapshots(db, entry, items.map((i) => i.id!), [...rows.values()]) : null;
  const updated = await updateRowsOf(db, entry.definition.table, items);
  if (entry.definition.tree) await treeAfterUpdate(db, entry, items.map((i) => ({ id: i.id!, before: i.existing! })));
  await writeAssignments(db, entry, items, false);
  await bumpCacheVersion(db, [entry.definition.name]);
  const changed = items.map((i) => i.id!);
  // The hooks get the rows as the UPDATEs returned them, where a tree did not write them since.
  const current = updated && !entry.definition.tree ? [...new Map(items.map((i) => [i.id!, updated.get(i.id!) ?? i.existing!])).values()] : undefined;
  const hooksWrote = await afterWrite(entry, items, ctx, current);
  // parents before and after: a row may have moved from one to another
  await refreshRollups(db, parentsOf(entry, items.flatMap((i) => [i.existing!, { ...i.existing, ...i.values }])));
  // The rows as the UPDATEs returned them (PostgreSQL), while nothing else wrote them since; and the
  // tags and links as they were, where no element named any.
  const settled = updated && !entry.definition.tree && !hooksWrote;
  const loaded = settled ? items.map((i) => updated.get(i.id!) ?? i.existing!) : undefined;
  const sameLinks = settled && prechange && items.every((i) => !i.tags && !Object.keys(i.m2m).length) ? prechange : undefined;
  const data = await recordWrites(ctx, entry, 'update', changed, prechange, { loaded, linksFrom: sameLinks });
  return { ids: changed, reveal: new Map(items.map((i) => [i.id!, i.reveal])), data };
}
