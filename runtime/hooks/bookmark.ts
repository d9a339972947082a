/** Bookmarks: `user` defaults to the requesting user; the object_type_id filter. */
import type { ModelHooks } from '../data/registry.js';
import { byContentTypeId } from './content_type.js';

export const bookmark: ModelHooks = {
  prepare(item, { user }) {
    if (!item.existing && !('user' in item.input)) item.values.user_id = user?.id ?? null;
  },
  filters: {
    object_type_id: byContentTypeId('object_type_id', 'object_type'),
  },
};
