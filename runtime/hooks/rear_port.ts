/**
 * Rear ports: the number of positions cannot drop below the front ports mapped to the rear port.
 */
import type { ModelHooks } from '../data/registry.js';

export const rearPort: ModelHooks = {
  async prepareMany(items, { db }) {
    const shrinking = items.filter((i) => i.existing && i.values.positions !== undefined && Number(i.values.positions) < Number(i.existing.positions));
    if (!shrinking.length) return;
    const mapped = new Map<number, number>();
    const rows = await db('dcim_frontport').select('rear_port_id').max('rear_port_position as highest').count('* as n')
      .whereIn('rear_port_id', shrinking.map((i) => i.id!)).groupBy('rear_port_id');
    for (const r of rows) mapped.set(Number(r.rear_port_id), Math.max(Number(r.n), Number(r.highest)));
    for (const item of shrinking) {
      const needed = mapped.get(item.id!) ?? 0;
      if (Number(item.values.positions) < needed) {
        item.errors.add('positions', `The number of positions cannot be less than the number of mapped front ports (${needed}).`);
      }
    }
  },
};
