/**
 * Virtual chassis: the master must be a member; a new chassis takes its master in as member 1; a
 * deleted chassis leaves its members without position or priority (NetBox clears them too).
 */
import type { ModelHooks } from '../data/registry.js';
import { model } from '../data/registry.js';
import { updateEach } from '../data/db.js';

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
  async beforeDelete(ids, { db }) {
    // The relation's own ON DELETE SET NULL would leave vc_position and vc_priority behind.
    await db(devices()).whereIn('virtual_chassis_id', ids)
      .update({ virtual_chassis_id: null, vc_position: null, vc_priority: null, last_updated: new Date().toISOString() });
  },
  async afterWrite(rows, { db }) {
    // A master outside any chassis is a new chassis's master (an update could not name it): it joins.
    const masters = rows.filter((r) => r.master_id != null);
    if (!masters.length) return;
    const free = await db(devices()).select('id').whereIn('id', masters.map((r) => r.master_id)).whereNull('virtual_chassis_id');
    const joining = new Set(free.map((r) => Number(r.id)));
    await updateEach(db, devices(), masters.filter((r) => joining.has(Number(r.master_id))).map((vc) => ({ id: Number(vc.master_id), values: { virtual_chassis_id: Number(vc.id), vc_position: 1 } })));
  },
};
