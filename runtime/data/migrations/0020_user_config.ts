import type { Knex } from 'knex';

/** Each user's preferences (`/api/users/config/`): one JSON document per user, made on first use. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users_userconfig', (t) => {
    t.integer('user_id').unsigned().notNullable().primary().references('id').inTable('users_user').onDelete('CASCADE');
    t.text('data').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('users_userconfig');
}
