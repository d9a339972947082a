/**
 * VLAN groups: utilization (VLANs in the group over the size of its VID range) and the rule that
 * max_vid is not below min_vid.
 */
import type { ModelHooks } from '../data/registry.js';

export const vlanGroup: ModelHooks = {
  computed: {
    async vlan_group_utilization(rows, { db }) {
      const ids = rows.map((r) => Number(r.id));
      const counts = new Map<number, number>();
      for (const r of await db('ipam_vlan').whereIn('group_id', ids).groupBy('group_id').select('group_id').count('id as n')) counts.set(Number(r.group_id), Number(r.n));
      return new Map(rows.map((r) => {
        const size = Number(r.max_vid) - Number(r.min_vid) + 1;
        return [Number(r.id), ((counts.get(Number(r.id)) ?? 0) / size * 100).toFixed(2)];
      }));
    },
  },
  prepare(item) {
    const min = item.values.min_vid ?? item.existing?.min_vid ?? 1;
    const max = item.values.max_vid ?? item.existing?.max_vid ?? 4094;
    if (Number(max) < Number(min)) item.errors.add('max_vid', 'Maximum VID must be greater than or equal to minimum VID.');
  },
};
