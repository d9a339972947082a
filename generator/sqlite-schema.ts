/**
 * generated/migrations/sqlite-schema.json: what the migrations (generated/migrations and
 * runtime/data/migrations) leave in an empty SQLite database, so a fresh one is built in one step
 * (runtime/data/sqlite-schema.ts). Made again, by running the migrations into a scratch database,
 * only when the migration files changed (their digest is in the record).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../runtime/core/config.js';
import { openDatabase } from '../runtime/data/db.js';
import { migrate, migrationNames, SQLITE_SCHEMA_FILE } from '../runtime/data/migrate.js';
import { describeSqlite, type SqliteSchema } from '../runtime/data/sqlite-schema.js';

/** A digest of the migration files' names and text. */
function migrationsDigest(root: string): string {
  const hash = createHash('sha256');
  for (const dir of ['generated/migrations', 'runtime/data/migrations']) {
    for (const name of readdirSync(join(root, dir)).filter((f) => /^\d{4}_.*\.ts$/.test(f)).sort()) hash.update(`${dir}/${name}\n`).update(readFileSync(join(root, dir, name)));
  }
  return hash.digest('hex');
}

/** Writes the record when the migrations changed; whether it did. */
export async function writeSqliteSchema(root: string): Promise<boolean> {
  const digest = migrationsDigest(root);
  if (existsSync(SQLITE_SCHEMA_FILE) && (JSON.parse(readFileSync(SQLITE_SCHEMA_FILE, 'utf8')) as SqliteSchema).digest === digest) return false;
  const dataDir = mkdtempSync(join(tmpdir(), 'netledger-sqlite-schema-'));
  const db = openDatabase(loadConfig({ DATA_DIR: dataDir }));
  try {
    const migrations = await migrate(db, null, { stepwise: true });
    if (migrations.join() !== (await migrationNames()).join()) throw new Error('sqlite-schema: not every migration ran');
    const { objects, rows } = await describeSqlite(db);
    for (const [table, list] of Object.entries(rows)) {
      for (const row of list) for (const [column, value] of Object.entries(row)) if (value !== null && typeof value !== 'string' && typeof value !== 'number') throw new Error(`sqlite-schema: ${table}.${column} holds a ${typeof value}, which the record cannot keep`);
    }
    const record: SqliteSchema = { migrations, digest, objects, rows };
    writeFileSync(SQLITE_SCHEMA_FILE, JSON.stringify(record, null, 1) + '\n');
    return true;
  } finally {
    await db.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
