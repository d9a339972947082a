/**
 * NetBox 4.x's generic relations that replace fixed foreign keys: a prefix's and a cluster's `scope`
 * (4.2), a circuit termination's `termination` (4.2), a service's `parent_object` (4.3). The model
 * stores the generic relation, its one generic_fk field, and caches what it points at and lies in as
 * plain relations: its fk fields to the relation's target models or their ancestors (a location's
 * site, a site's region and group), as NetBox caches `_site`, `_region`, ... for its filters.
 * - A write of the generic relation (4.x) sets every cache from its target.
 * - A write of a writable cache (3.7's `site`, `provider_network`, `device`, `virtual_machine`) sets
 *   the relation to that object, unless the relation already lies in it (a location of that site).
 * - A site that changes region or group, a location that changes site, updates the caches below it
 *   (`scope_parent`, a hook of those models).
 * - Rows that have a cache set and no relation (stored before the relation, or imported from NetBox
 *   3.7) get their relation and the other caches at start-up and after an import.
 */
import type { Knex } from 'knex';
import type { ModelHooks, Row, WriteItem } from '../data/registry.js';
import { model, modelList } from '../data/registry.js';
import type { FieldDefinition, ModelEntry } from '../core/types.js';
import { isSet } from './merged.js';

/** The relations a target's ancestors are reached by (a location's site, then the site's region and group). */
export const ANCESTRY: Record<string, string[]> = { Location: ['site'], Site: ['region', 'group'] };

interface Shape {
  /** the generic relation */
  field: FieldDefinition;
  /** its columns: the type (`app.model`) and the id */
  typeColumn: string;
  idColumn: string;
  /** fk fields caching the target or one of its ancestors */
  caches: FieldDefinition[];
}

const shapes = new WeakMap<ModelEntry, Shape>();

function shapeOf(entry: ModelEntry): Shape {
  let shape = shapes.get(entry);
  if (shape) return shape;
  const fields = Object.values(entry.definition.fields);
  const field = fields.find((f) => f.type === 'generic_fk');
  if (!field) throw new Error(`${entry.definition.name}: cached_scope needs a generic relation`);
  const reached = new Set<string>();
  const reach = (name: string) => {
    if (reached.has(name)) return;
    reached.add(name);
    for (const rel of ANCESTRY[name] ?? []) reach(model(name).definition.fields[rel].to!);
  };
  for (const name of Object.values(field.types!)) reach(name);
  const caches = fields.filter((f) => f.type === 'fk' && reached.has(f.to!));
  shape = { field, typeColumn: `${field.name}_type`, idColumn: `${field.name}_id`, caches };
  shapes.set(entry, shape);
  return shape;
}

/** The target of a relation and its ancestors, by model name: { Location: 3, Site: 1, Region: 2 }. */
async function ancestorsOf(db: Knex, shape: Shape, type: string, id: number): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const visit = async (name: string, rowId: number): Promise<void> => {
    out[name] = rowId;
    const rels = (ANCESTRY[name] ?? []).map((r) => model(name).definition.fields[r]);
    if (!rels.length) return;
    const row = await db(model(name).definition.table).where('id', rowId).first(rels.map((f) => f.columns[0]));
    for (const f of rels) if (row && isSet(row[f.columns[0]]) && !(f.to! in out)) await visit(f.to!, Number(row[f.columns[0]]));
  };
  const name = shape.field.types![type];
  if (name) await visit(name, id);
  return out;
}

/** The caches' values for a target. */
function cacheValues(shape: Shape, ancestors: Record<string, number>): Row {
  return Object.fromEntries(shape.caches.map((f) => [f.columns[0], ancestors[f.to!] ?? null]));
}

/**
 * A write through a writable cache (3.7's field) sets the relation to the object it names. Returns
 * false when the object would name two (a site and a provider network), which the model's own hook
 * refuses: nothing is derived then.
 */
function followCache(item: WriteItem, shape: Shape): boolean {
  const v = item.values;
  if (isSet(v[shape.typeColumn])) return true;
  const writable = shape.caches.filter((f) => !f.readOnly);
  if (!writable.some((f) => f.columns[0] in v)) return true;
  const value = (f: FieldDefinition) => (f.columns[0] in v ? v[f.columns[0]] : item.existing?.[f.columns[0]]);
  const named = writable.filter((f) => isSet(value(f)));
  if (named.length > 1) return false;
  if (named.length === 1) {
    const id = Number(value(named[0]));
    // a relation that lies in the named object stays (a prefix scoped to a location of the site written)
    if (item.existing && isSet(item.existing[shape.typeColumn]) && Number(item.existing[named[0].columns[0]]) === id) return true;
    v[shape.typeColumn] = model(named[0].to!).definition.contentType;
    v[shape.idColumn] = id;
    return true;
  }
  // cleared: a relation the cleared field showed goes with it (a region the 3.7 site never showed stays)
  if (!item.existing || writable.some((f) => isSet(item.existing![f.columns[0]]))) {
    v[shape.typeColumn] = null;
    v[shape.idColumn] = null;
  }
  return true;
}

async function prepare(item: WriteItem, db: Knex, entry: ModelEntry): Promise<void> {
  const shape = shapeOf(entry);
  if (!followCache(item, shape)) return;
  const v = item.values;
  if (!(shape.typeColumn in v)) return;
  const ancestors = isSet(v[shape.typeColumn]) && isSet(v[shape.idColumn]) ? await ancestorsOf(db, shape, String(v[shape.typeColumn]), Number(v[shape.idColumn])) : {};
  Object.assign(v, cacheValues(shape, ancestors));
}

/**
 * SQL for each model reached from a row of `target` (itself and its ancestors, as `ancestorsOf` reaches
 * them) whose id is `id` (an SQL expression): the id of that ancestor, null when the chain breaks.
 */
function ancestorSql(target: string, id: string): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (name: string, expr: string): void => {
    out.set(name, expr);
    for (const rel of ANCESTRY[name] ?? []) {
      const f = model(name).definition.fields[rel];
      if (!out.has(f.to!)) visit(f.to!, `(select "${f.columns[0]}" from "${model(name).definition.table}" where id = ${expr})`);
    }
  };
  visit(target, id);
  return out;
}

/**
 * Rows with a writable cache set and no relation get the relation (the first such cache's object)
 * and their other caches, set-wise and unrecorded, as a migration would: one UPDATE per writable
 * cache, the ancestors read in subqueries.
 */
export async function relationsForStoredCaches(db: Knex): Promise<void> {
  for (const entry of modelList.filter((e) => e.definition.hooks.includes('cached_scope'))) {
    const shape = shapeOf(entry);
    const table = entry.definition.table;
    for (const f of shape.caches.filter((c) => !c.readOnly)) {
      const column = `"${table}"."${f.columns[0]}"`;
      const reached = ancestorSql(f.to!, column);
      const sets = [`"${shape.typeColumn}" = ?`, `"${shape.idColumn}" = ${column}`, ...shape.caches.map((c) => `"${c.columns[0]}" = ${reached.get(c.to!) ?? 'null'}`)];
      await db.raw(`update "${table}" set ${sets.join(', ')} where "${shape.typeColumn}" is null and ${column} is not null`, [model(f.to!).definition.contentType]);
    }
  }
}

/** Recomputes the caches of the rows (of every model with a cached relation) whose cache of `name` is one of `ids`. */
export async function refreshBelow(db: Knex, name: string, ids: number[]): Promise<void> {
  for (const entry of modelList.filter((e) => e.definition.hooks.includes('cached_scope'))) {
    const shape = shapeOf(entry);
    const cache = shape.caches.find((f) => f.to === name);
    if (!cache) continue;
    const table = entry.definition.table;
    const byTarget = new Map<string, number[]>();
    for (let i = 0; i < ids.length; i += 500) {
      for (const r of await db(table).whereIn(cache.columns[0], ids.slice(i, i + 500)).whereNotNull(shape.typeColumn).select('id', shape.typeColumn, shape.idColumn)) {
        const key = `${r[shape.typeColumn]}:${r[shape.idColumn]}`;
        byTarget.set(key, [...(byTarget.get(key) ?? []), Number(r.id)]);
      }
    }
    for (const [key, rows] of byTarget) {
      const [type, id] = key.split(':');
      const values = cacheValues(shape, await ancestorsOf(db, shape, type, Number(id)));
      for (let i = 0; i < rows.length; i += 500) await db(table).whereIn('id', rows.slice(i, i + 500)).update(values);
    }
  }
}

export const cachedScope: ModelHooks = {
  async prepare(item, { db, entry }) {
    await prepare(item, db, entry!);
  },
  startup: ({ db }) => relationsForStoredCaches(db),
  afterImport: (db) => relationsForStoredCaches(db),
};
