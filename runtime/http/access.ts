/**
 * Who may do what through the API: a model at all (authorize), and which of its objects (scoped:
 * its version's objects, hook scopes, permission constraints).
 */
import type { Knex } from 'knex';
import type { Context } from 'koa';
import { errors } from '../core/errors.js';
import { isStorableId } from '../core/ids.js';
import { hooksOf, models, type Action } from '../data/registry.js';
import { whereAny } from '../data/any.js';
import type { Config } from '../core/config.js';
import type { ModelEntry } from '../core/types.js';
import { applyConstraints, constraintFor } from '../auth/permissions.js';
import { Unconfirmed } from './identify.js';
import { renderBase } from './versions.js';
import { typeInVersion } from '../core/versions.js';
import type { State } from './state.js';

function exempt(entry: ModelEntry, config: Config): boolean {
  const d = entry.definition;
  return config.exemptViewPermissions.includes(d.contentType) || (config.exemptViewPermissions.includes('*') && d.app !== 'users');
}

/** Models every authenticated user may read without an object permission (content types). */
function selfService(entry: ModelEntry): boolean {
  return hooksOf(entry).some((h) => h.selfService);
}

/** The condition of a user's own objects, for models whose objects have an owner (tokens). */
function ownerOf(entry: ModelEntry): ((qb: Knex.QueryBuilder, userId: number, table: string) => void) | undefined {
  return hooksOf(entry).find((h) => h.owner)?.owner;
}

/**
 * May this request perform `action` on the model at all? Anonymous reads need
 * EXEMPT_VIEW_PERMISSIONS; writes need a write-enabled token; non-superusers need a permission.
 */
export function authorize(ctx: Context, entry: ModelEntry, action: Action, config: Config, listing = false): void {
  const { auth, unconfirmed, ownObjects } = ctx.state as State;
  if (unconfirmed && action !== 'view') throw new Unconfirmed();
  if (!auth.user) {
    if (action === 'view' && exempt(entry, config)) return;
    throw errors.noCredentials();
  }
  if (action !== 'view' && !auth.writeEnabled) throw errors.forbidden();
  for (const hook of hooksOf(entry)) if (hook.authorize && !hook.authorize(action, auth.user, config)) throw errors.forbidden();
  if (auth.user.isSuperuser || selfService(entry)) return;
  // An owner acts on their own objects without a permission (scoped() narrows to them); a list needs one, as in NetBox.
  if (ownerOf(entry) && (!listing || ownObjects)) return;
  if (constraintFor(auth.grants ?? [], entry.definition.contentType, action) === 'denied' && !(action === 'view' && exempt(entry, config))) throw errors.forbidden();
}

/** Every one of `ids` that the request can see must also match the constraints of `action` (else 403). */
export async function requireWithin(ctx: Context, db: Knex, entry: ModelEntry, ids: number[], action: Action, all = false): Promise<void> {
  const user = (ctx.state as State).auth.user;
  if (!user || user.isSuperuser || selfService(entry) || !ids.length) return;
  const count = async (act: Action) => {
    const q = whereAny(db, db(entry.definition.table), 'id', ids.filter(isStorableId));
    scoped(db, entry, ctx, act)(q);
    return Number((await q.count('* as n').first())?.n ?? 0);
  };
  // New and just-changed objects must all match; before a change or delete, the ones that can be seen.
  const expected = all ? ids.length : await count('view');
  if (await count(action) < expected) throw errors.forbidden();
}

const unservedMemo = new Map<string, { column: string; types: string[] }[]>();

/**
 * The generic relations of a model that may point at models `version` does not serve, each with those
 * types: rows pointing there are not in that version (3.7's change log has no MAC address's changes).
 */
function unservedTargets(entry: ModelEntry, version: string): { column: string; types: string[] }[] {
  const key = `${entry.definition.name}@${version}`;
  let found = unservedMemo.get(key);
  if (!found) {
    found = Object.values(entry.definition.fields).filter((f) => f.type === 'generic_fk' && f.types)
      .map((f) => ({ column: `${f.name}_type`, types: Object.entries(f.types!).filter(([type, name]) => !models[name]?.routes.versions.includes(version) || !typeInVersion(f, type, version)).map(([type]) => type) }))
      .filter((t) => t.types.length);
    unservedMemo.set(key, found);
  }
  return found;
}

/** Narrows a query to the objects the request may act on: its version's, hook scopes, then permission constraints. */
export function scoped(db: Knex, entry: ModelEntry, ctx: Context, action: Action = 'view'): (qb: Knex.QueryBuilder) => void {
  const { auth } = ctx.state as State;
  const user = auth.user;
  const unserved = unservedTargets(entry, renderBase(ctx).version);
  return (qb) => {
    for (const { column, types } of unserved) qb.where((w) => w.whereNull(`${entry.definition.table}.${column}`).orWhereNotIn(`${entry.definition.table}.${column}`, types));
    for (const hook of hooksOf(entry)) hook.scope?.(qb, user, entry.definition.table);
    if (!user || user.isSuperuser || selfService(entry)) return;
    const constraint = constraintFor(auth.grants ?? [], entry.definition.contentType, action);
    const own = ownerOf(entry);
    if (own) {
      // The user's own objects, and others' as far as the permission reaches.
      if (constraint === null) return;
      qb.where((any) => {
        any.where((mine) => { own(mine, user.id, entry.definition.table); });
        if (constraint !== 'denied') any.orWhere((granted) => { applyConstraints(granted, db, entry, constraint, user); });
      });
      return;
    }
    if (constraint === 'denied') { if (action !== 'view') qb.whereRaw('1 = 0'); return; }
    if (constraint) applyConstraints(qb, db, entry, constraint, user);
  };
}

/** Would scoped() leave a view query as it is (no hook scope, no permission constraint)? */
export function unscoped(entry: ModelEntry, ctx: Context): boolean {
  const { user, grants } = (ctx.state as State).auth;
  if (hooksOf(entry).some((h) => h.scope) || unservedTargets(entry, renderBase(ctx).version).length) return false;
  if (!user || user.isSuperuser || selfService(entry)) return true;
  if (ownerOf(entry)) return false;
  const constraint = constraintFor(grants ?? [], entry.definition.contentType, 'view');
  return constraint === 'denied' || constraint === null;
}
