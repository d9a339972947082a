import type { Knex } from 'knex';

/**
 * Files kept in the database (runtime/data/stored-files.ts): an image attachment's upload, by its
 * owner's content type and id, so every process on one database serves it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('core_stored_file', (t) => {
    t.string('owner_type', 100).notNullable();
    t.bigInteger('owner_id').notNullable();
    t.string('content_type', 100).notNullable();
    t.integer('size').notNullable();
    t.binary('data').notNullable();
    t.primary(['owner_type', 'owner_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('core_stored_file');
}
