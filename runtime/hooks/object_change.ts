/** The change log: NetBox's `changed_object_type_id` filter (the changed object's type by content type id). */
import type { ModelHooks } from '../data/registry.js';
import { byContentTypeId } from './content_type.js';

export const objectChange: ModelHooks = {
  filters: { changed_object_type_id: byContentTypeId('changed_object_type_id', 'changed_object_type') },
};
