/**
 * Contact assignments: the content_type_id filter (the assigned object's type by content type id),
 * 4.x's object_type_id.
 */
import type { ModelHooks } from '../data/registry.js';
import { byContentTypeId } from './content_type.js';

export const contactAssignment: ModelHooks = {
  filters: {
    content_type_id: byContentTypeId('content_type_id', 'object_type'),
    object_type_id: byContentTypeId('object_type_id', 'object_type'),
  },
};
