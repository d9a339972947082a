import type { Knex } from 'knex';

/**
 * VLAN groups' VID ranges (NetBox 4.0), after 1029_schema added their columns: a group from before
 * them has the one range from its min_vid to its max_vid, and that many VLAN IDs.
 */
export async function up(knex: Knex): Promise<void> {
  await knex('ipam_vlangroup').whereNull('vid_ranges').update({
    vid_ranges: knex.raw("'[[' || min_vid || ',' || max_vid || ']]'"),
    total_vlan_ids: knex.raw('max_vid - min_vid + 1'),
  });
}

export async function down(): Promise<void> {
  // the columns go with 1029_schema's down
}
