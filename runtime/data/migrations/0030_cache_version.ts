import type { Knex } from 'knex';

/**
 * One counter, bumped in the transaction of every write to a model that a process cache reads
 * (tokens, users, permissions, custom fields, config contexts): every request compares it with the
 * value its process last saw, so a change made by any process is seen by all at their next request.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('netledger_cache_version', (t) => {
    t.integer('id').primary();
    t.bigInteger('version').notNullable();
  });
  await knex('netledger_cache_version').insert({ id: 1, version: 0 });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('netledger_cache_version');
}
