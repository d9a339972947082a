import type { Knex } from 'knex';

/**
 * Password attempts (token provisioning and the login form) by source address, so that repeated
 * failures are slowed down across every process sharing the database. `at` is epoch milliseconds.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users_loginattempt', (t) => {
    t.increments('id').primary();
    t.string('source', 64).notNullable();
    t.bigInteger('at').notNullable();
    t.index(['source', 'at'], 'users_loginattempt_source_idx');
    t.index(['at'], 'users_loginattempt_at_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('users_loginattempt');
}
