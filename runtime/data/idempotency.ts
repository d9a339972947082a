/**
 * Stored answers of writes sent with an `Idempotency-Key` (the HTTP side is http/idempotency.ts).
 * An answer is written inside the write's transaction: it exists exactly when the write committed,
 * in the database every process and node reads, and it answers the same user's same key for 24 hours.
 */
import type { Knex } from 'knex';

const TABLE = 'core_idempotency_key';
export const KEY_LIFETIME_MS = 24 * 3600 * 1000;

export interface StoredAnswer { fingerprint: string; status: number; body: unknown; location: string | null }

/** The answer stored for this user's key within the last 24 hours, if any. */
export async function storedAnswer(db: Knex, userId: number, key: string): Promise<StoredAnswer | null> {
  const [row] = await db(TABLE).where({ user_id: userId, key }).where('created', '>', Date.now() - KEY_LIFETIME_MS)
    .select('fingerprint', 'status', 'body', 'location');
  if (!row) return null;
  return { fingerprint: row.fingerprint, status: Number(row.status), body: JSON.parse(row.body), location: row.location ?? null };
}

/**
 * Claims the key in the write's transaction `trx`, before the write. False when another request
 * with the same key committed first (on PostgreSQL this waits for it): the caller rolls back and
 * replays that one.
 */
export async function claimKey(trx: Knex, userId: number, key: string, fingerprint: string): Promise<boolean> {
  const now = Date.now();
  // An expired row of the same key gives way; now and then every expired row goes.
  const expired = trx(TABLE).where('created', '<=', now - KEY_LIFETIME_MS);
  await (Math.random() < 0.02 ? expired : expired.where({ user_id: userId, key })).delete();
  const inserted = await trx(TABLE)
    .insert({ user_id: userId, key, fingerprint, status: 0, body: 'null', location: null, created: now })
    .onConflict(['user_id', 'key']).ignore()
    .returning('key');
  return inserted.length > 0;
}

/** Stores the write's answer on the key claimKey took, in the same transaction. */
export async function storeAnswer(trx: Knex, userId: number, key: string, answer: Omit<StoredAnswer, 'fingerprint'>): Promise<void> {
  await trx(TABLE).where({ user_id: userId, key }).update({ status: answer.status, body: JSON.stringify(answer.body ?? null), location: answer.location });
}
