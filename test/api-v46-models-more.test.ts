/**
 * NetBox 4.x models served under the 4.6 API only (404 under /v3.7/ and /api/): their model rules
 * through HTTP, the 4.6-only fields they bring to older models, and their change log.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectFieldError, expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite<{ app: TestApp; site: any; maker: any }>('api-v46-models-more');

test.before(async (ctx) => {
  ctx.app = await startApp();
  ctx.site = await ctx.app.post('/api/dcim/sites/', { name: 'Site R', slug: 'site-r' });
  ctx.maker = await ctx.app.post('/api/dcim/manufacturers/', { name: 'Maker R', slug: 'maker-r' });
});

test.after(async ({ app }) => { await app.stop(); });

const V = '/v4.6/api';

test('rack types: a rack of a type takes its physical fields, and follows the type when it changes; 404 in 3.7', async ({ app, site, maker }) => {
  const type = await app.post(`${V}/dcim/rack-types/`, { manufacturer: maker.id, model: 'Cab 48', slug: 'cab-48', form_factor: '4-post-cabinet', u_height: 48, width: 19, outer_width: 600, outer_depth: 1200, outer_unit: 'mm', max_weight: 1000, weight_unit: 'kg' });
  assert.is(type.url, `${app.url}${V}/dcim/rack-types/${type.id}/`);
  assert.equal(type.form_factor, { value: '4-post-cabinet', label: '4-post cabinet' });
  assert.is(type.rack_count, 0);
  assert.equal(Object.keys(await app.get(`${V}/dcim/rack-types/${type.id}/?brief=1`)).sort(), ['description', 'display', 'id', 'manufacturer', 'model', 'rack_count', 'slug', 'url']);
  // model rules, each a 400 naming its field
  await expectFieldError(app, 'POST', `${V}/dcim/rack-types/`, { manufacturer: maker.id, model: 'X', slug: 'x', form_factor: '2-post-frame', outer_height: 2000 }, 'outer_unit');
  await expectFieldError(app, 'POST', `${V}/dcim/rack-types/`, { manufacturer: maker.id, model: 'X', slug: 'x', form_factor: '2-post-frame', max_weight: 10 }, 'weight_unit');
  await expectFieldError(app, 'POST', `${V}/dcim/rack-types/`, { manufacturer: maker.id, model: 'X', slug: 'x' }, 'form_factor');
  await expectFieldError(app, 'POST', `${V}/dcim/rack-types/`, { manufacturer: maker.id, model: 'X', slug: 'x', form_factor: 'tent' }, 'form_factor');
  await expectFieldError(app, 'POST', `${V}/dcim/rack-types/`, { manufacturer: maker.id, model: 'X', slug: 'x', form_factor: '2-post-frame', u_height: 0 }, 'u_height');
  expectStatus(await app.api('POST', `${V}/dcim/rack-types/`, { manufacturer: maker.id, model: 'Cab 48', slug: 'other', form_factor: '2-post-frame' }), 400, 'model unique per manufacturer');
  // a rack of the type: the type's fields win over what the rack says
  const rack = await app.post(`${V}/dcim/racks/`, { name: 'R1', site: site.id, rack_type: type.id, u_height: 10 });
  assert.is(rack.rack_type.id, type.id);
  assert.is(rack.u_height, 48);
  assert.equal(rack.form_factor, { value: '4-post-cabinet', label: '4-post cabinet' });
  assert.is(rack.outer_width, 600);
  assert.is(rack.max_weight, 1000);
  assert.is(rack.weight_unit.value, 'kg');
  assert.is((await app.get(`${V}/dcim/rack-types/${type.id}/`)).rack_count, 1);
  const old = await app.get(`/api/dcim/racks/${rack.id}/`);
  assert.not.ok('rack_type' in old, '3.7 racks have no rack_type');
  assert.is(old.u_height, 48, '3.7 reads the copied fields');
  await app.patch(`/api/dcim/racks/${rack.id}/`, { u_height: 20 });
  assert.is((await app.get(`${V}/dcim/racks/${rack.id}/`)).u_height, 48, 'a 3.7 write cannot change a typed rack\'s height either');
  // the type changes: its racks follow, each change logged
  await app.patch(`${V}/dcim/rack-types/${type.id}/`, { u_height: 42, outer_depth: 1000 });
  const followed = await app.get(`${V}/dcim/racks/${rack.id}/`);
  assert.is(followed.u_height, 42);
  assert.is(followed.outer_depth, 1000);
  const changes = await app.get(`${V}/core/object-changes/?changed_object_type=dcim.rack&changed_object_id=${rack.id}`);
  assert.ok(changes.results.some((c: any) => c.action.value === 'update' && c.postchange_data.u_height === 42), 'the rack\'s update is logged');
  // the height rule names rack_type once the type is too short for the mounted devices
  const dtype = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Box R', slug: 'box-r', u_height: 2 });
  const role = await app.post('/api/dcim/device-roles/', { name: 'Role R', slug: 'role-r' });
  await app.post('/api/dcim/devices/', { name: 'top', site: site.id, rack: rack.id, position: 40, face: 'front', device_type: dtype.id, role: role.id });
  const small = await app.post(`${V}/dcim/rack-types/`, { manufacturer: maker.id, model: 'Wall 12', slug: 'wall-12', form_factor: 'wall-cabinet', u_height: 12 });
  await expectFieldError(app, 'PATCH', `${V}/dcim/racks/${rack.id}/`, { rack_type: small.id }, 'rack_type');
  // filters on racks (4.6 only) and rack types
  const ids = async (q: string) => (await app.get(`${V}/dcim/racks/?${q}`)).results.map((r: any) => r.id);
  assert.equal(await ids(`rack_type_id=${type.id}`), [rack.id]);
  assert.equal(await ids('rack_type=cab-48'), [rack.id]);
  assert.equal(await ids('manufacturer=maker-r'), [rack.id]);
  expectStatus(await app.api('GET', `/api/dcim/racks/?rack_type_id=${type.id}`), 400, 'rack_type_id is a 4.6 filter');
  assert.equal((await app.get(`${V}/dcim/rack-types/?form_factor=wall-cabinet`)).results.map((t: any) => t.id), [small.id]);
  assert.equal((await app.get(`${V}/dcim/rack-types/?manufacturer_id=${maker.id}&u_height=42`)).results.map((t: any) => t.id), [type.id]);
  assert.equal((await app.get(`${V}/dcim/rack-types/?q=wall`)).results.map((t: any) => t.id), [small.id]);
  // a type in use cannot go; a rack leaving its type keeps the fields it had
  expectStatus(await app.api('DELETE', `${V}/dcim/rack-types/${type.id}/`), 409, 'protected by its rack');
  const free = await app.patch(`${V}/dcim/racks/${rack.id}/`, { rack_type: null, u_height: 44 });
  assert.is(free.rack_type, null);
  assert.is(free.u_height, 44);
  expectStatus(await app.api('DELETE', `${V}/dcim/rack-types/${type.id}/`), 204);
  for (const path of ['/api/dcim/rack-types/', '/v3.7/api/dcim/rack-types/', `/v3.7/api/dcim/rack-types/${small.id}/`]) expectStatus(await app.api('GET', path), 404, path);
  assert.not.ok('rack-types' in await app.get('/v3.7/api/dcim/'));
  assert.ok('rack-types' in await app.get(`${V}/dcim/`));
});

test('virtual circuits: types, circuits over a provider network, terminations on virtual interfaces; 404 in 3.7', async ({ app, site, maker }) => {
  const [p1, p2] = await app.post('/api/circuits/providers/', [{ name: 'Carrier V', slug: 'carrier-v' }, { name: 'Other V', slug: 'other-v' }]);
  const net = await app.post('/api/circuits/provider-networks/', { provider: p1.id, name: 'MPLS' });
  const [acct, foreign] = await app.post('/api/circuits/provider-accounts/', [{ provider: p1.id, account: 'A-1' }, { provider: p2.id, account: 'B-1' }]);
  const vtype = await app.post(`${V}/circuits/virtual-circuit-types/`, { name: 'EVPL', slug: 'evpl', color: 'aa1409' });
  assert.is(vtype.virtual_circuit_count, 0);
  const vc = await app.post(`${V}/circuits/virtual-circuits/`, { cid: 'VC-1', provider_network: net.id, provider_account: acct.id, type: vtype.id });
  assert.is(vc.url, `${app.url}${V}/circuits/virtual-circuits/${vc.id}/`);
  assert.equal(vc.status, { value: 'active', label: 'Active' });
  assert.is(vc.provider_network.id, net.id);
  assert.equal(Object.keys(await app.get(`${V}/circuits/virtual-circuits/${vc.id}/?brief=1`)).sort(), ['cid', 'description', 'display', 'id', 'provider_network', 'url']);
  assert.is((await app.get(`${V}/circuits/virtual-circuit-types/${vtype.id}/`)).virtual_circuit_count, 1);
  await expectFieldError(app, 'POST', `${V}/circuits/virtual-circuits/`, { cid: 'VC-2', provider_network: net.id, provider_account: foreign.id, type: vtype.id }, 'provider_account');
  await expectFieldError(app, 'PATCH', `${V}/circuits/virtual-circuits/${vc.id}/`, { provider_account: foreign.id }, 'provider_account');
  await expectFieldError(app, 'POST', `${V}/circuits/virtual-circuits/`, { cid: 'VC-2', provider_network: net.id }, 'type');
  expectStatus(await app.api('POST', `${V}/circuits/virtual-circuits/`, { cid: 'VC-1', provider_network: net.id, type: vtype.id }), 400, 'cid unique per provider network');
  // terminations: virtual interfaces only, one per interface
  const dtype = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Box V', slug: 'box-v' });
  const role = await app.post('/api/dcim/device-roles/', { name: 'Role V', slug: 'role-v' });
  const device = await app.post('/api/dcim/devices/', { name: 'pe1', site: site.id, device_type: dtype.id, role: role.id });
  const [sub, lag, phys] = await app.post('/api/dcim/interfaces/', [{ device: device.id, name: 'ge0.100', type: 'virtual' }, { device: device.id, name: 'ae0', type: 'lag' }, { device: device.id, name: 'ge1', type: '1000base-t' }]);
  const hub = await app.post(`${V}/circuits/virtual-circuit-terminations/`, { virtual_circuit: vc.id, role: 'hub', interface: sub.id, description: 'hq' });
  assert.is(hub.display, 'VC-1: Hub termination');
  assert.equal(hub.role, { value: 'hub', label: 'Hub' });
  assert.is(hub.interface.id, sub.id);
  assert.is(hub.interface.url, `${app.url}${V}/dcim/interfaces/${sub.id}/`);
  assert.equal(Object.keys(await app.get(`${V}/circuits/virtual-circuit-terminations/${hub.id}/?brief=1`)).sort(), ['description', 'display', 'id', 'interface', 'role', 'url', 'virtual_circuit']);
  const spoke = await app.post(`${V}/circuits/virtual-circuit-terminations/`, { virtual_circuit: vc.id, role: 'spoke', interface: lag.id });
  // NetBox 4.2's pass-through …/paths/: the cable paths through the termination, none (it takes no cable), a 404 for none such and in 3.7
  assert.equal(await app.get(`${V}/circuits/virtual-circuit-terminations/${hub.id}/paths/`), []);
  expectStatus(await app.api('GET', `${V}/circuits/virtual-circuit-terminations/${spoke.id + 1000}/paths/`), 404);
  expectStatus(await app.api('GET', `/v3.7/api/circuits/virtual-circuit-terminations/${hub.id}/paths/`), 404);
  await expectFieldError(app, 'POST', `${V}/circuits/virtual-circuit-terminations/`, { virtual_circuit: vc.id, interface: phys.id }, 'interface');
  await expectFieldError(app, 'PATCH', `${V}/circuits/virtual-circuit-terminations/${spoke.id}/`, { interface: phys.id }, 'interface');
  await expectFieldError(app, 'POST', `${V}/circuits/virtual-circuit-terminations/`, { virtual_circuit: vc.id, interface: sub.id }, 'interface');
  await expectFieldError(app, 'POST', `${V}/circuits/virtual-circuit-terminations/`, { virtual_circuit: vc.id, interface: lag.id, role: 'leaf' }, 'role');
  const ids = async (q: string) => (await app.get(`${V}/circuits/virtual-circuit-terminations/?${q}`)).results.map((t: any) => t.id).sort();
  assert.equal(await ids(`virtual_circuit_id=${vc.id}&role=hub`), [hub.id]);
  assert.equal(await ids(`provider_id=${p1.id}`), [hub.id, spoke.id].sort());
  assert.equal(await ids(`provider_network_id=${net.id}&interface_id=${lag.id}`), [spoke.id]);
  assert.equal(await ids('q=hq'), [hub.id]);
  assert.equal((await app.get(`${V}/circuits/virtual-circuits/?provider=carrier-v&type=evpl&provider_account=A-1`)).results.map((c: any) => c.id), [vc.id]);
  assert.is((await app.get(`${V}/circuits/virtual-circuits/?provider_id=${p2.id}`)).count, 0);
  // the termination's change is logged with its virtual circuit as the related object
  const change = (await app.get(`${V}/core/object-changes/?changed_object_type=circuits.virtualcircuittermination&changed_object_id=${hub.id}`)).results[0];
  assert.is(change.related_object_id, vc.id);
  // a virtual circuit may join a circuit group
  const group = await app.post(`${V}/circuits/circuit-groups/`, { name: 'Overlay', slug: 'overlay' });
  const member = await app.post(`${V}/circuits/circuit-group-assignments/`, { group: group.id, member_type: 'circuits.virtualcircuit', member_id: vc.id });
  assert.is(member.member.url, `${app.url}${V}/circuits/virtual-circuits/${vc.id}/`);
  assert.equal((await app.get(`${V}/circuits/circuit-group-assignments/?virtual_circuit_id=${vc.id}`)).results.map((a: any) => a.id), [member.id]);
  // deleting the interface removes its termination; deleting the circuit its terminations and group membership
  expectStatus(await app.api('DELETE', `/api/dcim/interfaces/${lag.id}/`), 204);
  expectStatus(await app.api('GET', `${V}/circuits/virtual-circuit-terminations/${spoke.id}/`), 404);
  expectStatus(await app.api('DELETE', `${V}/circuits/virtual-circuit-types/${vtype.id}/`), 409, 'a type in use is protected');
  expectStatus(await app.api('DELETE', `${V}/circuits/virtual-circuits/${vc.id}/`), 204);
  expectStatus(await app.api('GET', `${V}/circuits/virtual-circuit-terminations/${hub.id}/`), 404);
  expectStatus(await app.api('GET', `${V}/circuits/circuit-group-assignments/${member.id}/`), 404);
  for (const path of ['/api/circuits/virtual-circuits/', '/v3.7/api/circuits/virtual-circuit-types/', '/v3.7/api/circuits/virtual-circuit-terminations/']) expectStatus(await app.api('GET', path), 404, path);
  assert.not.ok('virtual-circuits' in await app.get('/v3.7/api/circuits/'));
});

async function makeUser(app: TestApp, name: string): Promise<{ id: number; key: string }> {
  const user = await app.post('/api/users/users/', { username: name, password: `${name}-password-123` });
  const token = await app.post('/api/users/tokens/', { user: user.id });
  return { id: user.id, key: token.key };
}

test('notifications, subscriptions and notification groups: each user sees their own; objects of NetBox models only; 404 in 3.7', async ({ app, site }) => {
  const alice = await makeUser(app, 'alice');
  const bob = await makeUser(app, 'bob');
  const group = await app.post('/api/users/groups/', { name: 'NOC' });
  const ng = await app.post(`${V}/extras/notification-groups/`, { name: 'On call', description: 'pager', users: [alice.id], groups: [group.id] });
  assert.equal(ng.users.map((u: any) => u.id), [alice.id]);
  assert.equal(ng.groups.map((g: any) => g.id), [group.id]);
  assert.is(ng.display_url, `${app.url}/extras/notification-groups/${ng.id}/`);
  assert.equal(Object.keys(await app.get(`${V}/extras/notification-groups/${ng.id}/?brief=1`)).sort(), ['description', 'display', 'id', 'name', 'url']);
  assert.equal((await app.get(`${V}/extras/notification-groups/?user_id=${alice.id}`)).results.map((g: any) => g.id), [ng.id]);
  assert.is((await app.get(`${V}/extras/notification-groups/?user=bob`)).count, 0);
  assert.equal((await app.get(`${V}/extras/notification-groups/?group=NOC`)).results.map((g: any) => g.id), [ng.id]);
  assert.is((await app.get(`${V}/core/object-changes/?changed_object_type=extras.notificationgroup&changed_object_id=${ng.id}`)).count, 1, 'groups keep a change log');

  const note = await app.post(`${V}/extras/notifications/`, { object_type: 'dcim.site', object_id: site.id, user: alice.id, event_type: 'object_updated' });
  assert.is(note.object.id, site.id);
  assert.is(note.object.url, `${app.url}${V}/dcim/sites/${site.id}/`);
  assert.is(note.event_type, 'object_updated');
  assert.is(note.read, null);
  assert.match(note.created, /^\d{4}-\d{2}-\d{2}T/);
  assert.is(note.display, 'Site R');
  assert.equal(Object.keys(await app.get(`${V}/extras/notifications/${note.id}/?brief=1`)).sort(), ['display', 'event_type', 'id', 'object_id', 'object_type', 'read', 'url', 'user']);
  await expectFieldError(app, 'POST', `${V}/extras/notifications/`, { object_type: 'dcim.site', object_id: site.id, user: bob.id, event_type: 'object_renamed' }, 'event_type');
  const tag = await app.post('/api/extras/tags/', { name: 'Watch', slug: 'watch' });
  await expectFieldError(app, 'POST', `${V}/extras/notifications/`, { object_type: 'extras.tag', object_id: tag.id, user: bob.id, event_type: 'object_created' }, 'object_type');
  await expectFieldError(app, 'POST', `${V}/extras/subscriptions/`, { object_type: 'users.user', object_id: bob.id, user: bob.id }, 'object_type');
  expectStatus(await app.api('POST', `${V}/extras/notifications/`, { object_type: 'dcim.site', object_id: site.id, user: alice.id, event_type: 'object_created' }), 400, 'one notification per object and user');
  const sub = await app.post(`${V}/extras/subscriptions/`, { object_type: 'dcim.site', object_id: site.id, user: bob.id });
  assert.is(sub.display, 'Site R');
  assert.equal(Object.keys(await app.get(`${V}/extras/subscriptions/${sub.id}/?brief=1`)).sort(), ['display', 'id', 'object_id', 'object_type', 'url', 'user']);

  // a user reads, marks and deletes their own notification; another's is 404 to them
  const asAlice = { token: alice.key };
  const asBob = { token: bob.key };
  expectStatus(await app.api('GET', `${V}/extras/notifications/${note.id}/`, undefined, asAlice), 200, 'alice reads her notification');
  const marked = await app.api('PATCH', `${V}/extras/notifications/${note.id}/`, { read: '2026-01-02T03:04:05Z' }, asAlice);
  expectStatus(marked, 200, 'alice marks it read');
  assert.match(marked.body.read, /^2026-01-02T03:04:05/);
  expectStatus(await app.api('GET', `${V}/extras/notifications/${note.id}/`, undefined, asBob), 404, "bob cannot see alice's notification");
  expectStatus(await app.api('DELETE', `${V}/extras/notifications/${note.id}/`, undefined, asBob), 404, "bob cannot delete alice's notification");
  expectStatus(await app.api('GET', `${V}/extras/subscriptions/${sub.id}/`, undefined, asBob), 200, 'bob reads his subscription');
  expectStatus(await app.api('GET', `${V}/extras/subscriptions/${sub.id}/`, undefined, asAlice), 404, "alice cannot see bob's subscription");
  const tenant = await app.post('/api/tenancy/tenants/', { name: 'Watched', slug: 'watched' });
  expectStatus(await app.api('POST', `${V}/extras/subscriptions/`, { object_type: 'tenancy.tenant', object_id: tenant.id, user: bob.id }, asAlice), 403, 'alice cannot subscribe bob');
  const own = await app.api('POST', `${V}/extras/subscriptions/`, { object_type: 'dcim.site', object_id: site.id, user: alice.id }, asAlice);
  expectStatus(own, 201, 'alice subscribes herself');
  expectStatus(await app.api('DELETE', `${V}/extras/notifications/${note.id}/`, undefined, asAlice), 204, 'alice deletes her notification');
  // filters
  assert.equal((await app.get(`${V}/extras/subscriptions/?user_id=${bob.id}`)).results.map((s: any) => s.id), [sub.id]);
  assert.is((await app.get(`${V}/extras/subscriptions/?object_type=dcim.site&object_id=${site.id}`)).count, 2);
  // subscriptions go with their object; a notification outlives it
  const gone = await app.post('/api/dcim/sites/', { name: 'Gone', slug: 'gone' });
  const later = await app.post(`${V}/extras/notifications/`, { object_type: 'dcim.site', object_id: gone.id, user: bob.id, event_type: 'object_deleted' });
  const watching = await app.post(`${V}/extras/subscriptions/`, { object_type: 'dcim.site', object_id: gone.id, user: bob.id });
  expectStatus(await app.api('DELETE', `/api/dcim/sites/${gone.id}/`), 204);
  expectStatus(await app.api('GET', `${V}/extras/subscriptions/${watching.id}/`), 404);
  expectStatus(await app.api('GET', `${V}/extras/notifications/${later.id}/`), 200);
  for (const path of ['/api/extras/notifications/', '/v3.7/api/extras/subscriptions/', '/v3.7/api/extras/notification-groups/']) expectStatus(await app.api('GET', path), 404, path);
});

test('VLAN translation: policies and their rules; interfaces and VM interfaces apply a policy (4.6 only); 404 in 3.7', async ({ app, site, maker }) => {
  const policy = await app.post(`${V}/ipam/vlan-translation-policies/`, { name: 'Customer A', description: 'c-tags' });
  assert.equal(policy.rules, []);
  assert.equal(Object.keys(await app.get(`${V}/ipam/vlan-translation-policies/${policy.id}/?brief=1`)).sort(), ['description', 'display', 'id', 'name', 'url']);
  const rule = await app.post(`${V}/ipam/vlan-translation-rules/`, { policy: policy.id, local_vid: 100, remote_vid: 2100 });
  assert.is(rule.display, '100 -> 2100 (Customer A)');
  assert.is(rule.policy.id, policy.id);
  await app.post(`${V}/ipam/vlan-translation-rules/`, { policy: { name: 'Customer A' }, local_vid: 101, remote_vid: 2101, description: 'voice' });
  assert.equal((await app.get(`${V}/ipam/vlan-translation-policies/${policy.id}/`)).rules.map((r: any) => [r.local_vid, r.remote_vid]), [[100, 2100], [101, 2101]]);
  // each VID once per policy, within 1-4094
  expectStatus(await app.api('POST', `${V}/ipam/vlan-translation-rules/`, { policy: policy.id, local_vid: 100, remote_vid: 2200 }), 400, 'local VID taken');
  expectStatus(await app.api('POST', `${V}/ipam/vlan-translation-rules/`, { policy: policy.id, local_vid: 102, remote_vid: 2100 }), 400, 'remote VID taken');
  await expectFieldError(app, 'POST', `${V}/ipam/vlan-translation-rules/`, { policy: policy.id, local_vid: 4095, remote_vid: 5 }, 'local_vid');
  await expectFieldError(app, 'POST', `${V}/ipam/vlan-translation-rules/`, { policy: policy.id, local_vid: 5, remote_vid: 0 }, 'remote_vid');
  await expectFieldError(app, 'POST', `${V}/ipam/vlan-translation-rules/`, { local_vid: 5, remote_vid: 6 }, 'policy');
  expectStatus(await app.api('POST', `${V}/ipam/vlan-translation-policies/`, { name: 'Customer A' }), 400, 'names are unique');
  const ids = async (q: string) => (await app.get(`${V}/ipam/vlan-translation-rules/?${q}`)).results.map((r: any) => r.local_vid);
  assert.equal(await ids('policy=Customer A&remote_vid__gte=2101'), [101]);
  assert.equal(await ids(`policy_id=${policy.id}&description__ic=voi`), [101]);
  assert.equal(await ids('q=customer'), [100, 101]);
  // the rule's change names its policy
  assert.is((await app.get(`${V}/core/object-changes/?changed_object_type=ipam.vlantranslationrule&changed_object_id=${rule.id}`)).results[0].related_object_id, policy.id);
  // interfaces and VM interfaces
  const dtype = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Box T', slug: 'box-t' });
  const role = await app.post('/api/dcim/device-roles/', { name: 'Role T', slug: 'role-t' });
  const device = await app.post('/api/dcim/devices/', { name: 'sw-t', site: site.id, device_type: dtype.id, role: role.id });
  const iface = await app.post(`${V}/dcim/interfaces/`, { device: device.id, name: 'xe-0/0/0', type: '10gbase-x-sfpp', mode: 'tagged', vlan_translation_policy: policy.id });
  assert.is(iface.vlan_translation_policy.id, policy.id);
  assert.is(iface.vlan_translation_policy.url, `${app.url}${V}/ipam/vlan-translation-policies/${policy.id}/`);
  assert.not.ok('vlan_translation_policy' in await app.get(`/api/dcim/interfaces/${iface.id}/`), '3.7 interfaces have no policy');
  assert.equal((await app.get(`${V}/dcim/interfaces/?vlan_translation_policy=Customer A`)).results.map((i: any) => i.id), [iface.id]);
  assert.equal((await app.get(`${V}/dcim/interfaces/?vlan_translation_policy_id=${policy.id}`)).results.map((i: any) => i.id), [iface.id]);
  expectStatus(await app.api('GET', `/api/dcim/interfaces/?vlan_translation_policy_id=${policy.id}`), 400, 'a 4.6 filter');
  const ctype = await app.post('/api/virtualization/cluster-types/', { name: 'CT T', slug: 'ct-t' });
  const cluster = await app.post('/api/virtualization/clusters/', { name: 'Cluster T', type: ctype.id });
  const vm = await app.post('/api/virtualization/virtual-machines/', { name: 'vm-t', cluster: cluster.id });
  const vmi = await app.post(`${V}/virtualization/interfaces/`, { virtual_machine: vm.id, name: 'eth0', vlan_translation_policy: { name: 'Customer A' } });
  assert.is(vmi.vlan_translation_policy.id, policy.id);
  // a 3.7 write leaves the policy alone; a policy in use cannot go
  await app.patch(`/api/dcim/interfaces/${iface.id}/`, { description: 'edge' });
  assert.is((await app.get(`${V}/dcim/interfaces/${iface.id}/`)).vlan_translation_policy.id, policy.id);
  expectStatus(await app.api('DELETE', `${V}/ipam/vlan-translation-policies/${policy.id}/`), 409, 'protected by its interfaces');
  await app.patch(`${V}/dcim/interfaces/${iface.id}/`, { vlan_translation_policy: null });
  await app.patch(`${V}/virtualization/interfaces/${vmi.id}/`, { vlan_translation_policy: null });
  expectStatus(await app.api('DELETE', `${V}/ipam/vlan-translation-policies/${policy.id}/`), 204);
  expectStatus(await app.api('GET', `${V}/ipam/vlan-translation-rules/${rule.id}/`), 404, 'rules go with their policy');
  for (const path of ['/api/ipam/vlan-translation-policies/', '/v3.7/api/ipam/vlan-translation-rules/']) expectStatus(await app.api('GET', path), 404, path);
});

test('module type profiles: a JSON Schema of attributes that module types of the profile must follow (4.6 only); 404 in 3.7', async ({ app, maker }) => {
  const schema = { type: 'object', properties: { cores: { type: 'integer', minimum: 1 }, arch: { type: 'string', enum: ['x86', 'arm'] }, speed: { type: 'number' } }, required: ['cores'] };
  const cpu = await app.post(`${V}/dcim/module-type-profiles/`, { name: 'CPU', schema, description: 'processors' });
  assert.equal(cpu.schema, schema);
  assert.equal(Object.keys(await app.get(`${V}/dcim/module-type-profiles/${cpu.id}/?brief=1`)).sort(), ['description', 'display', 'id', 'name', 'url']);
  await expectFieldError(app, 'POST', `${V}/dcim/module-type-profiles/`, { name: 'Bad', schema: { type: 'widget' } }, 'schema');
  await expectFieldError(app, 'POST', `${V}/dcim/module-type-profiles/`, { name: 'Bad', schema: { properties: { a: { minimum: 'one' } } } }, 'schema');
  const free = await app.post(`${V}/dcim/module-type-profiles/`, { name: 'Blank' });
  assert.is(free.schema, null);

  const mt = await app.post(`${V}/dcim/module-types/`, { manufacturer: maker.id, model: 'Xeon 8', profile: cpu.id, attributes: { cores: 8, arch: 'x86' } });
  assert.is(mt.profile.id, cpu.id);
  assert.equal(mt.attributes, { cores: 8, arch: 'x86' });
  assert.equal(Object.keys(await app.get(`${V}/dcim/module-types/${mt.id}/?brief=1`)).sort(), ['description', 'display', 'id', 'manufacturer', 'model', 'module_count', 'profile', 'url']);
  const old = await app.get(`/api/dcim/module-types/${mt.id}/`);
  assert.not.ok('profile' in old || 'attributes' in old, '3.7 module types have neither');
  assert.equal(Object.keys(await app.get(`/api/dcim/module-types/${mt.id}/?brief=1`)).sort(), ['display', 'id', 'manufacturer', 'model', 'url']);
  // attributes follow the schema, each problem a 400 on attributes
  for (const attributes of [{ cores: 0 }, { arch: 'x86' }, { cores: 4, arch: 'sparc' }, { cores: 'four' }]) {
    await expectFieldError(app, 'POST', `${V}/dcim/module-types/`, { manufacturer: maker.id, model: 'Bad CPU', profile: cpu.id, attributes }, 'attributes');
  }
  // a write adds to the stored attributes, key by key
  const merged = await app.patch(`${V}/dcim/module-types/${mt.id}/`, { attributes: { speed: 2.4 } });
  assert.equal(merged.attributes, { cores: 8, arch: 'x86', speed: 2.4 });
  await expectFieldError(app, 'PATCH', `${V}/dcim/module-types/${mt.id}/`, { attributes: { arch: 'mips' } }, 'attributes');
  // no profile, or a profile without a schema: no attributes
  const plain = await app.post(`${V}/dcim/module-types/`, { manufacturer: maker.id, model: 'Plain', attributes: { any: 1 } });
  assert.is(plain.attributes, null);
  assert.is((await app.patch(`${V}/dcim/module-types/${mt.id}/`, { profile: free.id })).attributes, null);
  await app.patch(`${V}/dcim/module-types/${mt.id}/`, { profile: cpu.id, attributes: { cores: 2 } });
  // filters
  assert.equal((await app.get(`${V}/dcim/module-types/?profile=CPU`)).results.map((m: any) => m.id), [mt.id]);
  assert.equal((await app.get(`${V}/dcim/module-types/?profile_id=${cpu.id}`)).results.map((m: any) => m.id), [mt.id]);
  expectStatus(await app.api('GET', `/api/dcim/module-types/?profile_id=${cpu.id}`), 400, 'a 4.6 filter');
  assert.equal((await app.get(`${V}/dcim/module-type-profiles/?q=processor`)).results.map((p: any) => p.id), [cpu.id]);
  // a profile in use cannot go; 3.7 writes leave profile and attributes alone
  await app.patch(`/api/dcim/module-types/${mt.id}/`, { description: 'two cores' });
  assert.equal((await app.get(`${V}/dcim/module-types/${mt.id}/`)).attributes, { cores: 2 });
  expectStatus(await app.api('DELETE', `${V}/dcim/module-type-profiles/${cpu.id}/`), 409, 'protected by its module types');
  for (const path of ['/api/dcim/module-type-profiles/', `/v3.7/api/dcim/module-type-profiles/${cpu.id}/`]) expectStatus(await app.api('GET', path), 404, path);
});

test('owners and owner groups (4.6 only): the owner of the objects NetBox 4.6 gives one, with its filters; 404 in 3.7', async ({ app, site, maker }) => {
  const user = (await app.get('/api/users/users/?limit=1')).results[0];
  const ugroup = await app.post('/api/users/groups/', { name: 'Facilities' });
  const team = await app.post(`${V}/users/owner-groups/`, { name: 'Infra', description: 'infrastructure' });
  assert.is(team.member_count, 0);
  const owner = await app.post(`${V}/users/owners/`, { name: 'DC team', group: team.id, users: [user.id], user_groups: [ugroup.id] });
  assert.is(owner.group.id, team.id);
  assert.equal(owner.users.map((u: any) => u.id), [user.id]);
  assert.equal(owner.user_groups.map((g: any) => g.id), [ugroup.id]);
  assert.is((await app.get(`${V}/users/owner-groups/${team.id}/`)).member_count, 1);
  assert.equal(Object.keys(await app.get(`${V}/users/owners/${owner.id}/?brief=1`)).sort(), ['description', 'display', 'id', 'name', 'url']);
  assert.equal((await app.get(`${V}/users/owners/?user_id=${user.id}&group=Infra`)).results.map((o: any) => o.id), [owner.id]);
  assert.equal((await app.get(`${V}/users/owners/?user_group=Facilities`)).results.map((o: any) => o.id), [owner.id]);
  expectStatus(await app.api('POST', `${V}/users/owners/`, { name: 'DC team' }), 400, 'names are unique');
  // objects of the models NetBox gives an owner carry it in 4.6, not in 3.7
  const owned = await app.patch(`${V}/dcim/sites/${site.id}/`, { owner: owner.id });
  assert.is(owned.owner.id, owner.id);
  assert.is(owned.owner.url, `${app.url}${V}/users/owners/${owner.id}/`);
  assert.not.ok('owner' in await app.get(`/api/dcim/sites/${site.id}/`), '3.7 sites have no owner');
  const keys = Object.keys(owned);
  assert.ok(keys.indexOf('owner') === keys.indexOf('comments') - 1, 'owner stands before comments, as in NetBox');
  const mfr = await app.patch(`${V}/dcim/manufacturers/${maker.id}/`, { owner: { name: 'DC team' } });
  assert.is(mfr.owner.id, owner.id);
  assert.equal((await app.get(`${V}/dcim/sites/?owner_id=${owner.id}`)).results.map((s: any) => s.id), [site.id]);
  assert.equal((await app.get(`${V}/dcim/sites/?owner=DC team`)).results.map((s: any) => s.id), [site.id]);
  assert.equal((await app.get(`${V}/dcim/manufacturers/?owner_group=Infra`)).results.map((m: any) => m.id), [maker.id]);
  assert.equal((await app.get(`${V}/dcim/manufacturers/?owner_group_id=${team.id}`)).results.map((m: any) => m.id), [maker.id]);
  expectStatus(await app.api('GET', `/api/dcim/sites/?owner_id=${owner.id}`), 400, 'owner_id is a 4.6 filter');
  // models NetBox gives no owner have none
  const doc = await app.get('/v4.6/api/schema/');
  assert.ok(doc.components.schemas.Site.properties.owner, 'the 4.6 document shows an owner on sites');
  assert.not.ok(doc.components.schemas.InterfaceTemplate?.properties?.owner, 'and none on interface templates');
  // an owner in use cannot go, nor a group with members
  expectStatus(await app.api('DELETE', `${V}/users/owners/${owner.id}/`), 409, 'protected by its objects');
  expectStatus(await app.api('DELETE', `${V}/users/owner-groups/${team.id}/`), 409, 'protected by its members');
  await app.patch(`${V}/dcim/sites/${site.id}/`, { owner: null });
  await app.patch(`/api/dcim/manufacturers/${maker.id}/`, { description: 'made things' });
  assert.is((await app.get(`${V}/dcim/manufacturers/${maker.id}/`)).owner.id, owner.id, 'a 3.7 write leaves the owner alone');
  await app.patch(`${V}/dcim/manufacturers/${maker.id}/`, { owner: null });
  expectStatus(await app.api('DELETE', `${V}/users/owners/${owner.id}/`), 204);
  for (const path of ['/api/users/owners/', '/v3.7/api/users/owner-groups/']) expectStatus(await app.api('GET', path), 404, path);
  assert.not.ok('owners' in await app.get('/v3.7/api/users/'));
});

test.run();
