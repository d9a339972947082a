/**
 * The database connection: SQLite (better-sqlite3, a file under DATA_DIR) by default, PostgreSQL when
 * DATABASE_URL is set. Migrations are in migrate.ts, transactions in transactions.ts, and the reads
 * that go past knex's query builder in reads.ts.
 */
import knexFactory, { type Knex } from 'knex';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { Config } from '../core/config.js';
import { log } from '../core/log.js';
import { neverPrepare } from './pg-batch.js';
import { asArrays, withObjectRows } from './pg-rows.js';

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

/** Counts SQL statements; the tests use it to hold lists to a fixed number of queries. */
export function countQueries(db: Knex): { readonly count: number; stop(): void } {
  let count = 0;
  const listener = () => { count++; };
  db.on('query', listener);
  return { get count() { return count; }, stop: () => { db.removeListener('query', listener); } };
}
