import type { Knex } from 'knex';

/** Each contact's group kept by 1025_contact_groups_stash becomes its one link in tenancy_contact_groups. */
export async function up(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasTable('netledger_contact_group_stash'))) return;
  await knex.raw('insert into tenancy_contact_groups (from_id, to_id) select contact_id, group_id from netledger_contact_group_stash');
  await knex.schema.dropTable('netledger_contact_group_stash');
}

export async function down(): Promise<void> {
  // the link table goes with the generated migration's down
}
