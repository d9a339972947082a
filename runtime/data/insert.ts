/**
 * Multi-row INSERTs sized by bound parameters rather than rows: one statement per request for
 * anything short of tens of thousands of values. On SQLite a plain `VALUES (…), (…)` list, which
 * SQLite parses several times faster than the `SELECT … UNION ALL` form knex emits for it (and which
 * is not limited to 500 rows). On PostgreSQL the rows travel as one JSON parameter expanded by
 * `json_populate_recordset`: one bound value instead of thousands, which the server parses and binds
 * two to three times faster, and the client no longer numbers and serializes each binding. Columns
 * of objects (snapshots, stored as their JSON text) travel beside it (objectColumns).
 */
import type { Knex } from 'knex';
import { isPostgres } from './db.js';
import { runOnSqlite } from './reads.js';

/** Bound parameters per statement: under SQLite's 32,766 and PostgreSQL's 65,535 (PostgreSQL's JSON form has one). */
const MAX_PARAMETERS = 30_000;
/** Rows of `columns` per statement under the bound-parameter limit. */
const rowsPerStatement = (columns: string[]) => Math.max(1, Math.floor(MAX_PARAMETERS / Math.max(1, columns.length)));

/** A value as json_populate_recordset reads it for the column; undefined where only knex's DEFAULT would do. */
export function jsonValue(v: unknown): unknown {
  if (v === undefined) return undefined;
  if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (Buffer.isBuffer(v)) return `\\x${v.toString('hex')}`;
  if (v instanceof Date) return v.toISOString();
  // a plain object goes in as JSON, which a text column stores as its JSON text: what the driver
  // would have sent, without encoding it twice (an array would be a PostgreSQL array: not this way)
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) return v;
  return undefined;
}

/** The rows as one JSON array for json_populate_recordset, or null when a row lacks a column or holds a value it cannot carry. */
export function asJson(rows: Record<string, unknown>[], columns: string[]): string | null {
  const out: Record<string, unknown>[] = [];
  for (const r of rows) {
    const o: Record<string, unknown> = {};
    for (const c of columns) {
      const v = jsonValue(r[c]);
      if (v === undefined) return null;
      o[c] = v;
    }
    out.push(o);
  }
  return JSON.stringify(out);
}

/** Between the values of an object column (objectColumns): JSON text never holds it raw (it escapes every control character). */
const SEPARATOR = '\u001e';
/** An absent (null) value there: JSON text of an object always starts with `{`. */
const ABSENT = '-';

/**
 * The columns whose values are all objects or null (at least one object): snapshots, custom field
 * data. Their JSON text travels as one text parameter per column, the rows' values joined by
 * SEPARATOR, which PostgreSQL splits (`string_to_array`) about ten times faster than it parses the
 * same text inside the JSON document: the 2,100 change-log rows of 100 deleted devices (1.76 MB of
 * snapshots) insert in ~30 ms instead of ~38.
 */
function objectColumns(rows: Record<string, unknown>[], columns: string[]): string[] {
  return columns.filter((c) => {
    let object = false;
    for (const r of rows) {
      const v = r[c];
      if (v === null) continue;
      if (typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype) return false;
      object = true;
    }
    return object;
  });
}

/**
 * The text and values of one PostgreSQL INSERT of all rows in the JSON transfer form (the plain
 * columns as one JSON document, each object column as one text parameter), or null when a row
 * holds a value the form cannot carry. `placeholder(n)` spells the n-th parameter (1-based): knex's
 * `?` by default, the driver's `$n` for a caller past knex (the bench's write floor).
 */
export function postgresInsertText(table: string, columns: string[], rows: Record<string, unknown>[], returning: string | null, placeholder: (n: number) => string = () => '?'): { sql: string; values: unknown[] } | null {
  const objects = objectColumns(rows, columns);
  const plain = columns.filter((c) => !objects.includes(c));
  const json = asJson(rows, plain);
  if (json === null) return null;
  // The object columns zipped by position (one unnest of several arrays) and joined to the rows by it.
  const texts = objects.map((c) => rows.map((r) => (r[c] === null ? ABSENT : JSON.stringify(r[c]))).join(SEPARATOR));
  const zip = objects.length
    ? ` join unnest(${objects.map((_, i) => `string_to_array(${placeholder(i + 2)}, chr(${SEPARATOR.charCodeAt(0)}))`).join(', ')}) with ordinality as x(${objects.map((_, i) => `c${i}`).join(', ')}, n) on x.n = r.ordinality`
    : '';
  const select = [...plain.map((c) => `r.${quoted(c)}`), ...objects.map((_, i) => `nullif(x.c${i}, '${ABSENT}')`)];
  const back = returning === '*' ? ' returning *' : returning ? ` returning ${quoted(returning)}` : '';
  // WITH ORDINALITY ... ORDER BY: rows are inserted (and their ids drawn) in the order given.
  const sql = `insert into ${quoted(table)} (${[...plain, ...objects].map(quoted).join(', ')}) select ${select.join(', ')} from json_populate_recordset(null::${quoted(table)}, ${placeholder(1)}::json) with ordinality as r${zip} order by r.ordinality${back}`;
  return { sql, values: [json, ...texts] };
}

/** One statement for all rows as JSON; rows it cannot carry go through knex, in chunks of bound parameters. */
async function insertPostgres(db: Knex, table: string, columns: string[], rows: Record<string, unknown>[], returning: string | null): Promise<Record<string, unknown>[]> {
  const statement = postgresInsertText(table, columns, rows, returning);
  if (statement) return (await db.raw(statement.sql, statement.values as Knex.RawBinding[])).rows;
  const out: Record<string, unknown>[] = [];
  const perStatement = rowsPerStatement(columns);
  for (let i = 0; i < rows.length; i += perStatement) {
    const q = db(table).insert(rows.slice(i, i + perStatement));
    if (returning) out.push(...await q.returning(returning)); else await q;
  }
  return out;
}

/**
 * The texts and values of SQLite INSERTs of the rows: multi-row VALUES lists, as few as its parameter
 * limit allows (one for anything short of tens of thousands of values).
 */
export function sqliteInsertTexts(table: string, columns: string[], rows: Record<string, unknown>[], returning: string | null): { sql: string; values: unknown[] }[] {
  const perStatement = rowsPerStatement(columns);
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const back = returning === '*' ? ' returning *' : returning ? ` returning ${quoted(returning)}` : '';
  const out: { sql: string; values: unknown[] }[] = [];
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement);
    const values: unknown[] = [];
    for (const r of chunk) for (const c of columns) values.push(r[c] === undefined ? null : r[c]);
    out.push({ sql: `insert into ${quoted(table)} (${columns.map(quoted).join(', ')}) values ${chunk.map(() => tuple).join(', ')}${back}`, values });
  }
  return out;
}

async function insertChunks(db: Knex, table: string, rows: Record<string, unknown>[], returning: string | null): Promise<Record<string, unknown>[]> {
  if (!rows.length) return [];
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  if (isPostgres(db)) return insertPostgres(db, table, columns, rows, returning);
  const out: Record<string, unknown>[] = [];
  for (const { sql, values } of sqliteInsertTexts(table, columns, rows, returning)) {
    const result = await runSqlite(db, sql, values, returning !== null);
    if (returning) out.push(...result);
  }
  return out;
}

function quoted(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Runs an INSERT on the request's SQLite connection, past knex: with thousands of values its raw
 * formatter (one regex replacement and wrapping check per `?`) cost more than SQLite's own work.
 * `query` listeners (the query-count tests) still see the statement.
 */
async function runSqlite(db: Knex, sql: string, values: unknown[], reader: boolean): Promise<Record<string, unknown>[]> {
  // on the client: a transaction's client passes it on to the transaction's and the root's listeners
  (db.client as NodeJS.EventEmitter).emit('query', { sql, bindings: values });
  return runOnSqlite(db, sql, values, reader);
}

/** Inserts rows (objects with the same or fewer keys); returns the new ids in order when asked. */
export async function insertRows(db: Knex, table: string, rows: Record<string, unknown>[], returnIds = false): Promise<number[]> {
  const result = await insertChunks(db, table, rows, returnIds ? 'id' : null);
  return returnIds ? result.map((r) => Number(typeof r === 'object' ? r.id : r)) : [];
}

/** Inserts rows and returns them as stored (every column, in order): what a read of the new rows would give. */
export async function insertReturning(db: Knex, table: string, rows: Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
  return insertChunks(db, table, rows, '*');
}
