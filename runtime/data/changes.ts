/**
 * Change capture. Every write records, inside its own transaction, what changed: a snapshot of each
 * object before and after, and its API representation. The change log and the webhook queue are
 * listeners fed from here, so a rolled-back request leaves neither, and a committed one has both.
 */
import type { Knex } from 'knex';
import { hooksOf, model, storedField, type Row } from './registry.js';
import { renderRows } from './serialize.js';
import { insertRows } from './insert.js';
import { whereAny } from './any.js';
import { emptyOnSqlite } from './together.js';
import { isPostgres } from './db.js';
import type { ChangeContext } from './write-context.js';
import type { FieldDefinition, ModelEntry } from '../core/types.js';
import { TAGGED_ITEMS } from './tagged-items.js';

export type ChangeAction = 'create' | 'update' | 'delete';

export interface Change {
  entry: ModelEntry;
  action: ChangeAction;
  id: number;
  /** flat snapshots (fks as ids, tags as names); null where none exists */
  prechange: Record<string, unknown> | null;
  postchange: Record<string, unknown> | null;
  /**
   * the API representation: after the change, or before a delete (a delete's is the brief one when
   * no listener wants it: see `onChanges`; the change log reads only its display)
   */
  data: Record<string, unknown>;
  repr: string;
  /**
   * the representation in other API versions' shapes, by version: a delete's is taken before its rows
   * go (for the versions a listener asks for: `deletedVersions`), others are rendered when asked
   * (`inVersion`)
   */
  shapes?: Map<string, Record<string, unknown>>;
}

export type { ChangeContext } from './write-context.js';

export type ChangeListener = (changes: Change[], ctx: ChangeContext) => Promise<void>;

/** Whether a listener reads the full representation of deleted objects of a model (a webhook's payload). */
export type WantsDeleted = (entry: ModelEntry, ctx: ChangeContext) => Promise<boolean>;

export interface ListenerOptions {
  /**
   * Whether it reads the full representation of deleted objects of a model; when no listener does, a
   * delete renders only the brief one (its display, for the change log), which spares loading every
   * related row of every deleted object.
   */
  wantsDeleted?: WantsDeleted;
  /**
   * It reads nothing but the changes it is given (the change log): a delete may run it while the
   * database is still removing the rows (recordDeletes).
   */
  changesOnly?: boolean;
  /**
   * The API versions other than the default in which it reads deleted objects of a model (a webhook
   * whose body takes another version's shape): rendered before the rows go.
   */
  deletedVersions?: (entry: ModelEntry, ctx: ChangeContext) => Promise<string[]>;
}

const listeners: { listener: ChangeListener; changesOnly: boolean }[] = [];
const deletedWanted: WantsDeleted[] = [];
const versionsWanted: NonNullable<ListenerOptions['deletedVersions']>[] = [];

/** Registers a listener that runs inside the writing transaction (the change log, the webhook queue). */
export function onChanges(listener: ChangeListener, options: ListenerOptions = {}): void {
  listeners.push({ listener, changesOnly: !!options.changesOnly });
  if (options.wantsDeleted) deletedWanted.push(options.wantsDeleted);
  if (options.deletedVersions) versionsWanted.push(options.deletedVersions);
}

async function deletedVersions(entry: ModelEntry, ctx: ChangeContext): Promise<string[]> {
  const all = new Set<string>();
  for (const wants of versionsWanted) for (const v of await wants(entry, ctx)) all.add(v);
  return [...all];
}

async function fullWanted(entry: ModelEntry, ctx: ChangeContext): Promise<boolean> {
  for (const wants of deletedWanted) if (await wants(entry, ctx)) return true;
  return false;
}

function plain(entry: ModelEntry, name: string, row: Row): unknown {
  const f = storedField(entry, entry.definition.fields[name]);
  const v = row[f.columns[0]];
  if (v === null || v === undefined) return null;
  switch (f.type) {
    case 'integer': case 'decimal': case 'fk': return Number(v);
    case 'boolean': return v === true || v === 1 || v === '1';
    case 'json': return typeof v === 'string' ? JSON.parse(v) : v;
    default: return v;
  }
}

const snapshotFieldCache = new WeakMap<ModelEntry, FieldDefinition[]>();

/** The fields a snapshot holds, in order: listed once per model, not per row. */
function snapshotFields(entry: ModelEntry): FieldDefinition[] {
  let list = snapshotFieldCache.get(entry);
  if (!list) snapshotFieldCache.set(entry, (list = Object.values(entry.definition.fields).filter((f) => !['computed', 'alias', 'password', 'token_key'].includes(f.type))));
  return list;
}

/** The stored rows of objects (one query per 5,000 ids); a snapshot and a representation share them. */
async function loadRows(db: Knex, entry: ModelEntry, ids: number[]): Promise<Row[]> {
  const rows: Row[] = [];
  const per = isPostgres(db) ? ids.length : 5000;
  for (let i = 0; i < ids.length; i += per) rows.push(...(await whereAny(db, db(entry.definition.table), 'id', ids.slice(i, i + per))));
  return rows;
}

/**
 * Snapshots of objects as stored: one query for the rows, one for tags, one per many-to-many field.
 * `unlinked`: the objects are known to have no tags and no many-to-many links (rows just created
 * without any), so neither is asked for.
 */
export async function snapshots(db: Knex, entry: ModelEntry, ids: number[], loaded?: Row[], unlinked = false): Promise<Map<number, Record<string, unknown>>> {
  const d = entry.definition;
  const out = new Map<number, Record<string, unknown>>();
  if (!ids.length) return out;
  const rows: Row[] = loaded ?? await loadRows(db, entry, ids);
  const censors = hooksOf(entry).flatMap((h) => (h.snapshot ? [h.snapshot] : []));
  const tags = new Map<number, string[]>();
  if (d.tags && !unlinked) {
    const tagged = await whereAny(db, db(`${TAGGED_ITEMS} as ti`).join(`${model('Tag').definition.table} as t`, 't.id', 'ti.tag_id')
      .select('ti.object_id', 't.name').where('ti.object_type', d.contentType), 'ti.object_id', ids);
    for (const t of tagged) tags.set(Number(t.object_id), [...(tags.get(Number(t.object_id)) ?? []), t.name]);
  }
  const m2m = new Map<string, Map<number, number[]>>();
  for (const f of Object.values(d.fields).filter((x) => x.type === 'm2m')) {
    const map = new Map<number, number[]>();
    const links = unlinked ? null : whereAny(db, db(f.through!).select('from_id', 'to_id'), 'from_id', ids);
    if (links && !(await emptyOnSqlite(db, links))) for (const l of await links) map.set(Number(l.from_id), [...(map.get(Number(l.from_id)) ?? []), Number(l.to_id)]);
    m2m.set(f.name, map);
  }
  for (const row of rows) {
    const id = Number(row.id);
    const snap: Record<string, unknown> = {};
    for (const f of snapshotFields(entry)) {
      if (f.type === 'm2m') snap[f.name] = (m2m.get(f.name)?.get(id) ?? []).sort((a, b) => a - b);
      else if (f.type === 'generic_fk') {
        snap[f.typeKey!] = row[`${f.name}_type`] ?? null;
        snap[`${f.name}_id`] = row[`${f.name}_id`] === null || row[`${f.name}_id`] === undefined ? null : Number(row[`${f.name}_id`]);
      } else snap[f.name] = plain(entry, f.name, row);
    }
    if (d.customFields) snap.custom_fields = row.custom_field_data ? JSON.parse(row.custom_field_data) : {};
    if (d.tags) snap.tags = (tags.get(id) ?? []).sort();
    if (d.timestamps) {
      snap.created = row.created ?? null;
      snap.last_updated = row.last_updated ?? null;
    }
    for (const hook of censors) hook(snap);
    out.set(id, snap);
  }
  return out;
}

/** The API representations of objects, keyed by id (one render for a whole batch). */
export async function representations(db: Knex, entry: ModelEntry, ids: number[], baseUrl: string, loaded?: Row[], options: { brief?: boolean; fresh?: boolean; version?: string; origin?: string } = {}): Promise<Map<number, Record<string, unknown>>> {
  if (!ids.length) return new Map();
  const rows: Row[] = loaded ?? await loadRows(db, entry, ids);
  const rendered = await renderRows(entry, rows, { db, baseUrl, ...options });
  return new Map(rendered.map((r) => [Number(r.id), r]));
}

/** What a delete is about to remove: snapshots and representations, taken before the rows go. */
export interface Doomed {
  entry: ModelEntry;
  ids: number[];
  prechange: Map<number, Record<string, unknown>>;
  data: Map<number, Record<string, unknown>>;
  /** full representations in other API versions (`deletedVersions`), by version */
  shapes: Map<string, Map<number, Record<string, unknown>>>;
}

export async function beforeDelete(ctx: ChangeContext, entry: ModelEntry, ids: number[]): Promise<Doomed | null> {
  if (!entry.definition.changelog || !ids.length) return null;
  const rows = await loadRows(ctx.db, entry, ids);
  const brief = !(await fullWanted(entry, ctx));
  const shapes = new Map<string, Map<number, Record<string, unknown>>>();
  for (const version of await deletedVersions(entry, ctx)) shapes.set(version, await representations(ctx.db, entry, ids, versionBase(ctx, version), rows, { version, origin: ctx.baseUrl }));
  return { entry, ids, prechange: await snapshots(ctx.db, entry, ids, rows), data: await representations(ctx.db, entry, ids, ctx.baseUrl, rows, { brief }), shapes };
}

/** Where API URLs of a version's representation start: the origin (a change's `baseUrl`) and the version's prefix. */
export function versionBase(ctx: ChangeContext, version: string): string {
  return `${ctx.baseUrl}/v${version}`;
}

/**
 * The representations of changed objects in a version's shape (`version`: not the default one,
 * whose are `data`), rendered once per model for a batch and kept on each change. A delete has
 * only what was taken before its rows went (else its default `data`).
 */
export async function inVersion(ctx: ChangeContext, changes: Change[], version: string): Promise<void> {
  const todo = new Map<ModelEntry, Change[]>();
  for (const c of changes) {
    if (c.shapes?.has(version)) continue;
    if (c.action === 'delete') { (c.shapes ??= new Map()).set(version, c.data); continue; }
    todo.set(c.entry, [...(todo.get(c.entry) ?? []), c]);
  }
  for (const [entry, list] of todo) {
    const rendered = await representations(ctx.db, entry, [...new Set(list.map((c) => c.id))], versionBase(ctx, version), undefined, { version, origin: ctx.baseUrl });
    for (const c of list) (c.shapes ??= new Map()).set(version, rendered.get(c.id) ?? c.data);
  }
}

function withoutLastUpdated(snap: Record<string, unknown> | null): string {
  if (!snap) return 'null';
  const { last_updated: _ignored, ...rest } = snap;
  return JSON.stringify(rest);
}

/** A value whose JSON differs from that of any other value of this kind: a string, a finite number, a boolean, null. */
const plainJson = (v: unknown) => v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

/** Whether a field other than the timestamp holds two different plain values: their JSON texts would differ too. */
function differsPlainly(before: Record<string, unknown>, after: Record<string, unknown>): boolean {
  for (const key in before) {
    if (key === 'last_updated') continue;
    const x = before[key];
    const y = after[key];
    if (x !== y && plainJson(x) && plainJson(y)) return true;
  }
  return false;
}

/** An update that changed nothing but its timestamp. A changed plain field tells it without serializing both snapshots. */
export function unchanged(c: Change): boolean {
  if (c.action !== 'update') return false;
  if (c.prechange && c.postchange && differsPlainly(c.prechange, c.postchange)) return false;
  return withoutLastUpdated(c.prechange) === withoutLastUpdated(c.postchange);
}

/**
 * Changes captured from writes a hook made on other models (data/side-writes.ts), per transaction:
 * they go to the listeners with the next record of the request's own write, which always follows the
 * hooks, so a request's change rows stay one INSERT.
 */
const pending = new WeakMap<Knex, Change[]>();

/** Holds changes until the transaction's next emit; outside a transaction they go at once. */
export async function defer(ctx: ChangeContext, changes: Change[]): Promise<void> {
  if (!changes.length) return;
  if (!(ctx.db as Knex & { isTransaction?: boolean }).isTransaction) return emit(changes, ctx);
  pending.set(ctx.db, [...(pending.get(ctx.db) ?? []), ...changes]);
}

/** `changes` with those held for the transaction (taken: they are emitted once). */
function withHeld(changes: Change[], ctx: ChangeContext): Change[] {
  const held = pending.get(ctx.db);
  if (held) pending.delete(ctx.db);
  return held ? [...changes, ...held] : changes;
}

async function emit(changes: Change[], ctx: ChangeContext): Promise<void> {
  const all = withHeld(changes, ctx);
  if (!all.length) return;
  for (const { listener } of listeners) await listener(all, ctx);
}

/** Tags and many-to-many links taken over from other snapshots of the same objects. */
function copyLinks(entry: ModelEntry, into: Map<number, Record<string, unknown>>, from: Map<number, Record<string, unknown>>): void {
  const names = [...(entry.definition.tags ? ['tags'] : []), ...Object.values(entry.definition.fields).filter((f) => f.type === 'm2m').map((f) => f.name)];
  for (const [id, snap] of into) for (const name of names) snap[name] = from.get(id)?.[name] ?? [];
}

/** What the writer knows of rows it has just written, which spares reading it again. */
export interface Known {
  /** the rows as they now stand (one per id) */
  loaded?: Row[];
  /** created without tags or many-to-many links */
  unlinked?: boolean;
  /** snapshots holding the objects' tags and links as they still are (an update that named none) */
  linksFrom?: Map<number, Record<string, unknown>>;
  /** created (unlinked, loaded) and nothing written since points at them: no relations to read (RenderOptions.fresh) */
  fresh?: boolean;
}

/** The changes of creates or updates already written (`prechange`: the snapshots taken before an update). */
export async function writeChanges(ctx: ChangeContext, entry: ModelEntry, action: 'create' | 'update', ids: number[], prechange: Map<number, Record<string, unknown>> | null, known: Known = {}): Promise<Change[]> {
  if (!entry.definition.changelog || !ids.length) return [];
  const unique = [...new Set(ids)];
  const rows = known.loaded ?? await loadRows(ctx.db, entry, unique);
  const post = await snapshots(ctx.db, entry, unique, rows, known.unlinked || !!known.linksFrom);
  if (known.linksFrom) copyLinks(entry, post, known.linksFrom);
  const data = await representations(ctx.db, entry, unique, ctx.baseUrl, rows, { fresh: known.fresh && known.unlinked && !!known.loaded });
  return unique.filter((id) => data.has(id)).map((id) => ({
    entry, action, id,
    prechange: prechange?.get(id) ?? null,
    postchange: post.get(id) ?? null,
    data: data.get(id)!,
    repr: String(data.get(id)?.display ?? id),
  }));
}

/**
 * Records creates and updates (after the rows are written) and returns the objects' representations,
 * which the response reuses. `prechange` holds the snapshots taken before an update.
 */
export async function recordWrites(ctx: ChangeContext, entry: ModelEntry, action: 'create' | 'update', ids: number[], prechange: Map<number, Record<string, unknown>> | null, known: Known = {}): Promise<Map<number, Record<string, unknown>> | null> {
  const changes = await writeChanges(ctx, entry, action, ids, prechange, known);
  await emit(changes, ctx);
  return entry.definition.changelog && ids.length ? new Map(changes.map((c) => [c.id, c.data])) : null;
}

/** The changes of deletes whose records were taken before the rows went. */
export function deleteChanges(doomed: (Doomed | null)[]): Change[] {
  const changes: Change[] = [];
  for (const d of doomed) {
    if (!d) continue;
    for (const id of d.ids) {
      const data = d.data.get(id);
      if (!data) continue;
      const shapes = new Map([...d.shapes].filter(([, byId]) => byId.has(id)).map(([version, byId]) => [version, byId.get(id)!]));
      changes.push({ entry: d.entry, action: 'delete', id, prechange: d.prechange.get(id) ?? null, postchange: null, data, repr: String(data.display ?? id), shapes });
    }
  }
  return changes;
}

/**
 * Records deletes whose records were taken before the rows went, around `remove` (the statements that
 * delete them). The listeners that read only the changes (the change log) run while the database
 * removes the rows: building their rows (JSON for 2,100 change rows of 100 devices: ~7 ms) overlaps
 * the server's work, and their statements queue behind the removal's on the transaction's connection.
 * The others (the webhook queue, which matches the rules the delete leaves) run after it.
 */
export async function recordDeletes(ctx: ChangeContext, doomed: (Doomed | null)[], remove: () => Promise<void>): Promise<void> {
  const removing = remove();
  // Handled from now on: a removal that fails while this turn waits is not an unhandled rejection
  // (which ends the process); allSettled below still sees it.
  removing.catch(() => undefined);
  // Lets the first statement leave before this turn's JavaScript takes the thread.
  await new Promise((resolve) => setImmediate(resolve));
  const changes = withHeld(deleteChanges(doomed), ctx);
  const early = (async () => {
    if (changes.length) for (const { listener } of listeners.filter((l) => l.changesOnly)) await listener(changes, ctx);
  })();
  // Both finish before anything fails upwards: no statement of this request is left running.
  const [removed, logged] = await Promise.allSettled([removing, early]);
  for (const outcome of [removed, logged]) if (outcome.status === 'rejected') throw outcome.reason;
  if (changes.length) for (const { listener } of listeners.filter((l) => !l.changesOnly)) await listener(changes, ctx);
  // whatever the removal's own writes held back
  await emit([], ctx);
}

/** The related object a model names (an interface's device, a termination's object), from the snapshot after or before the change. */
function related(c: Change): { related_object_type: string | null; related_object_id: number | null } {
  const none = { related_object_type: null, related_object_id: null };
  const name = c.entry.definition.changelogRelated;
  if (!name) return none;
  const snap = c.postchange ?? c.prechange;
  const f = c.entry.definition.fields[name];
  const type = f.type === 'generic_fk' ? snap?.[f.typeKey!] : model(f.to!).definition.contentType;
  const id = snap?.[f.type === 'generic_fk' ? `${name}_id` : name];
  if (typeof type !== 'string' || !type || id === null || id === undefined) return none;
  return { related_object_type: type, related_object_id: Number(id) };
}

/** The change log: one ObjectChange row per changed object; an update that changed nothing is not logged. */
onChanges(async (changes, ctx) => {
  const log = model('ObjectChange').definition.table;
  const pg = isPostgres(ctx.db);
  const rows = changes
    .filter((c) => !unchanged(c))
    .map((c) => ({
      time: ctx.now,
      user_id: ctx.user?.id ?? null,
      user_name: ctx.user?.username ?? '',
      request_id: ctx.requestId,
      action: c.action,
      changed_object_type: c.entry.definition.contentType,
      changed_object_id: c.id,
      ...related(c),
      object_repr: c.repr.slice(0, 200),
      // PostgreSQL's rows travel as one JSON document (insert.ts): the snapshots go in it as they are
      prechange_data: c.prechange ? (pg ? c.prechange : JSON.stringify(c.prechange)) : null,
      postchange_data: c.postchange ? (pg ? c.postchange : JSON.stringify(c.postchange)) : null,
    }));
  await insertRows(ctx.db, log, rows);
}, { changesOnly: true });
