import type { Knex } from 'knex';
import { createSearchTriggers, fillSearchTable } from '../search-index.js';

/**
 * Indexes for `q` on IP addresses, the one list the bench grows to a million rows
 * (runtime/data/filters.ts, addressStartsWith). PostgreSQL: a pattern index on the address text for
 * its `like 'text%'` (a trigram index would not do: every address shares the same few trigrams) and
 * trigram indexes (pg_trgm) on the lower-cased DNS name and description for `lower(x) like '%text%'`,
 * OR'ed as a bitmap. SQLite: an index on the address text for its GLOB prefix match, and an FTS5
 * table with the trigram tokenizer over DNS name and description (`<table>_search`, kept by triggers;
 * runtime/data/search-index.ts finds it), whose LIKE '%text%' is an index lookup.
 *
 * pg_trgm is a trusted extension (a database owner may create it). It goes into `public` whatever
 * the search path, so dropping a schema (the tests use one each) never drops it; when it cannot be
 * created, the indexes are left out and `q` still works, by a scan.
 */
const COLUMNS = ['dns_name', 'description'];

async function trigramSchema(knex: Knex): Promise<string | null> {
  const found = await knex.raw("select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'");
  if (found.rows[0]) return found.rows[0].schema as string;
  try {
    // A savepoint: a failure (no permission, or another process creating it at the same moment) must not end the migration.
    await knex.transaction(async (sp) => { await sp.raw('create extension if not exists pg_trgm with schema public'); });
  } catch {
    const again = await knex.raw("select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'");
    return (again.rows[0]?.schema as string | undefined) ?? null;
  }
  return 'public';
}

/** An external-content FTS5 trigram table over `columns` of `table`, filled and kept by triggers (search-index.ts). */
async function sqliteSearch(knex: Knex, table: string, columns: string[]): Promise<void> {
  await knex.raw(`create virtual table ${table}_search using fts5(${columns.join(', ')}, content='${table}', content_rowid='id', tokenize='trigram')`);
  await fillSearchTable(knex, table, columns);
  await createSearchTriggers(knex, table, columns);
}

export async function up(knex: Knex): Promise<void> {
  if (knex.client.driverName !== 'pg') {
    await knex.raw('create index ipam_ipaddress_address_text_idx on ipam_ipaddress (address)');
    await sqliteSearch(knex, 'ipam_ipaddress', COLUMNS);
    return;
  }
  await knex.raw('create index ipam_ipaddress_address_text_idx on ipam_ipaddress (address text_pattern_ops)');
  const schema = await trigramSchema(knex);
  if (!schema) return;
  for (const column of COLUMNS) {
    await knex.raw(`create index ipam_ipaddress_${column}_trgm_idx on ipam_ipaddress using gin (lower(${column}) "${schema}".gin_trgm_ops)`);
  }
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.driverName !== 'pg') {
    for (const t of ['insert', 'delete', 'update']) await knex.raw(`drop trigger if exists ipam_ipaddress_search_${t}`);
    await knex.raw('drop table if exists ipam_ipaddress_search');
  }
  for (const name of ['ipam_ipaddress_address_text_idx', ...COLUMNS.map((c) => `ipam_ipaddress_${c}_trgm_idx`)]) await knex.raw(`drop index if exists ${name}`);
}
