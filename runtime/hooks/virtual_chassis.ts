/**
 * Virtual chassis: the master must be a member; a new chassis takes its master in as member 1; a
 * deleted chassis lets its members go, without position or priority. Member writes are change-logged
 * (data/side-writes.ts), as NetBox saves each member.
 */
import type { ModelHooks } from '../data/registry.js';
import { model } from '../data/registry.js';
import { updateRows } from '../data/side-writes.js';

const devices = () => model('Device').definition.table;

export const virtualChassis: ModelHooks = {
  async prepareMany(items, { db }) {
    const changing = items.filter((i) => i.existing && i.values.master_id != null);
    if (!changing.length) return;
    const members = new Map((await db(devices()).select('id', 'name', 'virtual_chassis_id').whereIn('id', changing.map((i) => i.values.master_id))).map((r) => [Number(r.id), r]));
    for (const item of changing) {
      const master = members.get(Number(item.values.master_id));
      if (master && Number(master.virtual_chassis_id) !== item.id) {
        item.errors.add('master', `The selected master (${master.name ?? master.id}) is not assigned to this virtual chassis.`);
      }
    }
  },
  async afterWrite(rows, { db, request }) {
    // A master outside any chassis is a new chassis's master (an update could not name it): it joins.
    const masters = rows.filter((r) => r.master_id != null);
    if (!masters.length) return;
    const free = await db(devices()).select('id').whereIn('id', masters.map((r) => r.master_id)).whereNull('virtual_chassis_id');
    const joining = new Set(free.map((r) => Number(r.id)));
    await updateRows({ db, request }, model('Device'), masters.filter((r) => joining.has(Number(r.master_id))).map((vc) => ({ id: Number(vc.master_id), values: { virtual_chassis_id: Number(vc.id), vc_position: 1 } })));
  },
  async beforeDelete(ids, { db, request, closure }) {
    const members = await db(devices()).select('id').whereIn('virtual_chassis_id', ids);
    const going = closure.get('Device') ?? new Set<number>();
    const staying = members.map((r) => Number(r.id)).filter((id) => !going.has(id));
    await updateRows({ db, request }, model('Device'), staying.map((id) => ({ id, values: { virtual_chassis_id: null, vc_position: null, vc_priority: null } })));
  },
};
