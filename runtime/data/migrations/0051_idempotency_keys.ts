import type { Knex } from 'knex';

/**
 * Answers of writes sent with an `Idempotency-Key` header, by user and key, written in the write's
 * own transaction (so a key is stored exactly when its write committed) and shared by every process
 * and node. `created` is epoch milliseconds; rows older than a day no longer answer and are pruned.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('core_idempotency_key', (t) => {
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users_user').onDelete('CASCADE');
    t.string('key', 255).notNullable();
    t.string('fingerprint', 64).notNullable();
    t.integer('status').notNullable();
    t.text('body').notNullable();
    t.string('location', 2000).nullable();
    t.bigInteger('created').notNullable();
    t.primary(['user_id', 'key']);
    t.index(['created'], 'core_idempotency_key_created_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('core_idempotency_key');
}
