/**
 * Transactions that run again when PostgreSQL made them a deadlock victim or the connection was lost
 * before they finished, and the rows they wrote, handed to listeners once they commit.
 */
import type { Knex } from 'knex';
import { isConnectionLost } from '../core/errors.js';

/** PostgreSQL's deadlock and serialization failures: the transaction was a victim and may simply run again. */
const RETRYABLE = new Set(['40P01', '40001']);

/** Rows written per table inside a transaction (noteWritten), handed to the commit listeners once it commits. */
const writtenIn = new WeakMap<Knex, Map<string, number>>();
const commitListeners: ((db: Knex, rows: ReadonlyMap<string, number>) => void)[] = [];

/** Counts `rows` rows of `table` created, changed or removed in the transaction `trx`. */
export function noteWritten(trx: Knex, table: string, rows: number): void {
  let tables = writtenIn.get(trx);
  if (!tables) writtenIn.set(trx, (tables = new Map()));
  tables.set(table, (tables.get(table) ?? 0) + rows);
}

/**
 * Runs `listener` after each transaction of inTransaction that committed noted writes, with the
 * database it ran on and the rows per table (synchronously: a listener defers its own work).
 */
export function afterCommittedWrites(listener: (db: Knex, rows: ReadonlyMap<string, number>) => void): void {
  commitListeners.push(listener);
}

/**
 * Runs `fn` in a transaction, running it again (up to three times in all) when it may safely run
 * again: PostgreSQL aborted it as a deadlock victim (e.g. a delete cascading into rows the webhook
 * worker is updating), or the connection was lost or refused before `fn` finished, so COMMIT was
 * never sent and nothing was committed (a failover: the next attempt connects to the new primary).
 * A connection lost after `fn` finished is never retried: COMMIT may have been sent and its outcome
 * is unknown, so the error reaches the client (503), which may retry with an Idempotency-Key.
 */
export async function inTransaction<T>(db: Knex, fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let finished = false;
    try {
      const seen: { trx?: Knex.Transaction } = {};
      const out = await db.transaction(async (trx) => {
        const result = await fn((seen.trx = trx));
        finished = true;
        return result;
      });
      const rows = seen.trx && writtenIn.get(seen.trx);
      if (rows) for (const listener of commitListeners) listener(db, rows);
      return out;
    } catch (error) {
      const retry = RETRYABLE.has((error as { code?: string }).code ?? '') || (!finished && isConnectionLost(error));
      if (attempt >= 3 || !retry) throw error;
      await new Promise((resolve) => setTimeout(resolve, retryDelay(error, attempt)));
    }
  }
}

/** A deadlock victim runs again at once (with jitter); a lost connection waits for a new primary a little longer. */
function retryDelay(error: unknown, attempt: number): number {
  return (isConnectionLost(error) ? 250 : 25) * attempt + Math.random() * 25;
}
