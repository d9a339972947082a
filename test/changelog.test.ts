/**
 * The change log (/api/extras/object-changes/): one record per changed object, written in the same
 * transaction as the change, with the request's X-Request-ID, snapshots before and after, nothing
 * for a rolled-back request or an update that changed nothing, and NetBox's filters.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { engine, expectStatus, startApp, watchPgQueries, type TestApp } from './helpers.js';
import { inputFor } from './factory.js';
import { model } from '../runtime/data/registry.js';

const test = suite('change log');
let app: TestApp;
const LOG = '/api/extras/object-changes/';
const changes = async (params: string) => (await app.api('GET', `${LOG}?limit=1000&${params}`)).body;

test.before(async () => { app = await startApp({ RUN_WORKER: '0' }); });
test.after(() => app.stop());

test('a create writes one record with the request id, the user and a postchange snapshot', async () => {
  const reply = await app.api('POST', '/api/dcim/sites/', { name: 'log-1', slug: 'log-1', description: 'first' });
  expectStatus(reply, 201);
  const requestId = reply.headers.get('x-request-id')!;
  const log = await changes(`request_id=${requestId}`);
  assert.is(log.count, 1);
  const change = log.results[0];
  assert.is(change.action.value, 'create');
  assert.is(change.changed_object_type, 'dcim.site');
  assert.is(change.changed_object_id, reply.body.id);
  assert.is(change.changed_object.id, reply.body.id);
  assert.is(change.user_name, 'admin');
  assert.is(change.user.username, 'admin');
  assert.is(change.object_repr, 'log-1');
  assert.is(change.prechange_data, null);
  assert.is(change.postchange_data.name, 'log-1');
  assert.is(change.postchange_data.description, 'first');
  assert.not.ok('id' in change.postchange_data, 'snapshots carry no id');
});

test('an update records before and after; an update that changes nothing records nothing', async () => {
  const site = (await changes('changed_object_type=dcim.site&action=create')).results.find((c: any) => c.object_repr === 'log-1');
  const id = site.changed_object_id;
  const patch = await app.api('PATCH', `/api/dcim/sites/${id}/`, { description: 'second', tags: [] });
  expectStatus(patch, 200);
  const log = await changes(`request_id=${patch.headers.get('x-request-id')}`);
  assert.is(log.count, 1);
  assert.is(log.results[0].action.value, 'update');
  assert.is(log.results[0].prechange_data.description, 'first');
  assert.is(log.results[0].postchange_data.description, 'second');
  const same = await app.api('PATCH', `/api/dcim/sites/${id}/`, { description: 'second' });
  expectStatus(same, 200);
  assert.is((await changes(`request_id=${same.headers.get('x-request-id')}`)).count, 0);
});

test('a bulk write records one change per object, all under its request id', async () => {
  const reply = await app.api('POST', '/api/tenancy/tenants/', [1, 2, 3].map((i) => ({ name: `log-t${i}`, slug: `log-t${i}` })));
  expectStatus(reply, 201);
  const log = await changes(`request_id=${reply.headers.get('x-request-id')}`);
  assert.is(log.count, 3);
  assert.equal(log.results.map((c: any) => c.changed_object_id).sort(), reply.body.map((t: any) => t.id).sort());
});

test('a rolled-back request leaves no record', async () => {
  const before = (await changes('')).count;
  const reply = await app.api('POST', '/api/tenancy/tenants/', [{ name: 'log-ok', slug: 'log-ok' }, { name: 'log-bad', slug: 'bad slug!' }]);
  expectStatus(reply, 400);
  assert.is((await changes('')).count, before);
  assert.is((await changes(`request_id=${reply.headers.get('x-request-id')}`)).count, 0);
});

test('a delete records the last state; the record stays after the object is gone', async () => {
  const tenant = (await app.api('POST', '/api/tenancy/tenants/', { name: 'log-gone', slug: 'log-gone' })).body;
  const reply = await app.api('DELETE', `/api/tenancy/tenants/${tenant.id}/`);
  expectStatus(reply, 204);
  const log = await changes(`request_id=${reply.headers.get('x-request-id')}`);
  assert.is(log.count, 1);
  const change = log.results[0];
  assert.is(change.action.value, 'delete');
  assert.is(change.prechange_data.name, 'log-gone');
  assert.is(change.postchange_data, null);
  assert.is(change.changed_object_type, 'tenancy.tenant');
  assert.is(change.changed_object_id, tenant.id);
  assert.is(change.changed_object, null, 'the object no longer exists');
});

test('filters: action, type, object id, user, time_after / time_before; users-app changes are not logged', async () => {
  const all = (await changes('')).results;
  assert.ok(all.length >= 7);
  const latest = all[0].time;
  assert.ok(all.every((c: any, i: number) => i === 0 || all[i - 1].time >= c.time), 'newest first');
  assert.ok((await changes('action=delete')).results.every((c: any) => c.action.value === 'delete'));
  assert.ok((await changes('changed_object_type=tenancy.tenant')).results.every((c: any) => c.changed_object_type === 'tenancy.tenant'));
  assert.is((await changes(`time_after=${encodeURIComponent(latest)}`)).count, all.filter((c: any) => c.time >= latest).length);
  assert.is((await changes('time_before=2000-01-01')).count, 0);
  assert.is((await changes('user_name=admin')).count, all.length);
  expectStatus(await app.api('GET', `${LOG}?time_after=yesterday`), 400);
  const token = await app.api('POST', '/api/users/tokens/', { user: 1 });
  expectStatus(token, 201);
  assert.is((await changes(`request_id=${token.headers.get('x-request-id')}`)).count, 0, 'tokens are not change-logged');
  expectStatus(await app.api('POST', LOG, {}), 405);
});

test('a component records its parent as the related object', async () => {
  const site = await app.post('/api/dcim/sites/', { name: 'rel-site', slug: 'rel-site' });
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'rel-m', slug: 'rel-m' });
  const type = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'rel-t', slug: 'rel-t' });
  const role = await app.post('/api/dcim/device-roles/', { name: 'rel-r', slug: 'rel-r' });
  const device = await app.post('/api/dcim/devices/', { name: 'rel-dev', site: site.id, device_type: type.id, role: role.id });
  const reply = await app.api('POST', '/api/dcim/interfaces/', { device: device.id, name: 'eth0', type: '1000base-t' });
  expectStatus(reply, 201);
  const change = (await changes(`request_id=${reply.headers.get('x-request-id')}`)).results[0];
  assert.is(change.related_object_type, 'dcim.device');
  assert.is(change.related_object_id, device.id);
  assert.is(change.related_object.id, device.id);
  const siteChange = (await changes(`changed_object_type=dcim.site&changed_object_id=${site.id}`)).results[0];
  assert.is(siteChange.related_object, null, 'models without a parent have none');
});

test('a delete with cascades logs each removed object once with its last state; its statements take turns on the connection', async () => {
  const base = await inputFor(app, model('Device'));
  const tag = await app.post('/api/extras/tags/', { name: 'cas-tag', slug: 'cas-tag' });
  const devices = await app.post('/api/dcim/devices/', [1, 2, 3].map((n) => ({ ...base, name: `cas-${n}`, tags: [tag.id] })));
  const interfaces = await app.post('/api/dcim/interfaces/', devices.flatMap((d: { id: number }) => [0, 1].map((j) => ({ device: d.id, name: `eth${j}`, type: '1000base-t' }))));
  const addresses = await app.post('/api/ipam/ip-addresses/', interfaces.map((f: { id: number }, i: number) => ({ address: `192.0.2.${i + 1}/24`, assigned_object_type: 'dcim.interface', assigned_object_id: f.id, description: `cas-${i}` })));
  const { busy, calls, result: reply } = await watchPgQueries(() => app.api('DELETE', '/api/dcim/devices/', devices.map((d: { id: number }) => ({ id: d.id }))));
  expectStatus(reply, 204);
  if (engine === 'postgres') {
    assert.ok(calls > 10, `the delete ran its statements through node-pg (${calls})`);
    assert.is(busy, 0, 'no statement handed to a connection still running another');
  }
  const log = (await changes(`request_id=${reply.headers.get('x-request-id')}`)).results;
  const logged = (type: string) => log.filter((c: any) => c.changed_object_type === type).map((c: any) => c.changed_object_id).sort((a: number, b: number) => a - b);
  const ids = (rows: { id: number }[]) => rows.map((r) => r.id).sort((a, b) => a - b);
  assert.equal(logged('dcim.device'), ids(devices));
  assert.equal(logged('dcim.interface'), ids(interfaces));
  assert.equal(logged('ipam.ipaddress'), ids(addresses));
  assert.is(log.length, devices.length + interfaces.length + addresses.length);
  assert.ok(log.every((c: any) => c.action.value === 'delete' && c.postchange_data === null));
  const device = log.find((c: any) => c.changed_object_id === devices[0].id && c.changed_object_type === 'dcim.device');
  assert.is(device.prechange_data.name, 'cas-1');
  assert.equal(device.prechange_data.tags, ['cas-tag']);
  const address = log.find((c: any) => c.changed_object_id === addresses[0].id && c.changed_object_type === 'ipam.ipaddress');
  assert.is(address.prechange_data.description, 'cas-0');
  assert.is(address.prechange_data.assigned_object_id, interfaces[0].id);
  for (const d of devices) expectStatus(await app.api('GET', `/api/dcim/devices/${d.id}/`), 404);
  expectStatus(await app.api('GET', `/api/ipam/ip-addresses/${addresses[0].id}/`), 404);
});

test.run();
