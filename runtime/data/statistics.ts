/**
 * Planner statistics. Without them both engines pick plans by rule of thumb, and `count` (count.ts)
 * has no estimate of a table's size.
 * - SQLite keeps none unless asked. So each process runs `PRAGMA optimize` once it is up and every
 *   hour, as SQLite recommends for long-lived connections: it analyses, within `analysis_limit` rows
 *   per index, only the tables whose size changed much since they were last analysed (or never
 *   were), so it costs little when nothing changed.
 * - PostgreSQL's autovacuum analyses a table once more than 50 rows plus a tenth of it changed, and
 *   vacuums it past its thresholds of dead and of inserted rows. Where autovacuum is switched off, for
 *   the server or for a table, nothing would: the planner would go on with the statistics of an empty
 *   table (the bench's list of 1000 IP addresses took 148 ms instead of 59), and reads would check
 *   every row's visibility in the heap. For those tables the service applies autovacuum's rules
 *   itself (the server's settings), once it is up and every minute (autovacuum's own interval); one
 *   process at a time, the others skip that round.
 * Beside the rounds, a table that a committed write changed much is analysed promptly
 * (fresh-statistics.ts).
 */
import type { Knex } from 'knex';
import { isPostgres } from './db.js';
import { onConnection } from './reads.js';
import { FOLD_EVERY_TABLE } from './row-tallies.js';
import { refreshAfterWrites } from './fresh-statistics.js';
import { log } from '../core/log.js';

const SQLITE_EVERY_MS = 60 * 60 * 1000;
const POSTGRES_EVERY_MS = 60 * 1000;
/** Advisory lock of the PostgreSQL round, with the schema's hash: services on other schemas do not wait for it. */
const UPKEEP_LOCK = 0x4e4c_5354;
/** PostgreSQL's undefined_table. */
const UNDEFINED_TABLE = '42P01';

async function optimizeSqlite(db: Knex): Promise<void> {
  await db.raw('pragma analysis_limit = 1000');
  // 0x10002: look at every table, not only those this connection queried.
  await db.raw('pragma optimize = 0x10002');
}

/**
 * Tables of the current schema that autovacuum leaves alone and that changed past its thresholds
 * (the server's own settings): to analyse (rows changed since the last analysis) and to vacuum (dead
 * rows, or rows inserted since the last vacuum, as autovacuum does since PostgreSQL 13).
 */
const NEGLECTED = `
  select format('%I.%I', s.schemaname, s.relname) as name,
    s.n_mod_since_analyze > current_setting('autovacuum_analyze_threshold')::float8
      + current_setting('autovacuum_analyze_scale_factor')::float8 * greatest(c.reltuples, 0) as analyse,
    (s.n_dead_tup > current_setting('autovacuum_vacuum_threshold')::float8
      + current_setting('autovacuum_vacuum_scale_factor')::float8 * greatest(c.reltuples, 0)
     or s.n_ins_since_vacuum > current_setting('autovacuum_vacuum_insert_threshold')::float8
      + current_setting('autovacuum_vacuum_insert_scale_factor')::float8 * greatest(c.reltuples, 0)) as vacuum
  from pg_stat_user_tables s join pg_class c on c.oid = s.relid
  where s.schemaname = current_schema()
    and (not current_setting('autovacuum')::boolean
      or exists (select 1 from unnest(c.reloptions) o where o ~* '^autovacuum_enabled=(false|off|no|0|f)$'))
  order by s.relname`;

interface PgConnection { query(sql: string, values?: unknown[]): Promise<{ rows: Record<string, any>[] }> }

/**
 * One round on a connection of its own, outside a transaction (VACUUM cannot run in one), under a
 * session advisory lock so that one process at a time does the round. Vacuuming matters beside
 * analysing: without it the dead rows of updates and deletes are never reclaimed (the row tallies'
 * folds make some every minute), and a table never vacuumed has no visibility map for index-only
 * scans to skip the heap.
 */
async function keepPostgres(db: Knex): Promise<void> {
  await onConnection(db, async (connection: PgConnection) => {
    const lock = await connection.query('select pg_try_advisory_lock($1, hashtext(current_schema())) as mine', [UPKEEP_LOCK]);
    if (!lock.rows[0].mine) return;
    try {
      const tables = (await connection.query(NEGLECTED)).rows as { name: string; analyse: boolean; vacuum: boolean }[];
      const due = tables.filter((t) => t.analyse || t.vacuum);
      for (const t of due) await connection.query(t.vacuum ? `vacuum${t.analyse ? ' (analyze)' : ''} ${t.name}` : `analyze ${t.name}`);
      if (due.length) log.debug({ analysed: due.filter((t) => t.analyse).map((t) => t.name), vacuumed: due.filter((t) => t.vacuum).map((t) => t.name) }, 'kept tables autovacuum leaves alone');
      // The same round folds the row tallies of tables written but seldom listed; none to fold when
      // the store is gone (every tally dropped, or the schema dropped under a running service).
      await connection.query(FOLD_EVERY_TABLE).catch((error: { code?: string }) => { if (error.code !== UNDEFINED_TABLE) throw error; });
    } finally {
      await connection.query('select pg_advisory_unlock($1, hashtext(current_schema()))', [UPKEEP_LOCK]);
    }
  });
}

async function upkeep(db: Knex): Promise<void> {
  try {
    await (isPostgres(db) ? keepPostgres(db) : optimizeSqlite(db));
  } catch (error) {
    log.warn({ err: error }, 'keeping planner statistics failed');
  }
}

/** The statistics rounds of a service: `stop` ends them, once a round in flight is done. */
export interface StatisticsKeeper {
  stop(): Promise<void>;
}

/**
 * Starts keeping the statistics; resolves once the first round is done. The first round is awaited
 * so that a service started after a bulk load plans with its statistics from the first request.
 * Stopping waits for a round in flight, so that nothing runs on a pool being closed or a schema
 * being dropped. `everySeconds`: the rounds' interval (STATISTICS_INTERVAL), null for the engine's own.
 */
export async function keepStatistics(db: Knex, everySeconds: number | null = null, refreshRows?: number): Promise<StatisticsKeeper> {
  await upkeep(db);
  const stopRefreshing = refreshAfterWrites(db, refreshRows);
  const every = everySeconds !== null ? everySeconds * 1000 : isPostgres(db) ? POSTGRES_EVERY_MS : SQLITE_EVERY_MS;
  const inFlight = new Set<Promise<void>>();
  const timer = setInterval(() => {
    const round = upkeep(db);
    inFlight.add(round);
    void round.finally(() => inFlight.delete(round));
  }, every);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all([...inFlight, stopRefreshing()]);
    },
  };
}
