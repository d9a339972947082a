/**
 * Counter columns (runtime/data/counter-columns.ts): a count of the schema is a column kept by the
 * database's triggers, so it stays right through every write path: single and bulk creates, moves to
 * another parent and to none, bulk deletes, cascades, generic relations, many-to-many links, raw SQL;
 * and the migration that adds them fills them from the rows an existing database already holds.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { engine, expectStatus, startApp, type TestApp } from './helpers.js';
import { createObject } from './factory.js';
import { model } from '../runtime/data/registry.js';
import * as counters from '../generated/migrations/1009_schema.js';

const test = suite('counter columns');
let app: TestApp;
let n = 0;
const unique = (s: string) => `${s}-cc${++n}`;

const device = (id: number) => app.get(`/api/dcim/devices/${id}/`);
const iface = (id: number) => app.get(`/api/dcim/interfaces/${id}/`);

async function send(method: string, path: string, body?: unknown) {
  const reply = await app.api(method, path, body);
  expectStatus(reply, method === 'DELETE' ? 204 : method === 'POST' ? 201 : 200, `${method} ${path}:`);
  return reply.body;
}

async function interfaces(deviceId: number, count: number) {
  return await app.post('/api/dcim/interfaces/', Array.from({ length: count }, () => ({ device: deviceId, name: unique('eth'), type: '1000base-t' }))) as any[];
}

test.before(async () => { app = await startApp({ RUN_WORKER: '0' }); });
test.after(() => app.stop());

test('fk counts follow single and bulk creates, bulk deletes and raw SQL', async () => {
  const a = await createObject(app, model('Device'));
  const made = await interfaces(a.id, 3);
  assert.is((await device(a.id)).interface_count, 3, 'bulk create');
  const one = await app.post('/api/dcim/interfaces/', { device: a.id, name: unique('eth'), type: '1000base-t' });
  assert.is((await device(a.id)).interface_count, 4, 'single create');
  await send('DELETE', '/api/dcim/interfaces/', [{ id: made[1].id }, { id: made[2].id }]);
  assert.is((await device(a.id)).interface_count, 2, 'bulk delete');
  const listed = (await app.get(`/api/dcim/devices/?id=${a.id}`)).results as any[];
  assert.is(listed[0].interface_count, 2, 'the list reads the same column');
  // Raw SQL is counted too (triggers, not the API's write path).
  await app.running.db('dcim_interface').where('id', one.id).del();
  assert.is((await device(a.id)).interface_count, 1, 'raw delete');
  // The column is read-only: a write of it is ignored.
  await app.patch(`/api/dcim/devices/${a.id}/`, { interface_count: 99 });
  assert.is((await device(a.id)).interface_count, 1, 'not writable');
});

test('fk counts follow single and bulk moves', async () => {
  const t1 = await app.post('/api/tenancy/tenants/', { name: unique('t'), slug: unique('t') });
  const t2 = await app.post('/api/tenancy/tenants/', { name: unique('t'), slug: unique('t') });
  const prefixes = await app.post('/api/ipam/prefixes/', [1, 2, 3].map((k) => ({ prefix: `10.${90 + k}.${n}.0/24`, tenant: t1.id }))) as any[];
  const counts = async () => Promise.all([t1.id, t2.id].map(async (id) => (await app.get(`/api/tenancy/tenants/${id}/`)).prefix_count));
  assert.equal(await counts(), [3, 0]);
  await app.patch(`/api/ipam/prefixes/${prefixes[0].id}/`, { tenant: t2.id });
  assert.equal(await counts(), [2, 1], 'a move');
  await app.patch('/api/ipam/prefixes/', [{ id: prefixes[1].id, tenant: t2.id }, { id: prefixes[2].id, tenant: t2.id }]);
  assert.equal(await counts(), [0, 3], 'a bulk move');
  await app.patch('/api/ipam/prefixes/', prefixes.map((p) => ({ id: p.id, description: 'unrelated' })));
  assert.equal(await counts(), [0, 3], 'an update that moves nothing');
});

test('a nullable fk: moved to another parent and to none', async () => {
  const t1 = await app.post('/api/tenancy/tenants/', { name: unique('t'), slug: unique('t') });
  const t2 = await app.post('/api/tenancy/tenants/', { name: unique('t'), slug: unique('t') });
  const d = await createObject(app, model('Device'), { tenant: t1.id });
  const tenant = async (id: number) => (await app.get(`/api/tenancy/tenants/${id}/`)).device_count;
  assert.is(await tenant(t1.id), 1);
  await app.patch(`/api/dcim/devices/${d.id}/`, { tenant: t2.id });
  assert.equal([await tenant(t1.id), await tenant(t2.id)], [0, 1]);
  await app.patch(`/api/dcim/devices/${d.id}/`, { tenant: null });
  assert.equal([await tenant(t1.id), await tenant(t2.id)], [0, 0]);
  await app.patch(`/api/dcim/devices/${d.id}/`, { tenant: t1.id });
  assert.is(await tenant(t1.id), 1, 'from none to a parent');
});

test('a delete cascading to counted rows lowers the counts of the parents that stay', async () => {
  const role = await app.post('/api/dcim/inventory-item-roles/', { name: unique('r'), slug: unique('r') });
  const d = await createObject(app, model('Device'));
  await app.post('/api/dcim/inventory-items/', [1, 2, 3].map(() => ({ device: d.id, name: unique('item'), role: role.id })));
  const count = async () => (await app.get(`/api/dcim/inventory-item-roles/${role.id}/`)).inventoryitem_count;
  assert.is(await count(), 3);
  assert.is((await device(d.id)).inventory_item_count, 3);
  await send('DELETE', `/api/dcim/devices/${d.id}/`);
  assert.is(await count(), 0, 'the items went with their device');
});

test('a generic relation counts per type: IP addresses on interfaces', async () => {
  const d = await createObject(app, model('Device'));
  const [i1, i2] = await interfaces(d.id, 2);
  const vmi = await createObject(app, model('VMInterface'));
  const ips = await app.post('/api/ipam/ip-addresses/', [1, 2, 3].map((k) => ({ address: `10.77.${n}.${k}/24`, assigned_object_type: 'dcim.interface', assigned_object_id: i1.id }))) as any[];
  assert.is((await iface(i1.id)).count_ipaddresses, 3, 'bulk create');
  await app.patch(`/api/ipam/ip-addresses/${ips[0].id}/`, { assigned_object_id: i2.id });
  assert.equal([(await iface(i1.id)).count_ipaddresses, (await iface(i2.id)).count_ipaddresses], [2, 1], 'a move');
  await app.patch(`/api/ipam/ip-addresses/${ips[1].id}/`, { assigned_object_type: 'virtualization.vminterface', assigned_object_id: vmi.id });
  assert.is((await iface(i1.id)).count_ipaddresses, 1, 'moved to another type');
  assert.is((await app.get(`/api/virtualization/interfaces/${vmi.id}/`)).count_ipaddresses, 1);
  await app.patch(`/api/ipam/ip-addresses/${ips[2].id}/`, { assigned_object_type: null, assigned_object_id: null });
  assert.is((await iface(i1.id)).count_ipaddresses, 0, 'unassigned');
  await send('DELETE', '/api/ipam/ip-addresses/', [{ id: ips[0].id }, { id: ips[1].id }]);
  assert.is((await iface(i2.id)).count_ipaddresses, 0, 'bulk delete');
  assert.is((await app.get(`/api/virtualization/interfaces/${vmi.id}/`)).count_ipaddresses, 0);
});

test('a bulk delete of devices: the addresses going with their interfaces lower the counts of the parents that stay', async () => {
  // the addresses (a generic cascade, no constraint) are deleted after their interfaces and devices
  const vrf = await app.post('/api/ipam/vrfs/', { name: unique('vrf') });
  const [d1, d2, keep] = [await createObject(app, model('Device')), await createObject(app, model('Device')), await createObject(app, model('Device'))];
  const doomed = [...await interfaces(d1.id, 2), ...await interfaces(d2.id, 2)];
  const [kept] = await interfaces(keep.id, 1);
  const address = (k: number, to: number) => ({ address: `10.78.${n}.${k}/24`, vrf: vrf.id, assigned_object_type: 'dcim.interface', assigned_object_id: to });
  await app.post('/api/ipam/ip-addresses/', [...doomed.map((f, k) => address(k + 1, f.id)), address(9, kept.id), address(10, kept.id)]);
  assert.is((await app.get(`/api/ipam/vrfs/${vrf.id}/`)).ipaddress_count, 6);
  await send('DELETE', '/api/dcim/devices/', [{ id: d1.id }, { id: d2.id }]);
  assert.is((await app.get(`/api/ipam/vrfs/${vrf.id}/`)).ipaddress_count, 2, 'the four addresses went with their interfaces');
  assert.is((await app.get(`/api/ipam/ip-addresses/?vrf_id=${vrf.id}`)).count, 2);
  assert.is((await iface(kept.id)).count_ipaddresses, 2, 'the interface that stays keeps its count');
  assert.equal([(await device(keep.id)).interface_count, (await app.get(`/api/dcim/interfaces/?device_id=${d1.id}`)).count], [1, 0]);
});

test('a many-to-many count: sites per ASN', async () => {
  const rir = await app.post('/api/ipam/rirs/', { name: unique('rir'), slug: unique('rir') });
  const [a1, a2] = await app.post('/api/ipam/asns/', [{ asn: 64500 + n, rir: rir.id }, { asn: 64600 + n, rir: rir.id }]) as any[];
  const asn = async (id: number) => (await app.get(`/api/ipam/asns/${id}/`)).site_count;
  const site = await app.post('/api/dcim/sites/', { name: unique('s'), slug: unique('s'), asns: [a1.id] });
  const other = await app.post('/api/dcim/sites/', { name: unique('s'), slug: unique('s'), asns: [a1.id, a2.id] });
  assert.equal([await asn(a1.id), await asn(a2.id)], [2, 1]);
  await app.patch(`/api/dcim/sites/${site.id}/`, { asns: [a2.id] });
  assert.equal([await asn(a1.id), await asn(a2.id)], [1, 2]);
  await send('DELETE', `/api/dcim/sites/${other.id}/`);
  assert.equal([await asn(a1.id), await asn(a2.id)], [0, 1], 'links go with a deleted site');
});

test('a bulk delete of many parents\' rows looks the parents up by id (PostgreSQL: no scan of the parent table)', async () => {
  const made = [await createObject(app, model('Device')), await createObject(app, model('Device')), await createObject(app, model('Device')), await createObject(app, model('Device'))];
  const rows = (await Promise.all(made.map((d) => interfaces(d.id, 5)))).flat();
  const counts = async () => Promise.all(made.map(async (d) => (await device(d.id)).interface_count));
  assert.equal(await counts(), [5, 5, 5, 5]);
  const db = app.running.db;
  if (engine === 'postgres') {
    // The statement trigger's grouped UPDATE, planned freely, was a hash join over every device
    // (the whole table at 100,000 devices) updating them in no set order (migration 1011).
    await db.transaction(async (trx) => {
      const scans = async () => Number((await trx.raw("select seq_scan from pg_stat_xact_user_tables where schemaname = current_schema() and relname = 'dcim_device'")).rows[0]?.seq_scan ?? 0);
      const before = await scans();
      await trx('dcim_interface').whereIn('id', rows.slice(0, 15).map((r) => r.id)).del();
      assert.is(await scans(), before, 'the devices were looked up, not scanned');
      throw new Error('rolled back');
    }).catch((e) => { if (e.message !== 'rolled back') throw e; });
  }
  await send('DELETE', '/api/dcim/interfaces/', rows.slice(0, 15).map((r) => ({ id: r.id })));
  assert.equal(await counts(), [0, 0, 0, 5]);
});

test('tagged_items counts every model\'s tags: creates, replaced and cleared tags, bulk deletes, raw SQL', async () => {
  const [red, blue] = await app.post('/api/extras/tags/', [{ name: unique('red'), slug: unique('red') }, { name: unique('blue'), slug: unique('blue') }]) as any[];
  const counts = async () => Promise.all([red.id, blue.id].map(async (id) => (await app.get(`/api/extras/tags/${id}/`)).tagged_items));
  const sites = await app.post('/api/dcim/sites/', [1, 2, 3].map(() => ({ name: unique('s'), slug: unique('s'), tags: [red.id] }))) as any[];
  const tenant = await app.post('/api/tenancy/tenants/', { name: unique('t'), slug: unique('t'), tags: [red.id, blue.id] });
  assert.equal(await counts(), [4, 1], 'bulk and single creates, two models');
  await app.patch(`/api/dcim/sites/${sites[0].id}/`, { tags: [blue.id] });
  assert.equal(await counts(), [3, 2], 'tags replaced');
  await app.patch('/api/dcim/sites/', [{ id: sites[1].id, tags: [] }, { id: sites[2].id, description: 'tags untouched' }]);
  assert.equal(await counts(), [2, 2], 'tags cleared in a bulk update, kept where not given');
  await send('DELETE', '/api/dcim/sites/', [{ id: sites[0].id }, { id: sites[2].id }]);
  assert.equal(await counts(), [1, 1], 'a bulk delete forgets the objects\' tags');
  await app.running.db('extras_taggeditem').where({ object_type: 'tenancy.tenant', object_id: tenant.id, tag_id: blue.id }).del();
  assert.equal(await counts(), [1, 0], 'raw delete');
  const listed = (await app.get(`/api/extras/tags/?id=${red.id}&id=${blue.id}`)).results as any[];
  assert.equal([red.id, blue.id].map((id) => listed.find((t) => t.id === id).tagged_items), [1, 0], 'the list reads the same column');
  await app.post('/api/dcim/sites/', [1, 2].map(() => ({ name: unique('s'), slug: unique('s'), tags: [blue.id] })));
  const ordered = (await app.get(`/api/extras/tags/?id=${red.id}&id=${blue.id}&ordering=-tagged_items`)).results as any[];
  assert.equal(ordered.map((t) => [t.id, t.tagged_items]), [[blue.id, 2], [red.id, 1]], 'ordered by the count, as NetBox orders by its annotation');
  const ascending = (await app.get(`/api/extras/tags/?id=${red.id}&id=${blue.id}&ordering=tagged_items`)).results as any[];
  assert.equal(ascending.map((t) => t.id), [red.id, blue.id]);
});

test('the migration fills the counters of a database that already holds rows', async () => {
  const d = await createObject(app, model('Device'));
  const [i1] = await interfaces(d.id, 2);
  await app.post('/api/ipam/ip-addresses/', { address: `10.78.${n}.1/24`, assigned_object_type: 'dcim.interface', assigned_object_id: i1.id });
  const db = app.running.db;
  await db.transaction(async (trx) => counters.down(trx));
  assert.not.ok(await db.schema.hasColumn('dcim_device', 'interface_count'));
  // A row written while there are no counters, then the migration again.
  await interfaces(d.id, 1);
  await db.transaction(async (trx) => counters.up(trx));
  assert.is((await device(d.id)).interface_count, 3);
  assert.is((await iface(i1.id)).count_ipaddresses, 1);
  assert.is((await app.get(`/api/dcim/sites/${d.site.id}/`)).device_count, 1);
  await interfaces(d.id, 1);
  assert.is((await device(d.id)).interface_count, 4, 'the triggers are back');
});

test.run();
