/**
 * Reads past knex's query builder where it costs: rows by ids from compiled templates (one per key
 * and id count), the reads of one level batched into one PostgreSQL round trip, and SQLite statements
 * run on the idle connection directly.
 */
import type { Knex } from 'knex';
import { isPostgres } from './db.js';
import { inBatch, literalsOf } from './pg-batch.js';
import { arrayBindings, arrayForm, MOST_LISTED, type ArrayForm } from './id-arrays.js';
import { asArrays, objectRows } from './pg-rows.js';

interface PoolClient {
  acquireConnection(): Promise<any>;
  releaseConnection(connection: unknown): unknown;
  _formatBindings?(bindings: readonly unknown[]): unknown[];
  pool?: { free?: { resource: unknown }[]; numPendingAcquires(): number; numPendingCreates(): number };
}

/**
 * Runs a read (a select builder or raw select) straight on a pool connection, past knex's runner:
 * for the statements every request makes (the cache version, the object, its nested rows, tags,
 * counts), where the runner's promise chain and bookkeeping cost more than SQLite's own work. The
 * connection comes from the pool as for any query, so on SQLite (one connection) it waits for a
 * running transaction; inside a transaction the query simply runs through it. `query` listeners
 * (the query-count test) still see the statement.
 */
export async function readRows(db: Knex, query: Knex.QueryBuilder | Knex.Raw): Promise<Record<string, any>[]> {
  if (db.isTransaction) return rowsOf(await query);
  const { sql, bindings } = query.toSQL().toNative();
  return runRead(db, sql, bindings as unknown[]);
}

/**
 * readRows for a read that should not wait in a batch (a list's count): on PostgreSQL it runs bound,
 * on a pool connection of its own, so its backend works beside the one answering the page and its
 * levels instead of after them in the same multi-statement query. Elsewhere it is readRows.
 */
export async function readAlone(db: Knex, query: Knex.QueryBuilder | Knex.Raw): Promise<Record<string, any>[]> {
  if (db.isTransaction || !isPostgres(db)) return readRows(db, query);
  const { sql, bindings } = query.toSQL().toNative();
  return runRead(db, sql, bindings as unknown[], false);
}

function rowsOf(result: unknown): Record<string, any>[] {
  return Array.isArray(result) ? result : (result as { rows: Record<string, any>[] }).rows;
}

interface Template { sql: string; native: string; bindings: unknown[]; slots: number[]; array: (ArrayForm & { knex: string }) | null }
/** Compiled reads by key, dialect and id count (bounded: a full map starts again). */
const templates = new Map<string, Template>();
/** Stand-ins for the ids while a template is compiled: no real id is negative. */
const SENTINEL = -(2 ** 40);

/**
 * readRows for a statement whose SQL depends only on how many ids it takes (nested rows by id, a
 * page's tags or counts): built and compiled by knex once per `key` and id count, then only the
 * ids are bound. `build` receives stand-in ids and must use them as its only varying input.
 */
export async function readByIds(db: Knex, key: string, ids: number[], build: (ids: number[]) => Knex.QueryBuilder | Knex.Raw): Promise<Record<string, any>[]> {
  const full = `${isPostgres(db) ? 'pg' : 'sqlite'}:${key}:${ids.length}`;
  let t = templates.get(full);
  if (!t) {
    const query = build(ids.map((_, i) => SENTINEL - i));
    const compiled = query.toSQL();
    const native = compiled.toNative();
    const bindings = native.bindings as unknown[];
    const slots = bindings.map((b) => (typeof b === 'number' && b <= SENTINEL && b > SENTINEL - ids.length ? SENTINEL - b : -1));
    const form = isPostgres(db) && ids.length > MOST_LISTED ? arrayForm(native.sql, slots, ids.length) : null;
    // knex's own placeholders for a transaction's raw: the form numbers its parameters in order of appearance.
    const array = form && { ...form, knex: form.sql.replace(/\$\d+\b/g, '?') };
    t = { sql: compiled.sql, native: native.sql, bindings, slots, array };
    if (templates.size >= 5000) templates.clear();
    templates.set(full, t);
  }
  const bindings = t.slots.map((slot, i) => (slot >= 0 ? ids[slot] : t.bindings[i]));
  // In a transaction (a bulk write reading its 1000 rows) too, a long list is one array parameter:
  // PostgreSQL takes ~3 ms longer over `in ($1, …, $1000)` than over `= any($1)` (parameters parsed one by one).
  if (db.isTransaction) return rowsOf(await (t.array ? db.raw(t.array.knex, arrayBindings(t.array, bindings, ids) as Knex.RawBinding[]) : db.raw(t.sql, bindings as Knex.RawBinding[])));
  if (t.array) return runRead(db, t.array.sql, arrayBindings(t.array, bindings, ids));
  return runRead(db, t.native, bindings);
}

/**
 * `query` (a read by a page's ids from a table that is often empty: a link table, the rows pointing
 * back at the page) made to cost nothing when `table` has no rows: the condition `exists (select 1
 * from <table>)` does not depend on the row, so SQLite tests it once before the loop (skipping the
 * walk of the id list) and PostgreSQL plans it as a one-time filter. Still one statement, read from
 * the database itself, so several processes sharing it see every table as it is.
 */
export function whenAnyRow<Q extends Knex.QueryBuilder>(db: Knex, query: Q, table: string): Q {
  return query.whereExists(db(table).select(db.raw('1'))) as Q;
}

/** Does readTablesByIds batch reads on this connection (PostgreSQL, outside a transaction)? */
export function batchesReads(db: Knex): boolean {
  return !db.isTransaction && isPostgres(db);
}

/**
 * A read of readTablesByIds: the rows of `table` whose ids are `ids`, or, with `via`, the rows of
 * `table` that the rows with those ids point at: `via` is the chain of relations from the ids'
 * table outwards, each step a table and its column pointing at the next step's table (the last at
 * `table`). `columns`: only these (else every column).
 */
export interface TableRead { table: string; ids: number[]; via?: { table: string; column: string }[]; columns?: string[] | null }

/**
 * `select * from <table> where id in (...)` for several tables, on PostgreSQL in the round trip of
 * the reads started beside them (inBatch, runtime/data/pg-batch.ts), outside transactions and for
 * lists of at most `most` ids; null otherwise (the caller reads them one by one). A device's site,
 * rack, role, type, tenant and platform come back together, with its tags and counts, and (a read
 * `via` the type) the type's manufacturer.
 */
export async function readTablesByIds(db: Knex, reads: TableRead[], most: number): Promise<Record<string, any>[][] | null> {
  if (!batchesReads(db) || reads.some((r) => !r.ids.length || r.ids.length > most)) return null;
  const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
  return Promise.all(reads.map(({ table, ids, via = [], columns }) => {
    if (!ids.every(Number.isSafeInteger)) throw new Error(`ids of ${table} must be integers`);
    // A long list as one array parameter (id-arrays.ts).
    const long = ids.length > MOST_LISTED;
    let match = long ? '= any($1::bigint[])' : `in (${ids.map((_, i) => `$${i + 1}`).join(', ')})`;
    for (const step of via) match = `in (select ${quote(step.column)} from ${quote(step.table)} where "id" ${match})`;
    const sql = `select ${columns ? columns.map(quote).join(', ') : '*'} from ${quote(table)} where "id" ${match}`;
    const bindings = long ? [ids] : ids;
    (db as unknown as NodeJS.EventEmitter).emit('query', { sql, bindings });
    return inBatch(db, sql, bindings, long ? literalsOf(bindings)! : ids.map(String));
  }));
}

async function runRead(db: Knex, sql: string, bindings: unknown[], batch = true): Promise<Record<string, any>[]> {
  (db as unknown as NodeJS.EventEmitter).emit('query', { sql, bindings });
  if (isPostgres(db) && batch) {
    const literals = literalsOf(bindings);
    if (literals !== null) return inBatch(db, sql, bindings, literals);
  }
  if (!isPostgres(db)) return runOnSqlite(db, sql, bindings, true);
  return onConnection(db, async (connection) => objectRows(await connection.query(asArrays({ text: sql, values: bindings }))));
}

/** `fn` with a pool connection of its own (the driver's, past knex's runner), given back after. */
export async function onConnection<T>(db: Knex, fn: (connection: any) => Promise<T>): Promise<T> {
  const client = db.client as PoolClient;
  const connection = await client.acquireConnection();
  try {
    return await fn(connection);
  } finally {
    await client.releaseConnection(connection);
  }
}

/**
 * One SQLite statement straight on a pool connection, past knex's runner (inside a transaction, on
 * the transaction's connection): its rows when `reader`, else none. Values are bound as knex's
 * better-sqlite3 client binds them (numbers for booleans and dates); the driver's errors, with their
 * codes, reach the caller unchanged. The caller emits the `query` event.
 */
export async function runOnSqlite(db: Knex, sql: string, values: unknown[], reader: boolean): Promise<Record<string, any>[]> {
  const client = db.client as PoolClient;
  // better-sqlite3 runs a statement synchronously: on the idle connection nothing (no transaction,
  // no other statement) can come between, so it need not be taken from the pool and given back,
  // which cost more than a read by id (the pool's promises and timers).
  const idle = db.isTransaction ? null : idleConnection(client);
  if (idle) return runStatement(client, idle, sql, values, reader);
  const connection = await client.acquireConnection();
  try {
    return runStatement(client, connection, sql, values, reader);
  } finally {
    await client.releaseConnection(connection);
  }
}

function runStatement(client: PoolClient, connection: any, sql: string, values: unknown[], reader: boolean): Record<string, any>[] {
  const statement = connection.prepare(sql);
  const bound = client._formatBindings ? client._formatBindings(values) : values;
  if (reader) return statement.all(...bound);
  statement.run(...bound);
  return [];
}

/** The pool's connection when it is idle and nobody is waiting for one (tarn's pool, as knex makes it); else null. */
function idleConnection(client: PoolClient): unknown {
  const pool = client.pool;
  if (!pool?.free?.length || pool.numPendingAcquires() !== 0 || pool.numPendingCreates() !== 0) return null;
  return pool.free[0].resource;
}
