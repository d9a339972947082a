import type { Knex } from 'knex';

/**
 * Indexes of the webhook queue (extras_webhookdelivery): workers look for due rows by
 * next_attempt_at, the list filters by request id and state, and pruning deletes old succeeded rows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('extras_webhookdelivery', (t) => {
    t.index(['next_attempt_at'], 'extras_webhookdelivery_due_idx');
    t.index(['request_id'], 'extras_webhookdelivery_request_idx');
    t.index(['state', 'last_updated'], 'extras_webhookdelivery_state_idx');
    t.index(['lease_owner'], 'extras_webhookdelivery_lease_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('extras_webhookdelivery', (t) => {
    t.dropIndex([], 'extras_webhookdelivery_due_idx');
    t.dropIndex([], 'extras_webhookdelivery_request_idx');
    t.dropIndex([], 'extras_webhookdelivery_state_idx');
    t.dropIndex([], 'extras_webhookdelivery_lease_idx');
  });
}
