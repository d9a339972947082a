/**
 * Journal entries: `created_by` defaults to the requesting user, `last_updated` follows every write
 * (the model keeps its own date-time timestamps), the assigned object may not be cleared, and the
 * created_after / created_before / assigned_object_type_id filters.
 */
import type { ModelHooks } from '../registry.js';
import { model } from '../registry.js';
import { errors } from '../errors.js';

function timestamp(param: string, value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) || Number.isNaN(Date.parse(value.replace(' ', 'T')))) {
    throw errors.badFilter(param, 'Enter a valid date/time.');
  }
  return value.length === 10 ? `${value}T00:00:00.000Z` : new Date(value.replace(' ', 'T')).toISOString();
}

export const journalEntry: ModelHooks = {
  prepare(item, { user }) {
    if (!item.existing && !('created_by' in item.input)) item.values.created_by_id = user?.id ?? null;
    if (item.existing) item.values.last_updated = new Date().toISOString();
    if (item.values.assigned_object_type === null || item.values.assigned_object_id === null) {
      item.errors.add('assigned_object_type', 'This field may not be null.');
    }
  },
  filters: {
    created_after(qb, values) {
      qb.where('created', '>=', timestamp('created_after', values[0]));
    },
    created_before(qb, values) {
      qb.where('created', '<=', timestamp('created_before', values[0]));
    },
    assigned_object_type_id(qb, values, { db }) {
      const ids = values.map((v) => {
        if (!/^\d+$/.test(v)) throw errors.badFilter('assigned_object_type_id', 'Enter a whole number.');
        return Number(v);
      });
      const types = model('ContentType').definition.table;
      qb.whereIn('assigned_object_type', db(types).select(db.raw("app_label || '.' || model")).whereIn('id', ids));
    },
  },
};
