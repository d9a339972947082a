import type { Knex } from 'knex';

/** Each user's dashboard (`/api/extras/dashboard/`): its widget layout and their configuration, made on first write. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('extras_dashboard', (t) => {
    t.integer('user_id').unsigned().notNullable().primary().references('id').inTable('users_user').onDelete('CASCADE');
    t.text('layout').notNullable();
    t.text('config').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('extras_dashboard');
}
