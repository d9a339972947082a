/**
 * The scale seed's bulk rows (engine.ts --scale): a million IP addresses cannot go through the API in
 * minutes on this machine, so the bench creates one object of each kind through the API (the
 * template, with every column the service computes) and copies it in set-based SQL, changing only the
 * columns that differ per row (name and its natural sort key, the address and its bounds, the parent's
 * id). This is a bench fixture, so it names tables and columns; the runtime never does.
 */
import { createRequire } from 'node:module';
import { modelList } from '../../runtime/data/registry.js';

const require = createRequire(import.meta.url);
type Row = Record<string, unknown>;
type SqliteDb = { prepare(sql: string): { run(...v: unknown[]): unknown; get(...v: unknown[]): Row | undefined; all(...v: unknown[]): Row[] }; transaction<T>(fn: () => T): () => T; pragma(s: string): unknown; exec(sql: string): void; close(): void };
const Database = require('better-sqlite3') as new (file: string) => SqliteDb;
const pg = require('pg') as { Pool: new (options: Record<string, unknown>) => { query(sql: string, values?: unknown[]): Promise<{ rows: Row[] }>; end(): Promise<void> } };

export interface BulkDb {
  /** The first row (lowest id) whose `column` is `value`, every column. */
  row(table: string, column: string, value: unknown): Promise<Row>;
  /** Inserts `count` copies of `template` (without its id), `change(i)` replacing some columns of the i-th. */
  copies(table: string, template: Row, count: number, change: (i: number) => Row): Promise<void>;
  /** Ids of a table's rows above `after`, in order. */
  ids(table: string, after: number): Promise<number[]>;
  /** Fresh planner statistics (and, on PostgreSQL, the visibility map), as a bulk load should leave them. */
  analyze(tables: string[]): Promise<void>;
  close(): Promise<void>;
}

const BATCH = 10_000;

/**
 * A copy starts with its counter columns at 0, whatever its template's were: the triggers count what
 * the copies then get (runtime/data/counter-columns.ts), as they count the template's own children.
 */
function counted(table: string, template: Row): Row {
  const d = modelList.find((m) => m.definition.table === table)?.definition;
  const zeros = Object.values(d?.counts ?? {}).filter((c) => c.column).map((c) => [c.column!, 0]);
  return { ...template, ...Object.fromEntries(zeros) };
}

export function sqliteBulk(file: string): BulkDb {
  const db = new Database(file);
  db.pragma('busy_timeout = 30000');
  // Each single-row INSERT into a table with triggers (counter columns, the address search index)
  // keeps a statement journal, which spills to a new temporary file per statement when it is kept on
  // disk: 4x slower copies of devices. In memory it stays a few pages.
  db.pragma('temp_store = memory');
  return {
    async row(table, column, value) { return db.prepare(`select * from "${table}" where "${column}" = ? order by id limit 1`).get(value)!; },
    async copies(table, original, count, change) {
      const template = counted(table, original);
      const columns = Object.keys(template).filter((c) => c !== 'id');
      const insert = db.prepare(`insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns.map(() => '?').join(', ')})`);
      for (let start = 0; start < count; start += BATCH) {
        db.transaction(() => {
          for (let i = start; i < Math.min(count, start + BATCH); i++) {
            const row = { ...template, ...change(i) };
            insert.run(...columns.map((c) => row[c]));
          }
        })();
      }
    },
    async ids(table, after) { return db.prepare(`select id from "${table}" where id > ? order by id`).all(after).map((r) => Number(r.id)); },
    async analyze(tables) { for (const t of tables) db.exec(`ANALYZE "${t}"`); },
    async close() { db.close(); },
  };
}

export function postgresBulk(connectionString: string, schema: string): BulkDb {
  const pool = new pg.Pool({ connectionString, max: 1, options: `-c search_path=${schema}` });
  // JSON carries the rows in one parameter per statement; bytea goes as its hex text form.
  const json = (v: unknown) => (Buffer.isBuffer(v) ? `\\x${v.toString('hex')}` : v);
  return {
    async row(table, column, value) { return (await pool.query(`select * from "${table}" where "${column}" = $1 order by id limit 1`, [value])).rows[0]; },
    async copies(table, original, count, change) {
      const template = counted(table, original);
      const columns = Object.keys(template).filter((c) => c !== 'id');
      const list = columns.map((c) => `"${c}"`).join(', ');
      for (let start = 0; start < count; start += BATCH) {
        const rows: Row[] = [];
        for (let i = start; i < Math.min(count, start + BATCH); i++) {
          const row = { ...template, ...change(i) };
          rows.push(Object.fromEntries(columns.map((c) => [c, json(row[c])])));
        }
        await pool.query(`insert into "${table}" (${list}) select ${list} from json_populate_recordset(null::"${table}", $1::json)`, [JSON.stringify(rows)]);
      }
    },
    async ids(table, after) { return (await pool.query(`select id from "${table}" where id > $1 order by id`, [after])).rows.map((r) => Number(r.id)); },
    async analyze(tables) { await pool.query(`VACUUM (ANALYZE) ${tables.map((t) => `"${t}"`).join(', ')}`); },
    async close() { await pool.end(); },
  };
}
