/**
 * Virtual device contexts: a primary IPv4/IPv6 address is of its family and assigned to an interface
 * of the context's device, or to a non-management interface of another member of that device's
 * virtual chassis; and the has_primary_ip filter, shared with devices.
 */
import type { ModelHooks, Row } from '../data/registry.js';
import { model } from '../data/registry.js';
import { device } from './device.js';

const FIELDS = [
  { field: 'primary_ip4', column: 'primary_ip4_id', family: 4 },
  { field: 'primary_ip6', column: 'primary_ip6_id', family: 6 },
] as const;

export const virtualDeviceContext: ModelHooks = {
  filters: { has_primary_ip: device.filters!.has_primary_ip },
  async prepareMany(items, { db }) {
    const pick = (item: (typeof items)[number], column: string) => (column in item.values ? item.values[column] : item.existing?.[column]);
    const checked = items.filter((i) => FIELDS.some((f) => i.values[f.column] != null) || ('device_id' in i.values && FIELDS.some((f) => pick(i, f.column) != null)));
    if (!checked.length) return;
    const ipIds = checked.flatMap((i) => FIELDS.map((f) => pick(i, f.column))).filter((v) => v != null);
    const ips = new Map<number, Row>((await db(model('IPAddress').definition.table).select('id', 'address', 'family', 'assigned_object_type', 'assigned_object_id').whereIn('id', ipIds)).map((r) => [Number(r.id), r]));
    const interfaceIds = [...ips.values()].filter((r) => r.assigned_object_type === 'dcim.interface').map((r) => r.assigned_object_id);
    const devices = model('Device').definition.table;
    const interfaces = new Map<number, Row>(interfaceIds.length
      ? (await db(`${model('Interface').definition.table} as i`).join(`${devices} as d`, 'd.id', 'i.device_id')
        .select('i.id', 'i.device_id', 'i.mgmt_only', 'd.virtual_chassis_id').whereIn('i.id', interfaceIds)).map((r) => [Number(r.id), r])
      : []);
    const deviceIds = checked.map((i) => pick(i, 'device_id')).filter((v) => v != null);
    const chassisOf = new Map<number, unknown>((await db(devices).select('id', 'virtual_chassis_id').whereIn('id', deviceIds)).map((r) => [Number(r.id), r.virtual_chassis_id]));
    for (const item of checked) {
      const deviceId = Number(pick(item, 'device_id'));
      const chassis = chassisOf.get(deviceId);
      for (const f of FIELDS) {
        const ip = ips.get(Number(pick(item, f.column)));
        if (!ip) continue;
        if (Number(ip.family) !== f.family) { item.errors.add(f.field, `${ip.address} is not an IPv${f.family} address.`); continue; }
        const iface = ip.assigned_object_type === 'dcim.interface' ? interfaces.get(Number(ip.assigned_object_id)) : undefined;
        const management = iface && (iface.mgmt_only === true || iface.mgmt_only === 1 || iface.mgmt_only === '1');
        const onDevice = iface && (Number(iface.device_id) === deviceId || (chassis != null && Number(iface.virtual_chassis_id) === Number(chassis) && !management));
        if (!onDevice) item.errors.add(f.field, 'Primary IP address must belong to an interface on the assigned device.');
      }
    }
  },
};
