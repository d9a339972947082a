import type { Knex } from 'knex';

/**
 * Cookie sessions of the browsable API and web pages. The session id and its CSRF token are stored
 * only as SHA-256 digests, so a copy of the table cannot be turned into a cookie. `expires` is epoch
 * milliseconds.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users_session', (t) => {
    t.string('id_digest', 64).notNullable().primary();
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users_user').onDelete('CASCADE');
    t.string('csrf_digest', 64).notNullable();
    t.string('created', 32).notNullable();
    t.bigInteger('expires').notNullable();
    t.index(['user_id'], 'users_session_user_idx');
    t.index(['expires'], 'users_session_expires_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('users_session');
}
