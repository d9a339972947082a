/**
 * The scenario of issue 13: a device type → two switches and two patch panels → a path through a
 * front/rear pair (switch1 eth1 → panel1 front 1 | panel1 rear ⇄ panel2 rear | panel2 front 1 →
 * switch2 eth1). Traces, link peers and connected endpoints from both ends; then the middle cable
 * goes, both ends lose the path, and it comes back when the cable does.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite('cable paths');
let app: TestApp;
const term = (type: string, id: number) => ({ object_type: type, object_id: id });
const get = async (path: string) => { const r = await app.api('GET', path); expectStatus(r, 200, path); return r.body; };

let eth1: any, eth2: any, front1: any, rear1: any, front2: any, rear2: any, front1b: any, front2b: any, eth1b: any, eth2b: any;
let middle: any;

test.before(async () => {
  app = await startApp({ RUN_WORKER: '0' });
  const site = await app.post('/api/dcim/sites/', { name: 'Paths', slug: 'paths' });
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'Paths Inc', slug: 'paths-inc' });
  const type = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Box', slug: 'box' });
  const role = await app.post('/api/dcim/device-roles/', { name: 'Paths', slug: 'paths', color: '00ff00' });
  const [sw1, sw2, pp1, pp2] = await app.post('/api/dcim/devices/', ['sw1', 'sw2', 'pp1', 'pp2'].map((name) => ({ name, device_type: type.id, role: role.id, site: site.id })));
  [eth1, eth1b] = await app.post('/api/dcim/interfaces/', [{ device: sw1.id, name: 'eth1', type: '10gbase-x-sfpp' }, { device: sw1.id, name: 'eth2', type: '10gbase-x-sfpp' }]);
  [eth2, eth2b] = await app.post('/api/dcim/interfaces/', [{ device: sw2.id, name: 'eth1', type: '10gbase-x-sfpp' }, { device: sw2.id, name: 'eth2', type: '10gbase-x-sfpp' }]);
  rear1 = await app.post('/api/dcim/rear-ports/', { device: pp1.id, name: 'rear', type: 'lc', positions: 2 });
  rear2 = await app.post('/api/dcim/rear-ports/', { device: pp2.id, name: 'rear', type: 'lc', positions: 2 });
  [front1, front1b] = await app.post('/api/dcim/front-ports/', [1, 2].map((p) => ({ device: pp1.id, name: `front${p}`, type: 'lc', rear_port: rear1.id, rear_port_position: p })));
  [front2, front2b] = await app.post('/api/dcim/front-ports/', [1, 2].map((p) => ({ device: pp2.id, name: `front${p}`, type: 'lc', rear_port: rear2.id, rear_port_position: p })));
  await app.post('/api/dcim/cables/', [
    { a_terminations: [term('dcim.interface', eth1.id)], b_terminations: [term('dcim.frontport', front1.id)] },
    { a_terminations: [term('dcim.interface', eth1b.id)], b_terminations: [term('dcim.frontport', front1b.id)] },
    { a_terminations: [term('dcim.frontport', front2.id)], b_terminations: [term('dcim.interface', eth2.id)] },
    { a_terminations: [term('dcim.frontport', front2b.id)], b_terminations: [term('dcim.interface', eth2b.id)] },
  ]);
  middle = await app.post('/api/dcim/cables/', { a_terminations: [term('dcim.rearport', rear1.id)], b_terminations: [term('dcim.rearport', rear2.id)], label: 'trunk' });
});
test.after(() => app.stop());

async function expectConnected(from: any, to: any): Promise<void> {
  const iface = await get(`/api/dcim/interfaces/${from.id}/`);
  assert.equal(iface.connected_endpoints?.map((e: any) => e.id), [to.id], `${from.id} → ${to.id}`);
  assert.equal(iface.connected_endpoints_type, 'dcim.interface');
  assert.equal(iface.connected_endpoints_reachable, true);
  const trace = await get(`/api/dcim/interfaces/${from.id}/trace/`);
  assert.equal(trace.length, 3, JSON.stringify(trace));
  assert.equal(trace[0][0][0].id, from.id);
  assert.equal(trace[1][1].label, 'trunk');
  assert.equal(trace[1][0][0].name, 'rear');
  assert.equal(trace[2][2][0].id, to.id);
}

test('traces, link peers and connected endpoints from both ends, position by position', async () => {
  await expectConnected(eth1, eth2);
  await expectConnected(eth2, eth1);
  await expectConnected(eth1b, eth2b);
  await expectConnected(eth2b, eth1b);
  const trace = await get(`/api/dcim/interfaces/${eth1.id}/trace/`);
  assert.equal(trace[0][2][0].name, 'front1');
  assert.equal(trace[0][2][0].device.name, 'pp1');
  assert.equal(trace[2][0][0].name, 'front1');
  assert.equal(trace[2][0][0].device.name, 'pp2');
  const iface = await get(`/api/dcim/interfaces/${eth1.id}/`);
  assert.equal(iface.link_peers_type, 'dcim.frontport');
  assert.equal(iface.link_peers.map((p: any) => p.id), [front1.id]);
  const fp = await get(`/api/dcim/front-ports/${front1.id}/`);
  assert.equal(fp.link_peers.map((p: any) => p.id), [eth1.id]);
  assert.equal(fp.cable_end, 'B');
  assert.equal(fp._occupied, true);
  const rp = await get(`/api/dcim/rear-ports/${rear1.id}/`);
  assert.equal(rp.link_peers.map((p: any) => p.id), [rear2.id]);
  // every path through the trunk: one per direction and position
  const paths = await get(`/api/dcim/rear-ports/${rear1.id}/paths/`);
  assert.equal(paths.length, 4);
  assert.ok(paths.every((p: any) => p.is_complete && p.is_active && !p.is_split));
  assert.equal((await get(`/api/dcim/front-ports/${front1.id}/paths/`)).length, 2);
});

test('connected-device: the device at the far end of a named interface (LLDP lookups)', async () => {
  const found = await app.api('GET', '/api/dcim/connected-device/?peer_device=sw1&peer_interface=eth1');
  expectStatus(found, 200);
  assert.equal([found.body.name, found.body.device_type.model], ['sw2', 'Box']);
  assert.equal((await get('/api/dcim/connected-device/?peer_device=sw2&peer_interface=eth2')).name, 'sw1');
  expectStatus(await app.api('GET', '/api/dcim/connected-device/?peer_device=sw1'), 400);
  expectStatus(await app.api('GET', '/api/dcim/connected-device/?peer_device=sw1&peer_interface=nope'), 404);
  expectStatus(await app.api('GET', '/api/dcim/connected-device/?peer_device=pp1&peer_interface=eth1'), 404);
});

test('removing the middle cable breaks both ends; adding it back re-forms the path', async () => {
  expectStatus(await app.api('DELETE', `/api/dcim/cables/${middle.id}/`), 204);
  for (const end of [eth1, eth2]) {
    const iface = await get(`/api/dcim/interfaces/${end.id}/`);
    assert.equal(iface.connected_endpoints, null);
    assert.equal(iface.connected_endpoints_reachable, false);
    const trace = await get(`/api/dcim/interfaces/${end.id}/trace/`);
    assert.equal(trace.length, 2, JSON.stringify(trace));
    assert.equal(trace[1][0][0].name, 'rear');
    assert.equal(trace[1][1], []);
  }
  assert.equal((await get(`/api/dcim/rear-ports/${rear1.id}/`)).cable, null);
  middle = await app.post('/api/dcim/cables/', { a_terminations: [term('dcim.rearport', rear2.id)], b_terminations: [term('dcim.rearport', rear1.id)], label: 'trunk', status: 'planned' });
  const planned = await get(`/api/dcim/interfaces/${eth1.id}/`);
  assert.equal(planned.connected_endpoints?.map((e: any) => e.id), [eth2.id]);
  assert.equal(planned.connected_endpoints_reachable, false);
  await app.api('PATCH', `/api/dcim/cables/${middle.id}/`, { status: 'connected' });
  await expectConnected(eth1, eth2);
  await expectConnected(eth2b, eth1b);
});

test('changing a cable end re-routes; remapping a front port re-routes', async () => {
  // move the far end of eth2's cable to eth2b's front port position: swap the front ports' mapping
  const cable = (await get(`/api/dcim/interfaces/${eth2.id}/`)).cable;
  await app.api('PATCH', `/api/dcim/cables/${cable.id}/`, { b_terminations: [term('dcim.interface', eth2.id)], a_terminations: [term('dcim.frontport', front2.id)] });
  await expectConnected(eth1, eth2);
  // deleting a far interface: the path ends at the front port, incomplete
  expectStatus(await app.api('DELETE', `/api/dcim/interfaces/${eth2b.id}/`), 204);
  const lone = await get(`/api/dcim/interfaces/${eth1b.id}/`);
  assert.equal(lone.connected_endpoints, null);
  const trace = await get(`/api/dcim/interfaces/${eth1b.id}/trace/`);
  assert.equal(trace[2][0][0].name, 'front2');
  assert.equal(trace[2][2], []);
});

test('through a circuit: switch port → termination A | termination Z → switch port; a provider network ends the path', async () => {
  const site = (await get('/api/dcim/sites/?slug=paths')).results[0];
  const provider = await app.post('/api/circuits/providers/', { name: 'Carrier', slug: 'carrier' });
  const kind = await app.post('/api/circuits/circuit-types/', { name: 'Transit', slug: 'transit' });
  const circuit = await app.post('/api/circuits/circuits/', { cid: 'CX-1', provider: provider.id, type: kind.id });
  const [ta, tz] = await app.post('/api/circuits/circuit-terminations/', [{ circuit: circuit.id, term_side: 'A', site: site.id }, { circuit: circuit.id, term_side: 'Z', site: site.id }]);
  const sw1 = (await get(`/api/dcim/interfaces/${eth1.id}/`)).device;
  const sw2 = (await get(`/api/dcim/interfaces/${eth2.id}/`)).device;
  const [wan1, wan2] = await app.post('/api/dcim/interfaces/', [{ device: sw1.id, name: 'wan', type: '10gbase-x-sfpp' }, { device: sw2.id, name: 'wan', type: '10gbase-x-sfpp' }]);
  await app.post('/api/dcim/cables/', [
    { a_terminations: [term('dcim.interface', wan1.id)], b_terminations: [term('circuits.circuittermination', ta.id)] },
    { a_terminations: [term('circuits.circuittermination', tz.id)], b_terminations: [term('dcim.interface', wan2.id)] },
  ]);
  for (const [from, to] of [[wan1, wan2], [wan2, wan1]]) {
    const iface = await get(`/api/dcim/interfaces/${from.id}/`);
    assert.equal(iface.connected_endpoints?.map((e: any) => e.id), [to.id]);
    assert.equal(iface.link_peers_type, 'circuits.circuittermination');
    const trace = await get(`/api/dcim/interfaces/${from.id}/trace/`);
    assert.equal(trace.length, 2, JSON.stringify(trace));
    assert.equal(trace[0][2][0].term_side, from === wan1 ? 'A' : 'Z');
    assert.equal(trace[1][0][0].term_side, from === wan1 ? 'Z' : 'A');
    assert.equal(trace[1][2][0].id, to.id);
  }
  const paths = await get(`/api/circuits/circuit-terminations/${ta.id}/paths/`);
  assert.equal(paths.length, 2);
  assert.equal((await get(`/api/circuits/circuit-terminations/${tz.id}/`)).link_peers[0].id, wan2.id);
  // the Z side moves into a provider network: it cannot keep a cable, and the path ends there
  const network = await app.post('/api/circuits/provider-networks/', { name: 'Backbone', provider: provider.id });
  const cabled = await app.api('POST', '/api/dcim/cables/', { a_terminations: [term('circuits.circuittermination', ta.id)], b_terminations: [term('dcim.interface', wan2.id)] });
  expectStatus(cabled, 400);
  const zCable = (await get(`/api/circuits/circuit-terminations/${tz.id}/`)).cable;
  expectStatus(await app.api('DELETE', `/api/dcim/cables/${zCable.id}/`), 204);
  expectStatus(await app.api('PATCH', `/api/circuits/circuit-terminations/${tz.id}/`, { site: null, provider_network: network.id }), 200);
  const ended = await get(`/api/dcim/interfaces/${wan1.id}/`);
  assert.equal(ended.connected_endpoints_type, 'circuits.providernetwork');
  assert.equal(ended.connected_endpoints.map((e: any) => e.id), [network.id], JSON.stringify(ended.connected_endpoints));
  const refused = await app.api('POST', '/api/dcim/cables/', { a_terminations: [term('circuits.circuittermination', tz.id)], b_terminations: [term('dcim.interface', wan2.id)] });
  expectStatus(refused, 400);
  assert.match(refused.body.a_terminations[0], /provider network may not be cabled/);
  const wan2Now = await get(`/api/dcim/interfaces/${wan2.id}/`);
  assert.equal(wan2Now.connected_endpoints, null);
});

test.run();
