/**
 * Front and rear ports, and their templates: a front port maps to one position of a rear port
 * (1 … its positions), and a rear port keeps at least as many positions as its front ports use.
 * The same rules serve components and templates; only the models differ.
 */
import type { ModelHooks } from '../data/registry.js';
import { model } from '../data/registry.js';

type Item = Parameters<NonNullable<ModelHooks['prepareMany']>>[0][number];

function pick(item: Item, column: string): unknown {
  return column in item.values ? item.values[column] : item.existing?.[column];
}

export function frontPortRules(rearModel: string): ModelHooks {
  return {
    async prepareMany(items, { db }) {
      const relevant = items.filter((i) => 'rear_port_id' in i.values || 'rear_port_position' in i.values);
      const ids = [...new Set(relevant.map((i) => pick(i, 'rear_port_id')).filter((id) => id != null).map(Number))];
      if (!ids.length) return;
      const rows = await db(model(rearModel).definition.table).select('id', 'name', 'positions').whereIn('id', ids);
      const rearPorts = new Map(rows.map((r) => [Number(r.id), r]));
      for (const item of relevant) {
        const rear = rearPorts.get(Number(pick(item, 'rear_port_id')));
        const position = Number(pick(item, 'rear_port_position') ?? 1);
        if (rear && position > Number(rear.positions)) {
          item.errors.add('rear_port_position', `Invalid rear port position (${position}): Rear port ${rear.name} has only ${rear.positions} positions.`);
        }
      }
    },
  };
}

export function rearPortRules(frontModel: string): ModelHooks {
  return {
    async prepareMany(items, { db }) {
      const shrinking = items.filter((i) => i.existing && i.values.positions !== undefined && Number(i.values.positions) < Number(i.existing.positions));
      if (!shrinking.length) return;
      const rows = await db(model(frontModel).definition.table).select('rear_port_id').max('rear_port_position as highest').count('* as n')
        .whereIn('rear_port_id', shrinking.map((i) => i.id!)).groupBy('rear_port_id');
      const needed = new Map(rows.map((r) => [Number(r.rear_port_id), Math.max(Number(r.n), Number(r.highest))]));
      for (const item of shrinking) {
        const used = needed.get(item.id!) ?? 0;
        if (Number(item.values.positions) < used) {
          item.errors.add('positions', `The number of positions cannot be less than the number of mapped front ports (${used}).`);
        }
      }
    },
  };
}
