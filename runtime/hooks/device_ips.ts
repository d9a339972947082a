/**
 * A device's primary IPv4/IPv6 and out-of-band addresses: of the right family, and assigned to one
 * of the device's interfaces, or to a non-management interface of another member of its virtual
 * chassis, or the NAT outside address of such an address.
 */
import type { ModelHooks, Row } from '../data/registry.js';
import { model } from '../data/registry.js';

const FIELDS = [
  { field: 'primary_ip4', column: 'primary_ip4_id', family: 4 },
  { field: 'primary_ip6', column: 'primary_ip6_id', family: 6 },
  { field: 'oob_ip', column: 'oob_ip_id', family: null },
] as const;

export const deviceIps: ModelHooks = {
  async prepareMany(items, { db }) {
    const pick = (item: (typeof items)[number], column: string) => (column in item.values ? item.values[column] : item.existing?.[column]);
    const checked = items.filter((i) => FIELDS.some((f) => f.column in i.values && i.values[f.column] != null));
    if (!checked.length) return;
    const ipTable = model('IPAddress').definition.table;
    const ipIds = checked.flatMap((i) => FIELDS.map((f) => i.values[f.column])).filter((v) => v != null);
    const ips = new Map<number, Row>((await db(ipTable).select('id', 'address', 'family', 'assigned_object_type', 'assigned_object_id', 'nat_inside_id').whereIn('id', ipIds)).map((r) => [Number(r.id), r]));
    const insideIds = [...ips.values()].map((r) => r.nat_inside_id).filter((v) => v != null);
    const inside = new Map<number, Row>(insideIds.length ? (await db(ipTable).select('id', 'assigned_object_type', 'assigned_object_id').whereIn('id', insideIds)).map((r) => [Number(r.id), r]) : []);
    const interfaceIds = [...ips.values(), ...inside.values()].filter((r) => r.assigned_object_type === 'dcim.interface').map((r) => r.assigned_object_id);
    const interfaces = new Map<number, Row>(interfaceIds.length
      ? (await db(`${model('Interface').definition.table} as i`).join(`${model('Device').definition.table} as d`, 'd.id', 'i.device_id')
        .select('i.id', 'i.device_id', 'i.mgmt_only', 'd.virtual_chassis_id').whereIn('i.id', interfaceIds)).map((r) => [Number(r.id), r])
      : []);
    const onDevice = (ip: Row | undefined, deviceId: number | null, chassis: unknown): boolean => {
      if (!ip || ip.assigned_object_type !== 'dcim.interface') return false;
      const iface = interfaces.get(Number(ip.assigned_object_id));
      if (!iface) return false;
      if (deviceId !== null && Number(iface.device_id) === deviceId) return true;
      const management = iface.mgmt_only === true || iface.mgmt_only === 1 || iface.mgmt_only === '1';
      return chassis != null && Number(iface.virtual_chassis_id) === Number(chassis) && !management;
    };
    for (const item of checked) {
      const chassis = pick(item, 'virtual_chassis_id');
      for (const f of FIELDS) {
        if (!(f.column in item.values) || item.values[f.column] == null) continue;
        const ip = ips.get(Number(item.values[f.column]));
        if (!ip) continue;
        if (f.family !== null && Number(ip.family) !== f.family) { item.errors.add(f.field, `${ip.address} is not an IPv${f.family} address.`); continue; }
        const natInside = ip.nat_inside_id != null ? inside.get(Number(ip.nat_inside_id)) : undefined;
        if (!onDevice(ip, item.id, chassis) && !onDevice(natInside, item.id, chassis)) {
          item.errors.add(f.field, `The specified IP address (${ip.address}) is not assigned to this device.`);
        }
      }
    }
  },
};
