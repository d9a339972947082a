/**
 * Wireless links: both ends are wireless interfaces, and each end shows the link as its
 * `wireless_link` (set when a link is written, cleared from an interface the link leaves; a deleted
 * link clears it through the field's set_null). Interfaces show the far end as link peer: wireless_peers.ts.
 */
import type { ModelHooks, Row } from '../data/registry.js';
import { choiceSet, model } from '../data/registry.js';
import { updateRows } from '../data/side-writes.js';
import { whereAny } from '../data/any.js';

const ENDS = [{ field: 'interface_a', column: 'interface_a_id' }, { field: 'interface_b', column: 'interface_b_id' }] as const;

function wirelessTypes(): Map<string, string> {
  return new Map(choiceSet('interface-type').choices.map((c) => [String(c.value), c.group === 'Wireless' ? '' : c.label]));
}

export const wirelessLink: ModelHooks = {
  async prepareMany(items, { db }) {
    const ids = items.flatMap((i) => ENDS.map((e) => i.values[e.column])).filter((v) => v != null);
    if (!ids.length) return;
    const types = new Map<number, string>((await whereAny(db, db(model('Interface').definition.table).select('id', 'type'), 'id', ids)).map((r: Row) => [Number(r.id), String(r.type)]));
    const labels = wirelessTypes();
    for (const item of items) {
      for (const end of ENDS) {
        const id = item.values[end.column];
        if (id == null || !types.has(Number(id))) continue;
        const type = types.get(Number(id))!;
        const label = labels.get(type);
        if (label !== '') item.errors.add(end.field, `${label ?? type} is not a wireless interface.`);
      }
    }
  },
  async afterWrite(rows, { db, items, request }) {
    const iface = model('Interface');
    const moved = items.filter((i) => !i.existing || ENDS.some((e) => e.column in i.values && Number(i.values[e.column]) !== Number(i.existing![e.column])));
    if (!moved.length) return false;
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    const updates: { id: number; values: Row }[] = [];
    for (const item of moved) {
      const row = byId.get(item.id!) ?? { ...item.existing, ...item.values };
      const ends = ENDS.map((e) => Number(row[e.column]));
      if (item.existing) {
        for (const e of ENDS) {
          const old = Number(item.existing[e.column]);
          if (!ends.includes(old)) updates.push({ id: old, values: { wireless_link_id: null } });
        }
      }
      for (const end of ends) updates.push({ id: end, values: { wireless_link_id: item.id } });
    }
    await updateRows({ db, request }, iface, updates);
    return false;
  },
};
