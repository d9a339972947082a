/**
 * Planner statistics. PostgreSQL's autovacuum keeps them (and the row estimates `count` reads,
 * count.ts). SQLite keeps none unless asked: without them it picks plans by rule of thumb, and
 * `count` has no estimate of a table's size. So each process runs `PRAGMA optimize` once it is up
 * and every hour, as SQLite recommends for long-lived connections: it analyses, within
 * `analysis_limit` rows per index, only the tables whose size changed much since they were last
 * analysed (or never were), so it costs little when nothing changed.
 */
import type { Knex } from 'knex';
import { isPostgres } from './db.js';
import { log } from '../core/log.js';

const EVERY_MS = 60 * 60 * 1000;

async function optimize(db: Knex): Promise<void> {
  try {
    await db.raw('pragma analysis_limit = 1000');
    // 0x10002: look at every table, not only those this connection queried.
    await db.raw('pragma optimize = 0x10002');
  } catch (error) {
    log.warn({ err: error }, 'PRAGMA optimize failed');
  }
}

/** Starts keeping SQLite's statistics; returns the function that stops it. */
export function keepStatistics(db: Knex): () => void {
  if (isPostgres(db)) return () => {};
  void optimize(db);
  const timer = setInterval(() => void optimize(db), EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
