/**
 * VLAN filters available_at_site, available_on_device and available_on_virtualmachine, with NetBox's
 * VLANQuerySet semantics: global VLANs, VLANs of the site, VLANs of groups scoped to the site, its
 * region or site group (or their ancestors), the device's location (or an ancestor) and rack, the
 * VM's cluster and cluster group; the VM's site, or else its cluster's.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';
import { createObject } from './factory.js';
import { model } from '../runtime/data/registry.js';

const test = suite('vlan-availability');
let app: TestApp;
let n = 0;
const u = (base: string) => `${base}-${++n}`;

test.before(async () => { app = await startApp({ RUN_WORKER: '0' }); });
test.after(() => app.stop());

async function world() {
  const post = (path: string, body: Record<string, unknown>) => app.post(path, body);
  const named = (base: string) => { const s = u(base); return { name: s, slug: s }; };
  const topRegion = await post('/api/dcim/regions/', named('eu'));
  const region = await post('/api/dcim/regions/', { ...named('fr'), parent: topRegion.id });
  const topGroup = await post('/api/dcim/site-groups/', named('metro'));
  const siteGroup = await post('/api/dcim/site-groups/', { ...named('core'), parent: topGroup.id });
  const site = await post('/api/dcim/sites/', { ...named('par1'), region: region.id, group: siteGroup.id });
  const other = await post('/api/dcim/sites/', named('ber1'));
  const topLocation = await post('/api/dcim/locations/', { ...named('building'), site: site.id });
  const location = await post('/api/dcim/locations/', { ...named('floor'), site: site.id, parent: topLocation.id });
  const rack = await post('/api/dcim/racks/', { name: u('r1'), site: site.id, location: location.id });
  const deviceType = await createObject(app, model('DeviceType'));
  const role = await createObject(app, model('DeviceRole'));
  const device = await post('/api/dcim/devices/', { name: u('sw'), device_type: deviceType.id, role: role.id, site: site.id, location: location.id, rack: rack.id });
  const clusterType = await post('/api/virtualization/cluster-types/', named('kvm'));
  const clusterGroup = await post('/api/virtualization/cluster-groups/', named('prod'));
  const cluster = await post('/api/virtualization/clusters/', { name: u('c1'), type: clusterType.id, group: clusterGroup.id, site: site.id });
  const vm = await post('/api/virtualization/virtual-machines/', { name: u('vm'), cluster: cluster.id });
  const siteless = await post('/api/virtualization/clusters/', { name: u('c2'), type: clusterType.id });
  const lonelyVm = await post('/api/virtualization/virtual-machines/', { name: u('vm'), cluster: siteless.id });

  const vlanIn = async (label: string, scope?: [string, number]) => {
    const group = await post('/api/ipam/vlan-groups/', { ...named(label), ...(scope ? { scope_type: scope[0], scope_id: scope[1] } : {}) });
    return post('/api/ipam/vlans/', { vid: 10 + n, name: u(label), group: group.id });
  };
  const v = {
    global: await post('/api/ipam/vlans/', { vid: 100, name: u('global') }),
    unscopedGroup: await vlanIn('unscoped'),
    ofSite: await post('/api/ipam/vlans/', { vid: 101, name: u('site'), site: site.id }),
    ofOther: await post('/api/ipam/vlans/', { vid: 102, name: u('other'), site: other.id }),
    siteGroup: await vlanIn('g-site', ['dcim.site', site.id]),
    otherSiteGroup: await vlanIn('g-other', ['dcim.site', other.id]),
    region: await vlanIn('g-region', ['dcim.region', region.id]),
    topRegion: await vlanIn('g-top-region', ['dcim.region', topRegion.id]),
    siteGroupScope: await vlanIn('g-sitegroup', ['dcim.sitegroup', topGroup.id]),
    location: await vlanIn('g-location', ['dcim.location', topLocation.id]),
    rack: await vlanIn('g-rack', ['dcim.rack', rack.id]),
    cluster: await vlanIn('g-cluster', ['virtualization.cluster', cluster.id]),
    clusterGroup: await vlanIn('g-clustergroup', ['virtualization.clustergroup', clusterGroup.id]),
  };
  return { site, other, device, vm, lonelyVm, v };
}

let w: Awaited<ReturnType<typeof world>>;
const names = async (query: string) => {
  const mine = new Map(Object.entries(w.v).map(([k, vlan]) => [vlan.id, k]));
  const page = await app.get(`/api/ipam/vlans/?${query}&limit=0`);
  return page.results.map((x: any) => mine.get(x.id)).filter(Boolean).sort();
};

test('available_at_site: global VLANs, the site\'s, and groups scoped to the site, its region or site group and their ancestors', async () => {
  w = await world();
  assert.equal(await names(`available_at_site=${w.site.id}`), ['global', 'ofSite', 'region', 'siteGroup', 'siteGroupScope', 'topRegion', 'unscopedGroup']);
  assert.equal(await names(`available_at_site=${w.other.id}`), ['global', 'ofOther', 'otherSiteGroup', 'unscopedGroup']);
});

test('available_on_device adds the device\'s location (and its ancestors) and rack', async () => {
  assert.equal(await names(`available_on_device=${w.device.id}`), ['global', 'location', 'ofSite', 'rack', 'region', 'siteGroup', 'siteGroupScope', 'topRegion', 'unscopedGroup']);
});

test('available_on_virtualmachine: the cluster, its group and the cluster\'s site when the VM has none', async () => {
  assert.equal(await names(`available_on_virtualmachine=${w.vm.id}`), ['cluster', 'clusterGroup', 'global', 'ofSite', 'region', 'siteGroup', 'siteGroupScope', 'topRegion', 'unscopedGroup']);
  assert.equal(await names(`available_on_virtualmachine=${w.lonelyVm.id}`), ['global', 'unscopedGroup']);
});

test('the available_* filters take one object id; anything else is a 400 naming the filter', async () => {
  const bad = await app.api('GET', '/api/ipam/vlans/?available_on_device=abc');
  expectStatus(bad, 400);
  assert.ok(bad.body.available_on_device, JSON.stringify(bad.body));
  assert.equal(await names('available_at_site=999999'), []);
});

test.run();
