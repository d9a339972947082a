/**
 * L2VPNs (/api/vpn/): terminations on VLANs, interfaces and VM interfaces, `l2vpn_termination` on
 * those objects, the l2vpn filters, and the rules (an object terminates one L2VPN; a point-to-point
 * L2VPN has at most two terminations), single and bulk in the same words.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';
import { createObject } from './factory.js';
import { model } from '../runtime/data/registry.js';

const test = suite('l2vpn');
let app: TestApp;
let n = 0;
const slug = (base: string) => `${base}-${++n}`;
const TERMS = '/api/vpn/l2vpn-terminations/';

test.before(async () => { app = await startApp({ RUN_WORKER: '0' }); });
test.after(() => app.stop());

test('/api/ and /api/vpn/ list the vpn application', async () => {
  assert.is((await app.get('/api/')).vpn, `${app.url}/api/vpn/`);
  const root = await app.get('/api/vpn/');
  assert.ok(['l2vpn-terminations', 'l2vpns'].every((k) => k in root));
});

test('NetBox 3.6\'s /api/ipam/l2vpns/ serves the same objects (the Debian Ansible collection calls it there)', async () => {
  const created = await app.post('/api/ipam/l2vpns/', { name: slug('Old'), slug: slug('old'), type: 'vpls' });
  assert.is(created.url, `${app.url}/api/vpn/l2vpns/${created.id}/`, 'the canonical URL');
  assert.is((await app.get(`/api/vpn/l2vpns/${created.id}/`)).id, created.id);
  assert.is((await app.get(`/api/ipam/l2vpns/?slug=${created.slug}`)).count, 1);
  assert.is((await app.get('/api/ipam/l2vpn-terminations/')).count >= 0, true);
  assert.not.ok('l2vpns' in (await app.get('/api/ipam/')), 'not listed under ipam');
  expectStatus(await app.api('DELETE', `/api/ipam/l2vpns/${created.id}/`), 204);
});

test('terminations on a VLAN, an interface and a VM interface show on those objects and filter them', async () => {
  const l2vpn = await app.post('/api/vpn/l2vpns/', { name: slug('Customer A'), slug: slug('customer-a'), type: 'vxlan-evpn', identifier: 10100 });
  assert.is(l2vpn.display, `${l2vpn.name} (10100)`);
  assert.equal(l2vpn.type, { value: 'vxlan-evpn', label: 'VXLAN-EVPN' });
  const vlan = await app.post('/api/ipam/vlans/', { vid: 100, name: slug('v100') });
  const plain = await app.post('/api/ipam/vlans/', { vid: 101, name: slug('v101') });
  const iface = await createObject(app, model('Interface'));
  const vmIface = await createObject(app, model('VMInterface'));
  const t1 = await app.post(TERMS, { l2vpn: l2vpn.id, assigned_object_type: 'ipam.vlan', assigned_object_id: vlan.id });
  assert.is(t1.display, `${vlan.display} <> ${l2vpn.name} (10100)`, 'the object, then the L2VPN as it shows itself');
  assert.is(t1.assigned_object.id, vlan.id);
  await app.post(TERMS, [
    { l2vpn: l2vpn.id, assigned_object_type: 'dcim.interface', assigned_object_id: iface.id },
    { l2vpn: l2vpn.id, assigned_object_type: 'virtualization.vminterface', assigned_object_id: vmIface.id },
  ]);
  const shown = await app.get(`/api/ipam/vlans/${vlan.id}/`);
  assert.equal(Object.keys(shown.l2vpn_termination).sort(), ['display', 'id', 'l2vpn', 'url']);
  assert.is(shown.l2vpn_termination.l2vpn.id, l2vpn.id);
  assert.is((await app.get(`/api/ipam/vlans/${plain.id}/`)).l2vpn_termination, null);
  assert.is((await app.get(`/api/dcim/interfaces/${iface.id}/`)).l2vpn_termination.id !== undefined, true);
  assert.is((await app.get(`/api/virtualization/interfaces/${vmIface.id}/`)).l2vpn_termination.l2vpn.id, l2vpn.id);
  const vlans = async (query: string) => (await app.get(`/api/ipam/vlans/?id=${vlan.id}&id=${plain.id}&${query}`)).results.map((v: any) => v.id);
  assert.equal(await vlans(`l2vpn_id=${l2vpn.id}`), [vlan.id]);
  assert.equal(await vlans('l2vpn=10100'), [vlan.id]);
  assert.equal(await vlans(`l2vpn_id__n=${l2vpn.id}`), [plain.id]);
  assert.is((await app.get(`/api/dcim/interfaces/?l2vpn_id=${l2vpn.id}`)).count, 1);
  const terms = async (query: string) => (await app.get(`${TERMS}?${query}`)).count;
  assert.is(await terms(`l2vpn_id=${l2vpn.id}`), 3);
  assert.is(await terms(`vlan_id=${vlan.id}`), 1);
  assert.is(await terms(`interface_id=${iface.id}`), 1);
  assert.is(await terms(`device_id=${iface.device.id}`), 1);
  assert.is(await terms(`assigned_object_type=virtualization.vminterface&l2vpn=${l2vpn.slug}`), 1);
  // deleting the VLAN removes its termination
  expectStatus(await app.api('DELETE', `/api/ipam/vlans/${vlan.id}/`), 204);
  assert.is(await terms(`l2vpn_id=${l2vpn.id}`), 2);
});

test('terminations filter by the site and region of what they terminate on, by interface names, content type id and q', async () => {
  const region = await app.post('/api/dcim/regions/', { name: slug('West'), slug: slug('west') });
  const child = await app.post('/api/dcim/regions/', { name: slug('Coast'), slug: slug('coast'), parent: region.id });
  const site = await app.post('/api/dcim/sites/', { name: slug('S1'), slug: slug('s1'), region: region.id });
  const childSite = await app.post('/api/dcim/sites/', { name: slug('S2'), slug: slug('s2'), region: child.id });
  const l2vpn = await app.post('/api/vpn/l2vpns/', { name: slug('Fabric'), slug: slug('fabric'), type: 'vxlan' });
  const vlan = await app.post('/api/ipam/vlans/', { vid: 300, name: slug('v300'), site: site.id });
  const iface = await createObject(app, model('Interface'));
  await app.patch(`/api/dcim/devices/${iface.device.id}/`, { site: childSite.id });
  const vmIface = await createObject(app, model('VMInterface'));
  await app.patch(`/api/virtualization/virtual-machines/${vmIface.virtual_machine.id}/`, { site: site.id });
  const tVlan = await app.post(TERMS, { l2vpn: l2vpn.id, assigned_object_type: 'ipam.vlan', assigned_object_id: vlan.id });
  const tIface = await app.post(TERMS, { l2vpn: l2vpn.id, assigned_object_type: 'dcim.interface', assigned_object_id: iface.id });
  const tVm = await app.post(TERMS, { l2vpn: l2vpn.id, assigned_object_type: 'virtualization.vminterface', assigned_object_id: vmIface.id });
  const ids = async (query: string) => (await app.get(`${TERMS}?l2vpn_id=${l2vpn.id}&${query}`)).results.map((t: any) => t.id).sort((a: number, b: number) => a - b);
  const sorted = (...xs: number[]) => xs.sort((a, b) => a - b);
  assert.equal(await ids(`site_id=${site.id}`), sorted(tVlan.id, tVm.id));
  assert.equal(await ids(`site=${site.slug}`), sorted(tVlan.id, tVm.id));
  assert.equal(await ids(`site=${childSite.slug}`), [tIface.id]);
  assert.equal(await ids(`site_id=${site.id}&site_id=${childSite.id}`), sorted(tVlan.id, tIface.id, tVm.id));
  // the site's own region, as NetBox (site__region), not its descendants
  assert.equal(await ids(`region_id=${region.id}`), sorted(tVlan.id, tVm.id));
  assert.equal(await ids(`region=${child.slug}`), [tIface.id]);
  assert.equal(await ids(`interface=${encodeURIComponent(iface.name)}`), [tIface.id]);
  assert.equal(await ids(`vminterface=${encodeURIComponent(vmIface.name)}`), [tVm.id]);
  const vlanType = (await app.get('/api/extras/content-types/?app_label=ipam&model=vlan')).results[0];
  assert.equal(await ids(`assigned_object_type_id=${vlanType.id}`), [tVlan.id]);
  // q searches the L2VPN's name
  assert.equal(await ids(`q=${encodeURIComponent(l2vpn.name.toUpperCase())}`), sorted(tVlan.id, tIface.id, tVm.id));
  assert.equal(await ids('q=no-such-l2vpn'), []);
  expectStatus(await app.api('GET', `${TERMS}?site_id=abc`), 400);
});

test('import and export targets are route targets; filters both ways', async () => {
  const [rt1, rt2] = await app.post('/api/ipam/route-targets/', [{ name: '65000:1' }, { name: '65000:2' }]);
  const l2vpn = await app.post('/api/vpn/l2vpns/', { name: slug('RT'), slug: slug('rt'), type: 'mpls-evpn', identifier: 4242, import_targets: [rt1.id, rt2.id], export_targets: [rt2.id] });
  assert.equal(l2vpn.import_targets.map((t: any) => t.name), ['65000:1', '65000:2']);
  assert.equal(l2vpn.export_targets.map((t: any) => t.id), [rt2.id]);
  assert.is((await app.get(`/api/vpn/l2vpns/?import_target=65000:1`)).results.map((v: any) => v.id).includes(l2vpn.id), true);
  assert.is((await app.get(`/api/vpn/l2vpns/?export_target_id=${rt1.id}`)).results.some((v: any) => v.id === l2vpn.id), false);
  assert.equal((await app.get(`/api/ipam/route-targets/?exporting_l2vpn_id=${l2vpn.id}`)).results.map((t: any) => t.id), [rt2.id]);
  assert.equal((await app.get('/api/ipam/route-targets/?importing_l2vpn=4242')).results.map((t: any) => t.id), [rt1.id, rt2.id]);
  const bad = await app.api('POST', '/api/vpn/l2vpns/', { name: slug('RT'), slug: slug('rt'), type: 'mpls-evpn', import_targets: [999999] });
  expectStatus(bad, 400);
  assert.ok(bad.body.import_targets, JSON.stringify(bad.body));
});

test('rule: an object terminates one L2VPN (single and bulk)', async () => {
  const a = await app.post('/api/vpn/l2vpns/', { name: slug('A'), slug: slug('a'), type: 'vpls' });
  const b = await app.post('/api/vpn/l2vpns/', { name: slug('B'), slug: slug('b'), type: 'vpls' });
  const vlan = await app.post('/api/ipam/vlans/', { vid: 200, name: slug('v200') });
  const first = await app.post(TERMS, { l2vpn: a.id, assigned_object_type: 'ipam.vlan', assigned_object_id: vlan.id });
  const message = { assigned_object_id: [`ipam.vlan ${vlan.id} already terminates an L2VPN.`] };
  const again = await app.api('POST', TERMS, { l2vpn: b.id, assigned_object_type: 'ipam.vlan', assigned_object_id: vlan.id });
  expectStatus(again, 400);
  assert.equal(again.body, message);
  const other = await app.post('/api/ipam/vlans/', { vid: 201, name: slug('v201') });
  const bulk = await app.api('POST', TERMS, [
    { l2vpn: b.id, assigned_object_type: 'ipam.vlan', assigned_object_id: other.id },
    { l2vpn: a.id, assigned_object_type: 'ipam.vlan', assigned_object_id: other.id },
  ]);
  expectStatus(bulk, 400);
  assert.equal(bulk.body, [{}, { assigned_object_id: [`ipam.vlan ${other.id} already terminates an L2VPN.`] }]);
  // moving a termination to another L2VPN keeps its object
  const moved = await app.patch(`${TERMS}${first.id}/`, { l2vpn: b.id });
  assert.is(moved.l2vpn.id, b.id);
});

test('rule: a point-to-point L2VPN has at most two terminations (single and bulk)', async () => {
  const p2p = await app.post('/api/vpn/l2vpns/', { name: slug('Wire'), slug: slug('wire'), type: 'vpws' });
  const vlans: any[] = [];
  for (let i = 0; i < 4; i++) vlans.push(await app.post('/api/ipam/vlans/', { vid: 300 + i, name: slug('p2p') }));
  const term = (i: number) => ({ l2vpn: p2p.id, assigned_object_type: 'ipam.vlan', assigned_object_id: vlans[i].id });
  const bulk = await app.api('POST', TERMS, [term(0), term(1), term(2)]);
  expectStatus(bulk, 400);
  const message = { l2vpn: ['A point-to-point (vpws) L2VPN has at most two terminations; it has 2 already.'] };
  assert.equal(bulk.body, [{}, {}, message]);
  await app.post(TERMS, [term(0), term(1)]);
  const third = await app.api('POST', TERMS, term(2));
  expectStatus(third, 400);
  assert.equal(third.body, message);
  const multipoint = await app.post('/api/vpn/l2vpns/', { name: slug('Lan'), slug: slug('lan'), type: 'vpls' });
  await app.post(TERMS, [2, 3].map((i) => ({ ...term(i), l2vpn: multipoint.id })));
});

test.run();
