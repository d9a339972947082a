/**
 * Object permissions: object types must exist, actions are strings, and constraints are objects (or
 * a list of them) of Django lookups or filters that apply to every object type the permission names.
 */
import type { Knex } from 'knex';
import type { ModelHooks } from '../data/registry.js';
import { parseBoolean } from '../core/query-values.js';
import { contentTypeIdsFilter } from './object-types.js';
import { byContentType } from '../data/registry.js';
import { constraintProblem } from '../auth/permissions.js';

/** `?can_add=true`: permissions whose actions include `add` (false: those that do not). */
function canFilter(action: string) {
  return (qb: Knex.QueryBuilder, values: string[]) => {
    const like = (w: Knex.QueryBuilder) => w.where('actions', 'like', `%"${action}"%`);
    if (parseBoolean(`can_${action}`, values[0])) qb.where(like);
    else qb.whereNot(like);
  };
}

export const permission: ModelHooks = {
  filters: {
    permission_object_types: contentTypeIdsFilter('object_types'),
    permission_can_view: canFilter('view'),
    permission_can_add: canFilter('add'),
    permission_can_change: canFilter('change'),
    permission_can_delete: canFilter('delete'),
  },
  prepare(item) {
    const v = { ...(item.existing ?? {}), ...item.values };
    const types = JSON.parse(v.object_types ?? '[]');
    const actions = JSON.parse(v.actions ?? '[]');
    // an empty list is a permission that applies to nothing yet, as NetBox accepts it
    if (!Array.isArray(types)) item.errors.add('object_types', 'Give a list of object types (app.model).');
    else for (const ct of types) if (!byContentType.has(ct)) item.errors.add('object_types', `Unknown object type '${String(ct)}'.`);
    if (!Array.isArray(actions) || !actions.length || actions.some((a) => typeof a !== 'string' || !a || a.length > 30)) {
      item.errors.add('actions', 'Give a list of actions, e.g. ["view", "add", "change", "delete"].');
    }
    if (v.constraints === null || v.constraints === undefined) return;
    const constraints = JSON.parse(v.constraints);
    if (constraints === null) return;
    const list = Array.isArray(constraints) ? constraints : [constraints];
    for (const c of list) {
      if (c === null) continue;
      if (typeof c !== 'object' || Array.isArray(c)) { item.errors.add('constraints', 'Constraints must be an object of filters, or a list of them.'); return; }
      for (const ct of Array.isArray(types) ? types : []) {
        const entry = byContentType.get(ct);
        const problem = entry ? constraintProblem(entry, c) : null;
        if (problem) item.errors.add('constraints', problem);
      }
    }
  },
};
