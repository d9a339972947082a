/**
 * A fresh database built in one step (runtime/data/sqlite-schema.ts: on SQLite, the record `npm run
 * generate` keeps of what the migrations leave in an empty database) is the database the migrations
 * build one by one: the same tables, columns, indexes, triggers and views, the same rows, the same
 * migrations recorded as applied. And the service starts on it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { engine, startApp, testSchemaName } from './helpers.js';
import { loadConfig } from '../runtime/core/config.js';
import { openDatabase } from '../runtime/data/db.js';
import { migrate, migrationNames, pendingMigrations } from '../runtime/data/migrate.js';
import { describeSqlite, loadSqliteSchema } from '../runtime/data/sqlite-schema.js';

const test = suite('sqlite-schema');
const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A new empty database of the engine under test, and how to drop it. */
function emptyDatabase(): { db: Knex; schema: string | null; drop(): Promise<void> } {
  const dataDir = mkdtempSync(join(tmpdir(), 'netledger-sqlite-schema-'));
  const schema = engine === 'postgres' ? testSchemaName('schema') : null;
  const db = openDatabase(loadConfig({ DATA_DIR: dataDir, ...(schema ? { DATABASE_URL: PG_URL, DATABASE_SCHEMA: schema } : {}) }));
  return {
    db,
    schema,
    async drop() {
      if (schema) await db.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]);
      await db.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Everything about a database's schema and rows that the way it was built could change. */
async function described(db: Knex, schema: string | null): Promise<unknown> {
  if (!schema) {
    const { objects, rows } = await describeSqlite(db);
    const columns = await db.raw("select m.name as t, c.* from sqlite_master m join pragma_table_xinfo(m.name) c where m.type = 'table' order by m.name, c.cid");
    // (the order SQLite lists a table's indexes in is the order they were made in: not compared)
    const indexes = await db.raw("select m.name as t, i.name, i.[unique], i.origin, i.partial from sqlite_master m join pragma_index_list(m.name) i where m.type = 'table' order by m.name, i.name");
    const tableList = await db.raw("select name, type, ncol, wr, strict from pragma_table_list where schema = 'main' order by name");
    return { objects: [...objects].sort(), rows: { ...rows, knex_migrations: rows.knex_migrations?.map(({ migration_time: _, ...r }) => r) }, columns, indexes, tableList };
  }
  // (an index's definition names its schema)
  const q = async (sql: string) => JSON.parse(JSON.stringify((await db.raw(sql, [schema])).rows).replaceAll(`${schema}.`, 'schema.'));
  return {
    columns: await q('select table_name, column_name, ordinal_position, column_default, is_nullable, data_type, character_maximum_length, numeric_precision from information_schema.columns where table_schema = ? order by table_name, ordinal_position'),
    indexes: await q('select tablename, indexname, indexdef from pg_indexes where schemaname = ? order by tablename, indexname'),
    constraints: await q("select conrelid::regclass::text as t, conname, pg_get_constraintdef(c.oid) as def from pg_constraint c join pg_namespace n on n.oid = c.connamespace where n.nspname = ? order by 1, 2"),
    triggers: await q('select event_object_table, trigger_name, event_manipulation, action_statement from information_schema.triggers where trigger_schema = ? order by 1, 2, 3'),
    migrations: (await db.raw('select name from ??.knex_migrations order by id', [schema])).rows,
  };
}

test('an empty database gets the schema and rows the migrations build one by one', async () => {
  const one = emptyDatabase();
  const all = emptyDatabase();
  try {
    const names = await migrationNames();
    assert.equal(await migrate(one.db, one.schema, { stepwise: true }), names);
    assert.equal(await migrate(all.db, all.schema), names);
    assert.equal(await pendingMigrations(all.db, all.schema), []);
    const [a, b] = [await described(one.db, one.schema), await described(all.db, all.schema)] as Record<string, unknown[]>[];
    for (const part of Object.keys(a)) {
      const differs = JSON.stringify(a[part]) === JSON.stringify(b[part]) ? undefined : a[part].findIndex((x, i) => JSON.stringify(x) !== JSON.stringify(b[part][i]));
      assert.is(differs, undefined, `${part} differ first at ${JSON.stringify(a[part][differs!])} / ${JSON.stringify(b[part][differs!])}`);
    }
  } finally {
    await one.drop();
    await all.drop();
  }
});

test('a record of other migrations than the first ones on disk is not used', async () => {
  if (engine !== 'sqlite') return;
  const target = emptyDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'netledger-sqlite-schema-record-'));
  try {
    const file = join(dir, 'record.json');
    writeFileSync(file, JSON.stringify({ migrations: ['0000_elsewhere'], digest: '', objects: ['create table elsewhere (id integer)'], rows: {} }));
    assert.equal(await loadSqliteSchema(target.db, file, await migrationNames()), []);
    assert.equal((await target.db.raw("select name from sqlite_master where type = 'table'")).length, 0);
  } finally {
    await target.drop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the service starts on a database built so, and writes to it', async () => {
  const app = await startApp();
  try {
    assert.is((await app.api('GET', '/readyz')).status, 200);
    const site = await app.post('/api/dcim/sites/', { name: 'Built at once', slug: 'built-at-once' });
    assert.is(site.id, 1);
    const found = await app.get('/api/dcim/sites/?q=built');
    assert.is(found.count, 1);
  } finally {
    await app.stop();
  }
});

test.run();
