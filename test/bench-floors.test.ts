/**
 * The bench's floors do the job the API does, so the ratios `npm run bench` prints compare like with
 * like. Driven over HTTP against a running service's database: the `parent=` floor
 * (test/bench/parent-floor.ts) answers the API's rows in the API's order with its count; the write
 * floor's (test/bench/write-floor.ts) creates, changes and deletes are what the API then reads back,
 * its device delete takes the interfaces and their addresses along, and every object it touches is in
 * the change log.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { engine, expectStatus, startApp, type TestApp } from './helpers.js';
import { postgresFloor, sqliteFloor, type Floor } from './bench/floor.js';
import { inputFor } from './factory.js';
import { model } from '../runtime/data/registry.js';

const test = suite('bench: the floors do what the API does');
let app: TestApp;
let floor: Floor;

const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(floor.url + path, { method, headers: { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};
const changes = async (type: string, action: string) =>
  (await app.get(`/api/extras/object-changes/?changed_object_type=${type}&action=${action}&limit=1000`)).results as { changed_object_id: number; prechange_data: any; postchange_data: any }[];

test.before(async () => {
  app = await startApp();
  const { config } = app.running;
  floor = engine === 'postgres' ? await postgresFloor(config.databaseUrl!, config.databaseSchema!) : await sqliteFloor(join(config.dataDir, 'netledger.sqlite3'));
});
test.after(async () => {
  await floor.close();
  await app.stop();
});

test('the parent= floor answers the API\'s page: the same rows in the same order, the same count', async () => {
  const addresses = ['10.7.3.9/24', '10.7.0.1/16', '10.7.200.1/16', '10.7.3.1/24', '10.8.0.1/16', '10.7.3.10/28', '10.7.0.0/16'];
  await app.post('/api/ipam/ip-addresses/', addresses.map((address, i) => ({ address, ...(i === 0 ? { status: 'dhcp', role: 'vip' } : {}) })));
  const path = '/api/ipam/ip-addresses/?parent=10.7.0.0/16&limit=4';
  const api = await app.get(path);
  const bare = await call('GET', path);
  assert.is(bare.status, 200);
  assert.is(api.count, 6);
  assert.is(bare.body.count, api.count);
  assert.equal(bare.body.results.map((r: { address: string }) => r.address), api.results.map((r: { address: string }) => r.address));
  // Whole representations alike: choice labels (DHCP, VIP) as the schema gives them, every field in the API's order.
  // (Each names its own host in its links.)
  const relative = (results: unknown, base: string) => JSON.parse(JSON.stringify(results).replaceAll(base, ''));
  assert.equal(relative(bare.body.results, floor.url), relative(api.results, app.url));
});

test('creates, changes and deletes addresses, each change logged with its snapshot', async () => {
  const made = await call('POST', '/api/ipam/ip-addresses/', [{ address: '172.16.0.1/16', status: 'active' }, { address: '172.16.0.2/16', status: 'active' }]);
  assert.is(made.status, 201);
  const ids = made.body.map((r: { id: number }) => r.id);
  const listed = await app.get(`/api/ipam/ip-addresses/?id=${ids.join('&id=')}`);
  assert.equal(listed.results.map((r: { address: string; family: { value: number } }) => [r.address, r.family.value]), [['172.16.0.1/16', 4], ['172.16.0.2/16', 4]]);
  // The address's bytes are stored as the service stores them: containment finds them.
  assert.is((await app.get('/api/ipam/ip-addresses/?parent=172.16.0.0/16')).count, 2);
  assert.equal((await changes('ipam.ipaddress', 'create')).filter((c) => ids.includes(c.changed_object_id)).map((c) => c.postchange_data.address).sort(), ['172.16.0.1/16', '172.16.0.2/16']);

  const changed = await call('PATCH', '/api/ipam/ip-addresses/', ids.map((id: number) => ({ id, description: 'by the floor', status: 'reserved' })));
  assert.is(changed.status, 200);
  const after = await app.get(`/api/ipam/ip-addresses/${ids[0]}/`);
  assert.is(after.description, 'by the floor');
  assert.is(after.status.value, 'reserved');
  const update = (await changes('ipam.ipaddress', 'update')).find((c) => c.changed_object_id === ids[0])!;
  assert.equal([update.prechange_data.status, update.postchange_data.status], ['active', 'reserved']);

  assert.is((await call('DELETE', '/api/ipam/ip-addresses/', ids.map((id: number) => ({ id })))).status, 204);
  expectStatus(await app.api('GET', `/api/ipam/ip-addresses/${ids[0]}/`), 404);
  assert.is((await changes('ipam.ipaddress', 'delete')).filter((c) => ids.includes(c.changed_object_id)).length, 2);
});

test('deletes devices with their interfaces and the addresses on them, and logs every one', async () => {
  const device = await inputFor(app, model('Device'));
  const tag = await app.post('/api/extras/tags/', { name: 'gone', slug: 'gone' });
  const devices = await app.post('/api/dcim/devices/', ['d1', 'd2', 'kept'].map((name) => ({ ...device, name, tags: [tag.id] })));
  const interfaces = await app.post('/api/dcim/interfaces/', devices.flatMap((d: { id: number }) => [0, 1].map((j) => ({ device: d.id, name: `eth${j}`, type: '1000base-t' }))));
  const addresses = await app.post('/api/ipam/ip-addresses/', interfaces.map((f: { id: number }, k: number) => ({ address: `10.9.0.${k + 1}/24`, assigned_object_type: 'dcim.interface', assigned_object_id: f.id })));

  const doomed = devices.slice(0, 2).map((d: { id: number }) => d.id);
  assert.is((await call('DELETE', '/api/dcim/devices/', doomed.map((id: number) => ({ id })))).status, 204);
  assert.equal((await app.get('/api/dcim/devices/')).results.map((d: { name: string }) => d.name), ['kept']);
  assert.is((await app.get('/api/dcim/interfaces/')).count, 2);
  assert.is((await app.get('/api/ipam/ip-addresses/?parent=10.9.0.0/24')).count, 2);
  assert.is((await app.get(`/api/extras/tags/${tag.id}/`)).tagged_items, 1);
  assert.equal((await changes('dcim.device', 'delete')).map((c) => c.changed_object_id).sort(), [...doomed].sort());
  assert.is((await changes('dcim.interface', 'delete')).length, 4);
  const goneAddresses = addresses.slice(0, 4).map((a: { id: number }) => a.id);
  assert.equal((await changes('ipam.ipaddress', 'delete')).map((c) => c.changed_object_id).filter((id) => goneAddresses.includes(id)).sort(), [...goneAddresses].sort());
});

test.run();
