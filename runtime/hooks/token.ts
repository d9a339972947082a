/**
 * Tokens: users see and manage only their own, superusers everyone's; a non-superuser cannot
 * create a token for somebody else.
 */
import type { ModelHooks } from '../registry.js';
import { errors } from '../errors.js';

export const token: ModelHooks = {
  scope(qb, user, table) {
    if (user && !user.isSuperuser) qb.where(`${table}.user_id`, user.id);
  },
  prepare(item, { user }) {
    if (user && !user.isSuperuser && item.values.user_id !== undefined && item.values.user_id !== user.id) {
      throw errors.forbidden('This user does not have permission to create tokens for other users.');
    }
  },
};
