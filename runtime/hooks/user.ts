/**
 * Users: only superusers manage accounts; other users see only themselves.
 */
import type { ModelHooks } from '../registry.js';

export const user: ModelHooks = {
  authorize(action, who) {
    return action === 'view' || who.isSuperuser;
  },
  scope(qb, who, table) {
    if (who && !who.isSuperuser) qb.where(`${table}.id`, who.id);
  },
};
