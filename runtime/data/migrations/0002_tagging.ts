import type { Knex } from 'knex';

/** Tag assignments for every model that carries tags: (content type, object id) → tag. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('extras_taggeditem', (t) => {
    t.increments('id').primary();
    t.integer('tag_id').unsigned().notNullable().references('id').inTable('extras_tag').onDelete('CASCADE');
    t.string('content_type', 100).notNullable();
    t.integer('object_id').notNullable();
    t.unique(['content_type', 'object_id', 'tag_id'], { indexName: 'extras_taggeditem_key' });
    t.index(['tag_id'], 'extras_taggeditem_tag_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('extras_taggeditem');
}
