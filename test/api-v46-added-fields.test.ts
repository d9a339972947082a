/**
 * Fields and counts NetBox 4.x added to existing models, in the 4.6 API: organizational models'
 * comments, a tag's weight (ordering tags), statuses (L2VPNs, inventory items, power outlets, rack
 * reservations), VM start on boot, rack outer height and airflow, module type airflow, location
 * facility, circuit distance, ASN role and a role's ASN count, VLAN group tenant, prefix counts of
 * regions, site groups and locations, module counts of module types, and the 4.6 brief forms they
 * change. Written and read through 4.6; 3.7 shows none of them.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite<{ app: TestApp }>('api-v46-added-fields');

test.before(async (ctx) => { ctx.app = await startApp({ RUN_WORKER: '0' }); });
test.after(async ({ app }) => { await app.stop(); });

test('comments on organizational models, through 4.6 only', async ({ app }) => {
  const region = await app.post('/v4.6/api/dcim/regions/', { name: 'Commented', slug: 'commented', comments: 'north **wing**' });
  assert.is(region.comments, 'north **wing**');
  const role = await app.post('/v4.6/api/ipam/roles/', { name: 'Commented role', slug: 'commented-role', comments: 'c' });
  assert.is(role.comments, 'c');
  assert.not.ok('comments' in await app.get(`/v3.7/api/dcim/regions/${region.id}/`), '3.7 region has no comments');
  const ignored = await app.post('/v3.7/api/dcim/regions/', { name: 'Plain', slug: 'plain', comments: 'dropped' });
  assert.is((await app.get(`/v4.6/api/dcim/regions/${ignored.id}/`)).comments, '', '3.7 ignores comments');
});

test('statuses, choices and scalars: defaults, values, refusals naming the field', async ({ app }) => {
  const l2vpn = await app.post('/v4.6/api/vpn/l2vpns/', { name: 'L2', slug: 'l2', type: 'vxlan' });
  assert.is(l2vpn.status.value, 'active');
  assert.is((await app.patch(`/v4.6/api/vpn/l2vpns/${l2vpn.id}/`, { status: 'planned' })).status.value, 'planned');
  const bad = await app.api('PATCH', `/v4.6/api/vpn/l2vpns/${l2vpn.id}/`, { status: 'sleeping' });
  expectStatus(bad, 400);
  assert.ok('status' in bad.body);
  assert.not.ok('status' in await app.get(`/v3.7/api/vpn/l2vpns/${l2vpn.id}/`));

  const site = await app.post('/api/dcim/sites/', { name: 'Fields Site', slug: 'fields-site' });
  const rack = await app.post('/v4.6/api/dcim/racks/', { name: 'R1', site: site.id, outer_height: 2000, airflow: 'front-to-rear' });
  assert.equal([rack.outer_height, rack.airflow.value], [2000, 'front-to-rear']);
  expectStatus(await app.api('PATCH', `/v4.6/api/dcim/racks/${rack.id}/`, { airflow: 'left-to-right' }), 400);
  const user = (await app.get('/api/users/users/?username=admin')).results[0] ?? (await app.get('/api/users/users/')).results[0];
  const reservation = await app.post('/v4.6/api/dcim/rack-reservations/', { rack: rack.id, units: [1, 2], user: user.id, description: 'r', status: 'pending' });
  assert.is(reservation.status.value, 'pending');
  assert.equal(Object.keys(await app.get(`/v4.6/api/dcim/rack-reservations/${reservation.id}/?brief=1`)), ['id', 'url', 'display', 'status', 'user', 'description', 'units']);

  const location = await app.post('/v4.6/api/dcim/locations/', { name: 'Hall', slug: 'hall', site: site.id, facility: 'H-1' });
  assert.is(location.facility, 'H-1');
  const provider = await app.post('/api/circuits/providers/', { name: 'Carrier', slug: 'carrier' });
  const ctype = await app.post('/api/circuits/circuit-types/', { name: 'Dark fiber', slug: 'dark-fiber' });
  const circuit = await app.post('/v4.6/api/circuits/circuits/', { cid: 'C-1', provider: provider.id, type: ctype.id, distance: '12.50', distance_unit: 'km' });
  assert.equal([Number(circuit.distance), circuit.distance_unit.value], [12.5, 'km']);
  assert.equal(Object.keys(await app.get(`/v4.6/api/circuits/circuits/${circuit.id}/?brief=1`)), ['id', 'url', 'display', 'provider', 'cid', 'description']);
  assert.equal(Object.keys(await app.get(`/v3.7/api/circuits/circuits/${circuit.id}/?brief=1`)), ['id', 'url', 'display', 'cid'], '3.7 brief as before');

  const cluster = await app.post('/api/virtualization/clusters/', { name: 'C', type: (await app.post('/api/virtualization/cluster-types/', { name: 'T', slug: 't' })).id });
  const vm = await app.post('/v4.6/api/virtualization/virtual-machines/', { name: 'vm1', cluster: cluster.id });
  assert.is(vm.start_on_boot.value, 'off');
  assert.is((await app.patch(`/v4.6/api/virtualization/virtual-machines/${vm.id}/`, { start_on_boot: 'laststate' })).start_on_boot.value, 'laststate');
});

test('a tag weight orders tags; an ASN role counts on its role; prefix and module counts', async ({ app }) => {
  const heavy = await app.post('/v4.6/api/extras/tags/', { name: 'AAA heavy', slug: 'aaa-heavy', weight: 2000 });
  const light = await app.post('/v4.6/api/extras/tags/', { name: 'ZZZ light', slug: 'zzz-light', weight: 10 });
  assert.is(heavy.weight, 2000);
  const order = (await app.get(`/v4.6/api/extras/tags/?id=${heavy.id}&id=${light.id}`)).results.map((t: any) => t.slug);
  assert.equal(order, ['zzz-light', 'aaa-heavy'], 'lighter first');
  expectStatus(await app.api('PATCH', `/v4.6/api/extras/tags/${light.id}/`, { weight: -1 }), 400);

  const role = await app.post('/api/ipam/roles/', { name: 'Peering', slug: 'peering' });
  const rir = await app.post('/api/ipam/rirs/', { name: 'RIR', slug: 'rir' });
  const asn = await app.post('/v4.6/api/ipam/asns/', { asn: 65001, rir: rir.id, role: role.id });
  assert.is(asn.role.id, role.id);
  assert.is((await app.get(`/v4.6/api/ipam/roles/${role.id}/`)).asn_count, 1);
  assert.not.ok('asn_count' in await app.get(`/v3.7/api/ipam/roles/${role.id}/`), '3.7 has no asn_count');
  assert.equal((await app.get(`/v4.6/api/ipam/asns/?role_id=${role.id}`)).results.map((a: any) => a.id), [asn.id]);

  const region = await app.post('/api/dcim/regions/', { name: 'Counted', slug: 'counted' });
  const site = await app.post('/api/dcim/sites/', { name: 'Counted Site', slug: 'counted-site', region: region.id });
  await app.post('/v4.6/api/ipam/prefixes/', { prefix: '10.77.0.0/24', scope_type: 'dcim.site', scope_id: site.id });
  await app.post('/v4.6/api/ipam/prefixes/', { prefix: '10.77.1.0/24', scope_type: 'dcim.region', scope_id: region.id });
  assert.is((await app.get(`/v4.6/api/dcim/regions/${region.id}/`)).prefix_count, 2);
  assert.not.ok('prefix_count' in await app.get(`/v3.7/api/dcim/regions/${region.id}/`));

  const tenant = await app.post('/api/tenancy/tenants/', { name: 'VG Tenant', slug: 'vg-tenant' });
  const group = await app.post('/v4.6/api/ipam/vlan-groups/', { name: 'VG', slug: 'vg', tenant: tenant.id });
  assert.is(group.tenant.id, tenant.id);
});

test.run();
