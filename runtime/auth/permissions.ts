/**
 * Object permissions: what a non-superuser may do is what their own and their groups' enabled
 * permissions grant, per object type and action. Constraints narrow a grant to the objects matching
 * a filter (the query-string language: `{"site_id": 3, "status": "active"}`, or a list of such
 * objects meaning any of them); `"$user"` stands for the requesting user's id.
 */
import knexFactory, { type Knex } from 'knex';

/** A query builder with no connection, used only to see which constraint keys the filters apply. */
const knexProbe = knexFactory({ client: 'pg' });
import { applyFilters } from '../data/filters.js';
import { model, type Action } from '../data/registry.js';
import type { User } from './authenticate.js';
import type { ModelEntry } from '../core/types.js';
import { processCache, watchModels } from '../data/cache.js';

watchModels(['ObjectPermission', 'User', 'Group']);
/** Each user's grants (emptied whenever a permission, user or group changes, in any process). */
const grantsByUser = processCache<number, Grant[]>();

export interface Grant {
  objectTypes: string[];
  actions: string[];
  /** null: every object */
  constraints: Record<string, unknown>[] | null;
}

/** The enabled permissions of a user, directly or through groups (one query). */
export function loadGrants(db: Knex, user: User): Promise<Grant[]> {
  return grantsByUser.get(db, user.id, () => queryGrants(db, user));
}

async function queryGrants(db: Knex, user: User): Promise<Grant[]> {
  const perms = model('ObjectPermission').definition.table;
  const userGroups = `${model('User').definition.table}_groups`;
  const rows = await db(perms).where('enabled', true).where((w) => {
    w.whereIn('id', db(`${perms}_users`).select('from_id').where('to_id', user.id))
      .orWhereIn('id', db(`${perms}_groups`).select('from_id').whereIn('to_id', db(userGroups).select('to_id').where('from_id', user.id)));
  });
  return rows.map((r: Record<string, any>) => {
    const c = r.constraints ? JSON.parse(r.constraints) : null;
    const list = c === null ? null : Array.isArray(c) ? c : [c];
    // An empty constraint (null or {}) in a list grants every object.
    const constraints = list === null || list.some((x) => x === null || (typeof x === 'object' && !Object.keys(x).length)) ? null : list;
    return { objectTypes: JSON.parse(r.object_types || '[]'), actions: JSON.parse(r.actions || '[]'), constraints };
  });
}

/** `'denied'`, `null` (every object) or the constraint objects any of which an object must match. */
export function constraintFor(grants: Grant[], contentType: string, action: Action): 'denied' | Record<string, unknown>[] | null {
  const matching = grants.filter((g) => g.actions.includes(action) && (g.objectTypes.includes(contentType) || g.objectTypes.includes('*')));
  if (!matching.length) return 'denied';
  if (matching.some((g) => g.constraints === null)) return null;
  return matching.flatMap((g) => g.constraints!);
}

function substitute(value: unknown, user: User): unknown {
  if (value === '$user') return user.id;
  if (Array.isArray(value)) return value.map((v) => substitute(v, user));
  return value;
}

function asParams(constraint: Record<string, unknown>, user: User | null): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, raw] of Object.entries(constraint)) {
    const value = user ? substitute(raw, user) : raw;
    const list = Array.isArray(value) ? value : [value];
    if (!list.length) params.append(key, '');
    for (const v of list) params.append(key, v === null ? 'null' : typeof v === 'object' ? '' : String(v));
  }
  return params;
}

/**
 * Constraint keys the filters would not apply (unknown names or lookups, empty values): a grant
 * naming them matches nothing, and saving such a permission is refused.
 */
export function unknownConstraintKeys(entry: ModelEntry, constraint: Record<string, unknown>, db?: Knex): string[] {
  const probe = (db ?? knexProbe)(entry.definition.table);
  try {
    return applyFilters(probe, entry, asParams(constraint, { id: 0, username: '', isSuperuser: false, isActive: true }), { db: db ?? knexProbe });
  } catch {
    return Object.keys(constraint);
  }
}

/** Narrows a query to the objects any of the constraints match. */
export function applyConstraints(qb: Knex.QueryBuilder, db: Knex, entry: ModelEntry, constraints: Record<string, unknown>[], user: User): void {
  qb.where((any) => {
    for (const constraint of constraints) {
      if (unknownConstraintKeys(entry, constraint, db).length) { any.orWhereRaw('1 = 0'); continue; }
      const params = asParams(constraint, user);
      any.orWhere((one) => { applyFilters(one, entry, params, { db }); });
    }
  });
}
