/**
 * The rows one response renders, loaded in batches: one query per model per level of nesting, the
 * models of a level at once, with the rows a level always points at read ahead in its round trip.
 */
import type { Knex } from 'knex';
import { hooksOf, model, type Row } from './registry.js';
import type { FieldDefinition, ModelEntry } from '../core/types.js';
import { followAlways, followRow } from './follow.js';
import { batchesReads, readByIds, readTablesByIds, type TableRead } from './reads.js';
import { nestedColumns } from './nested-columns.js';
import { displaysInAnyVersion, nestedInAnyVersion } from '../core/versions.js';

/** Page sizes stay far below this; it only guards the database's bound-parameter limit. */
export const CHUNK = 5000;

/** Rows of every model touched while rendering one response, loaded level by level. */
export class RowCache {
  private rows = new Map<string, Map<number, Row>>();
  private pending = new Map<string, Set<number>>();
  /** ids being loaded by `resolveLevel` while other loads run: not queued again */
  private loading = new Map<string, Set<number>>();
  /** rows a displayData hook has already completed */
  private completed = new WeakSet<Row>();
  /**
   * Rows loaded here are only rendered (nested forms, displays): read with the columns those use
   * (nested-columns.ts). A hook reading other columns of a row it loads itself keeps whole rows.
   */
  narrow = false;
  constructor(private db: Knex) {}

  /** The columns to read rows of `entry` with (null: all). */
  columnsOf(entry: ModelEntry): string[] | null {
    return this.narrow ? nestedColumns(entry) : null;
  }

  /** `partial`: rows of some columns only, which do not replace a row already here (perhaps whole). */
  add(name: string, rows: Row[], partial = false): void {
    const map = this.rows.get(name) ?? new Map<number, Row>();
    for (const row of rows) if (!partial || !map.has(Number(row.id))) map.set(Number(row.id), row);
    this.rows.set(name, map);
  }

  need(name: string, id: unknown): void {
    if (id === null || id === undefined) return;
    const n = Number(id);
    if (this.rows.get(name)?.has(n) || this.loading.get(name)?.has(n)) return;
    let set = this.pending.get(name);
    if (!set) this.pending.set(name, (set = new Set()));
    set.add(n);
  }

  get(name: string, id: unknown): Row | undefined {
    return id === null || id === undefined ? undefined : this.rows.get(name)?.get(Number(id));
  }

  /** Loads everything pending, one query per model and level (the models of a level at once); newly loaded rows ask for their own nested relations. */
  async resolve(): Promise<void> {
    while (this.pending.size) await this.resolveLevel();
    // what displays read beyond the rows (one query per model that needs it)
    for (const [name, map] of this.rows) {
      const entry = model(name);
      const fn = hooksOf(entry).find((h) => h.displayData)?.displayData;
      if (!fn) continue;
      const rows = [...map.values()].filter((r) => !this.completed.has(r));
      if (!rows.length) continue;
      await fn(rows, { db: this.db, entry });
      for (const r of rows) this.completed.add(r);
    }
  }

  /**
   * Loads what is pending now, one level; what those rows point at is queued, not loaded. Safe beside
   * other loads that queue rows: the statements made do not depend on which finishes first.
   */
  async resolveLevel(): Promise<void> {
    if (!this.pending.size) return;
    const batch = [...this.pending];
    this.pending.clear();
    for (const [name, ids] of batch) this.loading.set(name, ids);
    try {
      const tables = batch.map(([name, ids]) => ({ entry: model(name), ids: [...ids] }));
      // PostgreSQL: the whole level in one round trip when it may (see readTablesByIds), with the
      // rows its rows always point at (a device type's manufacturer): one round trip less per level.
      const ahead = batchesReads(this.db) ? readsAhead(tables) : [];
      const all = [...tables.map(({ entry, ids }) => ({ entry, read: { table: entry.definition.table, ids } as TableRead })), ...ahead];
      const batched = await readTablesByIds(this.db, all.map(({ entry, read }) => ({ ...read, columns: this.columnsOf(entry) })), CHUNK);
      const levels = batched ? all.map(({ entry }, i) => [entry, batched[i]] as const) : await together(this.db, tables.map(({ entry, ids }) => async () => {
        const list = ids;
        const loaded: Row[] = [];
        const columns = this.columnsOf(entry);
        for (let i = 0; i < list.length; i += CHUNK) {
          const table = entry.definition.table;
          loaded.push(...(await readByIds(this.db, `${columns ? 'nested-rows' : 'rows'}:${table}`, list.slice(i, i + CHUNK), (ids) => this.db(table).select(columns ?? '*').whereIn('id', ids))));
        }
        return [entry, loaded] as const;
      }));
      for (const [entry, loaded] of levels) this.add(entry.definition.name, loaded, !!this.columnsOf(entry));
      this.loading.clear();
      for (const [entry, loaded] of levels) {
        const need = (target: string, id: unknown) => this.need(target, id);
        for (const row of loaded) followRow(entry, row, need);
        const generic = genericRootsOf(entry);
        if (generic.length) for (const row of loaded) needGeneric(this, row, generic);
      }
    } finally {
      this.loading.clear();
    }
  }
}

/** How many relations deep a level reads ahead (readsAhead). */
const AHEAD = 2;

/**
 * Reads of the rows a level's rows always point at (followAlways), and those rows' own, AHEAD
 * relations deep: each by a subquery on the level's ids, so they travel in the level's round trip
 * instead of making levels of their own. A relation that is null everywhere reads nothing.
 */
function readsAhead(tables: { entry: ModelEntry; ids: number[] }[]): { entry: ModelEntry; read: TableRead }[] {
  const out: { entry: ModelEntry; read: TableRead }[] = [];
  const walk = (entry: ModelEntry, ids: number[], via: { table: string; column: string }[]) => {
    if (via.length >= AHEAD) return;
    for (const [target, column] of followAlways(entry)) {
      const next = model(target);
      const chain = [...via, { table: entry.definition.table, column }];
      out.push({ entry: next, read: { table: next.definition.table, ids, via: chain } });
      walk(next, ids, chain);
    }
  };
  for (const { entry, ids } of tables) walk(entry, ids, []);
  return out;
}

/**
 * Runs independent loads at once on a pool; one after the other inside a transaction, whose single
 * connection takes one statement at a time.
 */
export async function together<T>(db: Knex, tasks: (() => Promise<T>)[]): Promise<T[]> {
  if (!db.isTransaction) return Promise.all(tasks.map((t) => t()));
  const out: T[] = [];
  for (const t of tasks) out.push(await t());
  return out;
}

/** Fields the display templates start from (a generic relation named alone shows its target). */
const roots = new Map<string, string[]>();
export function displayRoots(entry: ModelEntry): string[] {
  let list = roots.get(entry.definition.name);
  if (!list) roots.set(entry.definition.name, (list = displaysInAnyVersion(entry).flatMap((t) => [...t.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))));
  return list;
}

/** The generic relations among `fields` (worked out once per page or model, not per row). */
export function genericOf(entry: ModelEntry, fields: string[]): FieldDefinition[] {
  return [...new Set(fields)].map((name) => entry.definition.fields[name]).filter((f) => f?.type === 'generic_fk');
}

/** Those of a model's nested form and display templates, which every loaded row of it may point at. */
const genericRoots = new Map<string, FieldDefinition[]>();
function genericRootsOf(entry: ModelEntry): FieldDefinition[] {
  let list = genericRoots.get(entry.definition.name);
  if (!list) genericRoots.set(entry.definition.name, (list = genericOf(entry, [...nestedInAnyVersion(entry), ...displayRoots(entry)])));
  return list;
}

/** Queues the targets of a row's generic relations (`generic`, from genericOf). */
export function needGeneric(cache: RowCache, row: Row, generic: FieldDefinition[]): void {
  for (const f of generic) {
    const target = f.types![row[`${f.name}_type`]];
    if (target) cache.need(target, row[`${f.name}_id`]);
  }
}
