/**
 * Process caches of rows that change rarely and are read on every request (tokens with their users,
 * object permissions, custom field definitions, active config contexts), correct across processes
 * that share one database: a write to any model a cache reads bumps one version row in the same
 * transaction (`bumpCacheVersion`, called by the write path), and every request first reads that row
 * (`syncCaches`, one indexed query) and empties every cache when it moved. A revoked token therefore
 * fails on the very next request, in every process. (A model GET on PostgreSQL reads it beside its
 * first read and is answered only once it is confirmed: runtime/http/identify.ts.)
 *
 * A cache is only filled outside transactions (a rolled-back write must never be remembered), and is
 * only trusted shortly after a sync; otherwise (a background job) the value is loaded. A transaction
 * loads its own, and remembers it until a watched model is written (`inTransactions`).
 */
import type { Knex } from 'knex';
import { model } from './registry.js';
import { readByIds } from './reads.js';

const TABLE = 'netledger_cache_version';
/** How long after a sync the caches are trusted without another one (background use). */
const FRESH_MS = 1000;
/** Entries per cache; a full cache starts again (nothing here is expensive to reload). */
const MAX_ENTRIES = 10_000;

/** models whose every write moves the version */
const watched = new Set<string>();
/** models whose deletes move it (they remove links of a watched model, e.g. a site named by a config context) */
const watchedDeletes = new Set<string>();
/** every cache's entries, per database (two apps in one process, as in tests, never share entries) */
const caches = new Set<WeakMap<Knex, Map<unknown, unknown>>>();
const versions = new WeakMap<Knex, { version: string; at: number }>();

/**
 * Declares that a cache reads these models: writes to them move the version, and so do deletes of
 * what their many-to-many fields and tags point at (a delete removes the links in the database).
 */
export function watchModels(names: string[]): void {
  for (const name of names) {
    const d = model(name).definition;
    watched.add(name);
    for (const f of Object.values(d.fields)) if (f.type === 'm2m') watchedDeletes.add(f.to!);
    if (d.tags) watchedDeletes.add('Tag');
  }
}

/**
 * Inside a transaction a cache is not filled, but what it loaded there is remembered for that
 * transaction (a write reads its model's custom fields to validate and again to render) until any
 * transaction of this process writes a watched model: `writes` counts those, and a remembered value
 * is used only while the count is the one it was loaded under (nested transactions included).
 */
const inTransactions = new WeakMap<Knex, Map<object, Map<unknown, { writes: number; value: unknown }>>>();
let writes = 0;

/** Within a write's transaction: moves the version when one of the written (or deleted) models is watched. */
export async function bumpCacheVersion(trx: Knex, modelNames: Iterable<string>, deleted = false): Promise<void> {
  for (const name of modelNames) {
    if (!watched.has(name) && !(deleted && watchedDeletes.has(name))) continue;
    writes++;
    await trx(TABLE).where('id', 1).increment('version', 1);
    return;
  }
}

/** The version row's current value (one indexed read, compiled once per dialect). */
export async function readCacheVersion(db: Knex): Promise<string> {
  const [row] = await readByIds(db, 'cache-version', [], () => db(TABLE).select('version').where('id', 1));
  return String(row?.version ?? 0);
}

/** Empties every cache when `version` (just read) is not the one they were filled under. */
export function applyCacheVersion(db: Knex, version: string): void {
  const last = versions.get(db);
  if (!last || last.version !== version) for (const cache of caches) cache.get(db)?.clear();
  versions.set(db, { version, at: Date.now() });
}

/** The version the caches were last synced to (null before the first sync). */
export function knownCacheVersion(db: Knex): string | null {
  return versions.get(db)?.version ?? null;
}

/** At the start of a request: empties every cache when another write (any process) moved the version. */
export async function syncCaches(db: Knex): Promise<void> {
  applyCacheVersion(db, await readCacheVersion(db));
}

/** A process cache: `get(db, key, load)` answers from memory when it may, else loads (and keeps when safe). */
export function processCache<K, V>(): { get(db: Knex, key: K, load: () => Promise<V>): Promise<V> } {
  const byDb = new WeakMap<Knex, Map<K, V>>();
  caches.add(byDb as unknown as WeakMap<Knex, Map<unknown, unknown>>);
  return {
    async get(db, key, load) {
      if (db.isTransaction) {
        let mine = inTransactions.get(db);
        if (!mine) inTransactions.set(db, (mine = new Map()));
        let remembered = mine.get(byDb) as Map<K, { writes: number; value: V }> | undefined;
        if (!remembered) mine.set(byDb, (remembered = new Map()));
        const kept = remembered.get(key);
        if (kept && kept.writes === writes) return kept.value;
        const before = writes;
        const value = await load();
        if (writes === before) remembered.set(key, { writes: before, value });
        return value;
      }
      const synced = versions.get(db);
      const usable = !!synced && Date.now() - synced.at < FRESH_MS;
      let entries = byDb.get(db);
      if (usable && entries?.has(key)) return entries.get(key)!;
      const value = await load();
      // Kept only if no other write moved the version while this was loading.
      if (usable && versions.get(db)?.version === synced!.version) {
        if (!entries) byDb.set(db, (entries = new Map()));
        if (entries.size >= MAX_ENTRIES) entries.clear();
        entries.set(key, value);
      }
      return value;
    },
  };
}
