/**
 * Contact assignments: the content_type_id filter (the assigned object's type by content type id).
 */
import type { ModelHooks } from '../data/registry.js';
import { byContentTypeId } from './content_type.js';

export const contactAssignment: ModelHooks = {
  filters: {
    content_type_id: byContentTypeId('content_type_id', 'object_type'),
  },
};
