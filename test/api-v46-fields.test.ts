/**
 * What NetBox 4.x changed in fields the 3.7 API also shows, stored once in 4.6's model and shown to
 * 3.7 in its own shape: virtual disks' and virtual machines' sizes in MB (3.7: GB, through the
 * `mb_to_gb` conversion, filters included); VLAN groups' VID ranges (3.7: min_vid and max_vid);
 * contacts' groups (3.7: one group); interfaces' mac_address (read-only in 4.6). Each change in
 * both directions: written through one version, read through the other. Also 4.6's filters of custom
 * fields and tokens, and write answers' field selection.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectFieldError, expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite<{ app: TestApp; cluster: any }>('api-v46-fields');

test.before(async (ctx) => {
  ctx.app = await startApp();
  const ctype = await ctx.app.post('/api/virtualization/cluster-types/', { name: 'CT F', slug: 'ct-f' });
  ctx.cluster = await ctx.app.post('/api/virtualization/clusters/', { name: 'Cluster F', type: ctype.id });
});

test.after(async ({ app }) => { await app.stop(); });

const ids = (list: { results: { id: number }[] }) => list.results.map((r) => r.id).sort((a, b) => a - b);

test('disk sizes: stored in MB; 4.6 reads and writes MB, 3.7 GB (rounded to the nearest GB), VM disk summed in either', async ({ app, cluster }) => {
  const vm = await app.post('/api/virtualization/virtual-machines/', { name: 'size-vm', cluster: cluster.id, disk: 40 });
  assert.is(vm.disk, 40, '3.7 writes and reads GB');
  assert.is((await app.get(`/v4.6/api/virtualization/virtual-machines/${vm.id}/`)).disk, 40000, '4.6 reads MB');
  const stored = await app.running.db('virtualization_virtualmachine').where('id', vm.id).first('disk');
  assert.is(Number(stored.disk), 40000, 'one stored value, in MB');
  // a 3.7 disk written in GB
  const d37 = await app.post('/api/virtualization/virtual-disks/', { virtual_machine: vm.id, name: 'root', size: 20 });
  assert.is(d37.size, 20);
  assert.is((await app.get(`/v4.6/api/virtualization/virtual-disks/${d37.id}/`)).size, 20000);
  // a 4.6 disk written in MB, not a whole number of GB
  const d46 = await app.post('/v4.6/api/virtualization/virtual-disks/', { virtual_machine: vm.id, name: 'data', size: 1500 });
  assert.is(d46.size, 1500);
  assert.is((await app.get(`/api/virtualization/virtual-disks/${d46.id}/`)).size, 2, '1,500 MB reads as 2 GB (halves up)');
  await app.patch(`/v4.6/api/virtualization/virtual-disks/${d46.id}/`, { size: 1499 });
  assert.is((await app.get(`/api/virtualization/virtual-disks/${d46.id}/`)).size, 1, '1,499 MB reads as 1 GB');
  // the VM's disk is the sum of its disks, in each version's unit
  assert.is((await app.get(`/v4.6/api/virtualization/virtual-machines/${vm.id}/`)).disk, 21499);
  assert.is((await app.get(`/api/virtualization/virtual-machines/${vm.id}/`)).disk, 21);
  // 3.7 may write the sum it reads; another value is refused in its unit
  expectStatus(await app.api('PATCH', `/api/virtualization/virtual-machines/${vm.id}/`, { disk: 21 }), 200, 'the sum as 3.7 reads it');
  assert.is((await app.get(`/v4.6/api/virtualization/virtual-machines/${vm.id}/`)).disk, 21499, 'the sum stays exact');
  assert.match(await expectFieldError(app, 'PATCH', `/api/virtualization/virtual-machines/${vm.id}/`, { disk: 30 }, 'disk'), /Must equal 21\b/);
  assert.match(await expectFieldError(app, 'PATCH', `/v4.6/api/virtualization/virtual-machines/${vm.id}/`, { disk: 30 }, 'disk'), /Must equal 21499\b/);
  // a 3.7 write reads back as written in 4.6, and back
  await app.patch(`/api/virtualization/virtual-disks/${d37.id}/`, { size: 7 });
  assert.is((await app.get(`/v4.6/api/virtualization/virtual-disks/${d37.id}/`)).size, 7000);
  await app.patch(`/v4.6/api/virtualization/virtual-disks/${d37.id}/`, { size: 9000 });
  assert.is((await app.get(`/api/virtualization/virtual-disks/${d37.id}/`)).size, 9);
  // PUT converts too; the minimum holds in both units
  expectStatus(await app.api('PUT', `/api/virtualization/virtual-disks/${d37.id}/`, { virtual_machine: vm.id, name: 'root', size: 3 }), 200);
  assert.is((await app.get(`/v4.6/api/virtualization/virtual-disks/${d37.id}/`)).size, 3000);
  await expectFieldError(app, 'PATCH', `/api/virtualization/virtual-disks/${d37.id}/`, { size: -1 }, 'size');
  await expectFieldError(app, 'PATCH', `/v4.6/api/virtualization/virtual-disks/${d37.id}/`, { size: -1 }, 'size');
});

test('disk size filters: 4.6 compares MB, 3.7 GB as it reads them', async ({ app, cluster }) => {
  const vm = await app.post('/v4.6/api/virtualization/virtual-machines/', { name: 'filter-vm', cluster: cluster.id });
  const small = await app.post('/v4.6/api/virtualization/virtual-disks/', { virtual_machine: vm.id, name: 'small', size: 400 });
  const mid = await app.post('/v4.6/api/virtualization/virtual-disks/', { virtual_machine: vm.id, name: 'mid', size: 1500 });
  const big = await app.post('/v4.6/api/virtualization/virtual-disks/', { virtual_machine: vm.id, name: 'big', size: 2600 });
  const q = `virtual_machine_id=${vm.id}`;
  assert.equal(ids(await app.get(`/v4.6/api/virtualization/virtual-disks/?${q}&size=1500`)), [mid.id]);
  assert.equal(ids(await app.get(`/v4.6/api/virtualization/virtual-disks/?${q}&size__gte=1500`)), [mid.id, big.id]);
  assert.equal(ids(await app.get(`/v4.6/api/virtualization/virtual-disks/?${q}&size=2`)), [], '4.6 has no disk of 2 MB');
  // 3.7: 400 MB reads 0, 1,500 MB 2, 2,600 MB 3
  assert.equal(ids(await app.get(`/api/virtualization/virtual-disks/?${q}&size=2`)), [mid.id]);
  assert.equal(ids(await app.get(`/api/virtualization/virtual-disks/?${q}&size=0&size=3`)), [small.id, big.id]);
  assert.equal(ids(await app.get(`/api/virtualization/virtual-disks/?${q}&size__gte=2`)), [mid.id, big.id]);
  assert.equal(ids(await app.get(`/api/virtualization/virtual-disks/?${q}&size__gt=2`)), [big.id]);
  assert.equal(ids(await app.get(`/api/virtualization/virtual-disks/?${q}&size__lte=2`)), [small.id, mid.id]);
  assert.equal(ids(await app.get(`/api/virtualization/virtual-disks/?${q}&size__lt=2`)), [small.id]);
  assert.equal(ids(await app.get(`/api/virtualization/virtual-disks/?${q}&size__n=2`)), [small.id, big.id]);
  // the VM's disk, summed: 4,500 MB, 4.5 GB read as 5
  assert.is((await app.get(`/api/virtualization/virtual-machines/${vm.id}/`)).disk, 5);
  assert.equal(ids(await app.get(`/api/virtualization/virtual-machines/?name=filter-vm&disk=5`)), [vm.id]);
  assert.equal(ids(await app.get(`/api/virtualization/virtual-machines/?name=filter-vm&disk__gte=6`)), []);
  assert.equal(ids(await app.get(`/v4.6/api/virtualization/virtual-machines/?name=filter-vm&disk=4500`)), [vm.id]);
  assert.equal(ids(await app.get(`/v4.6/api/virtualization/virtual-machines/?name=filter-vm&disk__lt=4500`)), []);
});

const G37 = '/api/ipam/vlan-groups/';
const G46 = '/v4.6/api/ipam/vlan-groups/';

test('VLAN groups: 4.6 reads and writes vid_ranges, 3.7 min_vid/max_vid (the lowest and highest; a 3.7 write sets one range)', async ({ app }) => {
  const g = await app.post(G37, { name: 'ranges-37', slug: 'ranges-37', min_vid: 100, max_vid: 199 });
  assert.is(g.min_vid, 100);
  assert.is(g.max_vid, 199);
  assert.not.ok('vid_ranges' in g || 'total_vlan_ids' in g, '3.7 keeps its shape');
  const g46 = await app.get(`${G46}${g.id}/`);
  assert.equal(g46.vid_ranges, [[100, 199]]);
  assert.is(g46.total_vlan_ids, 100);
  assert.not.ok('min_vid' in g46 || 'max_vid' in g46, '4.6 has no min_vid/max_vid');
  // 4.6 writes several ranges, kept sorted; 3.7 reads their lowest and highest VIDs
  const m = await app.post(G46, { name: 'ranges-46', slug: 'ranges-46', vid_ranges: [[300, 399], [10, 20]], min_vid: 5 });
  assert.equal(m.vid_ranges, [[10, 20], [300, 399]]);
  assert.is(m.total_vlan_ids, 111);
  const m37 = await app.get(`${G37}${m.id}/`);
  assert.is(m37.min_vid, 10, "4.6's min_vid key is ignored, as NetBox 4.6 ignores it");
  assert.is(m37.max_vid, 399);
  // a 3.7 write of one end makes one range of the group's lowest and highest VIDs
  await app.patch(`${G37}${m.id}/`, { min_vid: 50 });
  assert.equal((await app.get(`${G46}${m.id}/`)).vid_ranges, [[50, 399]]);
  await app.patch(`${G46}${m.id}/`, { vid_ranges: [[1, 9], [4000, 4094]] });
  const back = await app.get(`${G37}${m.id}/`);
  assert.equal([back.min_vid, back.max_vid], [1, 4094]);
  // defaults: the whole VID space in either version
  const d37 = await app.post(G37, { name: 'default-37', slug: 'default-37' });
  const d46 = await app.post(G46, { name: 'default-46', slug: 'default-46' });
  assert.equal([d37.min_vid, d37.max_vid], [1, 4094]);
  assert.equal(d46.vid_ranges, [[1, 4094]]);
  assert.equal((await app.get(`${G46}${d37.id}/`)).vid_ranges, [[1, 4094]]);
  assert.equal([(await app.get(`${G37}${d46.id}/`)).min_vid, (await app.get(`${G37}${d46.id}/`)).max_vid], [1, 4094]);
});

test('VLAN groups: invalid ranges are a 400 naming vid_ranges (4.6) or max_vid (3.7)', async ({ app }) => {
  const body = (vid_ranges: unknown) => ({ name: 'bad', slug: 'bad', vid_ranges });
  assert.match(await expectFieldError(app, 'POST', G46, body([[0, 10]]), 'vid_ranges'), /cannot be less than 1/);
  assert.match(await expectFieldError(app, 'POST', G46, body([[10, 4095]]), 'vid_ranges'), /cannot exceed 4094/);
  assert.match(await expectFieldError(app, 'POST', G46, body([[20, 10]]), 'vid_ranges'), /greater than or equal/);
  assert.match(await expectFieldError(app, 'POST', G46, body([[1, 10], [10, 20]]), 'vid_ranges'), /overlap/);
  assert.match(await expectFieldError(app, 'POST', G46, body([[1, 2, 3]]), 'vid_ranges'), /lower, upper/);
  assert.match(await expectFieldError(app, 'POST', G46, body([['1', 2]]), 'vid_ranges'), /integers/);
  await expectFieldError(app, 'POST', G46, body([]), 'vid_ranges');
  await expectFieldError(app, 'POST', G46, body('1-10'), 'vid_ranges');
  await expectFieldError(app, 'POST', G37, { name: 'bad', slug: 'bad', min_vid: 20, max_vid: 10 }, 'max_vid');
  await expectFieldError(app, 'POST', G37, { name: 'bad', slug: 'bad', min_vid: 0 }, 'min_vid');
  assert.is((await app.get(`${G46}?name=bad`)).count, 0, 'nothing was written');
});

test('VLANs in a group: the VID must fall in its ranges in both versions; available-vlans and utilization follow the ranges', async ({ app }) => {
  const g = await app.post(G46, { name: 'pool', slug: 'pool', vid_ranges: [[10, 12], [300, 301]] });
  const vlans37 = '/api/ipam/vlans/';
  const vlans46 = '/v4.6/api/ipam/vlans/';
  assert.match(await expectFieldError(app, 'POST', vlans46, { name: 'out', vid: 100, group: g.id }, 'vid'), /ranges 10-12, 300-301/);
  assert.match(await expectFieldError(app, 'POST', vlans37, { name: 'out', vid: 13, group: g.id }, 'vid'), /ranges 10-12, 300-301/);
  await app.post(vlans37, { name: 'v11', vid: 11, group: g.id });
  const free = await app.get(`${G46}${g.id}/available-vlans/`);
  assert.equal(free.map((f: { vid: number }) => f.vid), [10, 12, 300, 301]);
  assert.equal((await app.get(`${G37}${g.id}/available-vlans/`)).map((f: { vid: number }) => f.vid), [10, 12, 300, 301]);
  const made = await app.api('POST', `${G37}${g.id}/available-vlans/`, [{ name: 'a' }, { name: 'b' }]);
  expectStatus(made, 201);
  assert.equal(made.body.map((v: { vid: number }) => v.vid), [10, 12]);
  await app.post(vlans46, { name: 'v300', vid: 300, group: g.id });
  // 4 VLANs of 5 VIDs
  assert.is((await app.get(`${G46}${g.id}/`)).utilization, '80.00');
  assert.is((await app.get(`${G37}${g.id}/`)).utilization, '80.00');
  const last = await app.api('POST', `${G46}${g.id}/available-vlans/`, [{ name: 'c' }, { name: 'd' }]);
  expectStatus(last, 409, 'one VID is left');
  // widening the ranges: available-vlans hands out the new VIDs
  await app.patch(`${G46}${g.id}/`, { vid_ranges: [[10, 12], [300, 305]] });
  assert.equal((await app.get(`${G46}${g.id}/available-vlans/`)).map((f: { vid: number }) => f.vid), [301, 302, 303, 304, 305]);
});

test('VLAN group filters: contains_vid (4.6), min_vid/max_vid (3.7), each unknown in the other version', async ({ app }) => {
  const a = await app.post(G46, { name: 'fa', slug: 'fa', vid_ranges: [[100, 110], [500, 510]] });
  const b = await app.post(G37, { name: 'fb', slug: 'fb', min_vid: 105, max_vid: 200 });
  const q = 'slug=fa&slug=fb';
  assert.equal(ids(await app.get(`${G46}?${q}&contains_vid=105`)), [a.id, b.id]);
  assert.equal(ids(await app.get(`${G46}?${q}&contains_vid=300`)), [], 'between the ranges of fa');
  assert.equal(ids(await app.get(`${G46}?${q}&contains_vid=505`)), [a.id]);
  assert.equal(ids(await app.get(`${G46}?${q}&contains_vid=150`)), [b.id]);
  expectStatus(await app.api('GET', `${G46}?contains_vid=x`), 400, 'not a number');
  expectStatus(await app.api('GET', `${G37}?contains_vid=105`), 400, 'contains_vid is a 4.6 filter');
  assert.equal(ids(await app.get(`${G37}?${q}&min_vid__gte=101`)), [b.id]);
  assert.equal(ids(await app.get(`${G37}?${q}&max_vid=510`)), [a.id]);
  expectStatus(await app.api('GET', `${G46}?min_vid=1`), 400, 'min_vid is a 3.7 filter');
});

test('contacts: 4.6 reads and writes groups, 3.7 one group (the first by name; a 3.7 write sets the groups to it)', async ({ app }) => {
  const parent = await app.post('/api/tenancy/contact-groups/', { name: 'Parent', slug: 'parent' });
  const child = await app.post('/api/tenancy/contact-groups/', { name: 'Child', slug: 'child', parent: parent.id });
  const other = await app.post('/v4.6/api/tenancy/contact-groups/', { name: 'Other', slug: 'other' });
  const c = await app.post('/api/tenancy/contacts/', { name: 'Ann', group: child.id });
  assert.is(c.group.id, child.id);
  assert.not.ok('groups' in c, '3.7 keeps its shape');
  const c46 = await app.get(`/v4.6/api/tenancy/contacts/${c.id}/`);
  assert.equal(c46.groups.map((g: { id: number }) => g.id), [child.id]);
  assert.is(c46.groups[0].url, `${app.url}/v4.6/api/tenancy/contact-groups/${child.id}/`);
  assert.not.ok('group' in c46, '4.6 has no group');
  // 4.6 writes several; 3.7 reads the first by name
  const patched = await app.patch(`/v4.6/api/tenancy/contacts/${c.id}/`, { groups: [other.id, child.id] });
  assert.equal(patched.groups.map((g: { id: number }) => g.id).sort(), [child.id, other.id].sort());
  assert.is((await app.get(`/api/tenancy/contacts/${c.id}/`)).group.id, child.id, 'Child before Other');
  // a 3.7 write of group makes it the only one; null none
  await app.patch(`/api/tenancy/contacts/${c.id}/`, { group: other.id });
  assert.equal((await app.get(`/v4.6/api/tenancy/contacts/${c.id}/`)).groups.map((g: { id: number }) => g.id), [other.id]);
  await app.patch(`/api/tenancy/contacts/${c.id}/`, { group: { slug: 'parent' } });
  assert.equal((await app.get(`/v4.6/api/tenancy/contacts/${c.id}/`)).groups.map((g: { id: number }) => g.id), [parent.id], 'a group named by its attributes');
  await app.patch(`/api/tenancy/contacts/${c.id}/`, { group: null });
  assert.equal((await app.get(`/v4.6/api/tenancy/contacts/${c.id}/`)).groups, []);
  assert.is((await app.get(`/api/tenancy/contacts/${c.id}/`)).group, null);
  // a 3.7 write without group keeps the groups; 4.6's group key is ignored
  await app.patch(`/v4.6/api/tenancy/contacts/${c.id}/`, { groups: [child.id], group: other.id });
  await app.patch(`/api/tenancy/contacts/${c.id}/`, { title: 'Engineer' });
  assert.equal((await app.get(`/v4.6/api/tenancy/contacts/${c.id}/`)).groups.map((g: { id: number }) => g.id), [child.id]);
  await expectFieldError(app, 'PATCH', `/api/tenancy/contacts/${c.id}/`, { group: 99999 }, 'group');
  await expectFieldError(app, 'PATCH', `/v4.6/api/tenancy/contacts/${c.id}/`, { groups: [99999] }, 'groups');
  await expectFieldError(app, 'PATCH', `/v4.6/api/tenancy/contacts/${c.id}/`, { groups: child.id }, 'groups');
  // 3.7's rule, a name once per group, holds for each of a contact's groups
  expectStatus(await app.api('POST', '/v4.6/api/tenancy/contacts/', { name: 'Ann', groups: [other.id, child.id] }), 400);
  expectStatus(await app.api('POST', '/api/tenancy/contacts/', { name: 'Ann', group: child.id }), 400);
  const again = await app.post('/v4.6/api/tenancy/contacts/', { name: 'Ann', groups: [other.id] });
  expectStatus(await app.api('PATCH', `/v4.6/api/tenancy/contacts/${again.id}/`, { groups: [child.id] }), 400);
});

test('contact group filters: group and group_id over all of a contact\'s groups and their descendants, in both versions', async ({ app }) => {
  const top = await app.post('/api/tenancy/contact-groups/', { name: 'Top', slug: 'top' });
  const sub = await app.post('/api/tenancy/contact-groups/', { name: 'Sub', slug: 'sub', parent: top.id });
  const side = await app.post('/api/tenancy/contact-groups/', { name: 'Side', slug: 'side' });
  const a = await app.post('/v4.6/api/tenancy/contacts/', { name: 'fa', groups: [sub.id, side.id] });
  const b = await app.post('/api/tenancy/contacts/', { name: 'fb', group: top.id });
  const none = await app.post('/api/tenancy/contacts/', { name: 'fc' });
  const q = 'name=fa&name=fb&name=fc';
  for (const base of ['/api', '/v4.6/api']) {
    assert.equal(ids(await app.get(`${base}/tenancy/contacts/?${q}&group_id=${top.id}`)), [a.id, b.id], `${base}: descendants`);
    assert.equal(ids(await app.get(`${base}/tenancy/contacts/?${q}&group=side`)), [a.id], `${base}: any of the groups`);
    assert.equal(ids(await app.get(`${base}/tenancy/contacts/?${q}&group_id=${sub.id}`)), [a.id]);
    assert.equal(ids(await app.get(`${base}/tenancy/contacts/?${q}&group_id__n=${top.id}`)), [none.id]);
  }
  assert.is((await app.get(`/v4.6/api/tenancy/contact-groups/${top.id}/`)).contact_count, 2, 'counts the contacts of descendant groups');
  assert.is((await app.get(`/api/tenancy/contact-groups/${side.id}/`)).contact_count, 1);
  // assignments and the objects contacts are assigned to follow the groups
  const site = await app.post('/api/dcim/sites/', { name: 'Contact site', slug: 'contact-site' });
  const role = await app.post('/api/tenancy/contact-roles/', { name: 'Owner', slug: 'owner' });
  const asg = await app.post('/api/tenancy/contact-assignments/', { content_type: 'dcim.site', object_id: site.id, contact: a.id, role: role.id });
  assert.equal(ids(await app.get(`/v4.6/api/tenancy/contact-assignments/?group_id=${side.id}`)), [asg.id]);
  assert.equal(ids(await app.get(`/api/tenancy/contact-assignments/?group=top`)), [asg.id]);
  assert.equal(ids(await app.get(`/api/dcim/sites/?contact_group=${top.id}`)), [site.id]);
  assert.equal(ids(await app.get(`/v4.6/api/dcim/sites/?contact_group=${side.id}`)), [site.id]);
});

test('4.6 filters: custom fields\' related_object_type_id, tokens\' version and pepper_id; each unknown in 3.7', async ({ app }) => {
  const siteType = (await app.get('/api/extras/content-types/?app_label=dcim&model=site')).results[0];
  const rackType = (await app.get('/api/extras/content-types/?app_label=dcim&model=rack')).results[0];
  const cf = await app.post('/api/extras/custom-fields/', { name: 'home_site', type: 'object', object_type: 'dcim.site', content_types: ['dcim.device'] });
  await app.post('/api/extras/custom-fields/', { name: 'some_text', type: 'text', content_types: ['dcim.device'] });
  assert.equal(ids(await app.get(`/v4.6/api/extras/custom-fields/?related_object_type_id=${siteType.id}`)), [cf.id]);
  assert.equal(ids(await app.get(`/v4.6/api/extras/custom-fields/?related_object_type_id=${rackType.id}`)), []);
  expectStatus(await app.api('GET', '/v4.6/api/extras/custom-fields/?related_object_type_id=x'), 400);
  expectStatus(await app.api('GET', `/api/extras/custom-fields/?related_object_type_id=${siteType.id}`), 400, 'a 4.6 filter');
  const user = await app.post('/api/users/users/', { username: 'filter-user', password: 'a-long-password-1' });
  const v1 = await app.post('/api/users/tokens/', { user: user.id });
  const v2 = await app.post('/v4.6/api/users/tokens/', { user: user.id });
  assert.is(v2.version, 2);
  const q = `user_id=${user.id}`;
  assert.equal(ids(await app.get(`/v4.6/api/users/tokens/?${q}&version=1`)), [v1.id], 'a 3.7 token is a v1 token');
  assert.equal(ids(await app.get(`/v4.6/api/users/tokens/?${q}&version=2`)), [v2.id]);
  assert.equal(ids(await app.get(`/v4.6/api/users/tokens/?${q}&version__gte=1`)), [v1.id, v2.id]);
  assert.equal(ids(await app.get(`/v4.6/api/users/tokens/?${q}&version__n=2`)), [v1.id]);
  assert.equal(ids(await app.get(`/v4.6/api/users/tokens/?${q}&pepper_id=${v2.pepper_id}`)), [v2.id]);
  assert.equal(ids(await app.get(`/v4.6/api/users/tokens/?${q}&pepper_id__empty=true`)), [v1.id]);
  expectStatus(await app.api('GET', `/v4.6/api/users/tokens/?version=two`), 400);
  expectStatus(await app.api('GET', `/api/users/tokens/?version=1`), 400, 'a 4.6 filter');
  expectStatus(await app.api('GET', `/api/users/tokens/?pepper_id=1`), 400, 'a 4.6 filter');
});

test('write answers take ?fields= and ?omit= in 4.6, as reads do; 3.7 answers whole', async ({ app }) => {
  const made = await app.api('POST', '/v4.6/api/dcim/sites/?fields=id,name', { name: 'Sel', slug: 'sel' });
  expectStatus(made, 201);
  assert.equal(Object.keys(made.body), ['id', 'name']);
  const patched = await app.api('PATCH', `/v4.6/api/dcim/sites/${made.body.id}/?omit=tags,custom_fields`, { description: 'x' });
  expectStatus(patched, 200);
  assert.not.ok('tags' in patched.body || 'custom_fields' in patched.body);
  assert.is(patched.body.description, 'x');
  const put = await app.api('PUT', `/v4.6/api/dcim/sites/${made.body.id}/?fields=slug`, { name: 'Sel', slug: 'sel2' });
  expectStatus(put, 200);
  assert.equal(put.body, { slug: 'sel2' });
  const bulk = await app.api('POST', '/v4.6/api/dcim/sites/?fields=slug', [{ name: 'Sel3', slug: 'sel3' }, { name: 'Sel4', slug: 'sel4' }]);
  expectStatus(bulk, 201);
  assert.equal(bulk.body, [{ slug: 'sel3' }, { slug: 'sel4' }]);
  const bad = await app.api('POST', '/v4.6/api/dcim/sites/?fields=id,nope', { name: 'Sel5', slug: 'sel5' });
  expectStatus(bad, 400, 'an unknown field name');
  assert.is((await app.get('/api/dcim/sites/?slug=sel5')).count, 0, 'refused before the write');
  const old = await app.api('POST', '/api/dcim/sites/?fields=id', { name: 'Sel6', slug: 'sel6' });
  expectStatus(old, 201);
  assert.ok('slug' in old.body && 'tags' in old.body, '3.7 has no field selection');
});

test('interfaces\' mac_address: written through 3.7, read-only in 4.6 (a write of it ignored, as NetBox 4.6 does)', async ({ app, cluster }) => {
  const site = await app.post('/api/dcim/sites/', { name: 'Mac site', slug: 'mac-site' });
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'Mac maker', slug: 'mac-maker' });
  const type = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Mac box', slug: 'mac-box' });
  const role = await app.post('/api/dcim/device-roles/', { name: 'Mac role', slug: 'mac-role' });
  const device = await app.post('/api/dcim/devices/', { name: 'mac-dev', site: site.id, device_type: type.id, role: role.id });
  const vm = await app.post('/api/virtualization/virtual-machines/', { name: 'mac-vm', cluster: cluster.id });
  for (const [path, parent] of [['dcim/interfaces', { device: device.id, type: '1000base-t' }], ['virtualization/interfaces', { virtual_machine: vm.id }]] as const) {
    const made = await app.post(`/v4.6/api/${path}/`, { ...parent, name: 'eth0', mac_address: '00:11:22:33:44:55' });
    assert.is(made.mac_address, null, `${path}: 4.6 ignores mac_address on create`);
    assert.is(made.primary_mac_address, null);
    const set = await app.patch(`/api/${path}/${made.id}/`, { mac_address: '00:11:22:33:44:66' });
    assert.is(set.mac_address, '00:11:22:33:44:66', `${path}: 3.7 writes it`);
    const ignored = await app.patch(`/v4.6/api/${path}/${made.id}/`, { mac_address: '00:11:22:33:44:77', description: 'kept' });
    assert.is(ignored.mac_address, '00:11:22:33:44:66', `${path}: 4.6 ignores it on update`);
    assert.is(ignored.description, 'kept');
    assert.is(ignored.primary_mac_address.mac_address, '00:11:22:33:44:66');
    assert.is((await app.get(`/v4.6/api/dcim/mac-addresses/?${path.startsWith('dcim') ? 'interface_id' : 'vminterface_id'}=${made.id}`)).count, 1, 'no MAC address object made by the ignored value');
  }
});

test.run();
