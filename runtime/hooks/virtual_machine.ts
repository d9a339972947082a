/**
 * Virtual machines: the rendered configuration context and the has_primary_ip filter, shared with
 * devices (see device.ts and config_context.ts), and NetBox's placement rules: a site and/or a
 * cluster, a cluster in the VM's site, a host device only within the VM's cluster, primary IPs of
 * the right family on the VM's own interfaces. A VM without a site takes its cluster's; a new VM of a
 * type, the type's default platform, vCPUs and memory where it gives none.
 */
import type { Knex } from 'knex';
import type { ModelHooks, Row, WriteItem } from '../data/registry.js';
import { model } from '../data/registry.js';
import { device, checkLocalContext } from './device.js';
import { configContextOf } from './config_context.js';
import { isSet, merged, touches } from './merged.js';

async function checkPlacement(db: Knex, item: WriteItem, v: Row): Promise<void> {
  if (!touches(item, 'site_id', 'cluster_id', 'device_id')) return;
  if (!isSet(v.site_id) && !isSet(v.cluster_id)) { item.errors.add('cluster', 'A virtual machine must be assigned to a site and/or a cluster.'); return; }
  const cluster = isSet(v.cluster_id) ? await db('virtualization_cluster').select('id', 'name', 'site_id').where('id', v.cluster_id).first() : null;
  if (cluster && isSet(v.site_id) && isSet(cluster.site_id) && Number(cluster.site_id) !== Number(v.site_id)) {
    const site = await db('dcim_site').select('name').where('id', v.site_id).first();
    item.errors.add('cluster', `The selected cluster (${cluster.name}) is not assigned to this site (${site?.name ?? v.site_id}).`);
  }
  if (isSet(v.device_id)) {
    if (!cluster) item.errors.add('device', 'Give a cluster when assigning a host device.');
    else {
      const host = await db('dcim_device').select('name', 'cluster_id').where('id', v.device_id).first();
      if (host && Number(host.cluster_id) !== Number(cluster.id)) item.errors.add('device', `The selected device (${host.name}) is not a host of this cluster (${cluster.name}).`);
    }
  }
  // NetBox copies the cluster's site onto a VM created or moved without one.
  if (!isSet(v.site_id) && cluster && isSet(cluster.site_id)) item.values.site_id = cluster.site_id;
}

async function checkPrimaryIps(db: Knex, item: WriteItem): Promise<void> {
  for (const family of [4, 6]) {
    const column = `primary_ip${family}_id`;
    if (!(column in item.values) || !isSet(item.values[column])) continue;
    const field = `primary_ip${family}`;
    const ip = await db('ipam_ipaddress').where('id', item.values[column]).first();
    if (!ip) continue;
    if (Number(ip.family) !== family) { item.errors.add(field, `${ip.address} is not an IPv${family} address.`); continue; }
    const onThisVm = async (row: Row | undefined) => !!row && row.assigned_object_type === 'virtualization.vminterface' && item.id !== null
      && !!(await db('virtualization_vminterface').where('id', row.assigned_object_id).where('virtual_machine_id', item.id).first());
    const inside = isSet(ip.nat_inside_id) ? await db('ipam_ipaddress').where('id', ip.nat_inside_id).first() : undefined;
    if (!(await onThisVm(ip)) && !(await onThisVm(inside))) item.errors.add(field, `The IP address ${ip.address} is not assigned to this virtual machine.`);
  }
}

/**
 * Names are unique per cluster and tenant ignoring case (NetBox's Lower(name) constraints); the
 * exact-case duplicate is already the generic unique_together error, so only a case variant is flagged.
 */
async function checkNameCase(db: Knex, item: WriteItem): Promise<void> {
  if (!touches(item, 'name', 'cluster_id', 'tenant_id')) return;
  const v = merged(item);
  if (!isSet(v.cluster_id) || typeof v.name !== 'string') return;
  const q = db('virtualization_virtualmachine').select('name').where('cluster_id', v.cluster_id)
    .whereRaw('lower(name) = ?', [v.name.toLowerCase()]).whereNot('name', v.name);
  if (isSet(v.tenant_id)) q.where('tenant_id', v.tenant_id); else q.whereNull('tenant_id');
  if (item.id !== null) q.whereNot('id', item.id);
  const other = await q.first();
  if (other) item.errors.add('name', `Virtual machine names must be unique per cluster, ignoring case (${other.name} exists).`);
}

/** NetBox 4.6: a VM created with a type takes the type's defaults for the platform, vCPUs and memory it leaves empty. */
async function applyTypeDefaults(db: Knex, item: WriteItem): Promise<void> {
  if (item.id !== null || !isSet(item.values.virtual_machine_type_id)) return;
  const type = await db(model('VirtualMachineType').definition.table).where('id', item.values.virtual_machine_type_id).first();
  if (!type) return;
  for (const [column, from] of [['platform_id', 'default_platform_id'], ['vcpus', 'default_vcpus'], ['memory', 'default_memory']]) {
    if (!isSet(item.values[column]) && isSet(type[from])) item.values[column] = type[from];
  }
}

export const virtualMachine: ModelHooks = {
  computed: {
    // the VM's own tags, cluster and site (config contexts naming locations or device types never apply)
    config_context: configContextOf('VirtualMachine'),
  },
  filters: {
    has_primary_ip: device.filters!.has_primary_ip,
    local_context_data: device.filters!.local_context_data,
  },
  async prepare(item, { db }) {
    checkLocalContext(item);
    await applyTypeDefaults(db, item);
    await checkPlacement(db, item, merged(item));
    await checkPrimaryIps(db, item);
    await checkNameCase(db, item);
  },
};
