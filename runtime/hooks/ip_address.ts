/**
 * IP addresses: no duplicate host within a VRF (or the global table) unless every holder has a
 * shared-address role; SLAAC only for IPv6; a network ID or an IPv4 broadcast address is never
 * assigned to an interface (or FHRP group); and an address that is a device's or VM's primary IP
 * stays assigned to that parent (directly, or through the address it is the NAT outside of).
 */
import type { Knex } from 'knex';
import type { ModelHooks, Row, WriteItem } from '../data/registry.js';
import { parseNetwork, toBigInt } from '../core/ipnet.js';
import { refuseDuplicates } from './ip_uniqueness.js';
import { isSet, merged, touches } from './merged.js';
import { vrfPresenceFilters } from './vrf_presence.js';

const SHARED_ROLES = ['anycast', 'vip', 'vrrp', 'hsrp', 'glbp', 'carp'];

/** The device or VM a generic interface reference belongs to, as [column, id]. */
async function parentOf(db: Knex, type: unknown, id: number | string | null): Promise<[string, number] | null> {
  if (type === 'dcim.interface') {
    const row = await db('dcim_interface').select('device_id').where('id', id).first();
    return row ? ['device', Number(row.device_id)] : null;
  }
  if (type === 'virtualization.vminterface') {
    const row = await db('virtualization_vminterface').select('virtual_machine_id').where('id', id).first();
    return row ? ['virtual_machine', Number(row.virtual_machine_id)] : null;
  }
  return null;
}

function checkNetworkId(item: WriteItem, v: Row): void {
  if (!isSet(v.assigned_object_type) || !touches(item, 'address', 'assigned_object_type', 'assigned_object_id')) return;
  const n = parseNetwork(String(v.address));
  if (!n) return;
  const ip = n.text.split('/')[0];
  const host = toBigInt(n.host);
  const pointToPoint = n.family === 4 ? n.length >= 31 : n.length >= 127;
  // NetBox's clean() raises these without a field: the REST API answers them under __all__
  if (!pointToPoint && host === toBigInt(n.first)) item.errors.add('__all__', `${ip} is a network ID, which may not be assigned to an interface.`);
  else if (n.family === 4 && !pointToPoint && host === toBigInt(n.last)) item.errors.add('__all__', `${ip} is a broadcast address, which may not be assigned to an interface.`);
}

async function checkPrimary(db: Knex, item: WriteItem, v: Row): Promise<void> {
  if (!item.existing || !touches(item, 'assigned_object_type', 'assigned_object_id', 'nat_inside_id')) return;
  const parents: [string, string, string][] = [['dcim_device', 'device', 'device'], ['virtualization_virtualmachine', 'virtual_machine', 'virtual machine']];
  for (const [table, kind, noun] of parents) {
    const parent = await db(table).select('id', 'name').where('primary_ip4_id', item.id).orWhere('primary_ip6_id', item.id).first();
    if (!parent) continue;
    const owner = (p: [string, number] | null) => p !== null && p[0] === kind && p[1] === Number(parent.id);
    if (owner(await parentOf(db, v.assigned_object_type, v.assigned_object_id))) continue;
    if (isSet(v.nat_inside_id)) {
      const inside = await db('ipam_ipaddress').select('assigned_object_type', 'assigned_object_id').where('id', v.nat_inside_id).first();
      if (inside && owner(await parentOf(db, inside.assigned_object_type, inside.assigned_object_id))) continue;
    }
    item.errors.add('assigned_object_id', `The IP address is the primary IP of ${noun} ${parent.name}; it cannot be reassigned away from it.`);
  }
}

/**
 * NetBox's device filters of IP addresses (Device.vc_interfaces): the addresses on the devices'
 * interfaces and, for a device that is its virtual chassis's master, on the other members'
 * interfaces that are not management-only. `devices`: a subquery of device ids.
 */
function onDeviceInterfaces(qb: Knex.QueryBuilder, db: Knex, devices: Knex.QueryBuilder): void {
  const members = db('dcim_device as m').select('m.id').join('dcim_virtualchassis as vc', 'm.virtual_chassis_id', 'vc.id').whereIn('vc.master_id', devices);
  const interfaces = db('dcim_interface').select('id').where((w) => w.whereIn('device_id', devices).orWhere((o) => o.whereIn('device_id', members).where('mgmt_only', false)));
  qb.where('assigned_object_type', 'dcim.interface').whereIn('assigned_object_id', interfaces);
}

export const ipAddress: ModelHooks = {
  filters: {
    ...vrfPresenceFilters,
    ip_address_device_id(qb, values, { db }) {
      onDeviceInterfaces(qb, db, db('dcim_device').select('id').whereIn('id', values.filter((v) => /^\d+$/.test(v.trim())).map(Number)));
    },
    ip_address_device(qb, values, { db }) {
      onDeviceInterfaces(qb, db, db('dcim_device').select('id').whereIn('name', values));
    },
  },
  async prepare(item, { db }) {
    const v = merged(item);
    if (v.status === 'slaac' && Number(v.family) !== 6 && touches(item, 'status', 'address')) item.errors.add('status', 'Only IPv6 addresses can be assigned SLAAC status.');
    checkNetworkId(item, v);
    await checkPrimary(db, item, v);
  },
  async prepareMany(items, { db, rules }) {
    await refuseDuplicates(db, items, { table: 'ipam_ipaddress', column: 'address_host', noun: 'IP address', text: (row) => String(row.address), shareable: { column: 'role', values: SHARED_ROLES }, leading: 'family' }, rules);
  },
};
