/**
 * What the NetBox 3.7 filters test/openapi-filters.test.ts only checks are accepted actually select:
 * prefixes by children and depth, object-type lists with their lookups and by content type id, tags
 * by the types they may apply to, permissions by action, tokens by key, devices by an interface's
 * MAC address text; cables by a terminated object, rack, location and `unterminated`; config contexts
 * by their assignments (exactly, not a region's descendants); saved filters by `usable`.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp, type TestApp } from './helpers.js';
import { createObject } from './factory.js';
import { model } from '../runtime/data/registry.js';

const test = suite('NetBox 3.7 filters select what NetBox selects');
let app: TestApp;
test.before(async () => { app = await startApp(); });
test.after(async () => { await app?.stop(); });

const ids = async (path: string) => (await app.get(path)).results.map((r: { id: number }) => r.id).sort((a: number, b: number) => a - b);
const ctId = async (type: string) => {
  const [app_label, name] = type.split('.');
  return (await app.get(`/api/extras/content-types/?app_label=${app_label}&model=${name}`)).results[0].id as number;
};

test('prefixes by children and depth, with number lookups', async () => {
  const p8 = await app.post('/api/ipam/prefixes/', { prefix: '10.0.0.0/8' });
  const p16 = await app.post('/api/ipam/prefixes/', { prefix: '10.1.0.0/16' });
  const p24 = await app.post('/api/ipam/prefixes/', { prefix: '10.1.1.0/24' });
  assert.equal(await ids('/api/ipam/prefixes/?children=2'), [p8.id]);
  assert.equal(await ids('/api/ipam/prefixes/?children__gte=1'), [p8.id, p16.id]);
  assert.equal(await ids('/api/ipam/prefixes/?depth=2'), [p24.id]);
  assert.equal(await ids('/api/ipam/prefixes/?depth__lt=1'), [p8.id]);
  assert.equal(await ids('/api/ipam/prefixes/?depth__n=0'), [p16.id, p24.id]);
});

test('custom fields by content_types (with lookups) and content_type_id', async () => {
  const site = await app.post('/api/extras/custom-fields/', { name: 'cf_site', type: 'text', content_types: ['dcim.site'] });
  const prefix = await app.post('/api/extras/custom-fields/', { name: 'cf_prefix', type: 'text', content_types: ['ipam.prefix'] });
  assert.equal(await ids('/api/extras/custom-fields/?content_types=dcim.site'), [site.id]);
  assert.equal(await ids('/api/extras/custom-fields/?content_types__ic=IPAM'), [prefix.id]);
  assert.equal(await ids('/api/extras/custom-fields/?content_types__n=dcim.site'), [prefix.id]);
  assert.equal(await ids('/api/extras/custom-fields/?content_types__nisw=ipam.'), [site.id]);
  assert.equal(await ids(`/api/extras/custom-fields/?content_type_id=${await ctId('ipam.prefix')}`), [prefix.id]);
  assert.equal(await ids(`/api/extras/custom-fields/?content_type_id__n=${await ctId('ipam.prefix')}`), [site.id]);
});

test('tags by the object types they may apply to, and by the types they are applied to', async () => {
  const any = await app.post('/api/extras/tags/', { name: 'any', slug: 'any' });
  const prefixesOnly = await app.post('/api/extras/tags/', { name: 'prefixes only', slug: 'prefixes-only', object_types: ['ipam.prefix'] });
  assert.equal(await ids(`/api/extras/tags/?for_object_type_id=${await ctId('dcim.site')}`), [any.id]);
  assert.equal(await ids(`/api/extras/tags/?for_object_type_id=${await ctId('ipam.prefix')}`), [any.id, prefixesOnly.id]);
  assert.equal(await ids(`/api/extras/tags/?object_types=${await ctId('ipam.prefix')}`), [prefixesOnly.id]);
  await app.post('/api/ipam/prefixes/', { prefix: '192.0.2.0/24', tags: [{ slug: 'any' }] });
  assert.equal(await ids('/api/extras/tags/?content_type=ipam.prefix'), [any.id]);
  assert.equal(await ids(`/api/extras/tags/?content_type_id=${await ctId('dcim.site')}`), []);
});

test('permissions by action; tokens by whole key only', async () => {
  const viewer = await app.post('/api/users/permissions/', { name: 'view sites', object_types: ['dcim.site'], actions: ['view'] });
  const adder = await app.post('/api/users/permissions/', { name: 'add sites', object_types: ['dcim.site'], actions: ['view', 'add'] });
  assert.equal(await ids('/api/users/permissions/?can_add=true'), [adder.id]);
  assert.equal(await ids('/api/users/permissions/?can_add=false'), [viewer.id]);
  const user = await app.post('/api/users/users/', { username: 'filter-user', password: 'a-long-enough-password-1' });
  const token = await app.post('/api/users/tokens/', { user: user.id });
  assert.equal(await ids(`/api/users/tokens/?key=${token.key}`), [token.id]);
  assert.not.ok((await ids(`/api/users/tokens/?key__n=${token.key}`)).includes(token.id));
  const partial = await app.api('GET', `/api/users/tokens/?key__ic=${token.key.slice(0, 6)}`);
  assert.is(partial.status, 400);
  assert.ok(partial.body.key__ic);
});

test('devices by the text of an interface\'s MAC address', async () => {
  const iface = await createObject(app, model('Interface'), { mac_address: 'AA:BB:CC:00:11:22' });
  assert.equal(await ids('/api/dcim/devices/?mac_address__ic=cc:00'), [iface.device.id]);
  assert.equal(await ids('/api/dcim/devices/?mac_address__isw=ff'), []);
  assert.equal(await ids('/api/dcim/devices/?mac_address=aa:bb:cc:00:11:22'), [iface.device.id]);
  assert.not.ok((await ids('/api/dcim/devices/?mac_address__nic=cc:00')).includes(iface.device.id));
});

test('cables by a terminated object, rack, location, unterminated and end type', async () => {
  const a = await createObject(app, model('Interface'), { type: '1000base-t' });
  const device = await app.get(`/api/dcim/devices/${a.device.id}/`);
  const location = await app.post('/api/dcim/locations/', { name: 'Cage 7', slug: 'cage-7', site: device.site.id });
  const rack = await app.post('/api/dcim/racks/', { name: 'R7', site: device.site.id, location: location.id });
  const placed = await app.patch(`/api/dcim/devices/${device.id}/`, { rack: rack.id, location: location.id });
  assert.is(placed.rack.id, rack.id);
  const b = await app.post('/api/dcim/interfaces/', { device: device.id, name: 'b-end', type: '1000base-t' });
  const rear = await app.post('/api/dcim/rear-ports/', { device: device.id, name: 'rear-1', type: '8p8c' });
  const front = await app.post('/api/dcim/front-ports/', { device: device.id, name: 'front-1', type: '8p8c', rear_port: rear.id });
  const cable = await app.post('/api/dcim/cables/', { a_terminations: [{ object_type: 'dcim.interface', object_id: a.id }], b_terminations: [{ object_type: 'dcim.interface', object_id: b.id }] });
  const other = await app.post('/api/dcim/cables/', { a_terminations: [{ object_type: 'dcim.frontport', object_id: front.id }], b_terminations: [{ object_type: 'dcim.interface', object_id: (await createObject(app, model('Interface'), { type: '1000base-t' })).id }] });
  assert.equal(await ids(`/api/dcim/cables/?interface_id=${a.id}`), [cable.id]);
  assert.equal(await ids(`/api/dcim/cables/?frontport_id=${front.id}`), [other.id]);
  assert.equal(await ids(`/api/dcim/cables/?rack_id=${rack.id}`), [cable.id, other.id]);
  assert.equal(await ids(`/api/dcim/cables/?rack=R7`), [cable.id, other.id]);
  assert.equal(await ids(`/api/dcim/cables/?location_id=${location.id}`), [cable.id, other.id]);
  assert.equal(await ids(`/api/dcim/cables/?termination_a_type=dcim.frontport`), [other.id]);
  assert.equal(await ids(`/api/dcim/cables/?termination_a_type__n=dcim.frontport&id=${cable.id}&id=${other.id}`), [cable.id]);
  assert.not.ok((await ids('/api/dcim/cables/?unterminated=true')).includes(cable.id));
  assert.ok((await ids('/api/dcim/cables/?unterminated=false')).includes(cable.id));
  const bad = await app.api('GET', '/api/dcim/cables/?unterminated=maybe');
  assert.is(bad.status, 400);
  assert.match(bad.text, /unterminated/);
});

test('config contexts by their assignments: the named objects only', async () => {
  const parent = await app.post('/api/dcim/regions/', { name: 'Europe', slug: 'europe' });
  const child = await app.post('/api/dcim/regions/', { name: 'France', slug: 'france', parent: parent.id });
  const site = await createObject(app, model('Site'));
  const tenant = await createObject(app, model('Tenant'));
  const inParent = await app.post('/api/extras/config-contexts/', { name: 'eu', data: { a: 1 }, regions: [parent.id] });
  const inChild = await app.post('/api/extras/config-contexts/', { name: 'fr', data: { a: 2 }, regions: [child.id], sites: [site.id], tenants: [tenant.id] });
  assert.equal(await ids(`/api/extras/config-contexts/?region_id=${parent.id}`), [inParent.id], 'a parent region does not find its children\'s contexts');
  assert.equal(await ids('/api/extras/config-contexts/?region=france'), [inChild.id]);
  assert.equal(await ids(`/api/extras/config-contexts/?site=${site.slug}`), [inChild.id]);
  assert.equal(await ids(`/api/extras/config-contexts/?tenant_id=${tenant.id}`), [inChild.id]);
  assert.equal(await ids(`/api/extras/config-contexts/?region_id__n=${parent.id}&id=${inParent.id}&id=${inChild.id}`), [inChild.id]);
});

test('saved filters by usable: enabled, and shared or the requester\'s own', async () => {
  const someone = await app.post('/api/users/users/', { username: 'someone-else', password: 'a-long-password-1' });
  const me = (await app.get('/api/users/tokens/?limit=1')).results[0].user.id;
  const base = { content_types: ['dcim.site'], parameters: { status: ['active'] } };
  const shared = await app.post('/api/extras/saved-filters/', { ...base, name: 'shared', slug: 'shared', shared: true });
  const mine = await app.post('/api/extras/saved-filters/', { ...base, name: 'mine', slug: 'mine', shared: false, user: me });
  const theirs = await app.post('/api/extras/saved-filters/', { ...base, name: 'theirs', slug: 'theirs', shared: false, user: someone.id });
  const off = await app.post('/api/extras/saved-filters/', { ...base, name: 'off', slug: 'off', shared: true, enabled: false });
  assert.equal(await ids('/api/extras/saved-filters/?usable=true'), [shared.id, mine.id]);
  assert.equal(await ids('/api/extras/saved-filters/?usable=false'), [theirs.id, off.id]);
});

test('custom field choice sets by a choice they offer', async () => {
  const metals = await app.post('/api/extras/custom-field-choice-sets/', { name: 'metals', extra_choices: [['gold', 'Gold'], ['silver', 'Silver']] });
  const colours = await app.post('/api/extras/custom-field-choice-sets/', { name: 'colours', extra_choices: [['red', 'Red'], ['gold', 'Golden']] });
  assert.equal(await ids('/api/extras/custom-field-choice-sets/?choice=silver'), [metals.id]);
  assert.equal(await ids('/api/extras/custom-field-choice-sets/?choice=gold'), [metals.id, colours.id]);
  assert.equal(await ids('/api/extras/custom-field-choice-sets/?choice=Gold'), [], 'values, not labels');
  assert.equal(await ids('/api/extras/custom-field-choice-sets/?choice=red&choice=silver'), [metals.id, colours.id]);
});

test.run();
