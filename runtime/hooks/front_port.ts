/**
 * Front ports: the mapped position must exist on the rear port (1 … its positions).
 */
import type { ModelHooks } from '../data/registry.js';

export const frontPort: ModelHooks = {
  async prepareMany(items, { db }) {
    const pick = (item: (typeof items)[number], column: string) => (column in item.values ? item.values[column] : item.existing?.[column]);
    const relevant = items.filter((i) => 'rear_port_id' in i.values || 'rear_port_position' in i.values);
    const ids = [...new Set(relevant.map((i) => pick(i, 'rear_port_id')).filter((id) => id != null).map(Number))];
    if (!ids.length) return;
    const rearPorts = new Map((await db('dcim_rearport').select('id', 'name', 'positions').whereIn('id', ids)).map((r) => [Number(r.id), r]));
    for (const item of relevant) {
      const rear = rearPorts.get(Number(pick(item, 'rear_port_id')));
      const position = Number(pick(item, 'rear_port_position') ?? 1);
      if (rear && position > Number(rear.positions)) {
        item.errors.add('rear_port_position', `Invalid rear port position (${position}): Rear port ${rear.name} has only ${rear.positions} positions.`);
      }
    }
  },
};
