/** Tag assignments (NetBox 4's tagged objects): the object_type_id filter. */
import type { ModelHooks } from '../data/registry.js';
import { byContentTypeId } from './content_type.js';

export const tagged_item: ModelHooks = {
  filters: {
    object_type_id: byContentTypeId('object_type_id', 'object_type'),
  },
};
