/**
 * VM interfaces: parent and bridge are other interfaces of the same VM; the untagged and tagged
 * VLANs are global or in the VM's site. As in NetBox, no 802.1Q mode drops the untagged VLAN, and
 * any mode but tagged drops the tagged VLANs of an existing interface.
 */
import type { Knex } from 'knex';
import type { ModelHooks, Row, WriteItem } from '../data/registry.js';
import { isSet, merged } from './merged.js';
import { vlanFilter } from './interface.js';

async function checkPeer(db: Knex, item: WriteItem, v: Row, field: 'parent' | 'bridge', self: string): Promise<void> {
  const id = v[`${field}_id`];
  if (!(`${field}_id` in item.values || 'virtual_machine_id' in item.values) || !isSet(id)) return;
  if (item.id !== null && Number(id) === item.id) { item.errors.add(field, self); return; }
  const peer = await db('virtualization_vminterface').select('name', 'virtual_machine_id').where('id', id).first();
  if (peer && Number(peer.virtual_machine_id) !== Number(v.virtual_machine_id)) {
    item.errors.add(field, `The selected ${field} interface (${peer.name}) belongs to a different virtual machine.`);
  }
}

async function checkVlans(db: Knex, item: WriteItem, v: Row): Promise<void> {
  const tagged = item.m2m?.tagged_vlans ?? [];
  const untagged = 'untagged_vlan_id' in item.values || 'virtual_machine_id' in item.values ? v.untagged_vlan_id : null;
  if (!isSet(untagged) && !tagged.length) return;
  const vm = await db('virtualization_virtualmachine').select('site_id').where('id', v.virtual_machine_id).first();
  const allowed = (vlan: Row) => !isSet(vlan.site_id) || (isSet(vm?.site_id) && Number(vlan.site_id) === Number(vm.site_id));
  const vlans = new Map<number, Row>((await db('ipam_vlan').select('id', 'name', 'vid', 'site_id').whereIn('id', [...tagged, ...(isSet(untagged) ? [untagged] : [])])).map((r: Row) => [Number(r.id), r]));
  const u = isSet(untagged) ? vlans.get(Number(untagged)) : undefined;
  if (u && !allowed(u)) item.errors.add('untagged_vlan', `The untagged VLAN (${u.name}) must be global or belong to the site of the interface's virtual machine.`);
  for (const id of tagged) {
    const t = vlans.get(id);
    if (t && !allowed(t)) item.errors.add('tagged_vlans', `The VLAN ${t.name} (${t.vid}) must be global or belong to the site of the interface's virtual machine.`);
  }
}

export const vmInterface: ModelHooks = {
  filters: { vm_interface_vlan_id: vlanFilter('id'), vm_interface_vlan: vlanFilter('vid') },
  async prepare(item, { db }) {
    const v = merged(item);
    await checkPeer(db, item, v, 'parent', 'An interface cannot be its own parent.');
    await checkPeer(db, item, v, 'bridge', 'An interface cannot be bridged to itself.');
    await checkVlans(db, item, v);
    if (!item.errors.empty) return;
    if (!v.mode && isSet(v.untagged_vlan_id)) item.values.untagged_vlan_id = null;
    if (item.existing && v.mode !== 'tagged' && item.m2m) item.m2m.tagged_vlans = [];
  },
};
