import type { Knex } from 'knex';

/**
 * Values the service generates once and every process and node sharing the database must agree on
 * (the generated pepper of v2 API tokens, runtime/auth/peppers.ts). Written once, with the first
 * writer winning, and read by every process at start.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('netledger_settings', (t) => {
    t.string('name', 100).primary();
    t.text('value').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('netledger_settings');
}
