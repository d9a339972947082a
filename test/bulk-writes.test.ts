/**
 * What the set-based bulk writes must keep: each element's values in its own order (PostgreSQL
 * inserts rows sent as one JSON document), uniqueness refused at the right element whatever the
 * number of keys, protected objects named, and a delete's webhook payloads complete although a delete
 * no one watches renders only what the change log needs.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite('bulk writes');
let app: TestApp;
let n = 0;
const unique = (p: string) => `${p}-${++n}`;

test.before(async () => { app = await startApp({ RUN_WORKER: '0' }); });
test.after(() => app.stop());

async function devices(count: number, interfaces: number): Promise<{ devices: any[]; ifaces: any[] }> {
  const site = await app.post('/api/dcim/sites/', { name: unique('site'), slug: unique('site') });
  const maker = await app.post('/api/dcim/manufacturers/', { name: unique('maker'), slug: unique('maker') });
  const type = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: unique('model'), slug: unique('model') });
  const role = await app.post('/api/dcim/device-roles/', { name: unique('role'), slug: unique('role') });
  const list = await app.post('/api/dcim/devices/', Array.from({ length: count }, () => ({ name: unique('dev'), site: site.id, device_type: type.id, role: role.id })));
  const ifaces = await app.post('/api/dcim/interfaces/', list.flatMap((d: any) => Array.from({ length: interfaces }, (_, j) => ({ device: d.id, name: `eth${j}`, type: '1000base-t' }))));
  return { devices: list, ifaces };
}

test('a bulk create answers and stores every element as sent, in order (addresses of both families)', async () => {
  const input = ['2001:db8::5/64', '192.0.2.7/24', '2001:db8::1/64', '192.0.2.3/24'].map((address, i) => ({ address, description: `d${i}`, dns_name: i % 2 ? '' : `h${i}.example.com` }));
  const created = await app.post('/api/ipam/ip-addresses/', input);
  assert.equal(created.map((c: any) => [c.address, c.description, c.dns_name, c.family.value]), input.map((i) => [i.address, i.description, i.dns_name, i.address.includes(':') ? 6 : 4]));
  assert.ok(created.every((c: any, i: number) => i === 0 || c.id > created[i - 1].id), 'ids drawn in the order given');
  const within = (await app.get('/api/ipam/ip-addresses/?parent=192.0.2.0/24&ordering=address')).results.map((r: any) => r.address);
  assert.equal(within, ['192.0.2.3/24', '192.0.2.7/24']);
  const v6 = (await app.get('/api/ipam/ip-addresses/?parent=2001:db8::/64&ordering=address')).results.map((r: any) => r.address);
  assert.equal(v6, ['2001:db8::1/64', '2001:db8::5/64']);
});

test('a bulk create refuses a name its device already has, at that element only', async () => {
  const { devices: [a, b] } = await devices(2, 2);
  const reply = await app.api('POST', '/api/dcim/interfaces/', [
    { device: a.id, name: 'eth9', type: '1000base-t' },
    { device: b.id, name: 'eth7', type: '1000base-t' },
    { device: b.id, name: 'eth1', type: '1000base-t' },
    { device: a.id, name: 'eth8', type: '1000base-t' },
  ]);
  expectStatus(reply, 400);
  assert.equal(reply.body.map((e: any) => Object.keys(e)), [[], [], ['non_field_errors'], []]);
  assert.match(reply.body[2].non_field_errors[0], 'must make a unique set');
  const twice = await app.api('POST', '/api/dcim/interfaces/', [{ device: a.id, name: 'x1', type: '1000base-t' }, { device: a.id, name: 'x1', type: '1000base-t' }]);
  expectStatus(twice, 400, 'the same name twice in one request');
  assert.equal(twice.body[0], {});
});

test('a delete blocked by a protecting object names it, and nothing goes', async () => {
  const { devices: [d], ifaces: [parent, other] } = await devices(1, 2);
  await app.patch(`/api/dcim/interfaces/${other.id}/`, { parent: parent.id, type: 'virtual' });
  const reply = await app.api('DELETE', '/api/dcim/interfaces/', [{ id: parent.id }]);
  expectStatus(reply, 409);
  assert.match(JSON.stringify(reply.body), `eth1 (${other.id})`);
  assert.is((await app.get(`/api/dcim/interfaces/?device_id=${d.id}`)).count, 2);
});

test('a delete logs every object it removes, and a rule watching a model still gets its full representation', async () => {
  const { devices: [d], ifaces } = await devices(1, 2);
  const ips = await app.post('/api/ipam/ip-addresses/', ifaces.map((f: any, i: number) => ({ address: `198.51.100.${i + 1}/24`, assigned_object_type: 'dcim.interface', assigned_object_id: f.id })));
  const hook = await app.post('/api/extras/webhooks/', { name: unique('hook'), payload_url: 'http://127.0.0.1:9/' });
  await app.post('/api/extras/event-rules/', {
    name: unique('rule'), type_delete: true, content_types: ['ipam.ipaddress'],
    action_type: 'webhook', action_object_type: 'extras.webhook', action_object_id: hook.id,
  });
  const gone = await app.api('DELETE', '/api/dcim/devices/', [{ id: d.id }]);
  expectStatus(gone, 204);
  const requestId = gone.headers.get('x-request-id')!;
  const logged = (await app.get(`/api/extras/object-changes/?request_id=${requestId}&limit=1000`)).results
    .map((c: any) => `${c.changed_object_type} ${c.changed_object_id} ${c.object_repr} ${c.action.value}`).sort();
  assert.equal(logged, [
    `dcim.device ${d.id} ${d.name} delete`,
    ...ifaces.map((f: any) => `dcim.interface ${f.id} ${f.name} delete`),
    ...ips.map((ip: any) => `ipam.ipaddress ${ip.id} ${ip.address} delete`),
  ].sort());
  const queued = (await app.get(`/api/extras/webhook-deliveries/?webhook_id=${hook.id}&request_id=${requestId}&limit=1000`)).results;
  assert.equal(queued.map((q: any) => q.object_type).sort(), ['ipam.ipaddress', 'ipam.ipaddress']);
  const payload = typeof queued[0].payload === 'string' ? JSON.parse(queued[0].payload) : queued[0].payload;
  const sent = ips.find((ip: any) => ip.id === payload.data.id);
  assert.equal(payload.data, sent, 'the payload is the address as GET showed it before the delete');
});

test('a bulk update stores and logs each element\'s own values, and an id named twice ends as its last element says', async () => {
  const made = await app.post('/api/ipam/ip-addresses/', Array.from({ length: 5 }, (_, i) => ({ address: `203.0.113.${i + 1}/24`, tags: [] })));
  const reply = await app.api('PATCH', '/api/ipam/ip-addresses/', made.map((m: any, i: number) => ({ id: m.id, description: `own ${i}`, status: i % 2 ? 'reserved' : 'deprecated' })));
  expectStatus(reply, 200);
  assert.equal(reply.body.map((r: any) => [r.description, r.status.value]), made.map((_: any, i: number) => [`own ${i}`, i % 2 ? 'reserved' : 'deprecated']));
  const stored = (await app.get(`/api/ipam/ip-addresses/?id=${made.map((m: any) => m.id).join('&id=')}&ordering=id`)).results;
  assert.equal(stored.map((r: any) => r.description), made.map((_: any, i: number) => `own ${i}`));
  const logged = (await app.get(`/api/extras/object-changes/?request_id=${reply.headers.get('x-request-id')}&limit=100`)).results;
  assert.is(logged.length, 5);
  for (const c of logged) {
    const i = made.findIndex((m: any) => m.id === c.changed_object_id);
    assert.equal([c.prechange_data.description, c.postchange_data.description, c.postchange_data.status, c.postchange_data.tags], ['', `own ${i}`, i % 2 ? 'reserved' : 'deprecated', []]);
  }
  const twice = await app.api('PATCH', '/api/ipam/ip-addresses/', [{ id: made[0].id, description: 'first' }, { id: made[1].id, description: 'other' }, { id: made[0].id, description: 'last' }]);
  expectStatus(twice, 200);
  assert.is((await app.get(`/api/ipam/ip-addresses/${made[0].id}/`)).description, 'last');
});

test.run();
