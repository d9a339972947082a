/**
 * Planner statistics after bulk writes. A transaction that changed many rows of a table (a bulk
 * request, a cascade) leaves the planner with the statistics of the table as it was, often of an
 * empty table: PostgreSQL's autovacuum catches up within a minute or so, SQLite's hourly optimize
 * later, and meanwhile lists plan badly (a page of 1,000 IP addresses took 4-10x its time right
 * after a seed). So the rows each committed transaction wrote (counted from its changes) add to what
 * their table owes, and a table that owes at least max(MIN_ROWS, SHARE × the rows it had when last
 * analysed) is analysed: off the request's path, in a round DELAY_MS after the commit that made it
 * due, one round at a time per process, the commits meanwhile adding to the next.
 *
 * A burst analyses each table a few times at most, in one process or many: the size a table is
 * compared with is read at the round from the statistics themselves (PostgreSQL's `reltuples`,
 * SQLite's `sqlite_stat1`), so an analysis by any process raises the bar for all, and a table grows
 * by half between two analyses. On PostgreSQL a transaction-scoped advisory lock per table keeps two
 * processes from analysing one table at once (the second skips: the first's analysis serves both).
 */
import type { Knex } from 'knex';
import client from 'prom-client';
import { isPostgres } from './db.js';
import { afterCommittedWrites, noteWritten } from './transactions.js';
import { onChanges } from './changes.js';
import { model } from './registry.js';
import { registry } from '../core/metrics.js';
import { log } from '../core/log.js';

/** The default of STATISTICS_REFRESH_ROWS. */
export const MIN_ROWS = 500;
const SHARE = 0.5;
const DELAY_MS = 50;
/** Advisory lock of a table's analysis, with a hash of the schema and the table. */
const ANALYSE_LOCK = 0x4e4c_414e;

export const statisticsRefreshes = new client.Counter({
  name: 'netledger_statistics_refreshes_total',
  help: 'Tables analysed by this service after writes changed many of their rows, by table',
  labelNames: ['table'],
  registers: [registry],
});

// Every change of a committed write counts a row of its model's table, and one of the change log's.
onChanges(async (changes, ctx) => {
  for (const c of changes) noteWritten(ctx.db, c.entry.definition.table, 1);
  if (changes.length) noteWritten(ctx.db, model('ObjectChange').definition.table, changes.length);
}, { changesOnly: true });

/** The rows `table` had when last analysed (0 when never). */
async function analysedSize(db: Knex, table: string): Promise<number> {
  if (isPostgres(db)) {
    const { rows } = await db.raw('select greatest(reltuples, 0)::float8 as n from pg_class where oid = to_regclass(?)', [table]);
    return Number(rows[0]?.n ?? 0);
  }
  const stat = await db.raw('select stat from sqlite_stat1 where tbl = ? limit 1', [table]).catch(() => []);
  return Number.parseInt(String((stat as { stat?: string }[])[0]?.stat ?? '0'), 10) || 0;
}

/** Analyses `table` when it still owes enough rows; whether it did. */
async function analyseIfDue(db: Knex, table: string, owed: number, minRows: number): Promise<boolean> {
  const due = async (q: Knex) => owed >= Math.max(minRows, SHARE * await analysedSize(q, table));
  if (!isPostgres(db)) {
    if (!(await due(db))) return false;
    await db.raw('pragma analysis_limit = 1000');
    await db.raw('analyze ??', [table]);
    return true;
  }
  return db.transaction(async (trx) => {
    const { rows } = await trx.raw('select pg_try_advisory_xact_lock(?, hashtext(current_schema() || ?)) as mine', [ANALYSE_LOCK, `.${table}`]);
    if (!rows[0].mine || !(await due(trx))) return false;
    await trx.raw('analyze ??', [table]);
    return true;
  });
}

/** `fresh`: commits added rows since the last round began (a round runs only then). */
interface Refresher { minRows: number; owed: Map<string, number>; fresh: boolean; timer: NodeJS.Timeout | null; round: Promise<void> | null; stopped: boolean }

const refreshers = new Map<Knex, Refresher>();

function schedule(db: Knex, r: Refresher): void {
  if (!r.fresh || r.timer || r.round || r.stopped) return;
  if (![...r.owed.values()].some((n) => n >= r.minRows)) return;
  r.timer = setTimeout(() => {
    r.timer = null;
    r.fresh = false;
    r.round = runRound(db, r).finally(() => { r.round = null; schedule(db, r); });
  }, DELAY_MS);
  r.timer.unref();
}

async function runRound(db: Knex, r: Refresher): Promise<void> {
  for (const [table, owed] of [...r.owed]) {
    if (owed < r.minRows || r.stopped) continue;
    try {
      // Taken before the analysis: commits during it owe again.
      r.owed.delete(table);
      if (await analyseIfDue(db, table, owed, r.minRows)) statisticsRefreshes.inc({ table });
      else r.owed.set(table, (r.owed.get(table) ?? 0) + owed);
    } catch (error) {
      log.warn({ err: error, table }, 'analysing a table after writes failed');
    }
  }
}

afterCommittedWrites((db, rows) => {
  const r = refreshers.get(db);
  if (!r) return;
  for (const [table, n] of rows) r.owed.set(table, (r.owed.get(table) ?? 0) + n);
  r.fresh = true;
  schedule(db, r);
});

/**
 * Starts refreshing the statistics of `db`'s tables after its writes, once a table owes `minRows`
 * (STATISTICS_REFRESH_ROWS); the returned stop waits for a round in flight.
 */
export function refreshAfterWrites(db: Knex, minRows = MIN_ROWS): () => Promise<void> {
  const r: Refresher = { minRows, owed: new Map(), fresh: false, timer: null, round: null, stopped: false };
  refreshers.set(db, r);
  return async () => {
    r.stopped = true;
    if (r.timer) clearTimeout(r.timer);
    r.timer = null;
    refreshers.delete(db);
    await r.round;
  };
}
