/**
 * `Idempotency-Key` on API writes (POST, PUT, PATCH, DELETE), as Stripe's API has it: a client that
 * sends a write with a key and gets no answer (a timeout, a dropped connection, a 503 during a
 * failover) sends it again with the same key. If the first one committed, the retry is answered with
 * the first answer (status, body, `Location`) and `Idempotent-Replayed: true`, and nothing is written
 * again; if it did not, the retry runs. Keys are per user and last 24 hours; the same key with a
 * different method, path, query or body is a 400. Only committed writes are remembered: a refused
 * request (4xx) may be sent again, corrected, under the same key.
 */
import { renderBase } from './versions.js';
import { createHash } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Knex } from 'knex';
import { ApiError } from '../core/errors.js';
import { claimKey, storeAnswer, storedAnswer } from '../data/idempotency.js';
import { inTransaction } from '../data/transactions.js';
import type { Keyed, Services, State } from './state.js';

const HEADER = 'Idempotency-Key';
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);


/** Another request with the same key committed while this one ran: this one rolls back and replays it. */
class KeyTaken extends Error {}

function fingerprintOf(ctx: Context): string {
  const { body, hasBody } = ctx.state as State;
  // The base and version asked for are part of the request: the answer's shape and URLs depend on them.
  // The base path (/v4.6...) and version count, the host does not: a retry may reach another node by another name.
  const { baseUrl, origin, version } = renderBase(ctx);
  const basePath = baseUrl.slice(origin.length);
  return createHash('sha256').update(`${ctx.method} ${basePath} ${version} ${ctx.path}?${ctx.querystring}\n${hasBody ? JSON.stringify(body) : ''}`).digest('hex');
}

function headerError(message: string): ApiError {
  return new ApiError(400, { [HEADER]: [message] });
}

export function idempotency({ db }: Services) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const key = ctx.get(HEADER);
    const state = ctx.state as State;
    const userId = state.auth?.user?.id;
    if (!key || !WRITES.has(ctx.method) || !ctx.path.startsWith('/api/') || typeof userId !== 'number') return next();
    if (key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) throw headerError('Expected 1 to 255 printable ASCII characters, without spaces.');
    const keyed: Keyed = { userId, key, fingerprint: fingerprintOf(ctx) };
    const replayed = async (): Promise<boolean> => {
      const stored = await storedAnswer(db, userId, key);
      if (!stored) return false;
      if (stored.fingerprint !== keyed.fingerprint) throw headerError('This key was used within the last 24 hours for a different request (method, path, query or body).');
      ctx.status = stored.status;
      ctx.body = stored.body;
      if (stored.location) ctx.set('Location', stored.location);
      ctx.set('Idempotent-Replayed', 'true');
      return true;
    };
    if (await replayed()) return;
    state.idempotency = keyed;
    try {
      await next();
    } catch (error) {
      if (error instanceof KeyTaken && await replayed()) return;
      throw error;
    }
  };
}

/**
 * `inTransaction` for an API write: with a key, the key is claimed first in the transaction (a
 * concurrent request with the same key waits for it, then rolls back and replays its answer, so
 * racing retries write once), and the answer the request has at the end is stored with it.
 */
export async function writeTransaction<T>(ctx: Context, db: Knex, fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  const keyed = (ctx.state as State).idempotency;
  if (!keyed) return inTransaction(db, fn);
  return inTransaction(db, async (trx) => {
    if (!await claimKey(trx, keyed.userId, keyed.key, keyed.fingerprint)) throw new KeyTaken();
    const result = await fn(trx);
    await storeAnswer(trx, keyed.userId, keyed.key, { status: ctx.status, body: ctx.body ?? null, location: ctx.response.get('Location') || null });
    return result;
  });
}
