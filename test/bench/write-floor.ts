/**
 * The physical floor of the bench's bulk writes: what the database alone costs for the same job,
 * answered by the floor process (floor.ts) beside the 1000-device page. Each write is one
 * transaction of bare SQL through the driver: the rows written set-based, the dependants the API
 * removes with them, and one change-log row per object with its snapshot, in one insert. No
 * validation, permissions, hooks, webhooks or representation: whatever the API takes beyond this is
 * the service's own cost, so the ratio holds on a host whose database is slow or fast.
 *
 * The floor does less than the API, never more: its snapshots and answers are the raw rows (the
 * API's representations are larger), so the ratios it gives are, if anything, too high.
 * Rows are inserted with the service's own statement texts (runtime/data/insert.ts: on PostgreSQL
 * one JSON document for json_populate_recordset, snapshot texts split from one parameter; on SQLite
 * multi-row VALUES lists); updates join the items as JSON.
 * This is a bench fixture, so it names tables; the runtime never does.
 */
import { randomUUID } from 'node:crypto';
import { parseNetwork } from '../../runtime/core/ipnet.js';
import { postgresInsertText, sqliteInsertTexts } from '../../runtime/data/insert.js';

type Row = Record<string, any>;

/** What the floor needs of a database: one transaction, reads and writes inside it. */
export interface FloorDb {
  /** runs `work` in one transaction */
  transaction<T>(work: (tx: FloorTx) => Promise<T>): Promise<T>;
}
export interface FloorTx {
  /** the rows of `table` whose `column` is one of `values` (and, if given, `where` holds: a literal condition) */
  select(table: string, column: string, values: unknown[], where?: string): Promise<Row[]>;
  /** inserts the rows (all with the same columns), returning them when asked */
  insert(table: string, rows: Row[], returning: boolean): Promise<Row[]>;
  /** sets `columns` from each item on the row with its id, returning the rows */
  update(table: string, items: Row[], columns: string[]): Promise<Row[]>;
  /** deletes the rows of `table` whose `column` is one of `values` (and `where` holds) */
  remove(table: string, column: string, values: unknown[], where?: string): Promise<void>;
}

/** The change log's columns for one changed object. */
interface Change { action: 'create' | 'update' | 'delete'; type: string; id: number; repr: string; pre: Row | null; post: Row | null; related?: [string, number] }

/** The bytes columns of an address: internal, not in an answer or a snapshot. */
const BYTES = new Set(['address_host', 'address_first', 'address_last']);
const plain = (row: Row): Row => Object.fromEntries(Object.entries(row).filter(([k]) => !BYTES.has(k)));

export class WriteFloor {
  private user: Row | undefined;
  constructor(private readonly db: FloorDb, private readonly firstUser: () => Promise<Row>) {}

  /** One request of the bench's bulk writes: the answer's JSON, or null for 204. */
  async handle(method: string, path: string, items: Row[]): Promise<unknown> {
    this.user ??= await this.firstUser();
    if (path === '/api/ipam/ip-addresses/' && method === 'POST') return this.createAddresses(items);
    if (path === '/api/ipam/ip-addresses/' && method === 'PATCH') return this.updateAddresses(items);
    if (path === '/api/ipam/ip-addresses/' && method === 'DELETE') return this.deleteAddresses(items.map((i) => Number(i.id)));
    if (path === '/api/dcim/devices/' && method === 'DELETE') return this.deleteDevices(items.map((i) => Number(i.id)));
    throw new Error(`the write floor has no ${method} ${path}`);
  }

  private createAddresses(items: Row[]): Promise<Row[]> {
    const now = new Date().toISOString();
    const rows = items.map((item) => {
      const n = parseNetwork(item.address)!;
      return {
        address: n.text, family: n.family, address_host: n.host, address_first: n.first, address_last: n.last, address_length: n.length,
        status: item.status ?? 'active', description: '', dns_name: '', comments: '', custom_field_data: '{}', created: now.slice(0, 10), last_updated: now,
      };
    });
    return this.db.transaction(async (tx) => {
      const made = (await tx.insert('ipam_ipaddress', rows, true)).map(plain);
      await this.log(tx, made.map((r) => ({ action: 'create', type: 'ipam.ipaddress', id: r.id, repr: r.address, pre: null, post: r })));
      return made;
    });
  }

  private updateAddresses(items: Row[]): Promise<Row[]> {
    const now = new Date().toISOString();
    return this.db.transaction(async (tx) => {
      const before = new Map((await tx.select('ipam_ipaddress', 'id', items.map((i) => i.id))).map((r) => [Number(r.id), plain(r)]));
      const after = (await tx.update('ipam_ipaddress', items.map((i) => ({ ...i, last_updated: now })), ['description', 'status', 'last_updated'])).map(plain);
      await this.log(tx, after.map((r) => ({ action: 'update', type: 'ipam.ipaddress', id: r.id, repr: r.address, pre: before.get(Number(r.id)) ?? null, post: r })));
      return after;
    });
  }

  private deleteAddresses(ids: number[]): Promise<null> {
    return this.db.transaction(async (tx) => {
      const gone = (await tx.select('ipam_ipaddress', 'id', ids)).map(plain);
      await tx.remove('extras_taggeditem', 'object_id', ids, "object_type = 'ipam.ipaddress'");
      await tx.remove('ipam_ipaddress', 'id', ids);
      await this.log(tx, gone.map((r) => ({ action: 'delete', type: 'ipam.ipaddress', id: r.id, repr: r.address, pre: r, post: null })));
      return null;
    });
  }

  /** The devices, their interfaces and the addresses on those. */
  private deleteDevices(ids: number[]): Promise<null> {
    return this.db.transaction(async (tx) => {
      const devices = await tx.select('dcim_device', 'id', ids);
      const interfaces = await tx.select('dcim_interface', 'device_id', ids);
      const interfaceIds = interfaces.map((r) => Number(r.id));
      const addresses = (await tx.select('ipam_ipaddress', 'assigned_object_id', interfaceIds, "assigned_object_type = 'dcim.interface'")).map(plain);
      // The interfaces and devices before the addresses: the other way round, the addresses' counter
      // trigger first updates the count on each of the 1,000 interfaces about to go (~35 ms on PostgreSQL).
      await tx.remove('dcim_interface', 'device_id', ids);
      await tx.remove('dcim_device', 'id', ids);
      await tx.remove('ipam_ipaddress', 'assigned_object_id', interfaceIds, "assigned_object_type = 'dcim.interface'");
      await tx.remove('extras_taggeditem', 'object_id', ids, "object_type = 'dcim.device'");
      await tx.remove('extras_taggeditem', 'object_id', interfaceIds, "object_type = 'dcim.interface'");
      await tx.remove('extras_taggeditem', 'object_id', addresses.map((r) => r.id), "object_type = 'ipam.ipaddress'");
      await this.log(tx, [
        ...devices.map((r): Change => ({ action: 'delete', type: 'dcim.device', id: r.id, repr: r.name, pre: r, post: null })),
        ...interfaces.map((r): Change => ({ action: 'delete', type: 'dcim.interface', id: r.id, repr: r.name, pre: r, post: null, related: ['dcim.device', r.device_id] })),
        ...addresses.map((r): Change => ({ action: 'delete', type: 'ipam.ipaddress', id: r.id, repr: r.address, pre: r, post: null, related: ['dcim.interface', r.assigned_object_id] })),
      ]);
      return null;
    });
  }

  /** The change log's rows, in one insert. */
  private async log(tx: FloorTx, changes: Change[]): Promise<void> {
    const time = new Date().toISOString();
    const requestId = randomUUID();
    await tx.insert('extras_objectchange', changes.map((c) => ({
      time, user_id: this.user!.id, user_name: this.user!.username, request_id: requestId, action: c.action,
      changed_object_type: c.type, changed_object_id: Number(c.id), related_object_type: c.related?.[0] ?? null, related_object_id: c.related ? Number(c.related[1]) : null,
      object_repr: String(c.repr).slice(0, 200), prechange_data: c.pre, postchange_data: c.post,
    })), false);
  }
}

type PgClient = { query(sql: string, values?: unknown[]): Promise<{ rows: Row[] }>; release(): void };

/** PostgreSQL: a pool's connection per write. */
export function postgresWrites(pool: { connect(): Promise<PgClient> }): FloorDb {
  const tx = (client: PgClient): FloorTx => ({
    select: async (table, column, values, where) =>
      (await client.query(`select * from ${table} where ${column} = any($1)${where ? ` and ${where}` : ''}`, [values])).rows,
    insert: async (table, rows, returning) => {
      if (!rows.length) return [];
      // The service's own statement text: the rows as one JSON document, snapshots split from one text each.
      const statement = postgresInsertText(table, Object.keys(rows[0]), rows, returning ? '*' : null, (n) => `$${n}`);
      if (!statement) throw new Error(`the write floor cannot send these ${table} rows as JSON`);
      return (await client.query(statement.sql, statement.values)).rows;
    },
    update: async (table, items, columns) => {
      const sql = `update ${table} t set ${columns.map((c) => `${c} = r.${c}`).join(', ')} from json_populate_recordset(null::${table}, $1::json) as r where t.id = r.id returning t.*`;
      return (await client.query(sql, [JSON.stringify(items)])).rows;
    },
    remove: async (table, column, values, where) => {
      await client.query(`delete from ${table} where ${column} = any($1)${where ? ` and ${where}` : ''}`, [values]);
    },
  });
  return {
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const out = await work(tx(client));
        await client.query('commit');
        return out;
      } catch (error) {
        await client.query('rollback');
        throw error;
      } finally {
        client.release();
      }
    },
  };
}

type SqliteStatement = { all(...params: unknown[]): Row[]; run(...params: unknown[]): unknown };
type Sqlite = { prepare(sql: string): SqliteStatement; exec(sql: string): void };

/** SQLite: the service's database file on a writable connection of the floor's own (statements prepared once). */
export function sqliteWrites(db: Sqlite): FloorDb {
  const prepared = new Map<string, SqliteStatement>();
  const statement = (sql: string) => {
    let s = prepared.get(sql);
    if (!s) prepared.set(sql, (s = db.prepare(sql)));
    return s;
  };
  const value = (v: unknown) => (v !== null && typeof v === 'object' && !Buffer.isBuffer(v) ? JSON.stringify(v) : v);
  const tx: FloorTx = {
    select: async (table, column, values, where) =>
      statement(`select * from ${table} where ${column} in (select value from json_each(?))${where ? ` and ${where}` : ''}`).all(JSON.stringify(values)),
    insert: async (table, rows, returning) => {
      const out: Row[] = [];
      // The service's own statement texts, the snapshots as their JSON text.
      const texts = sqliteInsertTexts(table, Object.keys(rows[0] ?? {}), rows.map((r) => Object.fromEntries(Object.entries(r).map(([c, v]) => [c, value(v)]))), returning ? '*' : null);
      for (const { sql, values } of texts) {
        if (returning) out.push(...statement(sql).all(...values));
        else statement(sql).run(...values);
      }
      return out;
    },
    update: async (table, items, columns) =>
      statement(`update ${table} as t set ${columns.map((c) => `${c} = j.value ->> '${c}'`).join(', ')} from json_each(?) as j where t.id = j.value ->> 'id' returning *`).all(JSON.stringify(items)),
    remove: async (table, column, values, where) => {
      statement(`delete from ${table} where ${column} in (select value from json_each(?))${where ? ` and ${where}` : ''}`).run(JSON.stringify(values));
    },
  };
  return {
    async transaction(work) {
      // IMMEDIATE: take the write lock at the start, as the service's write transactions do.
      db.exec('begin immediate');
      try {
        const out = await work(tx);
        db.exec('commit');
        return out;
      } catch (error) {
        db.exec('rollback');
        throw error;
      }
    },
  };
}
