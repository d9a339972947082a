/**
 * Journal entries: `created_by` defaults to the requesting user, `last_updated` follows every write
 * (the model keeps its own date-time timestamps), the assigned object may not be cleared, and the
 * assigned_object_type_id filter.
 */
import type { ModelHooks } from '../data/registry.js';
import { byContentTypeId } from './content_type.js';

export const journalEntry: ModelHooks = {
  prepare(item, { user }) {
    if (!item.existing && !('created_by' in item.input)) item.values.created_by_id = user?.id ?? null;
    if (item.existing) item.values.last_updated = new Date().toISOString();
    if (item.values.assigned_object_type === null || item.values.assigned_object_id === null) {
      item.errors.add('assigned_object_type', 'This field may not be null.');
    }
  },
  filters: {
    assigned_object_type_id: byContentTypeId('assigned_object_type_id', 'assigned_object_type'),
  },
};
