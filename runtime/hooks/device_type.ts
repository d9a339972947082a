/**
 * Device types: heights in half units; child types are 0U; a taller type must still fit every
 * racked device of the type, and a racked type cannot become 0U; a parent type keeps its role while
 * it has device-bay templates.
 */
import type { ModelHooks } from '../data/registry.js';
import { model } from '../data/registry.js';
import { loadRacks, obstacle } from './rack_space.js';

export const deviceType: ModelHooks = {
  async prepareMany(items, { db }) {
    const pick = (item: (typeof items)[number], column: string) => (column in item.values ? item.values[column] : item.existing?.[column]);
    for (const item of items) {
      const height = Number(pick(item, 'u_height') ?? 1);
      if (Math.round(height * 2) !== height * 2) item.errors.add('u_height', 'U height must be in increments of 0.5 rack units.');
      if (pick(item, 'subdevice_role') === 'child' && height !== 0) item.errors.add('u_height', 'Child device types must be 0U.');
    }
    const existing = items.filter((i) => i.existing && i.errors.empty);
    if (!existing.length) return;
    const devices = model('Device').definition.table;
    const growing = existing.filter((i) => Number(pick(i, 'u_height')) > Number(i.existing!.u_height) || (i.values.is_full_depth !== undefined && i.values.is_full_depth !== i.existing!.is_full_depth));
    const racked = growing.length || existing.some((i) => Number(pick(i, 'u_height')) === 0)
      ? await db(devices).select('id', 'name', 'device_type_id', 'rack_id', 'position', 'face').whereIn('device_type_id', existing.map((i) => i.id!)).whereNotNull('position')
      : [];
    const spaces = await loadRacks(db, racked.filter((d) => growing.some((i) => i.id === Number(d.device_type_id))).map((d) => Number(d.rack_id)));
    for (const item of existing) {
      const mine = racked.filter((d) => Number(d.device_type_id) === item.id);
      const height = Number(pick(item, 'u_height'));
      if (height === 0 && Number(item.existing!.u_height) > 0 && mine.length) {
        item.errors.add('u_height', `Unable to set 0U height: found ${mine.length} instances already mounted within racks.`);
      } else if (growing.includes(item)) {
        const fullDepth = pick(item, 'is_full_depth');
        for (const d of mine) {
          const space = spaces.get(Number(d.rack_id));
          if (space && obstacle(space, { id: Number(d.id), position: Number(d.position), face: d.face, height, fullDepth: fullDepth === true || fullDepth === 1 || fullDepth === '1' })) {
            item.errors.add('u_height', `Device ${d.name ?? d.id} in rack ${space.rack.name} does not have sufficient space to accommodate a height of ${height}U`);
            break;
          }
        }
      }
    }
    const leaving = existing.filter((i) => i.existing!.subdevice_role === 'parent' && pick(i, 'subdevice_role') !== 'parent');
    if (!leaving.length) return;
    const withBays = new Set((await db(model('DeviceBayTemplate').definition.table).distinct('device_type_id').whereIn('device_type_id', leaving.map((i) => i.id!))).map((r) => Number(r.device_type_id)));
    for (const item of leaving.filter((i) => withBays.has(i.id!))) {
      item.errors.add('subdevice_role', 'Must delete all device bay templates associated with this device before declassifying it as a parent device.');
    }
  },
};
