/**
 * Users: only a superuser may grant superuser or staff status; the rest follows object permissions.
 * Changing a password logs the user out of every cookie session. NetBox 4's `permissions` of a user
 * are the object permissions granted to it directly (granted-permissions.ts).
 */
import type { ModelHooks } from '../data/registry.js';
import { errors } from '../core/errors.js';
import { endUserSessions } from '../auth/sessions.js';
import { grantedPermissions } from './granted-permissions.js';

const permissions = grantedPermissions('users');

export const user: ModelHooks = {
  async prepare(item, ctx) {
    const { user: who, db } = ctx;
    if (who && !who.isSuperuser && (item.values.is_superuser === true || item.values.is_staff === true)) {
      throw errors.forbidden('Only superusers may grant superuser or staff status.');
    }
    // A new password ends the user's cookie sessions (API tokens stay valid).
    if (item.existing && item.values.password !== undefined) await endUserSessions(db, Number(item.existing.id));
    await permissions.prepare!(item, ctx);
  },
  afterWrite: permissions.afterWrite,
};
