/**
 * Webhook deliveries: POST …/webhook-deliveries/<id>/retry/ puts a failed delivery back in the queue
 * (the spec's manual retry), or sends a retrying one now. It is refused for a delivery that is queued,
 * succeeded, or being sent.
 */
import type { ModelHooks } from '../data/registry.js';
import { ApiError } from '../core/errors.js';
import { renderRows } from '../data/serialize.js';
import { isPostgres } from '../data/db.js';
import { channelOf, queued } from '../webhooks/channel.js';

const RETRYABLE = ['failed', 'retrying'];

export const webhookDelivery: ModelHooks = {
  actions: {
    async retry_delivery({ db, entry, row, baseUrl }) {
      const now = new Date().toISOString();
      if (!RETRYABLE.includes(row.state)) throw new ApiError(409, { detail: `Only a failed delivery can be retried; this one is ${row.state}.` });
      if (row.lease_owner && row.lease_expires_at > now) throw new ApiError(409, { detail: 'This delivery is being sent right now.' });
      const table = entry.definition.table;
      const changed = await db(table).where({ id: row.id, state: row.state })
        .where((q) => q.whereNull('lease_expires_at').orWhere('lease_expires_at', '<=', now))
        .update({ state: 'queued', next_attempt_at: now, lease_owner: null, lease_expires_at: null, last_updated: now });
      if (!changed) throw new ApiError(409, { detail: 'The delivery changed meanwhile; reload it and try again.' });
      // Wake this process's worker, and on PostgreSQL the others.
      queued.generation++;
      if (isPostgres(db)) await db.raw('select pg_notify(?, ?)', [channelOf(db), '']);
      const [body] = await renderRows(entry, await db(table).where('id', row.id), { db, baseUrl });
      return { status: 200, body };
    },
  },
};
