/**
 * A fresh SQLite database built in one step. Run one by one, the migrations cost seconds on SQLite:
 * every ALTER TABLE rebuilds a table and makes SQLite read its whole schema again. So `npm run
 * generate` records what the migrations leave in an empty database (every table, index, trigger and
 * view as SQLite stores it, and their rows: generated/migrations/sqlite-schema.json), and an empty
 * SQLite database is given that record in one transaction; the migrations it covers are marked applied
 * and any later one runs as usual. A record whose migrations are not the first ones on disk, in the
 * same order, is not used. test/sqlite-schema.test.ts checks that the record builds the same database as
 * the migrations do.
 */
import type { Knex } from 'knex';
import { existsSync, readFileSync } from 'node:fs';

export interface SqliteSchema {
  /** the migrations the record covers, in the order they ran */
  migrations: string[];
  /** a digest of the migration files' names and text the record was made from (`npm run generate` compares it) */
  digest: string;
  /** CREATE statements: tables, then indexes, views and triggers */
  objects: string[];
  /** each table's rows (knex_migrations and sqlite_sequence included) */
  rows: Record<string, Record<string, unknown>[]>;
}

const KINDS = ['table', 'index', 'view', 'trigger'];

/** The schema objects and rows of `db` (SQLite), in the order they can be created in. */
export async function describeSqlite(db: Knex): Promise<Pick<SqliteSchema, 'objects' | 'rows'>> {
  // a virtual table's shadow tables (full-text search) come with it
  const shadow = new Set((await db.raw("select name from pragma_table_list where schema = 'main' and type = 'shadow'") as { name: string }[]).map((t) => t.name));
  const master: { type: string; name: string; sql: string | null }[] = (await db.raw("select type, name, sql from sqlite_master where sql is not null and name not like 'sqlite_%' order by type, name")).filter((m: { name: string }) => !shadow.has(m.name));
  const objects = KINDS.flatMap((kind) => master.filter((m) => m.type === kind).map((m) => m.sql!));
  const rows: SqliteSchema['rows'] = {};
  for (const table of ['sqlite_sequence', ...master.filter((m) => m.type === 'table').map((m) => m.name)]) {
    const found: Record<string, unknown>[] = await db.raw('select * from ??', [table]);
    if (found.length) rows[table] = found;
  }
  return { objects, rows };
}

/** Whether `db` (SQLite) holds no table at all. */
export async function emptySqlite(db: Knex): Promise<boolean> {
  const [{ n }] = await db.raw("select count(*) as n from sqlite_master where type = 'table'");
  return Number(n) === 0;
}

/**
 * Builds an empty SQLite database from `file`'s record when it covers the first of `names` (the
 * migrations on disk, in order); the migrations it covers, or none when it was not used.
 */
export async function loadSqliteSchema(db: Knex, file: string, names: string[]): Promise<string[]> {
  if (!existsSync(file)) return [];
  const schema = JSON.parse(readFileSync(file, 'utf8')) as SqliteSchema;
  if (!schema.migrations.length || schema.migrations.some((name, i) => names[i] !== name)) return [];
  const now = new Date().toISOString();
  await db.transaction(async (trx) => {
    // rows go in before the triggers exist, as they stand after the migrations (nothing to fire)
    const isTable = (sql: string) => /^create\s+(virtual\s+)?table/i.test(sql);
    for (const sql of schema.objects.filter(isTable)) await trx.raw(sql);
    for (const [table, rows] of Object.entries(schema.rows)) {
      const values = table === 'knex_migrations' ? rows.map((r) => ({ ...r, migration_time: now })) : rows;
      for (let i = 0; i < values.length; i += 100) await trx(table).insert(values.slice(i, i + 100));
    }
    for (const sql of schema.objects.filter((sql) => !isTable(sql))) await trx.raw(sql);
  });
  return schema.migrations;
}
