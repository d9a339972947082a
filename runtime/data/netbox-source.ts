/**
 * A NetBox database to import from (netbox-import.ts): its version, told by the migrations it has
 * applied (`django_migrations`), its tables and columns, its content types, and its rows read in
 * batches by id (never a table whole).
 */
import knex from 'knex';

export interface NetboxSource {
  /** '3.7' or '4.0-4.2' */
  version: string;
  tables: Map<string, Set<string>>;
  /** django_content_type ids → 'app.model' */
  contentTypes: Map<number, string>;
  /** the Django migrations applied, as 'app.name' (virtualization.0040_convert_disk_size: sizes in MB) */
  migrations: Set<string>;
  rows(table: string, batch: number): AsyncGenerator<Record<string, any>[]>;
  count(table: string): Promise<number>;
  close(): Promise<void>;
}

/** NetBox releases by the last migration of its dcim app: 3.7 ended at 0185, 4.2 at 0200. */
function versionOf(dcim: string | null): string {
  const n = dcim ? Number.parseInt(dcim.slice(0, 4), 10) : Number.NaN;
  if (!Number.isFinite(n)) throw new Error('the source is not a NetBox database: django_migrations names no dcim migration');
  if (n < 182) throw new Error(`the source's schema (dcim migration ${dcim}) is older than NetBox 3.7: upgrade it to 3.7 or later first`);
  if (n <= 185) return '3.7';
  if (n <= 200) return '4.0-4.2';
  throw new Error(`the source's schema (dcim migration ${dcim}) is newer than NetBox 4.2, which this import does not know`);
}

export async function openNetbox(url: string): Promise<NetboxSource> {
  const source = knex({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  const client = { query: async (sql: string, values: unknown[] = []) => (await source.raw(sql.replace(/\$\d+/g, '?'), values as never)) as { rows: Record<string, any>[] } };
  try {
    const present = await client.query("select to_regclass('django_migrations') is not null as ok");
    if (!present.rows[0].ok) throw new Error('the source is not a NetBox database: it has no django_migrations table');
    const { rows: [last] } = await client.query("select max(name) as name from django_migrations where app = 'dcim' and name ~ '^[0-9]{4}'");
    const version = versionOf(last?.name ?? null);
    const tables = new Map<string, Set<string>>();
    const { rows: columns } = await client.query('select table_name, column_name from information_schema.columns where table_schema = current_schema()');
    for (const c of columns) {
      if (!tables.has(c.table_name)) tables.set(c.table_name, new Set());
      tables.get(c.table_name)!.add(c.column_name);
    }
    const contentTypes = new Map<number, string>();
    for (const ct of (await client.query('select id, app_label, model from django_content_type')).rows) contentTypes.set(Number(ct.id), `${ct.app_label}.${ct.model}`);
    const migrations = new Set((await client.query('select app, name from django_migrations')).rows.map((m) => `${m.app}.${m.name}`));
    return {
      version, tables, contentTypes, migrations,
      // The next batch is asked for before this one is handed over, so the source prepares it
      // while the caller writes.
      async *rows(table, batch) {
        const ordered = tables.get(table)?.has('id');
        const fetch = (after: number, offset: number) => (ordered
          ? client.query(`select * from "${table}" where id > $1 order by id limit ${batch}`, [after])
          : client.query(`select * from "${table}" limit ${batch} offset ${offset}`));
        // a batch asked for but not taken (the caller stopped) must not fail unhandled
        const ask = (after: number, offset: number) => { const p = fetch(after, offset); p.catch(() => {}); return p; };
        let next = ask(-1, 0);
        for (let offset = 0; ; offset += batch) {
          const { rows } = await next;
          if (!rows.length) return;
          const more = rows.length === batch;
          if (more) next = ask(ordered ? Number(rows[rows.length - 1].id) : 0, offset + batch);
          yield rows;
          if (!more) return;
        }
      },
      async count(table) {
        return Number((await client.query(`select count(*)::bigint as n from "${table}"`)).rows[0].n);
      },
      close: () => source.destroy(),
    };
  } catch (error) {
    await source.destroy();
    throw error;
  }
}
