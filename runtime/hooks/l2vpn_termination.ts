/**
 * L2VPN terminations: an object (VLAN, interface, VM interface) terminates at most one L2VPN, and a
 * point-to-point L2VPN (VPWS, EPL, EP-LAN, EP-Tree) has at most two terminations. Checked against the
 * stored rows and the other elements of the same request alike. The site and region filters:
 * hooks/l2vpn_termination_filters.ts.
 */
import { model, type ModelHooks, type Row } from '../data/registry.js';
import { byContentTypeId } from './content_type.js';
import { l2vpnTerminationFilters } from './l2vpn_termination_filters.js';

const POINT_TO_POINT = ['vpws', 'epl', 'ep-lan', 'ep-tree'];

export const l2vpnTermination: ModelHooks = {
  filters: { ...l2vpnTerminationFilters, assigned_object_type_id: byContentTypeId('assigned_object_type_id', 'assigned_object_type') },
  async prepareMany(items, { db }) {
    const table = model('L2VPNTermination').definition.table;
    const final = items.map((item) => ({ item, row: { ...(item.existing ?? {}), ...item.values } as Row }));
    const mine = new Set(items.map((i) => i.id).filter((id) => id !== null));
    const l2vpnIds = [...new Set(final.map((f) => Number(f.row.l2vpn_id)))];
    const l2vpns = new Map((await db(model('L2VPN').definition.table).whereIn('id', l2vpnIds)).map((r: Row) => [Number(r.id), r]));
    // stored terminations of the same objects and L2VPNs, minus the ones this request rewrites
    const stored = (await db(table).where((w) => {
      w.whereIn('l2vpn_id', l2vpnIds);
      for (const { row } of final) w.orWhere({ assigned_object_type: row.assigned_object_type, assigned_object_id: row.assigned_object_id });
    })).filter((r: Row) => !mine.has(Number(r.id)));
    const seen: Row[] = [...stored];
    for (const { item, row } of final) {
      const object = seen.find((r) => r.assigned_object_type === row.assigned_object_type && Number(r.assigned_object_id) === Number(row.assigned_object_id));
      if (object) item.errors.add('assigned_object_id', `${row.assigned_object_type} ${row.assigned_object_id} already terminates an L2VPN.`);
      const l2vpn = l2vpns.get(Number(row.l2vpn_id));
      const count = seen.filter((r) => Number(r.l2vpn_id) === Number(row.l2vpn_id)).length;
      if (l2vpn && POINT_TO_POINT.includes(l2vpn.type) && count >= 2) {
        item.errors.add('l2vpn', `A point-to-point (${l2vpn.type}) L2VPN has at most two terminations; it has ${count} already.`);
      }
      seen.push(row);
    }
  },
};
