/**
 * Performance designed in: a list costs the same number of SQL statements whatever its page size
 * (no per-row query), and a bulk create writes set-wise instead of one INSERT per element.
 * The data is seeded through the API so the write path is exercised too, and every seeded object
 * of a model carries the same kinds of relations, so a page of one row needs the same lookups as a
 * page of all rows.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { countQueries } from '../runtime/data/db.js';
import { model } from '../runtime/data/registry.js';
import { createObject } from './factory.js';
import { ADMIN } from './browser.js';
import { engine, expectStatus, startApp, type Reply, type TestApp } from './helpers.js';

// uvu loads test files as CommonJS, so there is no top-level await: the service starts in `before`.
let starting: Promise<TestApp> | undefined;
let app: TestApp;
async function boot(): Promise<void> {
  // No analysis after the bulk writes here and no job worker polling: their statements would count as the request's.
  app = await (starting ??= startApp({ STATISTICS_REFRESH_ROWS: '1000000000000', RUN_WORKER: '0' }));
}


const range = (n: number) => Array.from({ length: n }, (_, i) => i);

interface Measured { count: number; sql: string[]; reply: Reply }

/** Runs one request (an API call unless `send` says otherwise) and records every SQL statement issued while it runs. */
async function measure(method: string, path: string, body?: unknown, send: () => Promise<Reply> = () => app.api(method, path, body)): Promise<Measured> {
  const db = app.running.db;
  const sql: string[] = [];
  const record = (q: { sql: string }) => { sql.push(q.sql); };
  db.on('query', record);
  const counter = countQueries(db);
  let reply: Reply;
  try {
    reply = await send();
  } finally {
    counter.stop();
    db.removeListener('query', record);
  }
  return { count: counter.count, sql, reply };
}

/** The cheaper of two runs of the same GET (guards against an unrelated statement landing in the window). */
async function measureGet(path: string): Promise<Measured> {
  const a = await measure('GET', path);
  expectStatus(a.reply, 200, `GET ${path}:`);
  const b = await measure('GET', path);
  return a.count <= b.count ? a : b;
}

function explain(label: string, small: Measured, big: Measured): string {
  return `${label}: ${small.count} statements for one row, ${big.count} for ${big.reply.body.results?.length} rows\n`
    + `one row:\n  ${small.sql.join('\n  ')}\nmany rows:\n  ${big.sql.join('\n  ')}`;
}

const ENDPOINTS = [
  '/api/dcim/devices/',
  '/api/dcim/interfaces/',
  '/api/ipam/ip-addresses/',
  '/api/ipam/prefixes/',
  '/api/dcim/sites/',
  '/api/dcim/regions/',
];

// ---------------------------------------------------------------------------------------------
const lists = suite('lists: the number of queries does not grow with the page size');

lists.before(async () => {
  await boot();
  const tags = await app.post('/api/extras/tags/', [{ name: 'Gold', slug: 'gold' }, { name: 'Silver', slug: 'silver' }]);
  const tagIds = tags.map((t: any) => t.id);
  const tenant = await app.post('/api/tenancy/tenants/', { name: 'Budget Tenant', slug: 'budget-tenant' });
  // a region tree: one root, two children, four grandchildren
  const root = await app.post('/api/dcim/regions/', { name: 'World', slug: 'world', tags: tagIds });
  const mid = await app.post('/api/dcim/regions/', range(2).map((i) => ({ name: `Continent ${i}`, slug: `continent-${i}`, parent: root.id, tags: tagIds })));
  const leaves = await app.post('/api/dcim/regions/', range(4).map((i) => ({ name: `Country ${i}`, slug: `country-${i}`, parent: mid[i % 2].id, tags: tagIds })));
  const sites = await app.post('/api/dcim/sites/', range(6).map((i) => ({
    name: `Budget Site ${i}`, slug: `budget-site-${i}`, region: leaves[i % 4].id, tenant: tenant.id, tags: tagIds,
  })));
  const racks = await app.post('/api/dcim/racks/', sites.map((s: any) => ({ name: 'R1', site: s.id, tenant: tenant.id, tags: tagIds })));
  const manufacturer = await app.post('/api/dcim/manufacturers/', { name: 'Budget Networks', slug: 'budget-networks' });
  const type = await app.post('/api/dcim/device-types/', { manufacturer: manufacturer.id, model: 'BN-1', slug: 'bn-1' });
  const role = await app.post('/api/dcim/device-roles/', { name: 'Leaf', slug: 'leaf' });
  const platform = await app.post('/api/dcim/platforms/', { name: 'BNOS', slug: 'bnos' });
  const vrf = await app.post('/api/ipam/vrfs/', { name: 'budget', rd: '65000:1', tenant: tenant.id });
  const ipamRole = await app.post('/api/ipam/roles/', { name: 'Production', slug: 'production' });
  const vlans = await app.post('/api/ipam/vlans/', sites.map((s: any, i: number) => ({ vid: 100 + i, name: `vlan-${i}`, site: s.id, tenant: tenant.id })));
  const devices = await app.post('/api/dcim/devices/', range(30).map((i) => ({
    name: `leaf-${String(i).padStart(2, '0')}`,
    device_type: type.id,
    device_role: role.id,
    platform: platform.id,
    tenant: tenant.id,
    site: sites[i % 6].id,
    rack: racks[i % 6].id,
    local_context_data: { index: i },
    tags: tagIds,
  })));
  const interfaces = await app.post('/api/dcim/interfaces/', devices.flatMap((d: any) => range(3).map((j) => ({
    device: d.id, name: `eth${j}`, type: '10gbase-x-sfpp', vrf: vrf.id, tags: tagIds,
  }))));
  assert.is(interfaces.length, 90);
  const addresses = await app.post('/api/ipam/ip-addresses/', interfaces.map((iface: any, k: number) => ({
    address: `10.${Math.floor(k / 200)}.${k % 200}.1/24`,
    vrf: vrf.id,
    tenant: tenant.id,
    assigned_object_type: 'dcim.interface',
    assigned_object_id: iface.id,
    tags: tagIds,
  })));
  // every device gets a primary IPv4 address (one of its own), in one bulk PATCH
  const primaries = devices.map((d: any) => ({ id: d.id, primary_ip4: addresses[interfaces.findIndex((i: any) => i.device.id === d.id)].id }));
  expectStatus(await app.api('PATCH', '/api/dcim/devices/', primaries), 200, 'bulk PATCH of primary_ip4:');
  await app.post('/api/ipam/prefixes/', range(30).map((k) => ({
    prefix: `10.0.${k}.0/24`, site: sites[k % 6].id, vrf: vrf.id, tenant: tenant.id, role: ipamRole.id, vlan: vlans[k % 6].id, tags: tagIds,
  })));
});

for (const path of ENDPOINTS) {
  lists(`${path}: one row and a full page cost the same`, async () => {
    for (const brief of ['', '&brief=1']) {
      // With an offset both requests count the total, so they must match exactly.
      const small = await measureGet(`${path}?limit=1&offset=1${brief}`);
      const big = await measureGet(`${path}?limit=1000&offset=1${brief}`);
      assert.is(small.reply.body.results.length, 1);
      assert.ok(big.reply.body.results.length >= 5, `${path} has enough rows to tell (${big.reply.body.results.length})`);
      assert.ok(small.count >= 2, `${path}: statements are being counted (${small.count})`);
      assert.is(big.count, small.count, explain(`${path}?offset=1${brief}`, small, big));
      // From the start, a short page may skip the count query: a full page is never dearer.
      const first = await measureGet(`${path}?limit=1${brief}`);
      const all = await measureGet(`${path}?limit=1000${brief}`);
      assert.ok(all.count <= first.count, explain(`${path}${brief}`, first, all));
      // and a brief list is never dearer than the full one
      if (brief) assert.ok(big.count <= (await measureGet(`${path}?limit=1000&offset=1`)).count, `${path}: brief costs no more than full`);
    }
  });
}

lists('the representations are complete (the budget is not met by leaving things out)', async () => {
  const device = (await app.api('GET', '/api/dcim/devices/?limit=1000')).body.results.at(-1);
  assert.ok(device.site?.name && device.rack?.name && device.tenant?.name && device.platform?.name && device.role?.name && device.device_type?.model, JSON.stringify(device));
  assert.ok(device.primary_ip4?.address, 'primary_ip4 nested');
  assert.is(device.tags.length, 2);
  assert.equal(device.config_context, device.local_context_data);
  assert.is(device.interface_count, 3);
  const ip = (await app.api('GET', '/api/ipam/ip-addresses/?limit=1000')).body.results.at(-1);
  assert.ok(ip.assigned_object?.device?.name, 'assigned interface with its device');
  assert.ok(ip.vrf?.name && ip.tenant?.name);
  const iface = (await app.api('GET', '/api/dcim/interfaces/?limit=1000')).body.results.at(-1);
  assert.is(iface.count_ipaddresses, 1);
  assert.ok(iface.device?.display_name && iface.vrf?.name);
  const prefix = (await app.api('GET', '/api/ipam/prefixes/?limit=1000')).body.results.at(-1);
  assert.ok(prefix.site && prefix.vrf && prefix.tenant && prefix.role && prefix.vlan, JSON.stringify(prefix));
  const site = (await app.api('GET', '/api/dcim/sites/?limit=1000&slug__isw=budget')).body.results.at(-1);
  assert.is(site.device_count, 5);
  assert.ok(site.region?.name);
  const region = (await app.api('GET', '/api/dcim/regions/?limit=1000&slug=world')).body.results[0];
  assert.is(region.site_count, 6);
});

lists('a nested named device reads no device type or manufacturer (its display is its name)', async () => {
  const m = await measureGet('/api/ipam/ip-addresses/?limit=1000');
  assert.ok(m.reply.body.results.every((ip: any) => ip.assigned_object?.device?.display === ip.assigned_object.device.name));
  const tables = [model('DeviceType'), model('Manufacturer')].map((e) => e.definition.table);
  const read = m.sql.filter((s) => tables.some((t) => new RegExp(`from\\s+[\`"]?${t}[\`"]?\\s`, 'i').test(s)));
  assert.is(read.length, 0, read.join('\n'));
});

lists('a detail reads its nested rows by the columns their forms show, not whole', async () => {
  const device = (await app.api('GET', '/api/dcim/devices/?limit=1')).body.results[0];
  const m = await measureGet(`/api/dcim/devices/${device.id}/`);
  assert.ok(m.reply.body.site?.name && m.reply.body.device_type?.manufacturer?.name && m.reply.body.tags.length, JSON.stringify(m.reply.body));
  // Only the device itself is read whole (its full form shows nearly every column).
  const whole = m.sql.filter((s) => /select \* from/i.test(s) && !/from\s+[`"]?dcim_device[`"]?\s/i.test(s));
  assert.is(whole.length, 0, whole.join('\n'));
});

lists('a page of interfaces without cables reads no cable paths (only a cabled object can start one)', async () => {
  const m = await measureGet('/api/dcim/interfaces/?limit=1000');
  assert.ok(m.reply.body.results.length >= 90 && m.reply.body.results.every((i: any) => i.cable === null && i.connected_endpoints === null && i.link_peers.length === 0));
  const read = m.sql.filter((s) => /dcim_cablepath/i.test(s));
  assert.is(read.length, 0, read.join('\n'));
});

lists('filters on related objects do not cost a query per row either', async () => {
  for (const path of ['/api/ipam/ip-addresses/?device=leaf-00&device=leaf-01&device=leaf-02', '/api/dcim/sites/?region=world&tag=gold', '/api/ipam/prefixes/?within=10.0.0.0/16&vrf=budget']) {
    const small = await measureGet(`${path}&limit=1&offset=1`);
    const big = await measureGet(`${path}&limit=1000&offset=1`);
    assert.ok(big.reply.body.results.length >= 2, `${path} finds several rows`);
    assert.is(big.count, small.count, explain(path, small, big));
  }
});

lists.run();

// ---------------------------------------------------------------------------------------------
const tabs = suite('IPAM tabs: the number of queries does not grow with the number of children');
let cookie = '';
const spaces: { parent: number; aggregate: number; children: number }[] = [];

tabs.before(async () => {
  await boot();
  const login = await fetch(`${app.url}/login/`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ ...ADMIN, next: '/' }), redirect: 'manual' });
  cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const rir = await app.post('/api/ipam/rirs/', { name: 'Budget RIR', slug: 'budget-rir', is_private: true });
  // Two /16s: one with 2 children, one with 40; each child holds an address and a range, so every part of utilization is read.
  for (const [second, count] of [[16, 2], [17, 40]]) {
    const parent = await app.post('/api/ipam/prefixes/', { prefix: `172.${second}.0.0/16`, status: 'container' });
    const aggregate = await app.post('/api/ipam/aggregates/', { prefix: `172.${second}.0.0/16`, rir: rir.id });
    await app.post('/api/ipam/prefixes/', range(count).map((i) => ({ prefix: `172.${second}.${i * 2}.0/24` })));
    await app.post('/api/ipam/ip-addresses/', range(count).map((i) => ({ address: `172.${second}.${i * 2}.1/24` })));
    await app.post('/api/ipam/ip-ranges/', range(count).map((i) => ({ start_address: `172.${second}.${i * 2}.100/24`, end_address: `172.${second}.${i * 2}.109/24` })));
    spaces.push({ parent: parent.id, aggregate: aggregate.id, children: count });
  }
});

/** A page of the web interface as the signed-in admin. */
async function page(path: string): Promise<Reply> {
  const res = await fetch(app.url + path, { headers: { Cookie: cookie }, redirect: 'manual' });
  const text = await res.text();
  return { status: res.status, body: text, headers: res.headers, text };
}

for (const [label, path] of [['a prefix\'s child prefixes', (s: typeof spaces[number]) => `/ipam/prefixes/${s.parent}/prefixes/`], ['an aggregate\'s prefixes', (s: typeof spaces[number]) => `/ipam/aggregates/${s.aggregate}/prefixes/`]] as const) {
  tabs(`${label}: 2 children and 40 cost the same statements`, async () => {
    const cheaper = async (s: typeof spaces[number]) => {
      const runs = [await measure('GET', path(s), undefined, () => page(path(s))), await measure('GET', path(s), undefined, () => page(path(s)))];
      for (const run of runs) expectStatus(run.reply, 200, `GET ${path(s)}:`);
      return runs[0].count <= runs[1].count ? runs[0] : runs[1];
    };
    // one after the other: the statements of both would count in each window otherwise
    const small = await cheaper(spaces[0]);
    const big = await cheaper(spaces[1]);
    // every child is listed with its utilization bar
    for (const [m, s] of [[small, spaces[0]], [big, spaces[1]]] as const) assert.is((m.reply.text.match(/<progress/g) ?? []).length >= s.children, true, `${path(s)} shows a bar per child`);
    assert.ok(small.count >= 3, `statements are being counted (${small.count})`);
    assert.is(big.count, small.count, `${label}: ${small.count} statements for 2 children, ${big.count} for 40\n  ${small.sql.join('\n  ')}\n40:\n  ${big.sql.join('\n  ')}`);
  });
}

tabs('a page syncs the process caches as the API does: a second later it reads no custom field definitions again', async () => {
  const path = `/ipam/prefixes/${spaces[1].parent}/prefixes/`;
  expectStatus(await page(path), 200, `GET ${path}:`);
  // past the time the caches are trusted without a sync
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const m = await measure('GET', path, undefined, () => page(path));
  expectStatus(m.reply, 200, `GET ${path}:`);
  const reread = m.sql.filter((q) => /extras_customfield/.test(q));
  assert.is(reread.length, 0, `custom field definitions read again:\n  ${reread.join('\n  ')}`);
});

tabs.run();

// ---------------------------------------------------------------------------------------------
const writes = suite('bulk writes are set-wise');
writes.before(boot);

const inserts = (m: Measured) => m.sql.filter((s) => /^\s*insert\b/i.test(s)).length;

writes('a bulk POST of 200 sites runs far fewer than 200 INSERT statements', async () => {
  const tag = await app.post('/api/extras/tags/', { name: 'Bulk', slug: 'bulk' });
  const m = await measure('POST', '/api/dcim/sites/', range(200).map((i) => ({ name: `Bulk Site ${i}`, slug: `bulk-site-${i}`, tags: [tag.id] })));
  expectStatus(m.reply, 201);
  assert.is(m.reply.body.length, 200);
  assert.ok(inserts(m) <= 10, `${inserts(m)} INSERT statements:\n  ${m.sql.filter((s) => /^\s*insert/i.test(s)).slice(0, 20).join('\n  ')}`);
  assert.ok(m.count < 50, `${m.count} statements in all for 200 sites`);
  const listed = await app.api('GET', '/api/dcim/sites/?slug__isw=bulk-site-&tag=bulk&limit=1');
  assert.is(listed.body.count, 200);
});

writes('bulk create costs the same whether it carries 2 or 100 elements', async () => {
  const two = await measure('POST', '/api/dcim/sites/', range(2).map((i) => ({ name: `Pair Site ${i}`, slug: `pair-site-${i}`, tags: [{ slug: 'bulk' }] })));
  expectStatus(two.reply, 201);
  const hundred = await measure('POST', '/api/dcim/sites/', range(100).map((i) => ({ name: `Hundred Site ${i}`, slug: `hundred-site-${i}`, tags: [{ slug: 'bulk' }] })));
  expectStatus(hundred.reply, 201);
  assert.is(hundred.count, two.count, `2 sites: ${two.count} statements, 100 sites: ${hundred.count}\n  ${hundred.sql.join('\n  ')}`);
});

writes('a request writes its change rows in one INSERT, with what it changed on the side', async () => {
  const table = model('ObjectChange').definition.table;
  const logInserts = (m: Measured) => m.sql.filter((s) => new RegExp(`^\\s*insert into\\s+[\`"]?${table}[\`"]?`, 'i').test(s)).length;
  const device = await createObject(app, model('Device'));
  const ifaces = await app.post('/api/dcim/interfaces/', range(20).map((i) => ({ device: device.id, name: `cl${i}`, type: '1000base-t' })));
  const end = (i: number) => [{ object_type: 'dcim.interface', object_id: ifaces[i].id }];
  const cables = await measure('POST', '/api/dcim/cables/', range(10).map((i) => ({ a_terminations: end(2 * i), b_terminations: end(2 * i + 1) })));
  expectStatus(cables.reply, 201);
  assert.is(logInserts(cables), 1, 'ten cables and their twenty terminations');
  const gone = await measure('DELETE', `/api/dcim/devices/${device.id}/`);
  expectStatus(gone.reply, 204);
  assert.is(logInserts(gone), 1, 'the device, its interfaces and their terminations');
  const logged = await app.api('GET', `/api/extras/object-changes/?request_id=${gone.reply.headers.get('x-request-id')}&limit=1`);
  assert.is(logged.body.count, 1 + 20 + 20);
});

writes('a bulk PATCH of 200 sites and a bulk DELETE are set-wise too', async () => {
  const listed = (await app.api('GET', '/api/dcim/sites/?slug__isw=bulk-site-&limit=1000')).body.results;
  assert.is(listed.length, 200);
  const patch = await measure('PATCH', '/api/dcim/sites/', listed.map((s: any) => ({ id: s.id, description: 'patched in bulk' })));
  expectStatus(patch.reply, 200);
  const updates = patch.sql.filter((s) => /^\s*update\b/i.test(s)).length;
  assert.ok(updates <= 10, `${updates} UPDATE statements for 200 sites`);
  assert.ok(patch.count < 50, `${patch.count} statements in all`);
  const del = await measure('DELETE', '/api/dcim/sites/', listed.map((s: any) => ({ id: s.id })));
  expectStatus(del.reply, 204);
  const deletes = del.sql.filter((s) => /^\s*delete\b/i.test(s)).length;
  assert.ok(deletes <= 10, `${deletes} DELETE statements for 200 sites`);
  assert.ok(del.count < 200, `${del.count} statements in all`);
  assert.is((await app.api('GET', '/api/dcim/sites/?slug__isw=bulk-site-&limit=1')).body.count, 0);
  if (engine === 'postgres') {
    // PostgreSQL takes a long id list as one array parameter, in the write's transaction too.
    const longest = (s: string) => Math.max(0, ...[...s.matchAll(/ in \(((?:\?|\$\d+)(?:, (?:\?|\$\d+))*)\)/g)].map((m) => m[1].split(', ').length));
    const listed200 = [...patch.sql, ...del.sql].filter((s) => longest(s) > 100);
    assert.equal(listed200, [], 'statements listing the 200 ids one parameter each');
  }
});

/** Devices with three interfaces each, an address on every interface: what a bulk device DELETE removes. */
async function deviceSet(prefix: string, count: number): Promise<number[]> {
  const device = await createObject(app, model('Device'), { name: `${prefix}-0` });
  const base = { site: device.site.id, device_type: device.device_type.id, role: device.role.id };
  const more = count > 1 ? await app.post('/api/dcim/devices/', range(count - 1).map((i) => ({ ...base, name: `${prefix}-${i + 1}` }))) : [];
  const ids = [device.id, ...more.map((d: any) => d.id)];
  const ifaces = await app.post('/api/dcim/interfaces/', ids.flatMap((id) => range(3).map((j) => ({ device: id, name: `e${j}`, type: '1000base-t' }))));
  await app.post('/api/ipam/ip-addresses/', ifaces.map((f: any, k: number) => ({ address: `172.${16 + (prefix.length % 8)}.${Math.floor(k / 200)}.${(k % 200) + 1}/12`, assigned_object_type: 'dcim.interface', assigned_object_id: f.id })));
  return ids;
}

writes('a bulk DELETE of devices with their interfaces and addresses costs the same for 2 as for 10', async () => {
  const small = await deviceSet('dd', 2);
  const big = await deviceSet('ddd', 10);
  const two = await measure('DELETE', '/api/dcim/devices/', small.map((id) => ({ id })));
  expectStatus(two.reply, 204);
  const ten = await measure('DELETE', '/api/dcim/devices/', big.map((id) => ({ id })));
  expectStatus(ten.reply, 204);
  assert.is(ten.count, two.count, `2 devices: ${two.count} statements, 10: ${ten.count}\n  ${ten.sql.join('\n  ')}`);
  // No one watches devices: the deleted objects are logged by their display, their related rows
  // (each device's site and role) are not read as a full representation would.
  const related = ten.sql.filter((s) => /from [`"](dcim_site|dcim_devicerole)[`"]/i.test(s));
  assert.equal(related, [], 'no related row of a deleted object is read');
  // PostgreSQL: the cascade and protection lookups of a step in one statement, the cleanups in another.
  if (engine === 'postgres') assert.ok(ten.count <= 32, `${ten.count} statements:\n  ${ten.sql.join('\n  ')}`);
});

writes('SQLite: a delete looks up no id list in a table of generic relations that holds no row; one that holds rows is cleaned', async () => {
  const [device] = await deviceSet('empty-probe', 1);
  assert.is((await app.get(`/api/dcim/interfaces/?device_id=${device}&limit=10`)).results.length, 3, 'interfaces to look up');
  const vpn = await app.post('/api/vpn/l2vpns/', { name: 'probe-vpn', slug: 'probe-vpn', type: 'vxlan' });
  const termination = (await app.api('GET', '/api/vpn/l2vpn-terminations/?limit=1')).body;
  assert.is(termination.count, 0, 'no L2VPN termination anywhere yet');
  const listed = (m: Measured, table: string) => m.sql.filter((s) => new RegExp(`from [\`"]${table}[\`"] where .*( in \\(|= any\\()`, 'i').test(s));
  const other = await deviceSet('full-probe', 1);
  const gone = await measure('DELETE', `/api/dcim/devices/${device}/`);
  expectStatus(gone.reply, 204);
  if (engine === 'sqlite') assert.equal(listed(gone, 'vpn_l2vpntermination'), [], 'the empty table is not searched for the interfaces');
  // With a row in it, the lookup runs and the termination goes with its interface.
  const otherIface = (await app.get(`/api/dcim/interfaces/?device_id=${other[0]}&limit=1`)).results[0];
  await app.post('/api/vpn/l2vpn-terminations/', { l2vpn: vpn.id, assigned_object_type: 'dcim.interface', assigned_object_id: otherIface.id });
  const full = await measure('DELETE', `/api/dcim/devices/${other[0]}/`);
  expectStatus(full.reply, 204);
  assert.ok(listed(full, 'vpn_l2vpntermination').length >= 1, full.sql.join('\n  '));
  assert.is((await app.api('GET', '/api/vpn/l2vpn-terminations/?limit=1')).body.count, 0, 'the termination went with its interface');
});

writes('a bulk POST takes its rows back from the INSERT instead of reading them again', async () => {
  const m = await measure('POST', '/api/ipam/ip-addresses/', range(50).map((k) => ({ address: `192.0.2.${k + 1}/24`, description: 'back' })));
  expectStatus(m.reply, 201);
  const insertAt = m.sql.findIndex((s) => /^\s*insert into [`"]ipam_ipaddress[`"]/i.test(s));
  assert.ok(insertAt >= 0);
  const reread = m.sql.slice(insertAt + 1).filter((s) => /^\s*select \* from [`"]ipam_ipaddress[`"] where [`"]id[`"]/i.test(s));
  assert.equal(reread, [], 'no read of the rows just inserted');
  if (engine === 'postgres') assert.ok(m.count <= 12, `${m.count} statements:\n  ${m.sql.join('\n  ')}`);
});

writes('a bulk POST of untagged objects whose hooks write nothing after: no read of the new rows, their tags, links or reverse relations; custom field definitions read once', async () => {
  const device = await createObject(app, model('Device'));
  const m = await measure('POST', '/api/dcim/interfaces/', range(20).map((k) => ({ device: device.id, name: `fresh${k}`, type: '1000base-t' })));
  expectStatus(m.reply, 201);
  assert.equal(m.reply.body.map((r: { tags: unknown[]; tagged_vlans: unknown[] }) => [r.tags, r.tagged_vlans]), range(20).map(() => [[], []]));
  const insertAt = m.sql.findIndex((s) => /^\s*insert into [`"]dcim_interface[`"]/i.test(s));
  assert.ok(insertAt >= 0);
  const after = m.sql.slice(insertAt + 1);
  assert.equal(after.filter((s) => /from [`"]dcim_interface[`"] where [`"]id[`"]/i.test(s)), [], 'no read of the rows just inserted');
  assert.equal(after.filter((s) => /extras_taggeditem|dcim_interface_tagged_vlans|vpn_l2vpntermination/i.test(s) && !/^\s*insert/i.test(s)), [], 'no read of tags, links or reverse relations');
  const definitions = m.sql.filter((s) => /from [`"]extras_customfield[`"]/i.test(s));
  assert.is(definitions.length, 1, `custom field definitions read ${definitions.length} times in one write:\n  ${m.sql.join('\n  ')}`);
});

writes('a bulk PATCH setting each element to its own values is one UPDATE on PostgreSQL; the rows come back from the UPDATEs on both engines', async () => {
  const made = await app.post('/api/ipam/ip-addresses/', range(40).map((k) => ({ address: `198.18.0.${k + 1}/24` })));
  const m = await measure('PATCH', '/api/ipam/ip-addresses/', made.map((r: any, k: number) => ({ id: r.id, description: `own ${k}` })));
  expectStatus(m.reply, 200);
  const updates = m.sql.filter((s) => /^\s*update\b/i.test(s));
  if (engine === 'postgres') assert.is(updates.length, 1, updates.join('\n'));
  else assert.ok(updates.length <= 40);
  // the rows come back from the UPDATEs (RETURNING on both engines), and their tags were read once (before)
  const reads = m.sql.filter((s) => /^\s*select \* from [`"]ipam_ipaddress[`"] where [`"]id[`"]/i.test(s));
  assert.is(reads.length, 1, reads.join('\n'));
});

writes.after(async () => { await app?.stop(); });
writes.run();
