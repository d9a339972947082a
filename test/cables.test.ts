/**
 * Cables between interfaces: terminations, link peers, connected endpoints, trace, the model rules
 * (each a 400 naming the field, alike for single and bulk writes), and paths that break and re-form.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';
import { createObject } from './factory.js';
import { model } from '../runtime/data/registry.js';

const test = suite('cables');
let app: TestApp;
let ifaces: any[] = [];

const term = (id: number, type = 'dcim.interface') => ({ object_type: type, object_id: id });

test.before(async () => {
  app = await startApp({ RUN_WORKER: '0' });
  const device = await createObject(app, model('Device'));
  const other = await createObject(app, model('Device'));
  ifaces = await app.post('/api/dcim/interfaces/', [
    { device: device.id, name: 'eth0', type: '1000base-t' },
    { device: device.id, name: 'eth1', type: '1000base-t' },
    { device: other.id, name: 'eth0', type: '1000base-t' },
    { device: other.id, name: 'eth1', type: '1000base-t' },
    { device: other.id, name: 'vlan10', type: 'virtual' },
    { device: other.id, name: 'wlan0', type: 'ieee802.11ac' },
  ]);
});
test.after(() => app.stop());

test('a cable joins two interfaces: peers, connected endpoints, trace', async () => {
  const [a, , b] = ifaces;
  const cable = await app.post('/api/dcim/cables/', { a_terminations: [term(a.id)], b_terminations: [term(b.id)], status: 'connected', label: 'C1', length: 3, length_unit: 'm' });
  assert.equal(cable.a_terminations[0].object_type, 'dcim.interface');
  assert.equal(cable.a_terminations[0].object_id, a.id);
  assert.equal(cable.a_terminations[0].object.name, 'eth0');
  assert.equal(cable.b_terminations[0].object.id, b.id);
  assert.equal(cable.display, 'C1');
  const ia = (await app.api('GET', `/api/dcim/interfaces/${a.id}/`)).body;
  assert.equal(ia.cable.id, cable.id);
  assert.equal(ia.cable_end, 'A');
  assert.equal(ia._occupied, true);
  assert.equal(ia.link_peers_type, 'dcim.interface');
  assert.equal(ia.link_peers.map((p: any) => p.id), [b.id]);
  assert.equal(ia.connected_endpoints_type, 'dcim.interface');
  assert.equal(ia.connected_endpoints.map((p: any) => p.id), [b.id]);
  assert.equal(ia.connected_endpoints_reachable, true);
  const ib = (await app.api('GET', `/api/dcim/interfaces/${b.id}/`)).body;
  assert.equal(ib.cable_end, 'B');
  assert.equal(ib.connected_endpoints.map((p: any) => p.id), [a.id]);
  const trace = (await app.api('GET', `/api/dcim/interfaces/${a.id}/trace/`)).body;
  assert.equal(trace.length, 1);
  assert.equal(trace[0][0][0].name, 'eth0');
  assert.equal(trace[0][1].id, cable.id);
  assert.equal(trace[0][1].status, 'connected');
  assert.equal(trace[0][2][0].id, b.id);
  // filters Ansible uses to find the cable again
  const found = (await app.api('GET', `/api/dcim/cables/?termination_a_type=dcim.interface&termination_a_id=${a.id}&termination_b_type=dcim.interface&termination_b_id=${b.id}`)).body;
  assert.equal(found.results.map((c: any) => c.id), [cable.id]);
  assert.equal((await app.api('GET', `/api/dcim/interfaces/?cabled=true&device_id=${ia.device.id}`)).body.results.map((i: any) => i.id), [a.id]);
  assert.ok((await app.api('GET', `/api/dcim/interfaces/?connected=true`)).body.results.some((i: any) => i.id === b.id));
  // planned cable: path inactive
  await app.api('PATCH', `/api/dcim/cables/${cable.id}/`, { status: 'planned' });
  assert.equal((await app.api('GET', `/api/dcim/interfaces/${a.id}/`)).body.connected_endpoints_reachable, false);
  // delete: both ends free
  expectStatus(await app.api('DELETE', `/api/dcim/cables/${cable.id}/`), 204);
  const after = (await app.api('GET', `/api/dcim/interfaces/${a.id}/`)).body;
  assert.equal(after.cable, null);
  assert.equal(after.link_peers, []);
  assert.equal(after.connected_endpoints, null);
  assert.equal(after._occupied, false);
  assert.equal((await app.api('GET', `/api/dcim/interfaces/${a.id}/trace/`)).body, []);
});

test('model rules: a 400 naming the field, single and bulk', async () => {
  const [a, a2, b, b2, virtual, wireless] = ifaces;
  const cases: [unknown, string][] = [
    [{ a_terminations: [term(a.id)] }, 'b_terminations'],
    [{ a_terminations: [term(a.id)], b_terminations: [term(a.id)] }, 'b_terminations'],
    [{ a_terminations: [term(a.id)], b_terminations: [term(virtual.id)] }, 'b_terminations'],
    [{ a_terminations: [term(a.id)], b_terminations: [term(wireless.id)] }, 'b_terminations'],
    [{ a_terminations: [term(a.id)], b_terminations: [term(999999)] }, 'b_terminations'],
    [{ a_terminations: [term(a.id, 'dcim.device')], b_terminations: [term(b.id)] }, 'a_terminations'],
    [{ a_terminations: [term(a.id)], b_terminations: [term(b.id)], length: 5 }, 'length_unit'],
  ];
  for (const [body, field] of cases) {
    const one = await app.api('POST', '/api/dcim/cables/', body);
    expectStatus(one, 400, JSON.stringify(body));
    assert.ok(one.body[field], `${JSON.stringify(body)} → ${JSON.stringify(one.body)}`);
    const many = await app.api('POST', '/api/dcim/cables/', [body]);
    expectStatus(many, 400);
    assert.ok(many.body[0][field], JSON.stringify(many.body));
  }
  // one cable per termination, also inside one bulk request
  await app.post('/api/dcim/cables/', { a_terminations: [term(a.id)], b_terminations: [term(b.id)] });
  const taken = await app.api('POST', '/api/dcim/cables/', { a_terminations: [term(a.id)], b_terminations: [term(b2.id)] });
  expectStatus(taken, 400);
  assert.match(taken.body.a_terminations[0], /Duplicate termination/);
  const twice = await app.api('POST', '/api/dcim/cables/', [{ a_terminations: [term(a2.id)], b_terminations: [term(b2.id)] }, { a_terminations: [term(a2.id)], b_terminations: [term(b2.id)] }]);
  expectStatus(twice, 400);
  assert.ok(twice.body[1].a_terminations);
  // mark_connected with a cable attached
  const marked = await app.api('PATCH', `/api/dcim/interfaces/${a.id}/`, { mark_connected: true });
  expectStatus(marked, 400);
  assert.ok(marked.body.mark_connected);
});

test('power feed ⇄ power port ⇄ power outlet, console ports; incompatible types refused', async () => {
  const device = await createObject(app, model('Device'));
  const panel = await app.post('/api/dcim/power-panels/', { site: device.site.id, name: 'PP-1' });
  const feed = await app.post('/api/dcim/power-feeds/', { power_panel: panel.id, name: 'Feed A' });
  const [psu1, psu2] = await app.post('/api/dcim/power-ports/', [{ device: device.id, name: 'PSU1' }, { device: device.id, name: 'PSU2' }]);
  const outlet = await app.post('/api/dcim/power-outlets/', { device: device.id, name: 'Outlet 1' });
  const [console] = await app.post('/api/dcim/console-ports/', [{ device: device.id, name: 'Console' }]);
  const server = await app.post('/api/dcim/console-server-ports/', { device: device.id, name: 'Port 1' });
  await app.post('/api/dcim/cables/', [
    { a_terminations: [term(feed.id, 'dcim.powerfeed')], b_terminations: [term(psu1.id, 'dcim.powerport')] },
    { a_terminations: [term(outlet.id, 'dcim.poweroutlet')], b_terminations: [term(psu2.id, 'dcim.powerport')] },
    { a_terminations: [term(console.id, 'dcim.consoleport')], b_terminations: [term(server.id, 'dcim.consoleserverport')] },
  ]);
  const f = (await app.api('GET', `/api/dcim/power-feeds/${feed.id}/`)).body;
  assert.equal([f.connected_endpoints_type, f.connected_endpoints.map((e: any) => e.id), f._occupied], ['dcim.powerport', [psu1.id], true]);
  const trace = (await app.api('GET', `/api/dcim/power-feeds/${feed.id}/trace/`)).body;
  assert.equal([trace[0][0][0].name, trace[0][2][0].name], ['Feed A', 'PSU1']);
  assert.equal((await app.api('GET', `/api/dcim/power-ports/${psu1.id}/`)).body.connected_endpoints.map((e: any) => e.id), [feed.id]);
  assert.equal((await app.api('GET', `/api/dcim/power-outlets/${outlet.id}/`)).body.connected_endpoints.map((e: any) => e.id), [psu2.id]);
  assert.equal((await app.api('GET', `/api/dcim/console-server-ports/${server.id}/`)).body.connected_endpoints.map((e: any) => e.id), [console.id]);
  assert.equal((await app.api('GET', `/api/dcim/console-ports/${console.id}/trace/`)).body[0][2][0].name, 'Port 1');
  const [spare] = await app.post('/api/dcim/console-ports/', [{ device: device.id, name: 'Console 2' }]);
  const outlet2 = await app.post('/api/dcim/power-outlets/', { device: device.id, name: 'Outlet 2' });
  const incompatible = await app.api('POST', '/api/dcim/cables/', { a_terminations: [term(spare.id, 'dcim.consoleport')], b_terminations: [term(outlet2.id, 'dcim.poweroutlet')] });
  expectStatus(incompatible, 400);
  assert.match(incompatible.body.b_terminations[0], /Incompatible termination types: consoleport and poweroutlet/);
  const mixed = await app.api('POST', '/api/dcim/cables/', { a_terminations: [term(spare.id, 'dcim.consoleport'), term(outlet2.id, 'dcim.poweroutlet')], b_terminations: [term(psu2.id, 'dcim.powerport')] });
  expectStatus(mixed, 400);
  assert.match(mixed.body.a_terminations[0], /different termination types/);
});

test('cable terminations: listed per cable end; deleting a device frees the far end', async () => {
  const [a, b] = await app.post('/api/dcim/interfaces/', [
    { device: (await createObject(app, model('Device'))).id, name: 'x0', type: '1000base-t' },
    { device: (await createObject(app, model('Device'))).id, name: 'y0', type: '1000base-t' },
  ]);
  const cable = await app.post('/api/dcim/cables/', { a_terminations: [term(a.id)], b_terminations: [term(b.id)] });
  const ends = (await app.api('GET', `/api/dcim/cable-terminations/?cable_id=${cable.id}`)).body.results;
  assert.equal(ends.map((t: any) => [t.cable_end.value, t.termination_type, t.termination_id]), [['A', 'dcim.interface', a.id], ['B', 'dcim.interface', b.id]]);
  expectStatus(await app.api('DELETE', `/api/dcim/devices/${a.device.id}/`), 204);
  const left = (await app.api('GET', `/api/dcim/interfaces/${b.id}/`)).body;
  assert.equal([left.cable?.id, left.link_peers, left.connected_endpoints], [cable.id, [], null]);
  assert.equal((await app.api('GET', `/api/dcim/cables/${cable.id}/`)).body.a_terminations, []);
});

test.run();
