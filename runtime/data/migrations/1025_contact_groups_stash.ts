import type { Knex } from 'knex';

/**
 * Contacts' one group becomes NetBox 4.3's many groups: the generated migration that makes the link
 * table drops tenancy_contact.group_id, so each contact's group is kept here first, and
 * 1900_contact_groups links it once the link table exists.
 */
export async function up(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasColumn('tenancy_contact', 'group_id'))) return;
  await knex.schema.createTable('netledger_contact_group_stash', (t) => {
    t.integer('contact_id').notNullable();
    t.integer('group_id').notNullable();
  });
  await knex.raw('insert into netledger_contact_group_stash (contact_id, group_id) select id, group_id from tenancy_contact where group_id is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('netledger_contact_group_stash');
}
