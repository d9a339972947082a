/**
 * Object permissions: what a non-superuser may do is what their own and their groups' enabled
 * permissions grant, per object type and action. Constraints narrow a grant to the objects matching
 * them, or any of a list of them: each object in Django's lookup syntax, as NetBox stores them
 * (`{"site__slug": "dc1", "vid__gte": 100}`, lookups.ts), or else in the query-string language of
 * the filters (`{"site_id": 3, "name__ic": "core"}`); `"$user"` stands for the requesting user's id.
 */
import knexFactory, { type Knex } from 'knex';

/** A query builder with no connection, used only to see which constraint keys the filters apply. */
const knexProbe = knexFactory({ client: 'pg' });
import { applyFilters } from '../data/filters.js';
import { model, type Action } from '../data/registry.js';
import type { User } from '../core/user.js';
import type { ModelEntry } from '../core/types.js';
import { compileLookups, LookupProblem } from './lookups.js';
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
export function constraintFor(grants: Grant[], contentType: string, action: Action | 'grant'): 'denied' | Record<string, unknown>[] | null {
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

/** The keys of a constraint that the filters would not apply (unknown names or lookups, empty values). */
function unknownFilterKeys(entry: ModelEntry, constraint: Record<string, unknown>, db: Knex): string[] {
  try {
    return applyFilters(db(entry.definition.table), entry, asParams(constraint, NOBODY), { db });
  } catch {
    return Object.keys(constraint);
  }
}

const NOBODY: User = { id: 0, username: '', isSuperuser: false, isActive: true };

type Condition = (qb: Knex.QueryBuilder) => void;

/**
 * A constraint object as a condition: in Django's lookup syntax when every key reads as one, else in
 * the filters' language when they apply every key; else the problem with it, naming the key.
 */
function conditionOf(entry: ModelEntry, constraint: Record<string, unknown>, user: User, db: Knex): Condition | { problem: string } {
  const values = Object.fromEntries(Object.entries(constraint).map(([k, v]) => [k, substitute(v, user)]));
  try {
    const condition = compileLookups(entry, values, db);
    return (qb) => condition(qb, db);
  } catch (error) {
    if (!(error instanceof LookupProblem)) throw error;
    if (!unknownFilterKeys(entry, constraint, db).length) {
      const params = asParams(constraint, user);
      return (qb) => { applyFilters(qb, entry, params, { db }); };
    }
    return { problem: error.message };
  }
}

/** What is wrong with a constraint object for this object type (null: nothing); saving such a permission is refused. */
export function constraintProblem(entry: ModelEntry, constraint: Record<string, unknown>, db?: Knex): string | null {
  const found = conditionOf(entry, constraint, NOBODY, db ?? knexProbe);
  return typeof found === 'function' ? null : found.problem;
}

/** Narrows a query to the objects any of the constraints match; one that cannot apply matches nothing. */
export function applyConstraints(qb: Knex.QueryBuilder, db: Knex, entry: ModelEntry, constraints: Record<string, unknown>[], user: User): void {
  qb.where((any) => {
    for (const constraint of constraints) {
      const found = conditionOf(entry, constraint, user, db);
      if (typeof found === 'function') any.orWhere((one) => { found(one); });
      else any.orWhereRaw('1 = 0');
    }
  });
}
