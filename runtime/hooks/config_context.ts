/**
 * Config contexts: `data` must be a JSON object, and the rendering of the `config_context` of
 * devices and virtual machines (`configContextOf(model)` is their computed field).
 *
 * Rendering a page takes a fixed number of queries whatever the page size: the active contexts, all
 * their criteria links (one UNION query), then only what the criteria in use need for the page:
 * sites with their region and site-group paths, tenants with their group, clusters with their group
 * and type, the objects' tags. Matching and merging happen in memory.
 */
import type { Knex } from 'knex';
import { model, type HookContext, type ModelHooks, type Row } from '../data/registry.js';
import { processCache, watchModels } from '../data/cache.js';
import { TAGGED_ITEMS } from '../data/tagged-items.js';

watchModels(['ConfigContext']);
/** The active contexts with their criteria (emptied whenever a context, or what its criteria name, changes). */
const active = processCache<'active', Context[]>();

/** Criteria lists of a context; each is compared with one attribute of the device or VM. */
const CRITERIA = [
  'regions', 'site_groups', 'sites', 'locations', 'device_types', 'roles', 'platforms',
  'cluster_types', 'cluster_groups', 'clusters', 'tenant_groups', 'tenants', 'tags',
] as const;
type Criterion = typeof CRITERIA[number];

/** Keeps the bound parameters of one query well below every database's limit. */
const CHUNK = 5000;

type Json = unknown;
type JsonObject = Record<string, Json>;

function isObject(v: Json): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function parse(v: unknown): Json {
  return typeof v === 'string' ? JSON.parse(v) : v ?? null;
}

/**
 * NetBox's deepmerge: for each key of `next`, two objects merge recursively when the new one is
 * non-empty; anything else (lists, scalars, an empty object) replaces. Neither input is modified.
 */
export function deepMerge(base: JsonObject, next: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [key, value] of Object.entries(next)) {
    const old = out[key];
    out[key] = isObject(old) && isObject(value) && Object.keys(value).length ? deepMerge(old, value) : value;
  }
  return out;
}

/** Ancestor ids of a tree node from its `_path` (`/1/5/9/` → 1, 5, 9), the node included. */
function pathIds(path: unknown): number[] {
  return typeof path === 'string' ? path.split('/').filter(Boolean).map(Number) : [];
}

async function inChunks(ids: number[], load: (chunk: number[]) => Promise<Row[]>): Promise<Row[]> {
  const out: Row[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) out.push(...(await load(ids.slice(i, i + CHUNK))));
  return out;
}

function distinct(rows: Row[], column: string): number[] {
  return [...new Set(rows.map((r) => r[column]).filter((v) => v !== null && v !== undefined).map(Number))];
}

interface Context {
  id: number;
  data: JsonObject;
  /** criterion → accepted ids; absent or empty: no constraint */
  criteria: Map<Criterion, Set<number>>;
}

/** Active contexts in merge order (weight, then name), each with its criteria. Two queries; none when cached. */
function activeContexts(db: Knex): Promise<Context[]> {
  return active.get(db, 'active', () => loadActiveContexts(db));
}

async function loadActiveContexts(db: Knex): Promise<Context[]> {
  const entry = model('ConfigContext');
  const d = entry.definition;
  const rows: Row[] = await db(d.table).select('id', 'data').where('is_active', true).orderBy([{ column: 'weight' }, { column: 'name' }, { column: 'id' }]);
  if (!rows.length) return [];
  const contexts = new Map<number, Context>(rows.map((r) => [Number(r.id), { id: Number(r.id), data: (parse(r.data) ?? {}) as JsonObject, criteria: new Map() }]));
  const parts = CRITERIA.filter((c) => c !== 'tags').map((c) => db.raw('select ? as k, from_id, to_id from ??', [c, d.fields[c].through!]).toQuery());
  parts.push(db.raw(`select 'tags' as k, object_id as from_id, tag_id as to_id from ${TAGGED_ITEMS} where object_type = ?`, [d.contentType]).toQuery());
  const links = (await db.raw(parts.join(' union all '))) as unknown;
  const list: Row[] = Array.isArray(links) ? links : (links as { rows: Row[] }).rows;
  for (const link of list) {
    const context = contexts.get(Number(link.from_id));
    if (!context) continue;
    const key = link.k as Criterion;
    let set = context.criteria.get(key);
    if (!set) context.criteria.set(key, (set = new Set()));
    set.add(Number(link.to_id));
  }
  return [...contexts.values()];
}

/** What a device or VM is compared with, per criterion. */
type Facts = Record<Criterion, number[]>;

/**
 * The rendered config context of each row of `modelName` (Device or VirtualMachine): the matching
 * contexts merged, then local_context_data. A VM has no location or device type, so contexts that
 * name some never apply to it (as NetBox).
 */
export async function renderConfigContexts(db: Knex, modelName: string, devices: Row[]): Promise<Map<number, JsonObject>> {
  const out = new Map<number, JsonObject>();
  const local = (row: Row) => {
    const data = parse(row.local_context_data);
    return isObject(data) && Object.keys(data).length ? data : null;
  };
  const contexts = devices.length ? await activeContexts(db) : [];
  if (!contexts.length) {
    for (const row of devices) out.set(Number(row.id), local(row) ?? {});
    return out;
  }
  const used = new Set<Criterion>(contexts.flatMap((c) => [...c.criteria.keys()]));

  // Sites (for regions and site groups), clusters (types, groups), tenants (groups) and tags: only when some context asks.
  const sites = new Map<number, Row>();
  if (used.has('regions') || used.has('site_groups')) {
    const [site, region, group] = ['Site', 'Region', 'SiteGroup'].map((n) => model(n).definition.table);
    const rows = await inChunks(distinct(devices, 'site_id'), (ids) => db(`${site} as s`)
      .leftJoin(`${region} as r`, 'r.id', 's.region_id').leftJoin(`${group} as g`, 'g.id', 's.group_id')
      .select('s.id', 'r._path as region_path', 'g._path as group_path').whereIn('s.id', ids));
    for (const r of rows) sites.set(Number(r.id), r);
  }
  const clusters = new Map<number, Row>();
  if (used.has('cluster_types') || used.has('cluster_groups')) {
    const rows = await inChunks(distinct(devices, 'cluster_id'), (ids) => db(model('Cluster').definition.table).select('id', 'type_id', 'group_id').whereIn('id', ids));
    for (const r of rows) clusters.set(Number(r.id), r);
  }
  const tenants = new Map<number, Row>();
  if (used.has('tenant_groups')) {
    const rows = await inChunks(distinct(devices, 'tenant_id'), (ids) => db(model('Tenant').definition.table).select('id', 'group_id').whereIn('id', ids));
    for (const r of rows) tenants.set(Number(r.id), r);
  }
  const tags = new Map<number, number[]>();
  if (used.has('tags')) {
    const contentType = model(modelName).definition.contentType;
    const rows = await inChunks(devices.map((r) => Number(r.id)), (ids) => db(TAGGED_ITEMS).select('object_id', 'tag_id').where('object_type', contentType).whereIn('object_id', ids));
    for (const r of rows) tags.set(Number(r.object_id), [...(tags.get(Number(r.object_id)) ?? []), Number(r.tag_id)]);
  }

  const one = (v: unknown) => (v === null || v === undefined ? [] : [Number(v)]);
  // Objects matching the same contexts share one merge.
  const merged = new Map<string, JsonObject>();
  for (const row of devices) {
    const site = sites.get(Number(row.site_id));
    const cluster = clusters.get(Number(row.cluster_id));
    const facts: Facts = {
      // Regions and site groups match through any ancestor; locations and tenant groups exactly (as NetBox 3.7).
      regions: pathIds(site?.region_path),
      site_groups: pathIds(site?.group_path),
      sites: one(row.site_id),
      locations: one(row.location_id),
      device_types: one(row.device_type_id),
      roles: one(row.role_id),
      platforms: one(row.platform_id),
      cluster_types: one(cluster?.type_id),
      cluster_groups: one(cluster?.group_id),
      clusters: one(row.cluster_id),
      tenant_groups: one(tenants.get(Number(row.tenant_id))?.group_id),
      tenants: one(row.tenant_id),
      tags: tags.get(Number(row.id)) ?? [],
    };
    const matching = contexts.filter((c) => [...c.criteria].every(([k, accepted]) => facts[k].some((v) => accepted.has(v))));
    const key = matching.map((c) => c.id).join(',');
    let data = merged.get(key);
    if (!data) merged.set(key, (data = matching.reduce((acc, c) => deepMerge(acc, c.data), {} as JsonObject)));
    const own = local(row);
    out.set(Number(row.id), own ? deepMerge(data, own) : data);
  }
  return out;
}

/** The computed `config_context` field of a model (Device, VirtualMachine). */
export function configContextOf(modelName: string): (rows: Row[], ctx: HookContext) => Promise<Map<number, unknown>> {
  return (rows, { db }) => renderConfigContexts(db, modelName, rows);
}

export const configContext: ModelHooks = {
  prepare(item) {
    const data = item.values.data;
    if (typeof data === 'string' && !isObject(JSON.parse(data))) item.errors.add('data', 'JSON data must be in object form. Example: {"foo": 123}');
  },
};
