/**
 * `npm run bench:cables`: the cost of cable paths. A 10-hop path (two interfaces through nine patch
 * panels, ten cables): the statements and time of the write that completes it (tracing both ways
 * inside the transaction) and of its /trace/ (read from the stored path). Then 1,000 interfaces
 * (500 cables) listed in one page with their cables, link peers and connected endpoints, against a
 * page of 10: the statement count must not grow. SQLite by default; PostgreSQL when DATABASE_URL is
 * set (in a throwaway schema). Prints figures only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../runtime/core/config.js';
import { start } from '../../runtime/server.js';
import { countQueries } from '../../runtime/data/db.js';
import { apiCall } from './api-call.js';

const TOKEN = 'c'.repeat(40);
const dataDir = mkdtempSync(join(tmpdir(), 'netledger-bench-cables-'));
const postgres = !!process.env.DATABASE_URL;
const schema = `bench_${randomBytes(4).toString('hex')}`;
const running = await start(loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: '0', ADMIN_TOKEN: TOKEN, LOG_REQUESTS: '0', RUN_WORKER: '0', ...(postgres ? { DATABASE_SCHEMA: schema } : {}) }));
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const term = (type: string, id: number) => ({ object_type: type, object_id: id });

const call = apiCall(running.url, TOKEN);

/** Runs one request, returning its body, its statement count and its time. */
async function measured(method: string, path: string, body?: unknown): Promise<{ body: any; statements: number; ms: number }> {
  const counter = countQueries(running.db);
  const started = performance.now();
  try {
    const result = await call(method, path, body);
    return { body: result, statements: counter.count, ms: performance.now() - started };
  } finally { counter.stop(); }
}

try {
  const site = await call('POST', '/api/dcim/sites/', { name: 'Bench', slug: 'bench' });
  const maker = await call('POST', '/api/dcim/manufacturers/', { name: 'Bench', slug: 'bench' });
  const type = await call('POST', '/api/dcim/device-types/', { manufacturer: maker.id, model: 'Bench', slug: 'bench' });
  const role = await call('POST', '/api/dcim/device-roles/', { name: 'Bench', slug: 'bench', color: 'ff0000' });
  const device = (name: string) => ({ name, device_type: type.id, role: role.id, site: site.id });

  // --- a 10-hop path: eth — [front|rear] — [rear|front] — … — eth
  const [a, b, ...panels] = await call('POST', '/api/dcim/devices/', ['a', 'b', ...range(9).map((i) => `panel${i}`)].map(device));
  const [ethA] = await call('POST', '/api/dcim/interfaces/', [{ device: a.id, name: 'eth0', type: '10gbase-x-sfpp' }]);
  const [ethB] = await call('POST', '/api/dcim/interfaces/', [{ device: b.id, name: 'eth0', type: '10gbase-x-sfpp' }]);
  const rears = await call('POST', '/api/dcim/rear-ports/', panels.map((p: any) => ({ device: p.id, name: 'rear', type: 'lc' })));
  const fronts = await call('POST', '/api/dcim/front-ports/', panels.map((p: any, i: number) => ({ device: p.id, name: 'front', type: 'lc', rear_port: rears[i].id })));
  // panel i is entered by its front port when i is even, by its rear port when odd
  const inward = (i: number) => (i % 2 === 0 ? term('dcim.frontport', fronts[i].id) : term('dcim.rearport', rears[i].id));
  const outward = (i: number) => (i % 2 === 0 ? term('dcim.rearport', rears[i].id) : term('dcim.frontport', fronts[i].id));
  const cables = [{ a_terminations: [term('dcim.interface', ethA.id)], b_terminations: [inward(0)] }];
  for (let i = 0; i < 8; i++) cables.push({ a_terminations: [outward(i)], b_terminations: [inward(i + 1)] });
  await call('POST', '/api/dcim/cables/', cables);
  const closing = await measured('POST', '/api/dcim/cables/', { a_terminations: [outward(8)], b_terminations: [term('dcim.interface', ethB.id)] });
  const trace = await measured('GET', `/api/dcim/interfaces/${ethA.id}/trace/`);
  const hops = trace.body.filter((segment: any) => segment[1] && !Array.isArray(segment[1])).length;
  if (hops !== 10 || trace.body.at(-1)[2][0].id !== ethB.id) throw new Error(`expected 10 hops to eth0 of b, got ${JSON.stringify(trace.body).slice(0, 300)}`);
  console.log(`10-hop path: the closing cable (tracing both ways) ${closing.statements} statements, ${closing.ms.toFixed(1)} ms`);
  console.log(`10-hop path: GET trace ${trace.statements} statements, ${trace.ms.toFixed(1)} ms`);
  const retrace = await measured('PATCH', `/api/dcim/cables/${closing.body.id}/`, { status: 'planned' });
  console.log(`10-hop path: re-tracing on a status change ${retrace.statements} statements, ${retrace.ms.toFixed(1)} ms`);

  // --- 1,000 interfaces, 500 cables
  const [left, right] = await call('POST', '/api/dcim/devices/', [device('left'), device('right')]);
  const l = await call('POST', '/api/dcim/interfaces/', range(500).map((i) => ({ device: left.id, name: `eth${i}`, type: '1000base-t' })));
  const r = await call('POST', '/api/dcim/interfaces/', range(500).map((i) => ({ device: right.id, name: `eth${i}`, type: '1000base-t' })));
  const started = performance.now();
  await call('POST', '/api/dcim/cables/', range(500).map((i) => ({ a_terminations: [term('dcim.interface', l[i].id)], b_terminations: [term('dcim.interface', r[i].id)] })));
  console.log(`500 cables in one bulk POST (1,000 paths traced): ${(performance.now() - started).toFixed(0)} ms`);
  const filter = `device_id=${left.id}&device_id=${right.id}`;
  const small = await measured('GET', `/api/dcim/interfaces/?${filter}&limit=10`);
  const page = await measured('GET', `/api/dcim/interfaces/?${filter}&limit=1000`);
  const again = await measured('GET', `/api/dcim/interfaces/?${filter}&limit=1000`);
  const connected = page.body.results.filter((i: any) => i.connected_endpoints?.length === 1).length;
  console.log(`1,000 interfaces with cables and connected endpoints: ${page.body.results.length} rows (${connected} connected), ${again.statements} statements (10 rows: ${small.statements}), ${Math.min(page.ms, again.ms).toFixed(0)} ms`);
} finally {
  if (postgres) await running.db.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]);
  await running.close();
  rmSync(dataDir, { recursive: true, force: true });
}
