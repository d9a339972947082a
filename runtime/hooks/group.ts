/** Groups: how many users belong to each, and (NetBox 4) the object permissions granted to each. */
import type { ModelHooks } from '../data/registry.js';
import { grantedPermissions } from './granted-permissions.js';

export const group: ModelHooks = {
  ...grantedPermissions('groups'),
  computed: {
    async group_user_count(rows, { db }) {
      const ids = rows.map((r) => Number(r.id));
      const map = new Map<number, unknown>(ids.map((id) => [id, 0]));
      for (const r of await db('users_user_groups').whereIn('to_id', ids).groupBy('to_id').select('to_id').count('id as n')) map.set(Number(r.to_id), Number(r.n));
      return map;
    },
  },
};
