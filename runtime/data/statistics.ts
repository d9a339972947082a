/**
 * Planner statistics. Without them both engines pick plans by rule of thumb, and `count` (count.ts)
 * has no estimate of a table's size.
 * - SQLite keeps none unless asked. So each process runs `PRAGMA optimize` once it is up and every
 *   hour, as SQLite recommends for long-lived connections: it analyses, within `analysis_limit` rows
 *   per index, only the tables whose size changed much since they were last analysed (or never
 *   were), so it costs little when nothing changed.
 * - PostgreSQL's autovacuum analyses a table once more than 50 rows plus a tenth of it changed. Where
 *   autovacuum is switched off, for the server or for a table, nothing would: the planner would go on
 *   with the statistics of an empty table (the bench's list of 1000 IP addresses took 148 ms instead
 *   of 59). For those tables the service applies autovacuum's rule itself, once it is up and every
 *   minute (autovacuum's own interval); one process at a time, the others skip that round.
 */
import type { Knex } from 'knex';
import { isPostgres } from './db.js';
import { foldTallies } from './row-tallies.js';
import { log } from '../core/log.js';

const SQLITE_EVERY_MS = 60 * 60 * 1000;
const POSTGRES_EVERY_MS = 60 * 1000;
/** Advisory lock of the PostgreSQL round, with the schema's hash: services on other schemas do not wait for it. */
const ANALYZE_LOCK = 0x4e4c_5354;

async function optimizeSqlite(db: Knex): Promise<void> {
  await db.raw('pragma analysis_limit = 1000');
  // 0x10002: look at every table, not only those this connection queried.
  await db.raw('pragma optimize = 0x10002');
}

/** Tables of the current schema that autovacuum leaves alone and that changed past its threshold. */
const NEGLECTED = `
  select format('%I.%I', s.schemaname, s.relname) as name
  from pg_stat_user_tables s join pg_class c on c.oid = s.relid
  where s.schemaname = current_schema()
    and s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0)
    and (not current_setting('autovacuum')::boolean
      or exists (select 1 from unnest(c.reloptions) o where o ~* '^autovacuum_enabled=(false|off|no|0|f)$'))
  order by s.relname`;

async function analyzePostgres(db: Knex): Promise<void> {
  await db.transaction(async (trx) => {
    const lock = await trx.raw('select pg_try_advisory_xact_lock(?, hashtext(current_schema())) as mine', [ANALYZE_LOCK]);
    if (!lock.rows[0].mine) return;
    const tables = (await trx.raw(NEGLECTED)).rows as { name: string }[];
    for (const { name } of tables) await trx.raw(`analyze ${name}`);
    if (tables.length) log.debug({ tables: tables.map((t) => t.name) }, 'analysed tables autovacuum leaves alone');
    // The same round folds the row tallies of tables written but seldom listed.
    if ((await trx.raw("select to_regclass('row_tally') is not null as present")).rows[0].present) await foldTallies(trx);
  });
}

async function upkeep(db: Knex): Promise<void> {
  try {
    await (isPostgres(db) ? analyzePostgres(db) : optimizeSqlite(db));
  } catch (error) {
    log.warn({ err: error }, 'keeping planner statistics failed');
  }
}

/**
 * Starts keeping the statistics; resolves, once the first round is done, to the function that stops
 * it. The first round is awaited so that a service started after a bulk load plans with its
 * statistics from the first request. `everySeconds`: the rounds' interval (STATISTICS_INTERVAL),
 * null for the engine's own.
 */
export async function keepStatistics(db: Knex, everySeconds: number | null = null): Promise<() => void> {
  await upkeep(db);
  const every = everySeconds !== null ? everySeconds * 1000 : isPostgres(db) ? POSTGRES_EVERY_MS : SQLITE_EVERY_MS;
  const timer = setInterval(() => void upkeep(db), every);
  timer.unref();
  return () => clearInterval(timer);
}
