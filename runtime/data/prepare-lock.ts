/**
 * One process at a time prepares a database (schema, migrations, backfills, hooks' start-up work).
 * Services that start together on a new or upgraded database (two hosts on one PostgreSQL, `npm
 * start` beside `npm run worker`) would otherwise both create the schema or the migrations table,
 * and every one but the first would stop with a duplicate. The others wait for the lock, then find
 * the work done. (The first admin is made after the service listens: ensureAdmin copes with a race.)
 * - PostgreSQL: an advisory lock for the schema, held by a transaction that does nothing else
 *   while the preparation runs on the pool's other connections.
 * - SQLite: an exclusive transaction on a lock file beside the database (SQLite's own locking
 *   between processes; the operating system lets go of it when a process dies).
 */
import type { Knex } from 'knex';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Config } from '../core/config.js';
import { isPostgres } from './db.js';

const require = createRequire(import.meta.url);
type LockDatabase = { exec(sql: string): unknown; close(): void };
const Database = require('better-sqlite3') as new (file: string) => LockDatabase;

/** The advisory lock's first key ("NLPR"), beside the schema name's hash. */
const PREPARE_LOCK = 0x4e4c_5052;
/** How long a process waits for another's preparation (a long migration) before it gives up. */
const WAIT_MS = 10 * 60 * 1000;

export async function preparingAlone<T>(db: Knex, config: Config, prepare: () => Promise<T>): Promise<T> {
  if (isPostgres(db)) {
    const holder = await db.transaction();
    try {
      await holder.raw(`set local lock_timeout = ${WAIT_MS}`);
      await holder.raw('select pg_advisory_xact_lock(?, hashtext(?))', [PREPARE_LOCK, config.databaseSchema ?? 'public']);
      return await prepare();
    } finally {
      await holder.rollback().catch(() => undefined);
    }
  }
  // DATA_DIR exists: openDatabase made it.
  const lock = new Database(join(config.dataDir, 'prepare.lock'));
  try {
    await exclusively(lock);
    return await prepare();
  } finally {
    lock.close();
  }
}

/** BEGIN EXCLUSIVE, tried again every 50 ms rather than under a busy timeout, which would block the event loop. */
async function exclusively(lock: LockDatabase): Promise<void> {
  const until = Date.now() + WAIT_MS;
  for (;;) {
    try {
      lock.exec('BEGIN EXCLUSIVE');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
