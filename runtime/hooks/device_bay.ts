/**
 * Device bays: only devices whose type is a parent have bays; a device cannot sit in itself, and
 * sits in one bay at most (the unique installed_device says so too); a disabled bay (NetBox 4.6's
 * `enabled`) takes no new device, while one already in it stays.
 */
import type { ModelHooks } from '../data/registry.js';
import { model } from '../data/registry.js';
import { setsAnother, valueOf } from './merged.js';

export const deviceBay: ModelHooks = {
  async prepareMany(items, { db }) {
    for (const item of items) {
      const enabled = valueOf(item, 'enabled');
      if (setsAnother(item, 'installed_device_id') && (enabled === false || enabled === 0)) item.errors.add('installed_device', 'Cannot install a device in a disabled device bay.');
    }
    const deviceIds = [...new Set(items.map((i) => valueOf(i, 'device_id')).filter((id) => id != null).map(Number))];
    if (!deviceIds.length) return;
    const devices = new Map((await db(`${model('Device').definition.table} as d`).join(`${model('DeviceType').definition.table} as t`, 't.id', 'd.device_type_id')
      .select('d.id', 't.model', 't.subdevice_role').whereIn('d.id', deviceIds)).map((r) => [Number(r.id), r]));
    for (const item of items) {
      const device = devices.get(Number(valueOf(item, 'device_id')));
      if (!device) continue;
      if ((item.values.device_id !== undefined || !item.existing) && device.subdevice_role !== 'parent') {
        item.errors.add('device', `This type of device (${device.model}) does not support device bays.`);
      }
      const installed = valueOf(item, 'installed_device_id');
      if (installed != null && Number(installed) === Number(device.id)) item.errors.add('installed_device', 'Cannot install a device into itself.');
    }
  },
};
