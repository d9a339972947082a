import type { Knex } from 'knex';

/**
 * Where each client's last write ended in the primary's WAL (runtime/http/read-routing.ts): its
 * reads go to the standby only once the standby has replayed past it. PostgreSQL only, and unlogged:
 * a fence matters for seconds, and one lost in a crash only sends that client's next reads to the
 * primary.
 */
export async function up(knex: Knex): Promise<void> {
  if (knex.client.driverName !== 'pg') return;
  await knex.raw('create unlogged table core_read_fence (client varchar(64) primary key, lsn pg_lsn not null)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('core_read_fence');
}
