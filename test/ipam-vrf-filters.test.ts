/**
 * present_in_vrf / present_in_vrf_id on prefixes, IP ranges and IP addresses (NetBox: the VRF's own
 * objects and those of every VRF exporting a route target the VRF imports), and the FHRP group filter
 * related_ip (groups with a virtual IP in the network and VRF of the given addresses).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite('ipam-vrf-filters');
let app: TestApp;
let n = 0;
const u = (s: string) => `${s}-${++n}`;
const ids = (body: any) => body.results.map((r: any) => r.id).sort((a: number, b: number) => a - b);
const sorted = (...xs: number[]) => xs.sort((a, b) => a - b);

test.before(async () => { app = await startApp({ RUN_WORKER: '0' }); });
test.after(() => app.stop());

test('present_in_vrf: the VRF\'s objects and those of VRFs exporting a route target it imports', async () => {
  const shared = await app.post('/api/ipam/route-targets/', { name: '65000:10' });
  const unrelated = await app.post('/api/ipam/route-targets/', { name: '65000:20' });
  // hub imports 65000:10; spoke exports it; other exports only 65000:20; importer only imports 65000:10 too
  const hub = await app.post('/api/ipam/vrfs/', { name: u('hub'), rd: '65000:1', import_targets: [shared.id] });
  const spoke = await app.post('/api/ipam/vrfs/', { name: u('spoke'), rd: '65000:2', export_targets: [shared.id] });
  const other = await app.post('/api/ipam/vrfs/', { name: u('other'), rd: '65000:3', export_targets: [unrelated.id] });
  const importer = await app.post('/api/ipam/vrfs/', { name: u('importer'), rd: '65000:4', import_targets: [shared.id] });
  const prefix = (vrf: number | null, p: string) => app.post('/api/ipam/prefixes/', { prefix: p, vrf });
  const inHub = await prefix(hub.id, '10.1.0.0/16');
  const inSpoke = await prefix(spoke.id, '10.2.0.0/16');
  await prefix(other.id, '10.3.0.0/16');
  await prefix(importer.id, '10.4.0.0/16');
  await prefix(null, '10.5.0.0/16');
  assert.equal(ids(await app.get(`/api/ipam/prefixes/?present_in_vrf_id=${hub.id}`)), sorted(inHub.id, inSpoke.id));
  assert.equal(ids(await app.get('/api/ipam/prefixes/?present_in_vrf=65000:1')), sorted(inHub.id, inSpoke.id));
  // the other way round: the spoke imports nothing, so only its own
  assert.equal(ids(await app.get(`/api/ipam/prefixes/?present_in_vrf_id=${spoke.id}`)), [inSpoke.id]);
  assert.equal(ids(await app.get('/api/ipam/prefixes/?present_in_vrf=65000:99')), [], 'an unknown VRF: nothing');

  const ipHub = await app.post('/api/ipam/ip-addresses/', { address: '10.1.0.1/16', vrf: hub.id });
  const ipSpoke = await app.post('/api/ipam/ip-addresses/', { address: '10.2.0.1/16', vrf: spoke.id });
  await app.post('/api/ipam/ip-addresses/', { address: '10.3.0.1/16', vrf: other.id });
  assert.equal(ids(await app.get(`/api/ipam/ip-addresses/?present_in_vrf_id=${hub.id}`)), sorted(ipHub.id, ipSpoke.id));
  assert.equal(ids(await app.get('/api/ipam/ip-addresses/?present_in_vrf=65000:1')), sorted(ipHub.id, ipSpoke.id));

  const rangeSpoke = await app.post('/api/ipam/ip-ranges/', { start_address: '10.2.1.1/16', end_address: '10.2.1.9/16', vrf: spoke.id });
  await app.post('/api/ipam/ip-ranges/', { start_address: '10.3.1.1/16', end_address: '10.3.1.9/16', vrf: other.id });
  assert.equal(ids(await app.get(`/api/ipam/ip-ranges/?present_in_vrf_id=${hub.id}`)), [rangeSpoke.id]);

  const bad = await app.api('GET', '/api/ipam/prefixes/?present_in_vrf_id=x');
  expectStatus(bad, 400);
  assert.ok(bad.body.present_in_vrf_id);
});

test('FHRP groups: related_ip finds groups with a virtual IP in the network and VRF of the given addresses', async () => {
  const vrf = await app.post('/api/ipam/vrfs/', { name: u('vrf') });
  const group = (gid: number) => app.post('/api/ipam/fhrp-groups/', { protocol: 'vrrp2', group_id: gid });
  const [g1, g2, g3, g4] = [await group(1), await group(2), await group(3), await group(4)];
  const vip = (address: string, g: any, vrfId: number | null = null) =>
    app.post('/api/ipam/ip-addresses/', { address, role: 'vrrp', vrf: vrfId, assigned_object_type: 'ipam.fhrpgroup', assigned_object_id: g.id });
  await vip('192.0.2.1/24', g1);
  await vip('192.0.2.254/24', g2, vrf.id);       // same network, another VRF
  await vip('198.51.100.1/24', g3);               // another network
  await vip('192.0.2.129/25', g4);                // inside the /24, narrower: contained
  const hostOnG1 = await app.post('/api/ipam/ip-addresses/', { address: '192.0.2.10/24' });
  const inVrf = await app.post('/api/ipam/ip-addresses/', { address: '192.0.2.20/24', vrf: vrf.id });
  const narrow = await app.post('/api/ipam/ip-addresses/', { address: '192.0.2.130/25' });
  assert.equal(ids(await app.get(`/api/ipam/fhrp-groups/?related_ip=${hostOnG1.id}`)), sorted(g1.id, g4.id));
  assert.equal(ids(await app.get(`/api/ipam/fhrp-groups/?related_ip=${inVrf.id}`)), [g2.id]);
  assert.equal(ids(await app.get(`/api/ipam/fhrp-groups/?related_ip=${narrow.id}`)), [g4.id], 'a wider VIP is not contained in a /25');
  assert.equal(ids(await app.get(`/api/ipam/fhrp-groups/?related_ip=${inVrf.id}&related_ip=${narrow.id}`)), sorted(g2.id, g4.id));
  expectStatus(await app.api('GET', '/api/ipam/fhrp-groups/?related_ip=abc'), 400);
});

test.run();
