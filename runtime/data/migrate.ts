/**
 * Migrations: the generated ones plus the runtime's own, applied in name order, one per transaction.
 */
import type { Knex } from 'knex';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isPostgres } from './db.js';
import { emptySqlite, loadSqliteSchema } from './sqlite-schema.js';

const here = dirname(fileURLToPath(import.meta.url));
const migrationDirs = [join(here, '../../generated/migrations'), join(here, 'migrations')];
/** What the migrations leave in an empty SQLite database (sqlite-schema.ts) */
export const SQLITE_SCHEMA_FILE = join(here, '../../generated/migrations/sqlite-schema.json');

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

/** The migrations' names, in the order they run. */
export async function migrationNames(): Promise<string[]> {
  return (await migrationSource.getMigrations([])).map((m) => m.name);
}

/** Applies the pending migrations; `stepwise` runs each one even on an empty SQLite database (sqlite-schema.ts). */
export async function migrate(db: Knex, schema: string | null, options: { stepwise?: boolean } = {}): Promise<string[]> {
  if (schema && isPostgres(db)) await db.raw('CREATE SCHEMA IF NOT EXISTS ??', [schema]);
  // An empty SQLite database: what the migrations would build, in one step
  const built = !isPostgres(db) && !options.stepwise && (await emptySqlite(db)) ? await loadSqliteSchema(db, SQLITE_SCHEMA_FILE, await migrationNames()) : [];
  // One migration per transaction rather than knex's one transaction for the whole batch: a fresh
  // PostgreSQL database would otherwise hold a lock per table and index of every migration at once
  // (about 2,500), close to the server's shared lock table (64 per connection by default).
  const applied: string[] = [...built];
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
