/**
 * The endpoints NetBox 4.x added or moved, served under the 4.6 API only (404 under /v3.7/ and the
 * 3.7 default /api/, as in NetBox 3.7): object types and change records under /api/core/, from the
 * same rows as 3.7's /api/extras/content-types/ and /api/extras/object-changes/.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite<{ app: TestApp; device: any; vm: any }>('api-v46-models');

test.before(async (ctx) => {
  ctx.app = await startApp();
  const { app } = ctx;
  const site = await app.post('/api/dcim/sites/', { name: 'Site M', slug: 'site-m' });
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'Maker M', slug: 'maker-m' });
  const type = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Box M', slug: 'box-m' });
  const role = await app.post('/api/dcim/device-roles/', { name: 'Role M', slug: 'role-m' });
  ctx.device = await app.post('/api/dcim/devices/', { name: 'mac-dev', site: site.id, device_type: type.id, role: role.id });
  const ctype = await app.post('/api/virtualization/cluster-types/', { name: 'CT M', slug: 'ct-m' });
  const cluster = await app.post('/api/virtualization/clusters/', { name: 'Cluster M', type: ctype.id });
  ctx.vm = await app.post('/api/virtualization/virtual-machines/', { name: 'mac-vm', cluster: cluster.id });
});

test.after(async ({ app }) => { await app.stop(); });

test('object types: /v4.6/api/core/object-types/ in 4.6 shape, from the rows 3.7 serves as content types; each path 404 in the other version', async ({ app }) => {
  const types = await app.get('/v4.6/api/core/object-types/?app_label=dcim&model=site');
  assert.is(types.count, 1);
  const site = types.results[0];
  const old = (await app.get('/api/extras/content-types/?app_label=dcim&model=site')).results[0];
  assert.is(site.id, old.id, 'one set of rows');
  assert.is(site.url, `${app.url}/v4.6/api/core/object-types/${site.id}/`);
  assert.is(site.app_label, 'dcim');
  assert.is(site.model, 'site');
  assert.is(site.app_name, 'DCIM');
  assert.is(site.model_name, 'site');
  assert.is(site.model_name_plural, 'sites');
  assert.is(site.public, true);
  assert.is(site.is_plugin_model, false);
  assert.is(site.rest_api_endpoint, '/api/dcim/sites/');
  for (const f of ['change_logging', 'custom_fields', 'tags', 'contacts', 'journaling']) assert.ok(site.features.includes(f), f);
  assert.equal(Object.keys(old).sort(), ['app_label', 'display', 'id', 'model', 'url'], '3.7 keeps its shape');
  assert.is((await app.get(`/v4.6/api/core/object-types/${site.id}/`)).id, site.id);
  // a change record's type is reached by its 4.6 path; the object type of object types names that path
  const self = (await app.get('/v4.6/api/core/object-types/?app_label=contenttypes&model=contenttype')).results[0];
  assert.is(self.rest_api_endpoint, '/api/core/object-types/');
  assert.is((await app.get('/v4.6/api/core/object-types/?features=journaling&app_label=dcim&model=site')).count, 1);
  assert.is((await app.get('/v4.6/api/core/object-types/?features=journaling&app_label=contenttypes')).count, 0, 'content types keep no change log');
  assert.is((await app.get('/v4.6/api/core/object-types/?public=false')).count, 0);
  expectStatus(await app.api('GET', '/v3.7/api/extras/content-types/?public=true'), 400, 'public is a 4.6 filter');
  for (const [path, status] of [['/v4.6/api/extras/content-types/', 404], ['/v3.7/api/core/object-types/', 404], ['/api/core/object-types/', 404], [`/v4.6/api/extras/content-types/${site.id}/`, 404], ['/v3.7/api/extras/content-types/', 200]] as const) {
    expectStatus(await app.api('GET', path), status, path);
  }
  const root46 = await app.get('/v4.6/api/');
  assert.is(root46.core, `${app.url}/v4.6/api/core/`);
  const core = await app.get('/v4.6/api/core/');
  assert.is(core['object-types'], `${app.url}/v4.6/api/core/object-types/`);
  assert.is(core['object-changes'], `${app.url}/v4.6/api/core/object-changes/`);
  const core37 = await app.get('/v3.7/api/core/');
  assert.not.ok('object-types' in core37 || 'object-changes' in core37, "3.7's core app has neither");
  assert.not.ok('content-types' in await app.get('/v4.6/api/extras/'));
  assert.not.ok('object-changes' in await app.get('/v4.6/api/extras/'));
  assert.ok('content-types' in await app.get('/v3.7/api/extras/'));
});

test('change records: /v4.6/api/core/object-changes/, the change log 3.7 serves at /api/extras/object-changes/', async ({ app }) => {
  const region = await app.post('/v4.6/api/dcim/regions/', { name: 'Changed', slug: 'changed' });
  const changes = await app.get(`/v4.6/api/core/object-changes/?changed_object_type=dcim.region&changed_object_id=${region.id}`);
  assert.is(changes.count, 1);
  const change = changes.results[0];
  assert.is(change.url, `${app.url}/v4.6/api/core/object-changes/${change.id}/`);
  assert.is(change.display_url, `${app.url}/extras/object-changes/${change.id}/`);
  assert.is(change.action.value, 'create');
  assert.is(change.changed_object.url, `${app.url}/v4.6/api/dcim/regions/${region.id}/`);
  assert.is(change.postchange_data.slug, 'changed');
  const old = await app.get(`/api/extras/object-changes/${change.id}/`);
  assert.is(old.id, change.id);
  assert.is(old.url, `${app.url}/api/extras/object-changes/${change.id}/`);
  assert.not.ok('display_url' in old);
  for (const path of ['/v4.6/api/extras/object-changes/', `/v4.6/api/extras/object-changes/${change.id}/`, '/v3.7/api/core/object-changes/', '/api/core/object-changes/']) {
    expectStatus(await app.api('GET', path), 404, path);
  }
  // read-only in both versions
  const refused = await app.api('POST', '/v4.6/api/core/object-changes/', {});
  assert.is(refused.status, 405);
});

test('MAC addresses: /v4.6/api/dcim/mac-addresses/ objects; the primary_mac_address of an interface sets its mac_address; 404 in 3.7', async ({ app, device, vm }) => {
  const iface = await app.post('/v4.6/api/dcim/interfaces/', { device: device.id, name: 'eth0', type: '1000base-t' });
  assert.is(iface.mac_address, null);
  assert.is(iface.primary_mac_address, null);
  assert.equal(iface.mac_addresses, []);
  const mac = await app.post('/v4.6/api/dcim/mac-addresses/', { mac_address: '00:11:22:aa:bb:cc', assigned_object_type: 'dcim.interface', assigned_object_id: iface.id, description: 'onboard' });
  assert.is(mac.mac_address, '00:11:22:AA:BB:CC');
  assert.is(mac.url, `${app.url}/v4.6/api/dcim/mac-addresses/${mac.id}/`);
  assert.is(mac.assigned_object.id, iface.id);
  assert.is(mac.assigned_object.url, `${app.url}/v4.6/api/dcim/interfaces/${iface.id}/`);
  assert.equal(Object.keys((await app.get(`/v4.6/api/dcim/mac-addresses/${mac.id}/?brief=1`))).sort(), ['description', 'display', 'id', 'mac_address', 'url']);
  const second = await app.post('/v4.6/api/dcim/mac-addresses/', { mac_address: '00:11:22:00:00:02', assigned_object_type: 'dcim.interface', assigned_object_id: iface.id });
  const set = await app.patch(`/v4.6/api/dcim/interfaces/${iface.id}/`, { primary_mac_address: mac.id });
  assert.is(set.primary_mac_address.id, mac.id);
  assert.is(set.primary_mac_address.mac_address, '00:11:22:AA:BB:CC');
  assert.is(set.mac_address, '00:11:22:AA:BB:CC', 'the mac_address 4.6 shows is the primary MAC value');
  assert.equal(set.mac_addresses.map((m: any) => m.id).sort(), [mac.id, second.id].sort());
  const old = await app.get(`/api/dcim/interfaces/${iface.id}/`);
  assert.is(old.mac_address, '00:11:22:AA:BB:CC', '3.7 reads the same value');
  assert.not.ok('primary_mac_address' in old);
  assert.not.ok('mac_addresses' in old);
  // filters: on MAC addresses, and mac_address on interfaces in both versions
  assert.equal((await app.get(`/v4.6/api/dcim/mac-addresses/?interface_id=${iface.id}&primary=true`)).results.map((m: any) => m.id), [mac.id]);
  assert.equal((await app.get(`/v4.6/api/dcim/mac-addresses/?device_id=${device.id}&primary=false`)).results.map((m: any) => m.id), [second.id]);
  assert.is((await app.get('/v4.6/api/dcim/mac-addresses/?mac_address=00:11:22:AA:BB:CC')).count, 1);
  for (const base of ['/api', '/v3.7/api', '/v4.6/api']) assert.equal((await app.get(`${base}/dcim/interfaces/?mac_address=00:11:22:AA:BB:CC`)).results.map((i: any) => i.id), [iface.id], base);
  assert.equal((await app.get(`/v4.6/api/dcim/interfaces/?primary_mac_address_id=${mac.id}`)).results.map((i: any) => i.id), [iface.id]);
  // the value of the primary MAC is the interface's
  await app.patch(`/v4.6/api/dcim/mac-addresses/${mac.id}/`, { mac_address: '00:11:22:aa:bb:dd' });
  assert.is((await app.get(`/api/dcim/interfaces/${iface.id}/`)).mac_address, '00:11:22:AA:BB:DD');
  // a primary MAC stays with its interface; another interface's MAC cannot be primary here
  const other = await app.post('/v4.6/api/dcim/interfaces/', { device: device.id, name: 'eth1', type: '1000base-t' });
  const moved = await app.api('PATCH', `/v4.6/api/dcim/mac-addresses/${mac.id}/`, { assigned_object_id: other.id });
  expectStatus(moved, 400, 'reassigning a primary MAC');
  assert.match(moved.body.assigned_object[0], /primary MAC/);
  expectStatus(await app.api('PATCH', `/v4.6/api/dcim/mac-addresses/${mac.id}/`, { assigned_object_type: null, assigned_object_id: null }), 400, 'unassigning a primary MAC');
  const foreign = await app.api('PATCH', `/v4.6/api/dcim/interfaces/${other.id}/`, { primary_mac_address: second.id });
  expectStatus(foreign, 400, "another interface's MAC");
  assert.ok(foreign.body.primary_mac_address);
  // deleting the primary MAC clears the interface's
  expectStatus(await app.api('DELETE', `/v4.6/api/dcim/mac-addresses/${mac.id}/`), 204);
  const cleared = await app.get(`/v4.6/api/dcim/interfaces/${iface.id}/`);
  assert.is(cleared.primary_mac_address, null);
  assert.is(cleared.mac_address, null);
  // deleting the interface deletes its MAC addresses
  expectStatus(await app.api('DELETE', `/v4.6/api/dcim/interfaces/${iface.id}/`), 204);
  expectStatus(await app.api('GET', `/v4.6/api/dcim/mac-addresses/${second.id}/`), 404);
  // VM interfaces too
  const vmi = await app.post('/v4.6/api/virtualization/interfaces/', { virtual_machine: vm.id, name: 'vnic0' });
  const vmac = await app.post('/v4.6/api/dcim/mac-addresses/', { mac_address: '52:54:00:00:00:01', assigned_object_type: 'virtualization.vminterface', assigned_object_id: vmi.id });
  const vset = await app.patch(`/v4.6/api/virtualization/interfaces/${vmi.id}/`, { primary_mac_address: vmac.id });
  assert.is(vset.mac_address, '52:54:00:00:00:01');
  assert.equal((await app.get(`/v4.6/api/dcim/mac-addresses/?virtual_machine_id=${vm.id}`)).results.map((m: any) => m.id), [vmac.id]);
  for (const path of ['/api/dcim/mac-addresses/', '/v3.7/api/dcim/mac-addresses/', `/v3.7/api/dcim/mac-addresses/${vmac.id}/`]) expectStatus(await app.api('GET', path), 404, path);
  expectStatus(await app.api('POST', '/v3.7/api/dcim/mac-addresses/', { mac_address: '52:54:00:00:00:09' }), 404, 'no writes in 3.7 either');
});

test("a 3.7 write of an interface's mac_address is its primary MAC object: created, changed, removed", async ({ app, device, vm }) => {
  const iface = await app.post('/api/dcim/interfaces/', { device: device.id, name: 'eth37', type: '1000base-t', mac_address: '00:00:5e:00:53:01' });
  assert.is(iface.mac_address, '00:00:5E:00:53:01');
  const seen = await app.get(`/v4.6/api/dcim/interfaces/${iface.id}/`);
  assert.ok(seen.primary_mac_address, 'a primary MAC object was created');
  assert.is(seen.primary_mac_address.mac_address, '00:00:5E:00:53:01');
  const macId = seen.primary_mac_address.id;
  const mac = await app.get(`/v4.6/api/dcim/mac-addresses/${macId}/`);
  assert.is(mac.assigned_object_type, 'dcim.interface');
  assert.is(mac.assigned_object_id, iface.id);
  // changing it through 3.7 changes that object
  await app.patch(`/v3.7/api/dcim/interfaces/${iface.id}/`, { mac_address: '00:00:5e:00:53:02' });
  assert.is((await app.get(`/v4.6/api/dcim/mac-addresses/${macId}/`)).mac_address, '00:00:5E:00:53:02');
  assert.is((await app.get(`/v4.6/api/dcim/mac-addresses/?interface_id=${iface.id}`)).count, 1, 'no second object');
  // the change log records the MAC object's creation and change; 3.7's, which has no MAC addresses, does not show them
  const changes = await app.get(`/v4.6/api/core/object-changes/?changed_object_type=dcim.macaddress&changed_object_id=${macId}`);
  assert.equal(changes.results.map((c: any) => c.action.value).sort(), ['create', 'update']);
  assert.is((await app.get(`/api/extras/object-changes/?changed_object_id=${macId}&changed_object_type=dcim.macaddress`)).count, 0);
  expectStatus(await app.api('GET', `/api/extras/object-changes/${changes.results[0].id}/`), 404, 'a MAC change through 3.7');
  // a patch that does not name mac_address leaves it alone
  await app.patch(`/api/dcim/interfaces/${iface.id}/`, { description: 'uplink' });
  assert.is((await app.get(`/v4.6/api/dcim/interfaces/${iface.id}/`)).primary_mac_address.id, macId);
  // null removes it
  const cleared = await app.patch(`/api/dcim/interfaces/${iface.id}/`, { mac_address: null });
  assert.is(cleared.mac_address, null);
  expectStatus(await app.api('GET', `/v4.6/api/dcim/mac-addresses/${macId}/`), 404);
  // VM interfaces and bulk creates alike
  const made = await app.post('/api/virtualization/interfaces/', [{ virtual_machine: vm.id, name: 'v1', mac_address: '52:54:00:aa:00:01' }, { virtual_machine: vm.id, name: 'v2', mac_address: '52:54:00:aa:00:02' }]);
  for (const [i, vmi] of made.entries()) {
    const read = await app.get(`/v4.6/api/virtualization/interfaces/${vmi.id}/`);
    assert.is(read.primary_mac_address?.mac_address, `52:54:00:AA:00:0${i + 1}`);
  }
});

test('circuit groups and their assignments: /v4.6/api/circuits/circuit-groups/ and circuit-group-assignments/; 404 in 3.7', async ({ app }) => {
  const tenant = await app.post('/api/tenancy/tenants/', { name: 'Carrier tenant', slug: 'carrier-tenant' });
  const provider = await app.post('/api/circuits/providers/', { name: 'Carrier', slug: 'carrier' });
  const ctype = await app.post('/api/circuits/circuit-types/', { name: 'Transit', slug: 'transit' });
  const [c1, c2] = await app.post('/api/circuits/circuits/', [{ cid: 'CG-1', provider: provider.id, type: ctype.id }, { cid: 'CG-2', provider: provider.id, type: ctype.id }]);
  const group = await app.post('/v4.6/api/circuits/circuit-groups/', { name: 'Uplinks', slug: 'uplinks', tenant: tenant.id, description: 'dual uplinks' });
  assert.is(group.url, `${app.url}/v4.6/api/circuits/circuit-groups/${group.id}/`);
  assert.is(group.tenant.id, tenant.id);
  assert.is(group.circuit_count, 0);
  assert.equal(Object.keys(await app.get(`/v4.6/api/circuits/circuit-groups/${group.id}/?brief=1`)).sort(), ['display', 'id', 'name', 'url']);
  const a1 = await app.post('/v4.6/api/circuits/circuit-group-assignments/', { group: group.id, member_type: 'circuits.circuit', member_id: c1.id, priority: 'primary' });
  assert.is(a1.display, 'Uplinks (Primary)');
  assert.is(a1.member.id, c1.id);
  assert.is(a1.member.url, `${app.url}/v4.6/api/circuits/circuits/${c1.id}/`);
  assert.equal(a1.priority, { value: 'primary', label: 'Primary' });
  const a2 = await app.post('/v4.6/api/circuits/circuit-group-assignments/', { group: { slug: 'uplinks' }, member_type: 'circuits.circuit', member_id: c2.id });
  assert.is(a2.priority, null);
  assert.is(a2.display, 'Uplinks');
  assert.is((await app.get(`/v4.6/api/circuits/circuit-groups/${group.id}/`)).circuit_count, 2);
  // one assignment per circuit and group
  const again = await app.api('POST', '/v4.6/api/circuits/circuit-group-assignments/', { group: group.id, member_type: 'circuits.circuit', member_id: c1.id });
  expectStatus(again, 400, 'a second assignment of the same circuit to the group');
  // filters
  const ids = async (q: string) => (await app.get(`/v4.6/api/circuits/circuit-group-assignments/?${q}`)).results.map((a: any) => a.id).sort();
  assert.equal(await ids(`circuit_id=${c1.id}`), [a1.id]);
  assert.equal(await ids('circuit=CG-2'), [a2.id]);
  assert.equal(await ids(`provider_id=${provider.id}`), [a1.id, a2.id].sort());
  assert.equal(await ids('group=uplinks&priority=primary'), [a1.id]);
  // q searches the member circuit's cid (through the generic relation) and the group's name
  assert.equal(await ids('q=cg-2'), [a2.id]);
  assert.equal(await ids('q=uplink'), [a1.id, a2.id].sort());
  assert.equal((await app.get(`/v4.6/api/circuits/circuit-groups/?tenant_id=${tenant.id}`)).results.map((g: any) => g.id), [group.id]);
  // deleted with its circuit; a group with assignments goes with them
  expectStatus(await app.api('DELETE', `/api/circuits/circuits/${c2.id}/`), 204);
  expectStatus(await app.api('GET', `/v4.6/api/circuits/circuit-group-assignments/${a2.id}/`), 404);
  expectStatus(await app.api('DELETE', `/v4.6/api/circuits/circuit-groups/${group.id}/`), 204);
  expectStatus(await app.api('GET', `/v4.6/api/circuits/circuit-group-assignments/${a1.id}/`), 404);
  for (const path of ['/api/circuits/circuit-groups/', '/v3.7/api/circuits/circuit-groups/', '/v3.7/api/circuits/circuit-group-assignments/']) expectStatus(await app.api('GET', path), 404, path);
  assert.not.ok('circuit-groups' in await app.get('/v3.7/api/circuits/'));
  assert.ok('circuit-group-assignments' in await app.get('/v4.6/api/circuits/'));
});

test.run();
