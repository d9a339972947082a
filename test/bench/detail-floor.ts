/**
 * The physical floor of a device detail: a bare node:http server, with as many processes as the
 * service under test (node:cluster, like `npm start`), answering `/api/dcim/devices/<id>/` with the
 * same JSON shape from ONE prepared SQL query (the device joined with site, rack, role, type,
 * manufacturer, tenant and platform; its tags and its ten component counts as subqueries) and
 * JSON.stringify. No authentication, no permissions, no config context, no logging: whatever
 * NetLedger costs beyond this is its own overhead. A bench fixture, so it names tables.
 *
 *   tsx test/bench/detail-floor.ts --port P --processes N (--sqlite FILE | --postgres URL --schema S)
 */
import cluster from 'node:cluster';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { DEVICE_JOINS } from './floor.js';

const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const arg = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const port = Number(arg('--port'));
const processes = Number(arg('--processes') ?? 1);
const sqliteFile = arg('--sqlite');

type Row = Record<string, any>;
const COUNTS: [string, string][] = [
  ['console_port_count', 'dcim_consoleport'], ['console_server_port_count', 'dcim_consoleserverport'],
  ['power_port_count', 'dcim_powerport'], ['power_outlet_count', 'dcim_poweroutlet'], ['interface_count', 'dcim_interface'],
  ['front_port_count', 'dcim_frontport'], ['rear_port_count', 'dcim_rearport'], ['device_bay_count', 'dcim_devicebay'],
  ['module_bay_count', 'dcim_modulebay'], ['inventory_item_count', 'dcim_inventoryitem'],
];

/** The one query; `$1` is the device id on both engines (SQLite numbers it too), tags as a JSON text. */
function detailSql(postgres: boolean): string {
  const tagJson = postgres
    ? `(select coalesce(json_agg(json_build_object('id', tg.id, 'name', tg.name, 'slug', tg.slug, 'color', tg.color) order by tg.name), '[]')::text`
    : `(select coalesce(json_group_array(json_object('id', tg.id, 'name', tg.name, 'slug', tg.slug, 'color', tg.color)), '[]')`;
  return `
  select d.id, d.name, d.serial, d.asset_tag, d.status, d.airflow, d.face, d.position, d.description, d.comments,
    d.created, d.last_updated, d.custom_field_data, d.local_context_data, d.latitude, d.longitude, d.vc_position, d.vc_priority,
    s.id as s_id, s.name as s_name, s.slug as s_slug,
    r.id as r_id, r.name as r_name,
    ro.id as ro_id, ro.name as ro_name, ro.slug as ro_slug,
    t.id as t_id, t.model as t_model, t.slug as t_slug,
    m.id as m_id, m.name as m_name, m.slug as m_slug,
    te.id as te_id, te.name as te_name, te.slug as te_slug,
    p.id as p_id, p.name as p_name, p.slug as p_slug,
    ${tagJson} from extras_taggeditem ti join extras_tag tg on tg.id = ti.tag_id where ti.object_type = 'dcim.device' and ti.object_id = d.id) as tags,
    ${COUNTS.map(([name, table]) => `(select count(*) from ${table} c where c.device_id = d.id) as ${name}`).join(',\n    ')}
  ${DEVICE_JOINS}
  where d.id = $1`;
}

function render(r: Row, base: string): unknown {
  const nested = (id: unknown, path: string, name: string, slug?: string) =>
    id === null || id === undefined ? null : slug === undefined ? { id: Number(id), url: `${base}/api/${path}/${id}/`, display: name, name } : { id: Number(id), url: `${base}/api/${path}/${id}/`, display: name, name, slug };
  const choice = (v: string | null) => (v ? { value: v, label: v } : null);
  const tags = (JSON.parse(r.tags) as Row[]).map((t) => ({ id: t.id, url: `${base}/api/extras/tags/${t.id}/`, display: t.name, name: t.name, slug: t.slug, color: t.color }));
  const out: Record<string, unknown> = {
    id: Number(r.id), url: `${base}/api/dcim/devices/${r.id}/`, display: r.name, name: r.name, display_name: r.name,
    device_role: nested(r.ro_id, 'dcim/device-roles', r.ro_name, r.ro_slug),
    device_type: { id: Number(r.t_id), url: `${base}/api/dcim/device-types/${r.t_id}/`, display: r.t_model, manufacturer: nested(r.m_id, 'dcim/manufacturers', r.m_name, r.m_slug), model: r.t_model, slug: r.t_slug },
    role: nested(r.ro_id, 'dcim/device-roles', r.ro_name, r.ro_slug),
    tenant: nested(r.te_id, 'tenancy/tenants', r.te_name, r.te_slug),
    platform: nested(r.p_id, 'dcim/platforms', r.p_name, r.p_slug),
    serial: r.serial, asset_tag: r.asset_tag,
    site: nested(r.s_id, 'dcim/sites', r.s_name, r.s_slug),
    location: null,
    rack: nested(r.r_id, 'dcim/racks', r.r_name),
    position: r.position === null ? null : Number(r.position),
    face: choice(r.face), latitude: r.latitude, longitude: r.longitude, parent_device: null,
    status: choice(r.status), airflow: choice(r.airflow),
    primary_ip: null, primary_ip4: null, primary_ip6: null, oob_ip: null, cluster: null, virtual_chassis: null,
    vc_position: r.vc_position, vc_priority: r.vc_priority, description: r.description, comments: r.comments,
    config_template: null,
    config_context: r.local_context_data ? JSON.parse(r.local_context_data) : {},
    local_context_data: r.local_context_data ? JSON.parse(r.local_context_data) : null,
    tags,
    custom_fields: r.custom_field_data ? JSON.parse(r.custom_field_data) : {},
    created: r.created ? String(r.created).slice(0, 10) : null,
    last_updated: r.last_updated,
  };
  for (const [name] of COUNTS) out[name] = Number(r[name]);
  return out;
}

const DETAIL = /^\/api\/dcim\/devices\/(\d+)\/$/;

async function serve(): Promise<void> {
  let one: (id: number) => Promise<Row | undefined>;
  if (sqliteFile) {
    const Database = require('better-sqlite3') as new (file: string, options: { readonly: boolean }) => { prepare(sql: string): { get(...p: unknown[]): unknown } };
    const statement = new Database(sqliteFile, { readonly: true }).prepare(detailSql(false).replace('$1', '?'));
    one = async (id) => statement.get(id) as Row | undefined;
  } else {
    const pg = require('pg') as { Pool: new (o: Record<string, unknown>) => { query(q: unknown): Promise<{ rows: Row[] }> } };
    const pool = new pg.Pool({ connectionString: arg('--postgres'), max: 10, options: `-c search_path=${arg('--schema')}` });
    const text = detailSql(true);
    // A named query: each connection prepares it once, then only executes it.
    one = async (id) => (await pool.query({ name: 'device-detail', text, values: [id] })).rows[0];
  }
  createServer(async (req, res) => {
    const m = DETAIL.exec(req.url ?? '');
    const row = m ? await one(Number(m[1])) : undefined;
    if (!row) { res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"detail":"Not found."}'); return; }
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(render(row, `http://${req.headers.host}`)));
  }).listen(port, '127.0.0.1', () => process.send?.('listening'));
}

if (cluster.isPrimary && processes > 1) {
  for (let i = 0; i < processes; i++) cluster.fork();
  let listening = 0;
  cluster.on('message', () => { if (++listening === processes) process.send?.('listening'); });
  process.once('SIGTERM', () => { for (const w of Object.values(cluster.workers ?? {})) w?.kill(); process.exit(0); });
} else {
  await serve();
}
