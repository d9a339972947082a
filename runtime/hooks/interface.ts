/**
 * Interfaces: the kind filter (physical, virtual, wireless) and vlan_id (untagged or tagged VLAN).
 */
import type { ModelHooks } from '../data/registry.js';
import { choiceSet } from '../data/registry.js';

const VIRTUAL = ['virtual', 'bridge', 'lag'];

function wirelessTypes(): string[] {
  return choiceSet('interface-type').choices.filter((c) => c.group === 'Wireless').map((c) => String(c.value));
}

export const interfaceHooks: ModelHooks = {
  filters: {
    interface_kind(qb, values) {
      const kind = values[0];
      if (kind === 'virtual') qb.whereIn('type', VIRTUAL);
      else if (kind === 'wireless') qb.whereIn('type', wirelessTypes());
      else if (kind === 'physical') qb.whereNotIn('type', [...VIRTUAL, ...wirelessTypes()]);
      else qb.whereRaw('1 = 0');
    },
    interface_vlan_id(qb, values, { db, table }) {
      const ids = values.filter((v) => /^\d+$/.test(v)).map(Number);
      qb.where((w) => w.whereIn('untagged_vlan_id', ids).orWhereIn('id', db(`${table}_tagged_vlans`).select('from_id').whereIn('to_id', ids)));
    },
  },
  prepare(item) {
    const type = item.values.type ?? item.existing?.type;
    const parent = item.values.parent_id !== undefined ? item.values.parent_id : item.existing?.parent_id;
    if (parent !== null && parent !== undefined && item.id !== null && Number(parent) === item.id) item.errors.add('parent', 'An interface cannot be its own parent.');
    if (VIRTUAL.includes(type) && (item.values.mark_connected === true)) item.errors.add('mark_connected', `${type} interfaces cannot be marked as connected.`);
  },
};
