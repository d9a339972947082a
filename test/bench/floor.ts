/**
 * The physical floors, in a process of their own. GET: the 1000-device page, a bare node:http handler, the database driver without
 * a query builder, one joined SQL query (device + site, rack, role, type, manufacturer, tenant,
 * platform), one tags query and JSON.stringify, written as one Buffer as the service writes it
 * (node:http is slow with a string body: header + text, then UTF-8). It answers roughly the shape
 * the API answers, so the bench compares like with like: whatever the API costs beyond this is the
 * service's own overhead. Also `?parent=` pages of IP addresses (parent-floor.ts) and, other methods,
 * the bench's bulk writes as bare SQL (write-floor.ts).
 * This is a bench fixture, so it names tables; the runtime never does.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { WriteFloor, postgresWrites, sqliteWrites } from './write-floor.js';
import { bySqlitePosition, parentQuery, postgresParent, renderParentPage, sqliteParent } from './parent-floor.js';

// The drivers ship no type declarations; the floor uses a few calls of each.
const require = createRequire(import.meta.url);
type Statement = { all(...params: unknown[]): any[]; run(...params: unknown[]): unknown };
type SqliteDb = { prepare(sql: string): Statement; exec(sql: string): void; pragma(s: string): unknown; close(): void };
const Database = require('better-sqlite3') as new (file: string, options?: { readonly: boolean }) => SqliteDb;
type PgClient = { query(sql: string, values?: unknown[]): Promise<{ rows: Record<string, any>[] }>; release(): void };
const pg = require('pg') as { Pool: new (options: Record<string, unknown>) => { query(sql: string, values?: unknown[]): Promise<{ rows: Record<string, any>[] }>; connect(): Promise<PgClient>; end(): Promise<void> } };

export interface Floor {
  url: string;
  close(): Promise<void>;
}

type Row = Record<string, any>;

/** The device and the seven objects its representation nests, as both floors join them. */
export const DEVICE_JOINS = `from dcim_device d
  join dcim_site s on s.id = d.site_id
  left join dcim_rack r on r.id = d.rack_id
  join dcim_devicerole ro on ro.id = d.role_id
  join dcim_devicetype t on t.id = d.device_type_id
  join dcim_manufacturer m on m.id = t.manufacturer_id
  left join tenancy_tenant te on te.id = d.tenant_id
  left join dcim_platform p on p.id = d.platform_id`;

const DEVICE_PAGE = `
  select d.id, d.name, d.serial, d.asset_tag, d.status, d.airflow, d.face, d.position, d.description, d.comments,
    d.created, d.last_updated, d.custom_field_data, d.local_context_data,
    s.id as s_id, s.name as s_name, s.slug as s_slug,
    r.id as r_id, r.name as r_name,
    ro.id as ro_id, ro.name as ro_name, ro.slug as ro_slug,
    t.id as t_id, t.model as t_model, t.slug as t_slug,
    m.id as m_id, m.name as m_name, m.slug as m_slug,
    te.id as te_id, te.name as te_name, te.slug as te_slug,
    p.id as p_id, p.name as p_name, p.slug as p_slug
  ${DEVICE_JOINS}
  order by d._name_natural, d.id limit 1000`;

const TAGS = `select ti.object_id, tg.id, tg.name, tg.slug, tg.color from extras_taggeditem ti join extras_tag tg on tg.id = ti.tag_id
  where ti.object_type = 'dcim.device' and ti.object_id in (select d.id from dcim_device d order by d._name_natural, d.id limit 1000) order by tg.name`;

function render(rows: Row[], tags: Row[], base: string): unknown {
  const byDevice = new Map<number, Row[]>();
  for (const t of tags) {
    const id = Number(t.object_id);
    let list = byDevice.get(id);
    if (!list) byDevice.set(id, (list = []));
    list.push({ id: Number(t.id), url: `${base}/api/extras/tags/${t.id}/`, display: t.name, name: t.name, slug: t.slug, color: t.color });
  }
  const nested = (id: unknown, path: string, name: string, slug?: string) =>
    id === null || id === undefined ? null : slug === undefined ? { id: Number(id), url: `${base}/api/${path}/${id}/`, display: name, name } : { id: Number(id), url: `${base}/api/${path}/${id}/`, display: name, name, slug };
  const results = rows.map((r) => ({
    id: Number(r.id),
    url: `${base}/api/dcim/devices/${r.id}/`,
    display: r.name,
    name: r.name,
    device_type: { id: Number(r.t_id), url: `${base}/api/dcim/device-types/${r.t_id}/`, display: r.t_model, manufacturer: nested(r.m_id, 'dcim/manufacturers', r.m_name, r.m_slug), model: r.t_model, slug: r.t_slug },
    role: nested(r.ro_id, 'dcim/device-roles', r.ro_name, r.ro_slug),
    tenant: nested(r.te_id, 'tenancy/tenants', r.te_name, r.te_slug),
    platform: nested(r.p_id, 'dcim/platforms', r.p_name, r.p_slug),
    serial: r.serial,
    asset_tag: r.asset_tag,
    site: nested(r.s_id, 'dcim/sites', r.s_name, r.s_slug),
    rack: nested(r.r_id, 'dcim/racks', r.r_name),
    position: r.position === null ? null : Number(r.position),
    face: r.face ? { value: r.face, label: r.face } : null,
    status: { value: r.status, label: r.status },
    airflow: r.airflow ? { value: r.airflow, label: r.airflow } : null,
    description: r.description,
    comments: r.comments,
    local_context_data: r.local_context_data ? JSON.parse(r.local_context_data) : null,
    tags: byDevice.get(Number(r.id)) ?? [],
    custom_fields: r.custom_field_data ? JSON.parse(r.custom_field_data) : {},
    created: r.created ? String(r.created).slice(0, 10) : null,
    last_updated: r.last_updated,
  }));
  return { count: results.length, next: null, previous: null, results };
}

/** A write: its JSON body to the write floor, its answer back as the API would send it (201, 200 or 204). */
async function write(floor: WriteFloor, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    const answer = await floor.handle(req.method!, new URL(req.url!, 'http://floor').pathname, JSON.parse(Buffer.concat(chunks).toString('utf8')));
    if (answer === null) { res.writeHead(204).end(); return; }
    res.writeHead(req.method === 'POST' ? 201 : 200, { 'Content-Type': 'application/json' }).end(Buffer.from(JSON.stringify(answer)));
  } catch (error) {
    res.writeHead(500, { 'Content-Type': 'text/plain' }).end(String((error as Error).stack));
  }
}

const FIRST_USER = 'select id, username from users_user order by id limit 1';

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)));
}

/** SQLite: the app's database file, read through better-sqlite3 directly (prepared once). */
export async function sqliteFloor(file: string): Promise<Floor> {
  const db = new Database(file, { readonly: true });
  const page = db.prepare(DEVICE_PAGE);
  const tags = db.prepare(TAGS);
  // The writes on a connection of their own, set up as the service's are (cascades need foreign_keys).
  const writer = new Database(file);
  writer.pragma('foreign_keys = ON');
  writer.pragma('busy_timeout = 5000');
  const writes = new WriteFloor(sqliteWrites(writer), async () => writer.prepare(FIRST_USER).all()[0]);
  const parent = { page: db.prepare(sqliteParent.PAGE), count: db.prepare(sqliteParent.COUNT), tags: db.prepare(sqliteParent.TAGS) };
  const server = createServer((req, res) => {
    if (req.method !== 'GET') { void write(writes, req, res); return; }
    const params = parentQuery(new URL(req.url!, 'http://floor'));
    const base = `http://${req.headers.host}`;
    const body = Buffer.from(JSON.stringify(params
      ? renderParentPage(parent.page.all(bySqlitePosition(params)), Number(parent.count.all(bySqlitePosition(params.slice(0, 3)))[0].n), parent.tags.all(bySqlitePosition(params)), base)
      : render(page.all() as Row[], tags.all() as Row[], base)));
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(body);
  });
  const url = await listen(server);
  return { url, close: async () => { server.closeAllConnections(); await new Promise((r) => server.close(r)); db.close(); writer.close(); } };
}

/** PostgreSQL: a pg pool on the bench's schema. */
export async function postgresFloor(connectionString: string, schema: string): Promise<Floor> {
  const pool = new pg.Pool({ connectionString, max: 4, options: `-c search_path=${schema}` });
  const writes = new WriteFloor(postgresWrites(pool), async () => (await pool.query(FIRST_USER)).rows[0]);
  const server = createServer(async (req, res) => {
    if (req.method !== 'GET') { await write(writes, req, res); return; }
    const params = parentQuery(new URL(req.url!, 'http://floor'));
    const base = `http://${req.headers.host}`;
    let answer: unknown;
    if (params) {
      const [page, count, tags] = await Promise.all([pool.query(postgresParent.PAGE, params), pool.query(postgresParent.COUNT, params.slice(0, 3)), pool.query(postgresParent.TAGS, params)]);
      answer = renderParentPage(page.rows, Number(count.rows[0].n), tags.rows, base);
    } else {
      const [page, tags] = await Promise.all([pool.query(DEVICE_PAGE), pool.query(TAGS)]);
      answer = render(page.rows, tags.rows, base);
    }
    const body = Buffer.from(JSON.stringify(answer));
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(body);
  });
  const url = await listen(server);
  return { url, close: async () => { server.closeAllConnections(); await new Promise((r) => server.close(r)); await pool.end(); } };
}

/** Forked by the bench: `{ engine, file }` or `{ engine, url, schema }` in, `{ url }` out. */
if (process.argv.includes('--floor-process')) {
  process.once('message', async (m: { engine: string; file?: string; url?: string; schema?: string }) => {
    const floor = m.engine === 'postgres' ? await postgresFloor(m.url!, m.schema!) : await sqliteFloor(m.file!);
    process.send!({ url: floor.url });
    process.on('message', async (next: { cmd?: string }) => {
      if (next.cmd === 'cpu') { const { user, system } = process.cpuUsage(); process.send!({ cpu: (user + system) / 1000 }); return; }
      await floor.close();
      process.disconnect();
    });
  });
}
