import type { Knex } from 'knex';

/**
 * Stored cable paths (NetBox's CablePath): the ordered steps from the origin endpoints, stored when a
 * write changes the cabling so that reads never trace. `path` is a JSON list of steps, each a list of
 * "<content type>:<id>" nodes; the node table indexes every node with its step (0: the origins), so
 * the paths through an object, or of a page of endpoints, are one indexed lookup.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('dcim_cablepath', (t) => {
    t.increments('id').primary();
    t.string('origin_type', 100).notNullable();
    t.text('path').notNullable();
    t.boolean('is_active').notNullable().defaultTo(false);
    t.boolean('is_complete').notNullable().defaultTo(false);
    t.boolean('is_split').notNullable().defaultTo(false);
  });
  await knex.schema.createTable('dcim_cablepath_node', (t) => {
    t.integer('path_id').unsigned().notNullable().references('id').inTable('dcim_cablepath').onDelete('CASCADE');
    t.string('node_type', 100).notNullable();
    t.bigInteger('node_id').notNullable();
    t.integer('step').notNullable();
    t.index(['node_type', 'node_id'], 'dcim_cablepath_node_key');
    t.index(['path_id'], 'dcim_cablepath_node_path_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('dcim_cablepath_node');
  await knex.schema.dropTableIfExists('dcim_cablepath');
}
