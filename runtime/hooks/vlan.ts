/**
 * VLANs in a group: the VID lies within one of the group's ranges, and a VLAN with a site may only be in a
 * group scoped to that site. The available_* filters: hooks/vlan_availability.ts.
 */
import type { ModelHooks } from '../data/registry.js';
import { isSet, merged, touches } from './merged.js';
import { vlanAvailabilityFilters } from './vlan_availability.js';
import { inRanges, rangesOf, rangesText } from '../core/vid-ranges.js';

export const vlan: ModelHooks = {
  filters: vlanAvailabilityFilters,
  async prepare(item, { db }) {
    if (!touches(item, 'vid', 'group_id', 'site_id')) return;
    const v = merged(item);
    if (!isSet(v.group_id)) return;
    const group = await db('ipam_vlangroup').where('id', v.group_id).first();
    if (!group) return;
    const ranges = rangesOf(group);
    if (!inRanges(ranges, Number(v.vid))) {
      item.errors.add('vid', ranges.length === 1
        ? `The VID must be between ${ranges[0][0]} and ${ranges[0][1]} for VLANs in group ${group.name}.`
        : `The VID must be in ranges ${rangesText(ranges)} for VLANs in group ${group.name}.`);
    }
    if (isSet(v.site_id) && !(group.scope_type === 'dcim.site' && Number(group.scope_id) === Number(v.site_id))) {
      item.errors.add('group', `The VLAN is in group ${group.name}, which is not scoped to the VLAN's site; set no site, or pick a group scoped to that site.`);
    }
  },
};
