/**
 * Notifications and subscriptions (NetBox 4.1): each belongs to a user, who sees, changes and
 * deletes their own without a permission (others' follow object permissions, and a list needs a
 * view permission, as tokens do); the object must be of a model with NetBox's notifications feature,
 * here every model with tags and custom fields.
 */
import { byContentType, type ModelHooks } from '../data/registry.js';

export const notification: ModelHooks = {
  owner(qb, userId, table) {
    qb.where(`${table}.user_id`, userId);
  },
  prepare(item) {
    const type = item.values.object_type;
    if (typeof type !== 'string') return;
    const target = byContentType.get(type)?.definition;
    if (target && !(target.tags && target.customFields)) item.errors.add('object_type', `Objects of this type (${type}) do not support notifications.`);
  },
};
