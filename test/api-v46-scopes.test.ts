/**
 * NetBox 4.x's generic relations that replace fixed foreign keys, one stored model read and written
 * by both versions: prefixes' and clusters' `scope` (3.7's `site`), circuit terminations'
 * `termination` (3.7's `site` and `provider_network`), services' `parent` (3.7's `device` and
 * `virtual_machine`). Each change both ways (written in 3.7, read in 4.6, and back), the filters
 * through the scope's cached site, region, site group and location, and the validation errors.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';
import { relationsForStoredCaches } from '../runtime/hooks/cached_scope.js';

interface Places { region: any; child: any; group: any; site: any; site2: any; location: any; other: any }
const test = suite<{ app: TestApp; p: Places }>('api-v46-scopes');

test.before(async (ctx) => {
  ctx.app = await startApp({ RUN_WORKER: '0', STRICT_FILTERS: '1' });
  const { app } = ctx;
  const region = await app.post('/api/dcim/regions/', { name: 'Scope Region', slug: 'scope-region' });
  const child = await app.post('/api/dcim/regions/', { name: 'Scope Child', slug: 'scope-child', parent: region.id });
  const group = await app.post('/api/dcim/site-groups/', { name: 'Scope Group', slug: 'scope-group' });
  const site = await app.post('/api/dcim/sites/', { name: 'Scope Site', slug: 'scope-site', region: child.id, group: group.id });
  const site2 = await app.post('/api/dcim/sites/', { name: 'Scope Site 2', slug: 'scope-site-2' });
  const location = await app.post('/api/dcim/locations/', { name: 'Scope Room', slug: 'scope-room', site: site.id });
  const other = await app.post('/api/dcim/locations/', { name: 'Other Room', slug: 'other-room', site: site2.id });
  ctx.p = { region, child, group, site, site2, location, other };
});

test.after(async ({ app }) => { await app.stop(); });

const ids = (page: any) => page.results.map((r: any) => r.id).sort((a: number, b: number) => a - b);

for (const [label, list, base] of [['prefixes', '/ipam/prefixes/', { prefix: '10.99.0.0/24' }], ['clusters', '/virtualization/clusters/', null]] as const) {
  test(`${label}: 3.7 site <-> 4.6 scope, both ways; filters through the scope`, async ({ app, p }) => {
    let n = 0;
    const body = async (extra: Record<string, unknown>) => {
      n++;
      if (base) return { prefix: `10.99.${n}.0/24`, ...extra };
      const type = await app.post('/api/virtualization/cluster-types/', { name: `Scope CT ${n}`, slug: `scope-ct-${n}` });
      return { name: `scope-cluster-${n}`, type: type.id, ...extra };
    };
    // written in 3.7 with a site: 4.6 reads the site as the scope
    const bySite = await app.post(`/v3.7/api${list}`, await body({ site: p.site.id }));
    assert.is(bySite.site.id, p.site.id);
    assert.not.ok('scope_type' in bySite, '3.7 has no scope');
    const read46 = await app.get(`/v4.6/api${list}${bySite.id}/`);
    assert.is(read46.scope_type, 'dcim.site');
    assert.is(read46.scope_id, p.site.id);
    assert.is(read46.scope.id, p.site.id);
    assert.is(read46.scope.url, `${app.url}/v4.6/api/dcim/sites/${p.site.id}/`);
    assert.is(read46.scope.slug, 'scope-site');
    assert.not.ok('site' in read46, '4.6 has no site');
    // written in 4.6 with a location: 3.7 reads the location's site
    const byLocation = await app.post(`/v4.6/api${list}`, await body({ scope_type: 'dcim.location', scope_id: p.location.id }));
    assert.is(byLocation.scope_type, 'dcim.location');
    assert.is(byLocation.scope.id, p.location.id);
    assert.is((await app.get(`/v3.7/api${list}${byLocation.id}/`)).site.id, p.site.id);
    const byRegion = await app.post(`/v4.6/api${list}`, await body({ scope_type: 'dcim.region', scope_id: p.child.id }));
    assert.is((await app.get(`/v3.7/api${list}${byRegion.id}/`)).site, null, 'a region scope has no site');
    const byGroup = await app.post(`/v4.6/api${list}`, await body({ scope_type: 'dcim.sitegroup', scope_id: p.group.id }));
    const none = await app.post(`/v4.6/api${list}`, await body({}));
    assert.is(none.scope_type, null);
    assert.is(none.scope, null);
    const mine = [bySite.id, byLocation.id, byRegion.id, byGroup.id, none.id];
    const only = `&id=${mine.join('&id=')}`;
    // filters through the scope, in both versions (a location's prefix matches its site's and region's filters)
    for (const v of ['v3.7', 'v4.6']) {
      const get = async (q: string) => ids(await app.get(`/${v}/api${list}?${q}${only}`));
      assert.equal(await get(`site_id=${p.site.id}`), [bySite.id, byLocation.id], `${v} site_id`);
      assert.equal(await get('site=scope-site'), [bySite.id, byLocation.id], `${v} site`);
      assert.equal(await get(`region_id=${p.region.id}`), [bySite.id, byLocation.id, byRegion.id], `${v} region_id: descendants, the scope's region included`);
      assert.equal(await get('region=scope-child'), [bySite.id, byLocation.id, byRegion.id], `${v} region`);
      assert.equal(await get(`site_group_id=${p.group.id}`), [bySite.id, byLocation.id, byGroup.id], `${v} site_group_id`);
      assert.equal(await get('site_group=scope-group'), [bySite.id, byLocation.id, byGroup.id], `${v} site_group`);
      assert.equal(await get('site_id__n=' + p.site.id), [byRegion.id, byGroup.id, none.id], `${v} site_id__n`);
    }
    const get46 = async (q: string) => ids(await app.get(`/v4.6/api${list}?${q}${only}`));
    assert.equal(await get46(`location_id=${p.location.id}`), [byLocation.id]);
    assert.equal(await get46('location=scope-room'), [byLocation.id]);
    assert.equal(await get46('scope_type=dcim.region'), [byRegion.id]);
    assert.equal(await get46(`scope_type=dcim.site&scope_id=${p.site.id}`), [bySite.id]);
    expectStatus(await app.api('GET', `/v3.7/api${list}?location_id=${p.location.id}`), 400, 'location_id is a 4.6 filter');
    expectStatus(await app.api('GET', `/v3.7/api${list}?scope_type=dcim.site`), 400, 'scope_type is a 4.6 filter');

    // 3.7 writing the site of a location's object keeps the location; another site replaces the scope
    assert.is((await app.patch(`/v3.7/api${list}${byLocation.id}/`, { site: p.site.id })).site.id, p.site.id);
    assert.is((await app.get(`/v4.6/api${list}${byLocation.id}/`)).scope_type, 'dcim.location', 'the location lies in the site written');
    await app.patch(`/v3.7/api${list}${byLocation.id}/`, { site: p.site2.id });
    const moved = await app.get(`/v4.6/api${list}${byLocation.id}/`);
    assert.equal([moved.scope_type, moved.scope_id], ['dcim.site', p.site2.id]);
    assert.equal(await get46(`location_id=${p.location.id}`), [], 'the cached location went with the scope');
    // 4.6 PATCH (as the terraform provider 5.x sends it) moves it back into a location; 3.7 reads its site
    const patched = await app.patch(`/v4.6/api${list}${byLocation.id}/`, { scope_type: 'dcim.location', scope_id: p.other.id });
    assert.equal([patched.scope_type, patched.scope_id, patched.scope.id], ['dcim.location', p.other.id, p.other.id]);
    assert.is((await app.get(`/v3.7/api${list}${byLocation.id}/`)).site.id, p.site2.id);
    // 3.7 clearing the site clears the scope; a region the 3.7 site never showed stays
    await app.patch(`/v3.7/api${list}${byLocation.id}/`, { site: null });
    assert.is((await app.get(`/v4.6/api${list}${byLocation.id}/`)).scope_type, null);
    await app.patch(`/v3.7/api${list}${byRegion.id}/`, { site: null, description: 'kept' });
    assert.is((await app.get(`/v4.6/api${list}${byRegion.id}/`)).scope_type, 'dcim.region');
    // 4.6 clears the scope with both halves null
    const cleared = await app.patch(`/v4.6/api${list}${bySite.id}/`, { scope_type: null, scope_id: null });
    assert.equal([cleared.scope_type, cleared.scope_id, cleared.scope], [null, null, null]);
    assert.is((await app.get(`/v3.7/api${list}${bySite.id}/`)).site, null);
    // a key of the other version is ignored
    const ignored46 = await app.patch(`/v4.6/api${list}${bySite.id}/`, { site: p.site.id });
    assert.is(ignored46.scope_type, null, '4.6 ignores site');
    const ignored37 = await app.patch(`/v3.7/api${list}${bySite.id}/`, { scope_type: 'dcim.site', scope_id: p.site.id });
    assert.is(ignored37.site, null, '3.7 ignores scope_type');
  });

  test(`${label}: 4.6 validation of the scope names the field`, async ({ app, p }) => {
    const make = async (extra: Record<string, unknown>) => {
      if (base) return { ...base, ...extra };
      const type = await app.post('/api/virtualization/cluster-types/', { name: `Bad CT ${Math.random()}`, slug: `bad-ct-${Date.now()}${Math.floor(Math.random() * 1e6)}` });
      return { name: 'bad-cluster', type: type.id, ...extra };
    };
    const cases: [Record<string, unknown>, string][] = [
      [{ scope_type: 'dcim.site' }, 'scope_id'],
      [{ scope_id: p.site.id }, 'scope_type'],
      [{ scope_type: 'dcim.rack', scope_id: 1 }, 'scope_type'],
      [{ scope_type: 'dcim.site', scope_id: 999999 }, 'scope_id'],
      [{ scope_type: 'dcim.site', scope_id: 'x' }, 'scope_id'],
    ];
    for (const [extra, field] of cases) {
      const reply = await app.api('POST', `/v4.6/api${list}`, await make(extra));
      expectStatus(reply, 400, JSON.stringify(extra));
      assert.ok(field in reply.body, `${JSON.stringify(extra)} names ${field}: ${JSON.stringify(reply.body)}`);
    }
    const bad37 = await app.api('POST', `/v3.7/api${list}`, await make({ site: 999999 }));
    expectStatus(bad37, 400);
    assert.ok('site' in bad37.body, '3.7 names site');
  });
}

test('prefixes: the scope of rows stored before it (a site and no scope) is filled in, with its caches', async ({ app, p }) => {
  const made = await app.post('/v3.7/api/ipam/prefixes/', { prefix: '10.98.0.0/24', site: p.site.id });
  const db = app.running.db;
  await db('ipam_prefix').where('id', made.id).update({ scope_type: null, scope_id: null, _region_id: null, _site_group_id: null });
  assert.is((await app.get(`/v4.6/api/ipam/prefixes/${made.id}/`)).scope_type, null);
  await relationsForStoredCaches(db);
  const read = await app.get(`/v4.6/api/ipam/prefixes/${made.id}/`);
  assert.equal([read.scope_type, read.scope_id], ['dcim.site', p.site.id]);
  assert.equal(ids(await app.get(`/v4.6/api/ipam/prefixes/?region_id=${p.region.id}&id=${made.id}`)), [made.id]);
});

test('a site that changes region, a location that changes site: the objects scoped below them follow', async ({ app, p }) => {
  const region = await app.post('/api/dcim/regions/', { name: 'Moved Region', slug: 'moved-region' });
  const site = await app.post('/api/dcim/sites/', { name: 'Moving Site', slug: 'moving-site' });
  const room = await app.post('/api/dcim/locations/', { name: 'Moving Room', slug: 'moving-room', site: site.id });
  const inSite = await app.post('/v3.7/api/ipam/prefixes/', { prefix: '10.97.1.0/24', site: site.id });
  const inRoom = await app.post('/v4.6/api/ipam/prefixes/', { prefix: '10.97.2.0/24', scope_type: 'dcim.location', scope_id: room.id });
  const only = `&id=${inSite.id}&id=${inRoom.id}`;
  assert.equal(ids(await app.get(`/v3.7/api/ipam/prefixes/?region_id=${region.id}${only}`)), []);
  await app.patch(`/api/dcim/sites/${site.id}/`, { region: region.id, group: p.group.id });
  for (const v of ['v3.7', 'v4.6']) {
    assert.equal(ids(await app.get(`/${v}/api/ipam/prefixes/?region_id=${region.id}${only}`)), [inSite.id, inRoom.id], v);
    assert.equal(ids(await app.get(`/${v}/api/ipam/prefixes/?site_group_id=${p.group.id}${only}`)), [inSite.id, inRoom.id], v);
  }
  await app.patch(`/api/dcim/locations/${room.id}/`, { site: p.site2.id });
  assert.is((await app.get(`/v3.7/api/ipam/prefixes/${inRoom.id}/`)).site.id, p.site2.id, 'the location\'s new site');
  assert.equal(ids(await app.get(`/v4.6/api/ipam/prefixes/?region_id=${region.id}${only}`)), [inSite.id]);
});

test('deleting a scope: a region or site group clears it; a site or location in use is protected, as 3.7 protects a site', async ({ app, p }) => {
  const group = await app.post('/api/dcim/site-groups/', { name: 'Gone Group', slug: 'gone-group' });
  const room = await app.post('/api/dcim/locations/', { name: 'Kept Room', slug: 'kept-room', site: p.site2.id });
  const byGroup = await app.post('/v4.6/api/ipam/prefixes/', { prefix: '10.96.1.0/24', scope_type: 'dcim.sitegroup', scope_id: group.id });
  const byRoom = await app.post('/v4.6/api/virtualization/clusters/', { name: 'kept-room-cluster', type: (await app.post('/api/virtualization/cluster-types/', { name: 'Kept CT', slug: 'kept-ct' })).id, scope_type: 'dcim.location', scope_id: room.id });
  expectStatus(await app.api('DELETE', `/api/dcim/site-groups/${group.id}/`), 204);
  const cleared = await app.get(`/v4.6/api/ipam/prefixes/${byGroup.id}/`);
  assert.equal([cleared.scope_type, cleared.scope_id], [null, null]);
  assert.equal(ids(await app.get(`/v4.6/api/ipam/prefixes/?site_group_id=${p.group.id}&id=${byGroup.id}`)), []);
  expectStatus(await app.api('DELETE', `/api/dcim/locations/${room.id}/`), 409);
  expectStatus(await app.api('DELETE', `/api/dcim/sites/${p.site2.id}/`), 409);
  assert.is((await app.get(`/v4.6/api/virtualization/clusters/${byRoom.id}/`)).scope_id, room.id);
});

test('clusters: host devices must lie in the scope\'s site or location (3.7 names site, 4.6 scope)', async ({ app, p }) => {
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'Host Maker', slug: 'host-maker' });
  const dtype = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Host Box', slug: 'host-box' });
  const role = await app.post('/api/dcim/device-roles/', { name: 'Host Role', slug: 'host-role' });
  const ctype = await app.post('/api/virtualization/cluster-types/', { name: 'Host CT', slug: 'host-ct' });
  const cluster = await app.post('/v3.7/api/virtualization/clusters/', { name: 'host-cluster', type: ctype.id, site: p.site.id });
  await app.post('/api/dcim/devices/', { name: 'host-1', site: p.site.id, device_type: dtype.id, role: role.id, cluster: cluster.id });
  const path = `/virtualization/clusters/${cluster.id}/`;
  const moved37 = await app.api('PATCH', `/v3.7/api${path}`, { site: p.site2.id });
  expectStatus(moved37, 400);
  assert.match(moved37.body.site[0], /1 devices .* not in site Scope Site 2/);
  const moved46 = await app.api('PATCH', `/v4.6/api${path}`, { scope_type: 'dcim.location', scope_id: p.location.id });
  expectStatus(moved46, 400);
  assert.match(moved46.body.scope[0], /1 devices .* not in location Scope Room/);
  assert.is((await app.patch(`/v4.6/api${path}`, { scope_type: 'dcim.region', scope_id: p.region.id })).scope_type, 'dcim.region');
});

test('circuit terminations: 3.7 site and provider network <-> 4.6 termination', async ({ app, p }) => {
  const provider = await app.post('/api/circuits/providers/', { name: 'Scope Provider', slug: 'scope-provider' });
  const type = await app.post('/api/circuits/circuit-types/', { name: 'Scope Type', slug: 'scope-type' });
  const network = await app.post('/api/circuits/provider-networks/', { name: 'Scope Net', provider: provider.id });
  const circuit = (cid: string) => app.post('/api/circuits/circuits/', { cid, provider: provider.id, type: type.id });
  const [c1, c2, c3] = [await circuit('scope-c1'), await circuit('scope-c2'), await circuit('scope-c3')];
  const list = '/api/circuits/circuit-terminations/';
  const a = await app.post(`/v3.7${list}`, { circuit: c1.id, term_side: 'A', site: p.site.id });
  const z = await app.post(`/v3.7${list}`, { circuit: c1.id, term_side: 'Z', provider_network: network.id });
  const a46 = await app.get(`/v4.6${list}${a.id}/`);
  assert.equal([a46.termination_type, a46.termination_id, a46.termination.id], ['dcim.site', p.site.id, p.site.id]);
  assert.not.ok('site' in a46 || 'provider_network' in a46, '4.6 has neither');
  const z46 = await app.get(`/v4.6${list}${z.id}/`);
  assert.equal([z46.termination_type, z46.termination.id], ['circuits.providernetwork', network.id]);
  assert.is(z46.termination.url, `${app.url}/v4.6/api/circuits/provider-networks/${network.id}/`);
  // written in 4.6: 3.7 reads the cached site and provider network
  const loc = await app.post(`/v4.6${list}`, { circuit: c2.id, term_side: 'A', termination_type: 'dcim.location', termination_id: p.location.id });
  const loc37 = await app.get(`/v3.7${list}${loc.id}/`);
  assert.equal([loc37.site.id, loc37.provider_network], [p.site.id, null]);
  const reg = await app.post(`/v4.6${list}`, { circuit: c2.id, term_side: 'Z', termination_type: 'dcim.region', termination_id: p.region.id });
  assert.equal([(await app.get(`/v3.7${list}${reg.id}/`)).site, (await app.get(`/v3.7${list}${reg.id}/`)).provider_network], [null, null]);
  const net = await app.post(`/v4.6${list}`, { circuit: c3.id, term_side: 'A', termination_type: 'circuits.providernetwork', termination_id: network.id });
  assert.is((await app.get(`/v3.7${list}${net.id}/`)).provider_network.id, network.id);
  const only = `&id=${[a.id, z.id, loc.id, reg.id, net.id].join('&id=')}`;
  const get = async (v: string, q: string) => ids(await app.get(`/${v}${list}?${q}${only}`));
  for (const v of ['v3.7', 'v4.6']) {
    assert.equal(await get(v, `site_id=${p.site.id}`), [a.id, loc.id], v);
    assert.equal(await get(v, 'site=scope-site'), [a.id, loc.id], v);
    assert.equal(await get(v, `provider_network_id=${network.id}`), [z.id, net.id], v);
  }
  assert.equal(await get('v4.6', `region_id=${p.region.id}`), [a.id, loc.id, reg.id]);
  assert.equal(await get('v4.6', `site_group_id=${p.group.id}`), [a.id, loc.id]);
  assert.equal(await get('v4.6', `location_id=${p.location.id}`), [loc.id]);
  assert.equal(await get('v4.6', 'termination_type=circuits.providernetwork'), [z.id, net.id]);
  // 3.7 moves a termination from a provider network to a site; 4.6 reads it
  await app.patch(`/v3.7${list}${net.id}/`, { provider_network: null, site: p.site2.id });
  const back = await app.get(`/v4.6${list}${net.id}/`);
  assert.equal([back.termination_type, back.termination_id], ['dcim.site', p.site2.id]);
  // validation: 4.6 names its fields; a termination is required in both versions
  const missing = await app.api('POST', `/v4.6${list}`, { circuit: c3.id, term_side: 'Z', termination_type: 'dcim.site' });
  expectStatus(missing, 400);
  assert.ok('termination_id' in missing.body, JSON.stringify(missing.body));
  const cleared = await app.api('PATCH', `/v4.6${list}${net.id}/`, { termination_type: null, termination_id: null });
  expectStatus(cleared, 400);
  assert.ok('__all__' in cleared.body, JSON.stringify(cleared.body));
  const wrong = await app.api('POST', `/v4.6${list}`, { circuit: c3.id, term_side: 'Z', termination_type: 'dcim.rack', termination_id: 1 });
  expectStatus(wrong, 400);
  assert.ok('termination_type' in wrong.body);
  expectStatus(await app.api('GET', `/v3.7${list}?location_id=${p.location.id}`), 400, 'location_id is a 4.6 filter');
});

test('services: 3.7 device and virtual machine <-> 4.6 parent (device, virtual machine, FHRP group)', async ({ app, p }) => {
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'Svc Maker', slug: 'svc-maker' });
  const dtype = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Svc Box', slug: 'svc-box' });
  const role = await app.post('/api/dcim/device-roles/', { name: 'Svc Role', slug: 'svc-role' });
  const device = await app.post('/api/dcim/devices/', { name: 'svc-dev', site: p.site.id, device_type: dtype.id, role: role.id });
  const ctype = await app.post('/api/virtualization/cluster-types/', { name: 'Svc CT', slug: 'svc-ct' });
  const cluster = await app.post('/api/virtualization/clusters/', { name: 'Svc Cluster', type: ctype.id });
  const vm = await app.post('/api/virtualization/virtual-machines/', { name: 'svc-vm', cluster: cluster.id });
  const fhrp = await app.post('/api/ipam/fhrp-groups/', { protocol: 'vrrp2', group_id: 7, name: 'svc-fhrp' });
  const list = '/api/ipam/services/';
  const onDevice = await app.post(`/v3.7${list}`, { device: device.id, name: 'ssh', protocol: 'tcp', ports: [22] });
  const d46 = await app.get(`/v4.6${list}${onDevice.id}/`);
  assert.equal([d46.parent_object_type, d46.parent_object_id, d46.parent.id, d46.parent.name], ['dcim.device', device.id, device.id, 'svc-dev']);
  assert.not.ok('device' in d46 || 'virtual_machine' in d46, '4.6 has neither');
  const onVm = await app.post(`/v4.6${list}`, { parent_object_type: 'virtualization.virtualmachine', parent_object_id: vm.id, name: 'http', protocol: 'tcp', ports: [80] });
  assert.is(onVm.parent.url, `${app.url}/v4.6/api/virtualization/virtual-machines/${vm.id}/`);
  const vm37 = await app.get(`/v3.7${list}${onVm.id}/`);
  assert.equal([vm37.device, vm37.virtual_machine.id], [null, vm.id]);
  const onFhrp = await app.post(`/v4.6${list}`, { parent_object_type: 'ipam.fhrpgroup', parent_object_id: fhrp.id, name: 'vip', protocol: 'udp', ports: [53] });
  const f37 = await app.get(`/v3.7${list}${onFhrp.id}/`);
  assert.equal([f37.device, f37.virtual_machine], [null, null]);
  const only = `&id=${[onDevice.id, onVm.id, onFhrp.id].join('&id=')}`;
  const get = async (v: string, q: string) => ids(await app.get(`/${v}${list}?${q}${only}`));
  for (const v of ['v3.7', 'v4.6']) {
    assert.equal(await get(v, `device_id=${device.id}`), [onDevice.id], v);
    assert.equal(await get(v, 'device=svc-dev'), [onDevice.id], v);
    assert.equal(await get(v, `virtual_machine_id=${vm.id}`), [onVm.id], v);
    assert.equal(await get(v, 'virtual_machine=svc-vm'), [onVm.id], v);
  }
  assert.equal(await get('v4.6', `fhrpgroup_id=${fhrp.id}`), [onFhrp.id]);
  assert.equal(await get('v4.6', 'parent_object_type=ipam.fhrpgroup'), [onFhrp.id]);
  assert.equal(await get('v4.6', `parent_object_type=dcim.device&parent_object_id=${device.id}`), [onDevice.id]);
  expectStatus(await app.api('GET', `/v3.7${list}?fhrpgroup_id=${fhrp.id}`), 400, 'fhrpgroup_id is a 4.6 filter');
  // 3.7 moves the device's service to the VM; 4.6 reads it
  await app.patch(`/v3.7${list}${onDevice.id}/`, { device: null, virtual_machine: vm.id });
  const movedSvc = await app.get(`/v4.6${list}${onDevice.id}/`);
  assert.equal([movedSvc.parent_object_type, movedSvc.parent_object_id], ['virtualization.virtualmachine', vm.id]);
  await app.patch(`/v4.6${list}${onDevice.id}/`, { parent_object_type: 'dcim.device', parent_object_id: device.id });
  assert.equal([(await app.get(`/v3.7${list}${onDevice.id}/`)).device.id, (await app.get(`/v3.7${list}${onDevice.id}/`)).virtual_machine], [device.id, null]);
  // validation
  const missing = await app.api('POST', `/v4.6${list}`, { parent_object_type: 'dcim.device', name: 'x', protocol: 'tcp', ports: [1] });
  expectStatus(missing, 400);
  assert.ok('parent_object_id' in missing.body, JSON.stringify(missing.body));
  const wrong = await app.api('POST', `/v4.6${list}`, { parent_object_type: 'dcim.site', parent_object_id: p.site.id, name: 'x', protocol: 'tcp', ports: [1] });
  expectStatus(wrong, 400);
  assert.ok('parent_object_type' in wrong.body);
  const none = await app.api('POST', `/v4.6${list}`, { name: 'x', protocol: 'tcp', ports: [1] });
  expectStatus(none, 400);
  assert.equal(none.body, { parent_object_type: ['This field is required.'], parent_object_id: ['This field is required.'] }, 'required in 4.6, as NetBox 4.3');
  const none37 = await app.api('POST', `/v3.7${list}`, { name: 'x', protocol: 'tcp', ports: [1] });
  expectStatus(none37, 400);
  assert.equal(Object.keys(none37.body), ['__all__'], '3.7 names no field');
  // an FHRP group's services go with it
  expectStatus(await app.api('DELETE', `/api/ipam/fhrp-groups/${fhrp.id}/`), 204);
  expectStatus(await app.api('GET', `/v4.6${list}${onFhrp.id}/`), 404);
});

test.run();
