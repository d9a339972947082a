/**
 * The models NetBox 4.6.0 added, served by the 4.6 API only (404 under /v3.7/ and under /api/ while
 * it answers in 3.7): rack groups (a rack's `group`, a VLAN group's scope), virtual machine types (a
 * virtual machine's `virtual_machine_type`, whose defaults a new VM takes) and cable bundles (a
 * cable's `bundle`). Each through HTTP: create, read, update, delete, brief form, counts, filters
 * both ways, and the 3.7 shape of the model pointing at it, which has no such key.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectFieldError, expectStatus, startApp, type TestApp } from './helpers.js';
import { createObject } from './factory.js';
import { model } from '../runtime/data/registry.js';

const test = suite<{ app: TestApp; site: any }>('api-v46-new-models');

test.before(async (ctx) => {
  ctx.app = await startApp({ STRICT_FILTERS: '1' });
  ctx.site = await ctx.app.post('/api/dcim/sites/', { name: 'Site N', slug: 'site-n' });
});

test.after(async ({ app }) => { await app.stop(); });

const V = '/v4.6/api';
const term = (id: number) => ({ object_type: 'dcim.interface', object_id: id });
const ids = (page: any) => page.results.map((r: any) => r.id).sort((a: number, b: number) => a - b);

/** The list and detail paths of a 4.6-only endpoint are 404 through 3.7, and its app root does not list it. */
async function only46(app: TestApp, app_: string, endpoint: string, id: number): Promise<void> {
  for (const path of [`/api/${app_}/${endpoint}/`, `/v3.7/api/${app_}/${endpoint}/`, `/v3.7/api/${app_}/${endpoint}/${id}/`, `/api/${app_}/${endpoint}/${id}/`]) {
    expectStatus(await app.api('GET', path), 404, path);
  }
  expectStatus(await app.api('POST', `/v3.7/api/${app_}/${endpoint}/`, { name: 'x', slug: 'x' }), 404, `POST under 3.7: ${endpoint}`);
  assert.not.ok(endpoint in await app.get(`/v3.7/api/${app_}/`), `3.7's ${app_} root has no ${endpoint}`);
  assert.ok(endpoint in await app.get(`${V}/${app_}/`), `4.6's ${app_} root lists ${endpoint}`);
}

test('rack groups: 4.6 only, with their racks and rack_count, the group filters of racks', async ({ app, site }) => {
  const row = await app.post(`${V}/dcim/rack-groups/`, { name: 'Row A', slug: 'row-a', description: 'first row', comments: 'cold aisle' });
  assert.is(row.url, `${app.url}${V}/dcim/rack-groups/${row.id}/`);
  assert.equal([row.display, row.rack_count, row.comments, row.owner], ['Row A', 0, 'cold aisle', null]);
  assert.equal(Object.keys(await app.get(`${V}/dcim/rack-groups/${row.id}/?brief=1`)).sort(), ['description', 'display', 'id', 'name', 'rack_count', 'slug', 'url']);
  const other = await app.post(`${V}/dcim/rack-groups/`, { name: 'Row B', slug: 'row-b' });
  expectStatus(await app.api('POST', `${V}/dcim/rack-groups/`, { name: 'Row A', slug: 'row-a2' }), 400, 'name unique');
  await expectFieldError(app, 'POST', `${V}/dcim/rack-groups/`, { name: 'Row C' }, 'slug');

  const r1 = await app.post(`${V}/dcim/racks/`, { name: 'N1', site: site.id, group: row.id });
  assert.equal([r1.group.id, r1.group.url, r1.group.slug, r1.group.description], [row.id, `${app.url}${V}/dcim/rack-groups/${row.id}/`, 'row-a', 'first row']);
  const r2 = await app.post(`${V}/dcim/racks/`, { name: 'N2', site: site.id, group: { slug: 'row-b' } });
  assert.is(r2.group.id, other.id);
  const r3 = await app.post('/api/dcim/racks/', { name: 'N3', site: site.id, group: row.id });
  assert.not.ok('group' in r3, '3.7 shows no group and ignores it');
  assert.is((await app.get(`${V}/dcim/racks/${r3.id}/`)).group, null);
  // a 3.7 write keeps the group a rack has
  await app.patch(`/api/dcim/racks/${r1.id}/`, { serial: 'S1' });
  assert.is((await app.get(`${V}/dcim/racks/${r1.id}/`)).group.id, row.id);
  assert.not.ok('group' in await app.get(`/v3.7/api/dcim/racks/${r1.id}/`));

  assert.is((await app.get(`${V}/dcim/rack-groups/${row.id}/`)).rack_count, 1);
  const only = `&site_id=${site.id}`;
  assert.equal(ids(await app.get(`${V}/dcim/racks/?group_id=${row.id}${only}`)), [r1.id]);
  assert.equal(ids(await app.get(`${V}/dcim/racks/?group=row-a&group=row-b${only}`)), [r1.id, r2.id]);
  assert.equal(ids(await app.get(`${V}/dcim/racks/?group_id__n=${row.id}${only}`)), [r2.id, r3.id]);
  assert.equal(ids(await app.get(`${V}/dcim/racks/?group_id=null${only}`)), [r3.id]);
  expectStatus(await app.api('GET', `/v3.7/api/dcim/racks/?group_id=${row.id}`), 400, 'group_id is a 4.6 filter of racks');
  assert.equal(ids(await app.get(`${V}/dcim/rack-groups/?q=first`)), [row.id]);
  assert.equal(ids(await app.get(`${V}/dcim/rack-groups/?slug=row-b`)), [other.id]);
  assert.equal((await app.get(`${V}/dcim/rack-groups/?name__isw=row`)).results.map((g: any) => g.name), ['Row A', 'Row B'], 'ordered by name');

  const changed = await app.patch(`${V}/dcim/rack-groups/${other.id}/`, { description: 'second row' });
  assert.is(changed.description, 'second row');
  expectStatus(await app.api('DELETE', `${V}/dcim/rack-groups/${row.id}/`), 409, 'a group with racks is protected');
  await app.patch(`${V}/dcim/racks/${r1.id}/`, { group: null });
  expectStatus(await app.api('DELETE', `${V}/dcim/rack-groups/${row.id}/`), 204);
  const log = await app.get(`${V}/core/object-changes/?changed_object_type=dcim.rackgroup&changed_object_id=${row.id}`);
  assert.equal(log.results.map((c: any) => c.action.value).sort(), ['create', 'delete']);
  await only46(app, 'dcim', 'rack-groups', other.id);
});

test('rack groups scope VLAN groups through 4.6 (rack_group filter; VLANs available on a device in one of its racks)', async ({ app, site }) => {
  const row = await app.post(`${V}/dcim/rack-groups/`, { name: 'Row V', slug: 'row-v' });
  const group = await app.post(`${V}/ipam/vlan-groups/`, { name: 'Row V VLANs', slug: 'row-v-vlans', scope_type: 'dcim.rackgroup', scope_id: row.id });
  assert.equal([group.scope_type, group.scope_id, group.scope.id, group.scope.url], ['dcim.rackgroup', row.id, row.id, `${app.url}${V}/dcim/rack-groups/${row.id}/`]);
  const plain = await app.post(`${V}/ipam/vlan-groups/`, { name: 'Plain VLANs', slug: 'plain-vlans' });
  assert.equal(ids(await app.get(`${V}/ipam/vlan-groups/?rack_group=${row.id}`)), [group.id]);
  assert.equal(ids(await app.get(`${V}/ipam/vlan-groups/?scope_type=dcim.rackgroup`)), [group.id]);
  expectStatus(await app.api('GET', `/v3.7/api/ipam/vlan-groups/?rack_group=${row.id}`), 400, 'rack_group is a 4.6 filter');
  await expectFieldError(app, 'POST', '/v3.7/api/ipam/vlan-groups/', { name: 'No', slug: 'no', scope_type: 'dcim.rackgroup', scope_id: row.id }, 'scope_type');
  // 3.7 has no rack groups: a VLAN group scoped to one is not in it, as other objects pointing at 4.6's models
  expectStatus(await app.api('GET', `/v3.7/api/ipam/vlan-groups/${group.id}/`), 404);
  assert.is((await app.get(`/v3.7/api/ipam/vlan-groups/${plain.id}/`)).id, plain.id);

  const vlan = await app.post(`${V}/ipam/vlans/`, { vid: 100, name: 'row-v-100', group: group.id });
  const role = await app.post('/api/dcim/device-roles/', { name: 'Role N', slug: 'role-n' });
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'Maker N', slug: 'maker-n' });
  const dtype = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Box N', slug: 'box-n' });
  const inRow = await app.post(`${V}/dcim/racks/`, { name: 'NV1', site: site.id, group: row.id });
  const outside = await app.post(`${V}/dcim/racks/`, { name: 'NV2', site: site.id });
  const d1 = await app.post('/api/dcim/devices/', { name: 'dev-nv1', role: role.id, device_type: dtype.id, site: site.id, rack: inRow.id });
  const d2 = await app.post('/api/dcim/devices/', { name: 'dev-nv2', role: role.id, device_type: dtype.id, site: site.id, rack: outside.id });
  assert.ok(ids(await app.get(`${V}/ipam/vlans/?available_on_device=${d1.id}`)).includes(vlan.id));
  assert.not.ok(ids(await app.get(`${V}/ipam/vlans/?available_on_device=${d2.id}`)).includes(vlan.id));

  // through 4.6 deleting the rack group deletes the VLAN groups it scopes (once their VLANs are gone)
  expectStatus(await app.api('DELETE', `${V}/ipam/vlans/${vlan.id}/`), 204);
  await app.patch(`${V}/dcim/racks/${inRow.id}/`, { group: null });
  expectStatus(await app.api('DELETE', `${V}/dcim/rack-groups/${row.id}/`), 204);
  expectStatus(await app.api('GET', `${V}/ipam/vlan-groups/${group.id}/`), 404);
});

test('virtual machine types: 4.6 only, a VM\'s type, its defaults on create, counts and filters both ways', async ({ app, site }) => {
  const platform = await app.post('/api/dcim/platforms/', { name: 'Linux N', slug: 'linux-n' });
  const small = await app.post(`${V}/virtualization/virtual-machine-types/`, { name: 'm.small', slug: 'm-small', default_platform: platform.id, default_vcpus: 2, default_memory: 4096, description: 'two cores', comments: 'burstable' });
  assert.is(small.url, `${app.url}${V}/virtualization/virtual-machine-types/${small.id}/`);
  assert.equal([small.display, small.default_platform.id, Number(small.default_vcpus), small.default_memory, small.virtual_machine_count, small.owner], ['m.small', platform.id, 2, 4096, 0, null]);
  assert.equal(Object.keys(await app.get(`${V}/virtualization/virtual-machine-types/${small.id}/?brief=1`)).sort(), ['description', 'display', 'id', 'name', 'slug', 'url']);
  const large = await app.post(`${V}/virtualization/virtual-machine-types/`, { name: 'm.large', slug: 'm-large' });
  expectStatus(await app.api('POST', `${V}/virtualization/virtual-machine-types/`, { name: 'M.SMALL', slug: 'm-small-2' }), 400, 'name unique ignoring case');
  await expectFieldError(app, 'POST', `${V}/virtualization/virtual-machine-types/`, { name: 'm.zero', slug: 'm-zero', default_vcpus: 0 }, 'default_vcpus');
  await expectFieldError(app, 'POST', `${V}/virtualization/virtual-machine-types/`, { name: 'm.neg', slug: 'm-neg', default_memory: -1 }, 'default_memory');

  // a new VM of a type takes the defaults it leaves empty; what it gives wins
  const vm1 = await app.post(`${V}/virtualization/virtual-machines/`, { name: 'vmt-1', site: site.id, virtual_machine_type: small.id });
  assert.equal([vm1.virtual_machine_type.id, vm1.virtual_machine_type.slug, vm1.virtual_machine_type.description, vm1.platform.id, Number(vm1.vcpus), vm1.memory], [small.id, 'm-small', 'two cores', platform.id, 2, 4096]);
  assert.is(vm1.virtual_machine_type.url, `${app.url}${V}/virtualization/virtual-machine-types/${small.id}/`);
  const vm2 = await app.post(`${V}/virtualization/virtual-machines/`, { name: 'vmt-2', site: site.id, virtual_machine_type: { slug: 'm-small' }, vcpus: 8, memory: 1024 });
  assert.equal([Number(vm2.vcpus), vm2.memory, vm2.platform.id], [8, 1024, platform.id]);
  const vm3 = await app.post('/api/virtualization/virtual-machines/', { name: 'vmt-3', site: site.id, virtual_machine_type: small.id });
  assert.not.ok('virtual_machine_type' in vm3, '3.7 shows no type and ignores it');
  assert.equal([(await app.get(`${V}/virtualization/virtual-machines/${vm3.id}/`)).virtual_machine_type, vm3.vcpus], [null, null]);
  // a changed type leaves existing VMs as they are; a 3.7 write keeps a VM's type
  await app.patch(`${V}/virtualization/virtual-machine-types/${small.id}/`, { default_memory: 8192 });
  assert.is((await app.get(`${V}/virtualization/virtual-machines/${vm1.id}/`)).memory, 4096);
  await app.patch(`/v3.7/api/virtualization/virtual-machines/${vm1.id}/`, { comments: 'kept' });
  assert.is((await app.get(`${V}/virtualization/virtual-machines/${vm1.id}/`)).virtual_machine_type.id, small.id);
  assert.not.ok('virtual_machine_type' in await app.get(`/v3.7/api/virtualization/virtual-machines/${vm1.id}/`));

  assert.is((await app.get(`${V}/virtualization/virtual-machine-types/${small.id}/`)).virtual_machine_count, 2);
  const only = `&site_id=${site.id}`;
  const vms = `${V}/virtualization/virtual-machines/`;
  assert.equal(ids(await app.get(`${vms}?virtual_machine_type_id=${small.id}${only}`)), [vm1.id, vm2.id]);
  assert.equal(ids(await app.get(`${vms}?virtual_machine_type=m-small${only}`)), [vm1.id, vm2.id]);
  assert.equal(ids(await app.get(`${vms}?virtual_machine_type_id=null${only}`)), [vm3.id]);
  expectStatus(await app.api('GET', `/v3.7/api/virtualization/virtual-machines/?virtual_machine_type_id=${small.id}`), 400, 'a 4.6 filter of VMs');
  const types = `${V}/virtualization/virtual-machine-types/`;
  assert.equal(ids(await app.get(`${types}?default_platform_id=${platform.id}`)), [small.id]);
  assert.equal(ids(await app.get(`${types}?default_platform=linux-n`)), [small.id]);
  assert.equal(ids(await app.get(`${types}?default_vcpus__gte=1`)), [small.id]);
  assert.equal(ids(await app.get(`${types}?default_memory=8192`)), [small.id]);
  assert.equal(ids(await app.get(`${types}?q=burst`)), [small.id]);
  assert.equal((await app.get(types)).results.map((t: any) => t.name), ['m.large', 'm.small'], 'ordered by name');

  expectStatus(await app.api('DELETE', `${types}${small.id}/`), 409, 'a type in use is protected');
  expectStatus(await app.api('DELETE', `${types}${large.id}/`), 204);
  for (const vm of [vm1, vm2]) await app.patch(`${vms}${vm.id}/`, { virtual_machine_type: null });
  expectStatus(await app.api('DELETE', `${types}${small.id}/`), 204);
  const log = await app.get(`${V}/core/object-changes/?changed_object_type=virtualization.virtualmachinetype&changed_object_id=${small.id}`);
  assert.equal(log.results.map((c: any) => c.action.value).sort(), ['create', 'delete', 'update']);
  const again = await app.post(types, { name: 'm.again', slug: 'm-again' });
  await only46(app, 'virtualization', 'virtual-machine-types', again.id);
});

test('cable bundles: 4.6 only, a cable\'s bundle, cable_count, the bundle filters of cables', async ({ app }) => {
  const trunk = await app.post(`${V}/dcim/cable-bundles/`, { name: 'Trunk 1', description: 'panel to panel', comments: '48 x CAT6' });
  assert.is(trunk.url, `${app.url}${V}/dcim/cable-bundles/${trunk.id}/`);
  assert.equal([trunk.display, trunk.cable_count, trunk.comments, trunk.owner], ['Trunk 1', 0, '48 x CAT6', null]);
  assert.equal(Object.keys(await app.get(`${V}/dcim/cable-bundles/${trunk.id}/?brief=1`)).sort(), ['description', 'display', 'id', 'name', 'url']);
  const spare = await app.post(`${V}/dcim/cable-bundles/`, { name: 'Trunk 2' });
  expectStatus(await app.api('POST', `${V}/dcim/cable-bundles/`, { name: 'Trunk 1' }), 400, 'name unique');
  await expectFieldError(app, 'POST', `${V}/dcim/cable-bundles/`, { description: 'no name' }, 'name');

  const a = await createObject(app, model('Device'));
  const b = await createObject(app, model('Device'));
  const ports = await app.post('/api/dcim/interfaces/', [0, 1, 2].flatMap((n) => [
    { device: a.id, name: `b${n}`, type: '1000base-t' }, { device: b.id, name: `b${n}`, type: '1000base-t' }]));
  const cable = (n: number) => ({ a_terminations: [term(ports[2 * n].id)], b_terminations: [term(ports[2 * n + 1].id)] });
  const c1 = await app.post(`${V}/dcim/cables/`, { ...cable(0), label: 'BC1', bundle: trunk.id });
  assert.equal([c1.bundle.id, c1.bundle.url, c1.bundle.name, c1.bundle.description], [trunk.id, `${app.url}${V}/dcim/cable-bundles/${trunk.id}/`, 'Trunk 1', 'panel to panel']);
  assert.equal(Object.keys(c1.bundle).sort(), ['description', 'display', 'id', 'name', 'url']);
  const c2 = await app.post(`${V}/dcim/cables/`, { ...cable(1), label: 'BC2', bundle: { name: 'Trunk 2' } });
  assert.is(c2.bundle.id, spare.id);
  const c3 = await app.post('/api/dcim/cables/', { ...cable(2), label: 'BC3', bundle: trunk.id });
  assert.not.ok('bundle' in c3, '3.7 shows no bundle and ignores it');
  assert.is((await app.get(`${V}/dcim/cables/${c3.id}/`)).bundle, null);
  await app.patch(`/v3.7/api/dcim/cables/${c1.id}/`, { color: 'aa1409' });
  assert.is((await app.get(`${V}/dcim/cables/${c1.id}/`)).bundle.id, trunk.id, 'a 3.7 write keeps the bundle');
  assert.not.ok('bundle' in await app.get(`/v3.7/api/dcim/cables/${c1.id}/`));

  assert.is((await app.get(`${V}/dcim/cable-bundles/${trunk.id}/`)).cable_count, 1);
  const only = `&device_id=${a.id}`;
  const cables = `${V}/dcim/cables/`;
  assert.equal(ids(await app.get(`${cables}?bundle_id=${trunk.id}${only}`)), [c1.id]);
  assert.equal(ids(await app.get(`${cables}?bundle=Trunk%201&bundle=Trunk%202${only}`)), [c1.id, c2.id]);
  assert.equal(ids(await app.get(`${cables}?bundle_id=null${only}`)), [c3.id]);
  expectStatus(await app.api('GET', `/v3.7/api/dcim/cables/?bundle_id=${trunk.id}`), 400, 'bundle_id is a 4.6 filter of cables');
  const bundles = `${V}/dcim/cable-bundles/`;
  assert.equal(ids(await app.get(`${bundles}?q=CAT6`)), [trunk.id]);
  assert.equal(ids(await app.get(`${bundles}?name=Trunk%202`)), [spare.id]);
  assert.equal(ids(await app.get(`${bundles}?description__ic=panel`)), [trunk.id]);
  assert.equal((await app.get(bundles)).results.map((x: any) => x.name), ['Trunk 1', 'Trunk 2'], 'ordered by name');

  assert.is((await app.patch(`${bundles}${spare.id}/`, { description: 'spare run' })).description, 'spare run');
  // a bundle that goes leaves its cables unbundled
  expectStatus(await app.api('DELETE', `${bundles}${trunk.id}/`), 204);
  assert.is((await app.get(`${cables}${c1.id}/`)).bundle, null);
  assert.is((await app.get(`${cables}${c1.id}/`)).label, 'BC1');
  const log = await app.get(`${V}/core/object-changes/?changed_object_type=dcim.cablebundle&changed_object_id=${trunk.id}`);
  assert.equal(log.results.map((c: any) => c.action.value).sort(), ['create', 'delete']);
  await only46(app, 'dcim', 'cable-bundles', spare.id);
});

test.run();
