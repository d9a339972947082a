import type { Knex } from 'knex';

/**
 * PostgreSQL: the trigram indexes of 0040 leave out empty text (`WHERE column <> ''`). Most IP
 * addresses have neither a DNS name nor a description, and GIN stores an entry even for a row with
 * no trigram, so a bulk create of 1000 such addresses paid 6-8 ms for the two indexes. `q` repeats
 * the condition beside its `lower(column) like '%text%'` (runtime/data/filters.ts, textContains),
 * which lets the planner use them; an empty column never contains a non-empty text, so the answer is
 * the same. SQLite's FTS table already leaves such rows out (0040). Indexes are built only where
 * 0040 built them (pg_trgm present).
 */
const COLUMNS = ['dns_name', 'description'];

async function rebuild(knex: Knex, partial: boolean): Promise<void> {
  if (knex.client.driverName !== 'pg') return;
  for (const column of COLUMNS) {
    const name = `ipam_ipaddress_${column}_trgm_idx`;
    const found = await knex.raw('select indexdef from pg_indexes where schemaname = current_schema() and indexname = ?', [name]);
    if (!found.rows[0]) continue;
    const definition = (found.rows[0].indexdef as string).replace(/ WHERE .*$/, '');
    await knex.raw(`drop index ${name}`);
    await knex.raw(partial ? `${definition} where ${column} <> ''` : definition);
  }
}

export const up = (knex: Knex) => rebuild(knex, true);
export const down = (knex: Knex) => rebuild(knex, false);
