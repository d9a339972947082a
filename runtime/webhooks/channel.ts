/**
 * The PostgreSQL NOTIFY channel that wakes workers in other processes when a transaction queued
 * deliveries. One channel per schema, so services sharing a server but not a schema stay apart.
 */
import type { Knex } from 'knex';

export function channelName(schema: string | null | undefined): string {
  return `netledger_webhooks_${schema || 'public'}`;
}

/** The channel of the schema a knex instance (or transaction) works in. */
export function channelOf(db: Knex): string {
  const path = db.client.config.searchPath as string | string[] | undefined;
  return channelName(Array.isArray(path) ? path[0] : path);
}

/** In-process signal: bumped whenever a transaction queues deliveries, so a wake after a commit that queued nothing costs no query. */
export const queued = { generation: 0 };
