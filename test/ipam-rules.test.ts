/**
 * NetBox's model rules on IPAM, virtualization and users models: each refused write is a 400 that
 * names the field, in the same words for a single and a bulk write, next to the accepted counterpart.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';
import { createObject } from './factory.js';
import { model } from '../runtime/data/registry.js';

const test = suite('model rules: ipam, virtualization, users');
let app: TestApp;
let n = 0;
const uniq = (s: string) => `${s}-${++n}`;

test.before(async () => { app = await startApp({ RUN_WORKER: '0' }); });
test.after(() => app.stop());

/** POSTs `bad` alone and as a one-element bulk request: both 400, the same messages on `field`. Returns them. */
async function refusedCreate(path: string, bad: Record<string, unknown>, field: string): Promise<string> {
  const single = await app.api('POST', path, bad);
  expectStatus(single, 400, `single ${JSON.stringify(bad)}`);
  assert.ok(Array.isArray(single.body[field]), `expected an error on ${field}: ${single.text}`);
  const bulk = await app.api('POST', path, [bad]);
  expectStatus(bulk, 400, `bulk ${JSON.stringify(bad)}`);
  assert.equal(bulk.body[0][field], single.body[field]);
  return single.body[field].join(' ');
}

/** The same for a PATCH of one object, alone and in a list PATCH. */
async function refusedUpdate(path: string, id: number, bad: Record<string, unknown>, field: string): Promise<string> {
  const single = await app.api('PATCH', `${path}${id}/`, bad);
  expectStatus(single, 400, `single PATCH ${JSON.stringify(bad)}`);
  assert.ok(Array.isArray(single.body[field]), `expected an error on ${field}: ${single.text}`);
  const bulk = await app.api('PATCH', path, [{ id, ...bad }]);
  expectStatus(bulk, 400, `bulk PATCH ${JSON.stringify(bad)}`);
  assert.equal(bulk.body[0][field], single.body[field]);
  return single.body[field].join(' ');
}

const VLANS = '/api/ipam/vlans/';
const IPS = '/api/ipam/ip-addresses/';
const VMS = '/api/virtualization/virtual-machines/';
const VMIFS = '/api/virtualization/interfaces/';

test('VLAN: vid within the group range; a site only with a group scoped to it', async () => {
  const site = await createObject(app, model('Site'));
  const group = await app.post('/api/ipam/vlan-groups/', { name: uniq('g'), slug: uniq('g'), min_vid: 100, max_vid: 200 });
  assert.match(await refusedCreate(VLANS, { name: 'v5', vid: 5, group: group.id }, 'vid'), /between 100 and 200/);
  await app.post(VLANS, { name: 'v150', vid: 150, group: group.id });
  assert.match(await refusedCreate(VLANS, { name: 'v151', vid: 151, group: group.id, site: site.id }, 'group'), /not scoped/);
  const scoped = await app.post('/api/ipam/vlan-groups/', { name: uniq('g'), slug: uniq('g'), scope_type: 'dcim.site', scope_id: site.id });
  await app.post(VLANS, { name: 'v151', vid: 151, group: scoped.id, site: site.id });
});

test('VLAN group: scoped to a cluster or a cluster group', async () => {
  const cluster = await createObject(app, model('Cluster'));
  const clusterGroup = await createObject(app, model('ClusterGroup'));
  const a = await app.post('/api/ipam/vlan-groups/', { name: uniq('c'), slug: uniq('c'), scope_type: 'virtualization.cluster', scope_id: cluster.id });
  assert.is(a.scope.id, cluster.id);
  const b = await app.post('/api/ipam/vlan-groups/', { name: uniq('cg'), slug: uniq('cg'), scope_type: 'virtualization.clustergroup', scope_id: clusterGroup.id });
  const found = await app.get(`/api/ipam/vlan-groups/?cluster=${cluster.id}`);
  assert.equal(found.results.map((r: any) => r.id), [a.id]);
  assert.equal((await app.get(`/api/ipam/vlan-groups/?clustergroup=${clusterGroup.id}`)).results.map((r: any) => r.id), [b.id]);
});

test('IP address: SLAAC only on IPv6', async () => {
  assert.match(await refusedCreate(IPS, { address: '192.0.2.77/24', status: 'slaac' }, 'status'), /IPv6/);
  await app.post(IPS, { address: '2001:db8::77/64', status: 'slaac' });
});

test('IP address: no network ID or IPv4 broadcast on an interface (except /31, /32, /127)', async () => {
  const iface = await createObject(app, model('Interface'));
  const on = { assigned_object_type: 'dcim.interface', assigned_object_id: iface.id };
  // NetBox's IPAddress.clean() raises these without a field dict: the REST API reports them under __all__
  assert.match(await refusedCreate(IPS, { address: '198.51.100.0/24', ...on }, '__all__'), /network ID/);
  assert.match(await refusedCreate(IPS, { address: '198.51.100.255/24', ...on }, '__all__'), /broadcast/);
  assert.match(await refusedCreate(IPS, { address: '2001:db8:5::/64', ...on }, '__all__'), /network ID/);
  await app.post(IPS, { address: '198.51.100.0/24' });
  await app.post(IPS, { address: '198.51.101.0/31', ...on });
  await app.post(IPS, { address: '198.51.100.1/24', ...on });
  const unassigned = await app.post(IPS, { address: '198.51.102.255/24' });
  assert.match(await refusedUpdate(IPS, unassigned.id, on, '__all__'), /broadcast/);
  const shape = await app.api('POST', IPS, { address: '198.51.103.0/24', ...on });
  assert.equal(Object.keys(shape.body), ['__all__'], 'no field named, as NetBox');
});

test('IP address: shared-address roles may repeat a host; other duplicates are refused', async () => {
  await app.post(IPS, { address: '203.0.113.5/24', role: 'anycast' });
  await app.post(IPS, { address: '203.0.113.5/24', role: 'anycast' });
  assert.match(await refusedCreate(IPS, { address: '203.0.113.5/24' }, 'address'), /Duplicate IP address/);
  await app.post(IPS, { address: '203.0.113.6/24' });
  // a shared role does not excuse a duplicate of an address that has none
  assert.match(await refusedCreate(IPS, { address: '203.0.113.6/24', role: 'vip' }, 'address'), /Duplicate/);
});

test('IP address: a primary IP cannot be reassigned away from its VM', async () => {
  const vm = await createObject(app, model('VirtualMachine'));
  const other = await createObject(app, model('VMInterface'));
  const iface = await app.post(VMIFS, { virtual_machine: vm.id, name: 'eth0' });
  const ip = await app.post(IPS, { address: '192.0.2.10/24', assigned_object_type: 'virtualization.vminterface', assigned_object_id: iface.id });
  await app.patch(`${VMS}${vm.id}/`, { primary_ip4: ip.id });
  assert.match(await refusedUpdate(IPS, ip.id, { assigned_object_id: other.id }, 'assigned_object_id'), /primary IP/);
  await app.patch(`${IPS}${ip.id}/`, { description: 'still on eth0' });
});

test('VM: needs a site or a cluster; the cluster in the same site; a host only within the cluster', async () => {
  const [s1, s2] = [await createObject(app, model('Site')), await createObject(app, model('Site'))];
  const cluster = await createObject(app, model('Cluster'), { site: s1.id });
  assert.match(await refusedCreate(VMS, { name: uniq('vm') }, 'cluster'), /site and\/or a cluster/);
  assert.match(await refusedCreate(VMS, { name: uniq('vm'), cluster: cluster.id, site: s2.id }, 'cluster'), /not assigned to this site/);
  const host = await createObject(app, model('Device'), { site: s1.id });
  assert.match(await refusedCreate(VMS, { name: uniq('vm'), site: s1.id, device: host.id }, 'device'), /cluster/);
  assert.match(await refusedCreate(VMS, { name: uniq('vm'), cluster: cluster.id, device: host.id }, 'device'), /not a host/);
  await app.patch(`/api/dcim/devices/${host.id}/`, { cluster: cluster.id });
  const vm = await app.post(VMS, { name: uniq('vm'), cluster: cluster.id, device: host.id });
  assert.is(vm.site.id, s1.id, 'the site comes from the cluster');
  await app.post(VMS, { name: uniq('vm'), site: s2.id });
});

test('VM: names unique per cluster ignoring case; none without a cluster', async () => {
  const cluster = await createObject(app, model('Cluster'));
  const name = uniq('Web');
  await app.post(VMS, { name, cluster: cluster.id });
  assert.match(await refusedCreate(VMS, { name: name.toUpperCase(), cluster: cluster.id }, 'name'), /ignoring case/);
  await app.post(VMS, { name: name.toUpperCase(), cluster: (await createObject(app, model('Cluster'))).id });
  const site = await createObject(app, model('Site'));
  await app.post(VMS, { name, site: site.id });
  await app.post(VMS, { name, site: site.id });
});

test('VM: primary IPs of the right family, on the VM\'s own interfaces', async () => {
  const vm = await createObject(app, model('VirtualMachine'));
  const iface = await app.post(VMIFS, { virtual_machine: vm.id, name: 'eth0' });
  const on = { assigned_object_type: 'virtualization.vminterface', assigned_object_id: iface.id };
  const v4 = await app.post(IPS, { address: '192.0.2.40/24', ...on });
  const v6 = await app.post(IPS, { address: '2001:db8::40/64', ...on });
  const loose = await app.post(IPS, { address: '192.0.2.41/24' });
  assert.match(await refusedUpdate(VMS, vm.id, { primary_ip4: v6.id }, 'primary_ip4'), /not an IPv4/);
  assert.match(await refusedUpdate(VMS, vm.id, { primary_ip4: loose.id }, 'primary_ip4'), /not assigned to this virtual machine/);
  const ok = await app.patch(`${VMS}${vm.id}/`, { primary_ip4: v4.id, primary_ip6: v6.id });
  assert.is(ok.primary_ip.id, v6.id);
  assert.match(await refusedUpdate(VMS, vm.id, { local_context_data: [1] }, 'local_context_data'), /object/);
});

test('cluster: a site change must keep every host device in that site', async () => {
  const [s1, s2] = [await createObject(app, model('Site')), await createObject(app, model('Site'))];
  const cluster = await createObject(app, model('Cluster'), { site: s1.id });
  await createObject(app, model('Device'), { site: s1.id, cluster: cluster.id });
  assert.match(await refusedUpdate('/api/virtualization/clusters/', cluster.id, { site: s2.id }, 'site'), /1 devices/);
  await app.patch(`/api/virtualization/clusters/${cluster.id}/`, { site: s1.id, description: 'same site' });
});

test('VM interface: parent and bridge on the same VM; VLANs global or in the VM\'s site; mode drops VLANs', async () => {
  const [s1, s2] = [await createObject(app, model('Site')), await createObject(app, model('Site'))];
  const vm = await app.post(VMS, { name: uniq('vm'), site: s1.id });
  const elsewhere = await createObject(app, model('VMInterface'));
  const eth0 = await app.post(VMIFS, { virtual_machine: vm.id, name: 'eth0' });
  assert.match(await refusedCreate(VMIFS, { virtual_machine: vm.id, name: 'eth0.1', parent: elsewhere.id }, 'parent'), /different virtual machine/);
  assert.match(await refusedCreate(VMIFS, { virtual_machine: vm.id, name: 'br0', bridge: elsewhere.id }, 'bridge'), /different virtual machine/);
  assert.match(await refusedUpdate(VMIFS, eth0.id, { bridge: eth0.id }, 'bridge'), /itself/);
  const sub = await app.post(VMIFS, { virtual_machine: vm.id, name: 'eth0.1', parent: eth0.id, bridge: eth0.id });
  const foreign = await app.post(VLANS, { name: 'far', vid: 10, site: s2.id });
  const local = await app.post(VLANS, { name: 'near', vid: 11, site: s1.id });
  const global = await app.post(VLANS, { name: 'global', vid: 12 });
  assert.match(await refusedUpdate(VMIFS, sub.id, { mode: 'access', untagged_vlan: foreign.id }, 'untagged_vlan'), /global or belong/);
  assert.match(await refusedUpdate(VMIFS, sub.id, { mode: 'tagged', tagged_vlans: [global.id, foreign.id] }, 'tagged_vlans'), /global or belong/);
  const tagged = await app.patch(`${VMIFS}${sub.id}/`, { mode: 'tagged', untagged_vlan: local.id, tagged_vlans: [global.id, local.id] });
  assert.equal(tagged.tagged_vlans.map((v: any) => v.id).sort(), [local.id, global.id].sort());
  const access = await app.patch(`${VMIFS}${sub.id}/`, { mode: 'access' });
  assert.equal(access.tagged_vlans, [], 'a non-tagged mode drops tagged VLANs');
  assert.is(access.untagged_vlan.id, local.id);
  const none = await app.patch(`${VMIFS}${sub.id}/`, { mode: '' });
  assert.is(none.untagged_vlan, null, 'no mode drops the untagged VLAN');
});

test('users: usernames are unique ignoring case', async () => {
  const name = uniq('Casey');
  await app.post('/api/users/users/', { username: name, password: 'correct-horse-battery' });
  assert.match(await refusedCreate('/api/users/users/', { username: name.toUpperCase(), password: 'correct-horse-battery' }, 'username'), /already exists/);
  await app.post('/api/users/users/', { username: `${name}x`, password: 'correct-horse-battery' });
});

test.run();
