/**
 * The database connection: SQLite (better-sqlite3, a file under DATA_DIR) by default, PostgreSQL when
 * DATABASE_URL is set. Migrations are the generated ones plus the runtime's own, applied in name order.
 */
import knexFactory, { type Knex } from 'knex';
import { mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import type { Config } from '../core/config.js';
import { log } from '../core/log.js';
import { isConnectionLost } from '../core/errors.js';
import { inBatch, literalsOf, neverPrepare } from './pg-batch.js';
import { arrayBindings, arrayForm, MOST_LISTED, type ArrayForm } from './id-arrays.js';
import { asArrays, objectRows, withObjectRows } from './pg-rows.js';

const require = createRequire(import.meta.url);
type Ctor = new (...args: any[]) => any;
const BetterSqliteClient = require('knex/lib/dialects/better-sqlite3/index.js') as Ctor;
const SqliteTransaction = require('knex/lib/dialects/sqlite3/execution/sqlite-transaction.js') as Ctor;

/**
 * Write transactions take SQLite's write lock at BEGIN (BEGIN IMMEDIATE), so that, with several
 * processes on one file, a writer waits its turn (busy_timeout) instead of failing at once with
 * SQLITE_BUSY, as a deferred transaction does when it reads first and another process writes
 * before it upgrades to a writer.
 */
class ImmediateTransaction extends SqliteTransaction {
  begin(conn: unknown) {
    return this.query(conn, 'BEGIN IMMEDIATE;');
  }
}

const PgClientBase = require('knex/lib/dialects/postgres/index.js') as Ctor;

/** Statements waiting for their turn on a PostgreSQL connection (see PgClient). */
const turns = new WeakMap<object, Promise<unknown>>();

/**
 * Statements issued together on one connection (a transaction's independent reads, a delete's change
 * log written while its rows are removed) take turns here: node-postgres runs one query at a time per
 * connection and deprecates queueing them itself. The JavaScript between them still overlaps the
 * server's work on the one before.
 */
class PgClient extends PgClientBase {
  _query(connection: object, obj: { options?: object; response?: unknown }) {
    // Rows as arrays, made objects by pg-rows.ts.
    const run = () => {
      obj.options = asArrays(obj.options ?? {});
      return (super._query(connection, obj) as Promise<typeof obj>).then((done) => { done.response = withObjectRows(done.response); return done; });
    };
    const before = turns.get(connection);
    const mine = before ? before.then(run) : run();
    const settled = mine.then(() => undefined, () => undefined);
    turns.set(connection, settled);
    void settled.then(() => { if (turns.get(connection) === settled) turns.delete(connection); });
    return mine;
  }
}

const SqliteQueryCompiler = require('knex/lib/dialects/sqlite3/query/sqlite-querycompiler.js') as Ctor;

/**
 * LIMIT and OFFSET written as numbers, not bound: SQLite recompiles a statement whose LIMIT is a
 * bound parameter every time it runs (~0.1 ms, more than the lookup itself, for every `.first()`).
 * Only integers are inlined; the SQL text stays one per page size, so prepared statements are reused.
 */
class LiteralLimitCompiler extends SqliteQueryCompiler {
  _getValueOrParameterFromAttribute(attribute: string, rawValue?: unknown) {
    const value = (this as unknown as { single: Record<string, unknown> }).single[attribute];
    if ((attribute === 'limit' || attribute === 'offset') && Number.isSafeInteger(value)) return String(value);
    return super._getValueOrParameterFromAttribute(attribute, rawValue);
  }
}

class SqliteClient extends BetterSqliteClient {
  transaction(...args: unknown[]) {
    return new ImmediateTransaction(this, ...args);
  }

  queryCompiler(builder: unknown, formatter: unknown) {
    return new LiteralLimitCompiler(this, builder, formatter);
  }
}

/**
 * knex's own messages (e.g. "Acquire connection error" with a stack) go to the debug level: the
 * failures themselves reach the caller as errors, and start-up reports them as one line.
 */
const knexLog = {
  warn: (message: unknown) => log.debug({ knex: 'warn' }, String(message)),
  error: (message: unknown) => log.debug({ knex: 'error' }, String(message)),
  deprecate: (method: string, alternative: string) => log.debug({ knex: 'deprecate' }, `${method} is deprecated; use ${alternative}`),
  debug: (message: unknown) => log.debug({ knex: 'debug' }, String(message)),
};

/** How long opening a PostgreSQL connection, and waiting for a free one, may take. */
const CONNECT_TIMEOUT_MS = 5_000;
const ACQUIRE_TIMEOUT_MS = 10_000;

/** How long a statement waits for another process's write lock before SQLITE_BUSY. */
const SQLITE_BUSY_TIMEOUT_MS = 30_000;

export type Db = Knex;

export function isPostgres(db: Knex): boolean {
  return db.client.driverName === 'pg';
}

interface SqliteConnection {
  pragma(s: string): unknown;
  prepare(sql: string): unknown;
  function(name: string, options: { deterministic: boolean }, fn: (...args: unknown[]) => unknown): unknown;
}

/** `regexp(pattern, text)` and `iregexp(…)`, which SQLite leaves to the application (permission constraints' regex lookups). */
function regexpFunctions(conn: SqliteConnection): void {
  const compiled = new Map<string, RegExp>();
  const test = (flags: string) => (pattern: unknown, text: unknown) => {
    if (pattern === null || text === null) return null;
    const key = `${flags}/${String(pattern)}`;
    let re = compiled.get(key);
    if (!re) {
      if (compiled.size >= 500) compiled.clear();
      compiled.set(key, (re = new RegExp(String(pattern), flags)));
    }
    return re.test(String(text)) ? 1 : 0;
  };
  conn.function('regexp', { deterministic: true }, test(''));
  conn.function('iregexp', { deterministic: true }, test('i'));
}

/**
 * knex prepares every statement anew; the same few hundred SQL texts recur on every request, so the
 * connection keeps its prepared statements by text (a full cache starts again).
 */
function reusePreparedStatements(conn: SqliteConnection): void {
  const prepare = conn.prepare.bind(conn);
  const statements = new Map<string, unknown>();
  conn.prepare = (sql: string) => {
    let statement = statements.get(sql);
    if (!statement) {
      if (statements.size >= 2000) statements.clear();
      statements.set(sql, (statement = prepare(sql)));
    }
    return statement;
  };
}

/** The database's knex: PostgreSQL at `url` (DATABASE_URL, or DATABASE_READ_URL for the standby), else SQLite in DATA_DIR. */
export function openDatabase(config: Config, url = config.databaseUrl): Knex {
  if (url) {
    const db = knexFactory({
      client: PgClient as unknown as typeof knexFactory.Client,
      // A server that does not answer (a host that died, a failover under way) fails the request
      // within seconds (503, errors.ts) instead of holding it: connecting, and waiting for a pool slot.
      connection: { connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true },
      acquireConnectionTimeout: ACQUIRE_TIMEOUT_MS,
      searchPath: config.databaseSchema ? [config.databaseSchema] : undefined,
      log: knexLog,
      pool: { min: 0, max: config.databasePoolMax ?? 10 },
    });
    if (config.databasePreparedStatements === false) neverPrepare(db);
    return db;
  }
  mkdirSync(config.dataDir, { recursive: true });
  return knexFactory({
    client: SqliteClient as unknown as typeof knexFactory.Client,
    connection: { filename: join(config.dataDir, 'netledger.sqlite3') },
    useNullAsDefault: true,
    log: knexLog,
    pool: {
      min: 1,
      max: 1,
      afterCreate: (conn: SqliteConnection, done: (err: Error | null, conn: unknown) => void) => {
        reusePreparedStatements(conn);
        regexpFunctions(conn);
        // Foreign keys are off by default in SQLite; WAL lets readers run beside the single writer.
        conn.pragma('foreign_keys = ON');
        conn.pragma('journal_mode = WAL');
        conn.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
        done(null, conn);
      },
    },
  });
}

const here = dirname(fileURLToPath(import.meta.url));
const migrationDirs = [join(here, '../../generated/migrations'), join(here, 'migrations')];

interface MigrationModule { up(knex: Knex): Promise<void>; down(knex: Knex): Promise<void> }

/** knex migration source over both folders, ordered by file name. */
const migrationSource: Knex.MigrationSource<{ name: string; path: string }> = {
  async getMigrations() {
    return migrationDirs
      // *.ts under tsx, *.js when compiled (dist/); the name leaves the extension out, so both agree.
      .flatMap((dir) => readdirSync(dir).filter((f) => /^\d{4}_.*\.(ts|js)$/.test(f) && !f.endsWith('.d.ts')).map((f) => ({ name: f.replace(/\.(ts|js)$/, ''), path: join(dir, f) })))
      .sort((a, b) => a.name.localeCompare(b.name));
  },
  getMigrationName: (m) => m.name,
  async getMigration(m) {
    return (await import(pathToFileURL(m.path).href)) as MigrationModule;
  },
};

export async function migrate(db: Knex, schema: string | null): Promise<string[]> {
  if (schema && isPostgres(db)) await db.raw('CREATE SCHEMA IF NOT EXISTS ??', [schema]);
  // One migration per transaction rather than knex's one transaction for the whole batch: a fresh
  // PostgreSQL database would otherwise hold a lock per table and index of every migration at once
  // (about 2,500), close to the server's shared lock table (64 per connection by default).
  const applied: string[] = [];
  for (;;) {
    const [, names] = await db.migrate.up({ migrationSource, schemaName: schema ?? undefined });
    if (!(names as string[]).length) return applied;
    applied.push(...(names as string[]));
  }
}

/** Migrations not applied yet (GET /readyz is 503 while any is). */
export async function pendingMigrations(db: Knex, schema: string | null): Promise<string[]> {
  const [, pending] = await db.migrate.list({ migrationSource, schemaName: schema ?? undefined });
  return (pending as { name?: string; file?: string }[]).map((m) => m.name ?? m.file ?? String(m));
}

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

/**
 * Sets different values on many rows with one UPDATE per chunk (`SET col = CASE id WHEN … END`),
 * instead of one statement per row.
 */
export async function updateEach(db: Knex, table: string, updates: { id: number; values: Record<string, unknown> }[]): Promise<void> {
  if (!updates.length) return;
  const columns = Object.keys(updates[0].values);
  for (let i = 0; i < updates.length; i += 300) {
    const chunk = updates.slice(i, i + 300);
    // PostgreSQL types the untyped parameters of a CASE as text: numbers need a cast.
    const value = (c: string) => (typeof chunk[0].values[c] === 'number' ? 'CAST(? AS bigint)' : '?');
    const sets = columns.map((c) => `?? = CASE ${chunk.map(() => `WHEN id = ? THEN ${value(c)}`).join(' ')} END`).join(', ');
    const bindings = columns.flatMap((c) => [c, ...chunk.flatMap((u) => [u.id, u.values[c]])]) as Knex.RawBinding[];
    await db.raw(`UPDATE ?? SET ${sets} WHERE id IN (${chunk.map(() => '?').join(', ')})`, [table, ...bindings, ...chunk.map((u) => u.id)]);
  }
}

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

/** Counts SQL statements; the tests use it to hold lists to a fixed number of queries. */
export function countQueries(db: Knex): { readonly count: number; stop(): void } {
  let count = 0;
  const listener = () => { count++; };
  db.on('query', listener);
  return { get count() { return count; }, stop: () => { db.removeListener('query', listener); } };
}
