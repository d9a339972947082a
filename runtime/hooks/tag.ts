/** Tags: how many objects carry each tag. */
import type { ModelHooks } from '../data/registry.js';

export const tag: ModelHooks = {
  computed: {
    async tag_tagged_items(rows, { db }) {
      const ids = rows.map((r) => Number(r.id));
      const map = new Map<number, unknown>(ids.map((id) => [id, 0]));
      for (const r of await db('extras_taggeditem').whereIn('tag_id', ids).groupBy('tag_id').select('tag_id').count('id as n')) map.set(Number(r.tag_id), Number(r.n));
      return map;
    },
  },
};
