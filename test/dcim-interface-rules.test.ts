/**
 * Interface rules as NetBox applies them: parent (virtual only), bridge and LAG on the same device
 * or virtual chassis; PoE only on physical interfaces; wireless attributes only on wireless ones
 * (a channel fills frequency and width); VLANs global or in the device's site; mode changes clear
 * VLANs. A 400 naming the field for single and bulk writes, and the accepted counterpart.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp, expectFieldError, type TestApp } from './helpers.js';
import { createObject } from './factory.js';
import { model } from '../runtime/data/registry.js';

const test = suite('dcim interface rules');
let app: TestApp;
let a: any;
let b: any;

test.before(async () => {
  app = await startApp();
  a = await createObject(app, model('Device'));
  b = await createObject(app, model('Device'), { site: a.site.id });
});
test.after(async () => { await app.stop(); });

const iface = (device: any, name: string, extra: Record<string, unknown> = {}) => app.post('/api/dcim/interfaces/', { device: device.id, name, type: '1000base-t', ...extra });
const refused = (method: string, path: string, body: unknown, field: string) => expectFieldError(app, method, path, body, field);

test('parent, bridge and LAG on the same device, or in the same virtual chassis', async () => {
  const lagB = await iface(b, 'ae0', { type: 'lag' });
  const brB = await iface(b, 'br0', { type: 'bridge' });
  const ethB = await iface(b, 'eth9');
  assert.match(await refused('POST', '/api/dcim/interfaces/', { device: a.id, name: 'eth1', type: '1000base-t', lag: lagB.id }, 'lag'), /belongs to a different device/);
  await refused('POST', '/api/dcim/interfaces/', [{ device: a.id, name: 'eth2', type: '1000base-t', bridge: brB.id }], 'bridge');
  await refused('POST', '/api/dcim/interfaces/', { device: a.id, name: 'sub0', type: 'virtual', parent: ethB.id }, 'parent');
  assert.match(await refused('POST', '/api/dcim/interfaces/', { device: b.id, name: 'phys', type: '1000base-t', parent: ethB.id }, 'parent'), /Only virtual interfaces/);
  await refused('POST', '/api/dcim/interfaces/', { device: b.id, name: 'v1', type: 'virtual', lag: lagB.id }, 'lag');
  const vc = await app.post('/api/dcim/virtual-chassis/', { name: 'vc-if', master: a.id });
  await app.patch(`/api/dcim/devices/${b.id}/`, { virtual_chassis: vc.id, vc_position: 2 });
  const member = await iface(a, 'eth1', { lag: lagB.id });
  assert.is(member.lag.id, lagB.id);
  const self = await iface(a, 'eth3');
  await refused('PATCH', `/api/dcim/interfaces/${self.id}/`, { bridge: self.id }, 'bridge');
});

test('PoE only on physical interfaces, and a PoE type needs a mode', async () => {
  assert.match(await refused('POST', '/api/dcim/interfaces/', { device: a.id, name: 'lag9', type: 'lag', poe_mode: 'pse' }, 'poe_mode'), /Virtual interfaces cannot have a PoE mode/);
  await refused('POST', '/api/dcim/interfaces/', { device: a.id, name: 'p1', type: '1000base-t', poe_type: 'type1-ieee802.3af' }, 'poe_type');
  const ok = await iface(a, 'p1', { poe_mode: 'pse', poe_type: 'type1-ieee802.3af' });
  assert.is(ok.poe_type.value, 'type1-ieee802.3af');
});

test('wireless attributes only on wireless interfaces; a channel sets frequency and width', async () => {
  assert.match(await refused('POST', '/api/dcim/interfaces/', { device: a.id, name: 'w0', type: '1000base-t', rf_role: 'ap' }, 'rf_role'), /only on wireless/);
  await refused('POST', '/api/dcim/interfaces/', [{ device: a.id, name: 'w0', type: '1000base-t', rf_channel_width: 20 }], 'rf_channel_width');
  const radio = await iface(a, 'wlan0', { type: 'ieee802.11ac', rf_role: 'ap', rf_channel: '5g-36-5180-20' });
  assert.is(Number(radio.rf_channel_frequency), 5180);
  assert.is(Number(radio.rf_channel_width), 20);
  await refused('PATCH', `/api/dcim/interfaces/${radio.id}/`, { rf_channel_frequency: 5200 }, 'rf_channel_frequency');
});

test('VLANs are global or in the device site; mode changes clear them', async () => {
  const otherSite = await createObject(app, model('Site'));
  const local = await app.post('/api/ipam/vlans/', { vid: 10, name: 'local', site: a.site.id });
  const global = await app.post('/api/ipam/vlans/', { vid: 20, name: 'global' });
  const far = await app.post('/api/ipam/vlans/', { vid: 30, name: 'far', site: otherSite.id });
  assert.match(await refused('POST', '/api/dcim/interfaces/', { device: a.id, name: 'v-far', type: '1000base-t', mode: 'access', untagged_vlan: far.id }, 'untagged_vlan'), /same site/);
  await refused('POST', '/api/dcim/interfaces/', [{ device: a.id, name: 'v-far', type: '1000base-t', mode: 'tagged', tagged_vlans: [global.id, far.id] }], 'tagged_vlans');
  const trunk = await iface(a, 'trunk0', { mode: 'tagged', untagged_vlan: local.id, tagged_vlans: [local.id, global.id] });
  assert.equal(trunk.tagged_vlans.map((v: any) => v.id).sort(), [local.id, global.id].sort());
  const access = await app.patch(`/api/dcim/interfaces/${trunk.id}/`, { mode: 'access' });
  assert.equal(access.tagged_vlans, []);
  assert.is(access.untagged_vlan.id, local.id);
  const cleared = await app.patch(`/api/dcim/interfaces/${trunk.id}/`, { mode: '' });
  assert.is(cleared.untagged_vlan, null);
});

test("IP addresses by device: a virtual chassis master's include its members' interfaces that are not management-only, as NetBox's vc_interfaces", async () => {
  const master = await createObject(app, model('Device'));
  const member = await createObject(app, model('Device'), { site: master.site.id });
  const vc = await app.post('/api/dcim/virtual-chassis/', { name: 'vc-ip', master: master.id });
  await app.patch(`/api/dcim/devices/${member.id}/`, { virtual_chassis: vc.id, vc_position: 2 });
  const [own, data, mgmt] = [await iface(master, 'e0'), await iface(member, 'e1'), await iface(member, 'mgmt0', { mgmt_only: true })];
  const ip = (address: string, i: any) => app.post('/api/ipam/ip-addresses/', { address, assigned_object_type: 'dcim.interface', assigned_object_id: i.id });
  const [a1, a2, a3] = [await ip('192.0.2.1/24', own), await ip('192.0.2.2/24', data), await ip('192.0.2.3/24', mgmt)];
  const ids = async (q: string) => (await app.get(`/v4.6/api/ipam/ip-addresses/?${q}`)).results.map((r: any) => r.id).sort((x: number, y: number) => x - y);
  assert.equal(await ids(`device_id=${master.id}`), [a1.id, a2.id]);
  assert.equal(await ids(`device=${encodeURIComponent(master.name)}`), [a1.id, a2.id]);
  assert.equal(await ids(`device_id=${member.id}`), [a2.id, a3.id], 'a member lists its own only');
});

test.run();
