/**
 * Relations through HTTP: related objects written by nested attributes, devices (role alias,
 * display, config context), tags (write forms, AND filter, clearing, tagged_items), region trees
 * (depth, tree order, cumulative counts, descendant filters, moves, cycles, cascades) and the
 * reverse counts shown on sites, manufacturers, interfaces, VLAN groups and tenants.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type Reply, type TestApp } from './helpers.js';

// One service for the whole file, started by the first suite and stopped by the last
// (uvu loads test files as CommonJS, so there is no top-level await).
let starting: Promise<TestApp> | undefined;
let app: TestApp;
async function boot(): Promise<void> {
  app = await (starting ??= startApp());
}




async function ids(path: string): Promise<number[]> {
  const sep = path.includes('?') ? '&' : '?';
  return (await app.get(`${path}${sep}limit=1000`)).results.map((r: any) => r.id);
}

function fieldError(reply: Reply, field: string): string {
  const messages = reply.body?.[field];
  assert.ok(Array.isArray(messages) && messages.length > 0, `expected an error on '${field}', got ${reply.text}`);
  return messages.join(' ');
}

/** Manufacturer, device type and role every device here uses. */
interface Kit { manufacturer: any; type: any; role: any; role2: any }
let kitPromise: Promise<Kit> | undefined;
function kit(): Promise<Kit> {
  return (kitPromise ??= (async () => {
    const manufacturer = await app.post('/api/dcim/manufacturers/', { name: 'Juniper', slug: 'juniper' });
    const type = await app.post('/api/dcim/device-types/', { manufacturer: manufacturer.id, model: 'MX204', slug: 'mx204' });
    const role = await app.post('/api/dcim/device-roles/', { name: 'Core', slug: 'core' });
    const role2 = await app.post('/api/dcim/device-roles/', { name: 'Edge', slug: 'edge' });
    return { manufacturer, type, role, role2 };
  })());
}

// ---------------------------------------------------------------------------------------------
const nested = suite('relations written by nested attributes');
let s1: any;
let s2: any;
let rack1: any;
let rack2: any;
nested.before(async () => {
  await boot();
  s1 = await app.post('/api/dcim/sites/', { name: 'Site One', slug: 's1' });
  s2 = await app.post('/api/dcim/sites/', { name: 'Site Two', slug: 's2' });
  rack1 = await app.post('/api/dcim/racks/', { name: 'R1', site: s1.id });
  rack2 = await app.post('/api/dcim/racks/', { name: 'R1', site: { slug: 's2' } });
});

nested('a rack given by its site slug and by a nested site is created in that site', async () => {
  assert.is(rack1.site.id, s1.id);
  assert.is(rack2.site.id, s2.id);
});

nested('rack: {name, site: {slug}} resolves recursively to the one matching rack', async () => {
  const { type, role } = await kit();
  const d = await app.post('/api/dcim/devices/', { name: 'nested-1', device_type: type.id, role: role.id, site: { slug: 's1' }, rack: { name: 'R1', site: { slug: 's1' } } });
  assert.is(d.rack.id, rack1.id);
  assert.is(d.site.id, s1.id);
  const d2 = await app.post('/api/dcim/devices/', { name: 'nested-2', device_type: { slug: 'mx204', manufacturer: { slug: 'juniper' } }, role: { slug: 'core' }, site: { name: 'Site Two' }, rack: { name: 'R1', site: { name: 'Site Two' } } });
  assert.is(d2.rack.id, rack2.id);
  assert.is(d2.device_type.id, type.id);
});

nested('attributes matching several objects → 400 on the field, mentioning multiple', async () => {
  const { type, role } = await kit();
  const reply = await app.api('POST', '/api/dcim/devices/', { name: 'nested-3', device_type: type.id, role: role.id, site: s1.id, rack: { name: 'R1' } });
  expectStatus(reply, 400);
  assert.match(fieldError(reply, 'rack').toLowerCase(), 'multiple');
});

nested('attributes matching nothing → 400 on the field', async () => {
  const { type, role } = await kit();
  const reply = await app.api('POST', '/api/dcim/devices/', { name: 'nested-4', device_type: type.id, role: role.id, site: s1.id, rack: { name: 'nope' } });
  expectStatus(reply, 400);
  fieldError(reply, 'rack');
  const deep = await app.api('POST', '/api/dcim/devices/', { name: 'nested-5', device_type: type.id, role: role.id, site: s1.id, rack: { name: 'R1', site: { slug: 'no-such-site' } } });
  expectStatus(deep, 400);
  fieldError(deep, 'rack');
  const missing = await app.api('POST', '/api/dcim/devices/', { name: 'nested-6', device_type: type.id, role: role.id, site: 999999 });
  expectStatus(missing, 400);
  fieldError(missing, 'site');
  // nothing was created by the refused requests
  assert.equal(await ids('/api/dcim/devices/?name=nested-4&name=nested-5&name=nested-6'), []);
});

nested('a relation given as a numeric string id works', async () => {
  const { type, role } = await kit();
  const d = await app.post('/api/dcim/devices/', { name: 'nested-7', device_type: String(type.id), role: String(role.id), site: String(s2.id), rack: String(rack2.id) });
  assert.is(d.rack.id, rack2.id);
  assert.is(d.site.id, s2.id);
  assert.is(d.device_type.id, type.id);
});

nested('bulk create resolves attributes per element', async () => {
  const { type, role } = await kit();
  const reply = await app.api('POST', '/api/dcim/devices/', [
    { name: 'bulk-a', device_type: type.id, role: role.id, site: { slug: 's1' }, rack: { name: 'R1', site: { slug: 's1' } } },
    { name: 'bulk-b', device_type: type.id, role: role.id, site: { slug: 's2' }, rack: { name: 'R1', site: { slug: 's2' } } },
  ]);
  expectStatus(reply, 201);
  assert.equal(reply.body.map((d: any) => d.rack.id), [rack1.id, rack2.id]);
  const bad = await app.api('POST', '/api/dcim/devices/', [
    { name: 'bulk-c', device_type: type.id, role: role.id, site: s1.id },
    { name: 'bulk-d', device_type: type.id, role: role.id, site: s1.id, rack: { name: 'R1' } },
  ]);
  expectStatus(bad, 400);
  assert.ok(Array.isArray(bad.body) && bad.body.length === 2, bad.text);
  assert.equal(bad.body[0], {});
  assert.ok(bad.body[1].rack, bad.text);
  assert.equal(await ids('/api/dcim/devices/?name=bulk-c'), [], 'the valid element was not created either');
});

nested.run();

// ---------------------------------------------------------------------------------------------
const devices = suite('devices: role alias, display, config context');
let devSite: any;
devices.before(async () => {
  await boot();
  devSite = await app.post('/api/dcim/sites/', { name: 'Device Site', slug: 'device-site' });
});

devices('device_role and role are both written and read', async () => {
  const { type, role, role2 } = await kit();
  const d = await app.post('/api/dcim/devices/', { name: 'alias-1', device_type: type.id, device_role: role.id, site: devSite.id });
  assert.is(d.role.id, role.id);
  assert.is(d.device_role.id, role.id);
  assert.equal(d.device_role, d.role);
  const viaRole = await app.patch(`/api/dcim/devices/${d.id}/`, { role: role2.id });
  assert.is(viaRole.role.id, role2.id);
  assert.is(viaRole.device_role.id, role2.id);
  const viaAlias = await app.patch(`/api/dcim/devices/${d.id}/`, { device_role: { slug: 'core' } });
  assert.is(viaAlias.role.id, role.id);
  assert.is(viaAlias.device_role.id, role.id);
  const stored = await app.get(`/api/dcim/devices/${d.id}/`);
  assert.is(stored.role.id, role.id);
  assert.is(stored.device_role.id, role.id);
  // filters by role work under both names on interfaces (device_role_id is the deprecated alias)
  const iface = await app.post('/api/dcim/interfaces/', { device: d.id, name: 'xe-0/0/0', type: '10gbase-x-sfpp' });
  assert.ok((await ids(`/api/dcim/interfaces/?role_id=${role.id}`)).includes(iface.id));
  assert.ok((await ids(`/api/dcim/interfaces/?device_role_id=${role.id}`)).includes(iface.id));
  assert.ok((await ids(`/api/dcim/devices/?role_id=${role.id}`)).includes(d.id));
  const none = await app.api('POST', '/api/dcim/devices/', { name: 'alias-2', device_type: type.id, site: devSite.id });
  expectStatus(none, 400, 'a device without any role:');
  fieldError(none, 'role');
});

devices('the device nested in an interface carries display_name', async () => {
  const { type, role } = await kit();
  const d = await app.post('/api/dcim/devices/', { name: 'nested-in-iface', device_type: type.id, role: role.id, site: devSite.id });
  const iface = await app.post('/api/dcim/interfaces/', { device: d.id, name: 'ge-0/0/1', type: '1000base-t' });
  assert.equal(iface.device, { id: d.id, url: `${app.url}/api/dcim/devices/${d.id}/`, display: 'nested-in-iface', name: 'nested-in-iface', display_name: 'nested-in-iface' });
  const listed = (await app.get(`/api/dcim/interfaces/?device_id=${d.id}`)).results[0];
  assert.is(listed.device.display_name, 'nested-in-iface');
});

devices('display is the name, or "<manufacturer> <model> (<id>)" when unnamed', async () => {
  const { type, role } = await kit();
  const named = await app.post('/api/dcim/devices/', { name: 'shown-by-name', device_type: type.id, role: role.id, site: devSite.id });
  assert.is(named.display, 'shown-by-name');
  assert.is(named.display_name, 'shown-by-name');
  const unnamed = await app.post('/api/dcim/devices/', { device_type: type.id, role: role.id, site: devSite.id });
  assert.is(unnamed.name, null);
  assert.is(unnamed.display, `Juniper MX204 (${unnamed.id})`);
  const detail = await app.get(`/api/dcim/devices/${unnamed.id}/`);
  assert.is(detail.display, `Juniper MX204 (${unnamed.id})`);
  const brief = await app.get(`/api/dcim/devices/${unnamed.id}/?brief=1`);
  assert.is(brief.display, `Juniper MX204 (${unnamed.id})`);
  const tagged = await app.post('/api/dcim/devices/', { device_type: type.id, role: role.id, site: devSite.id, asset_tag: 'AT-1001' });
  assert.is(tagged.display, 'Juniper MX204 (AT-1001)');
  const both = await app.post('/api/dcim/devices/', { name: 'named-and-tagged', device_type: type.id, role: role.id, site: devSite.id, asset_tag: 'AT-1002' });
  assert.is(both.display, 'named-and-tagged (AT-1002)');
});

devices('config_context equals local_context_data, or {} when there is none', async () => {
  const { type, role } = await kit();
  const data = { ntp: ['192.0.2.1', '192.0.2.2'], snmp: { community: 'public', port: 161 }, enabled: true };
  const withData = await app.post('/api/dcim/devices/', { name: 'ctx-1', device_type: type.id, role: role.id, site: devSite.id, local_context_data: data });
  assert.equal(withData.local_context_data, data);
  assert.equal(withData.config_context, data);
  const without = await app.post('/api/dcim/devices/', { name: 'ctx-2', device_type: type.id, role: role.id, site: devSite.id });
  assert.is(without.local_context_data, null);
  assert.equal(without.config_context, {});
  const detail = await app.get(`/api/dcim/devices/${withData.id}/`);
  assert.equal(detail.config_context, data);
  const changed = await app.patch(`/api/dcim/devices/${withData.id}/`, { local_context_data: { only: 1 } });
  assert.equal(changed.config_context, { only: 1 });
  const cleared = await app.patch(`/api/dcim/devices/${withData.id}/`, { local_context_data: null });
  assert.is(cleared.local_context_data, null);
  assert.equal(cleared.config_context, {});
});

devices('?exclude=config_context omits the key on list and detail', async () => {
  const { type, role } = await kit();
  const d = await app.post('/api/dcim/devices/', { name: 'ctx-exclude', device_type: type.id, role: role.id, site: devSite.id, local_context_data: { a: 1 } });
  const detail = await app.get(`/api/dcim/devices/${d.id}/?exclude=config_context`);
  assert.not.ok('config_context' in detail, 'detail omits config_context');
  assert.equal(detail.local_context_data, { a: 1 });
  assert.is(detail.name, 'ctx-exclude');
  const listed = await app.get('/api/dcim/devices/?exclude=config_context&limit=1000');
  assert.ok(listed.results.length > 1);
  for (const r of listed.results) assert.not.ok('config_context' in r, `device ${r.id} omits config_context`);
  const normal = await app.get('/api/dcim/devices/?limit=1000');
  for (const r of normal.results) assert.ok('config_context' in r, `device ${r.id} shows config_context by default`);
  const brief = await app.get(`/api/dcim/devices/${d.id}/?brief=1`);
  assert.not.ok('config_context' in brief, 'brief never shows config_context');
});

devices('local_context_data that is not an object → 400', async () => {
  const { type, role } = await kit();
  for (const bad of [[1, 2, 3], 'just text', 42, true]) {
    const reply = await app.api('POST', '/api/dcim/devices/', { name: 'ctx-bad', device_type: type.id, role: role.id, site: devSite.id, local_context_data: bad });
    expectStatus(reply, 400, `local_context_data ${JSON.stringify(bad)}:`);
    fieldError(reply, 'local_context_data');
  }
  const d = await app.post('/api/dcim/devices/', { name: 'ctx-ok', device_type: type.id, role: role.id, site: devSite.id, local_context_data: { x: 1 } });
  const reply = await app.api('PATCH', `/api/dcim/devices/${d.id}/`, { local_context_data: ['a'] });
  expectStatus(reply, 400);
  fieldError(reply, 'local_context_data');
  assert.equal((await app.get(`/api/dcim/devices/${d.id}/`)).local_context_data, { x: 1 });
});

devices.run();

// ---------------------------------------------------------------------------------------------
const tags = suite('tags: write forms, filters, clearing, tagged_items');
let alpha: any;
let beta: any;
let gamma: any;
const sites: Record<string, any> = {};
const TAG_KEYS = ['color', 'display', 'id', 'name', 'slug', 'url'];
tags.before(async () => {
  await boot();
  alpha = await app.post('/api/extras/tags/', { name: 'Alpha', slug: 'alpha' });
  beta = await app.post('/api/extras/tags/', { name: 'Beta', slug: 'beta', color: 'ff0000' });
  gamma = await app.post('/api/extras/tags/', { name: 'Gamma', slug: 'gamma' });
});

tags('tags written as ids, {slug} dicts, {name} dicts and a mix read back as nested tags', async () => {
  sites.ab = await app.post('/api/dcim/sites/', { name: 'Tagged AB', slug: 'tagged-ab', tags: [alpha.id, beta.id] });
  sites.a = await app.post('/api/dcim/sites/', { name: 'Tagged A', slug: 'tagged-a', tags: [{ slug: 'alpha' }] });
  sites.b = await app.post('/api/dcim/sites/', { name: 'Tagged B', slug: 'tagged-b', tags: [{ name: 'Beta' }] });
  sites.bg = await app.post('/api/dcim/sites/', { name: 'Tagged BG', slug: 'tagged-bg', tags: [gamma.id, { slug: 'beta' }] });
  sites.none = await app.post('/api/dcim/sites/', { name: 'Untagged', slug: 'untagged' });
  const slugs = (s: any) => s.tags.map((t: any) => t.slug).sort();
  assert.equal(slugs(sites.ab), ['alpha', 'beta']);
  assert.equal(slugs(sites.a), ['alpha']);
  assert.equal(slugs(sites.b), ['beta']);
  assert.equal(slugs(sites.bg), ['beta', 'gamma']);
  assert.equal(sites.none.tags, []);
  const stored = await app.get(`/api/dcim/sites/${sites.ab.id}/`);
  for (const t of stored.tags) assert.equal(Object.keys(t).sort(), TAG_KEYS);
  const b = stored.tags.find((t: any) => t.slug === 'beta');
  assert.equal(b, { id: beta.id, url: `${app.url}/api/extras/tags/${beta.id}/`, display: 'Beta', name: 'Beta', slug: 'beta', color: 'ff0000' });
});

tags('an unknown tag → 400 on tags', async () => {
  const reply = await app.api('POST', '/api/dcim/sites/', { name: 'Bad Tag', slug: 'bad-tag', tags: [{ slug: 'no-such-tag' }] });
  expectStatus(reply, 400);
  fieldError(reply, 'tags');
  const byId = await app.api('POST', '/api/dcim/sites/', { name: 'Bad Tag', slug: 'bad-tag', tags: [999999] });
  expectStatus(byId, 400);
  fieldError(byId, 'tags');
});

tags('?tag=a&tag=b returns only objects carrying both; tag__n excludes', async () => {
  const mine = new Set(Object.values(sites).map((s) => s.id));
  const names = async (params: string) => (await app.get(`/api/dcim/sites/?limit=1000&${params}`)).results.filter((r: any) => mine.has(r.id)).map((r: any) => r.slug).sort();
  assert.equal(await names('tag=alpha&tag=beta'), ['tagged-ab']);
  assert.equal(await names('tag=beta'), ['tagged-ab', 'tagged-b', 'tagged-bg']);
  assert.equal(await names('tag=beta&tag=gamma'), ['tagged-bg']);
  assert.equal(await names('tag__n=alpha'), ['tagged-b', 'tagged-bg', 'untagged']);
  assert.equal(await names('tag=beta&tag__n=alpha'), ['tagged-b', 'tagged-bg']);
});

tags('PATCH without tags leaves them; tags: [] clears them', async () => {
  const kept = await app.patch(`/api/dcim/sites/${sites.ab.id}/`, { description: 'still tagged' });
  assert.equal(kept.tags.map((t: any) => t.slug).sort(), ['alpha', 'beta']);
  const replaced = await app.patch(`/api/dcim/sites/${sites.bg.id}/`, { tags: [{ slug: 'alpha' }] });
  assert.equal(replaced.tags.map((t: any) => t.slug), ['alpha']);
  const cleared = await app.patch(`/api/dcim/sites/${sites.ab.id}/`, { tags: [] });
  assert.equal(cleared.tags, []);
  assert.equal((await app.get(`/api/dcim/sites/${sites.ab.id}/`)).tags, []);
  assert.not.ok((await ids('/api/dcim/sites/?tag=alpha')).includes(sites.ab.id));
});

tags('tagged_items counts the objects carrying each tag, across models', async () => {
  // alpha: Tagged A, Tagged BG (replaced); beta: Tagged B; gamma: none
  const count = async (t: any) => (await app.get(`/api/extras/tags/${t.id}/`)).tagged_items;
  assert.is(await count(alpha), 2);
  assert.is(await count(beta), 1);
  assert.is(await count(gamma), 0);
  const { type, role } = await kit();
  await app.post('/api/dcim/devices/', { name: 'tagged-device', device_type: type.id, role: role.id, site: sites.none.id, tags: [{ slug: 'gamma' }] });
  assert.is(await count(gamma), 1);
  const listed = (await app.get('/api/extras/tags/?limit=1000')).results;
  assert.is(listed.find((t: any) => t.id === alpha.id).tagged_items, 2);
  // deleting a tagged object forgets its tags
  expectStatus(await app.api('DELETE', `/api/dcim/sites/${sites.a.id}/`), 204);
  assert.is(await count(alpha), 1);
});

tags.run();

// ---------------------------------------------------------------------------------------------
const trees = suite('region trees');
const R = '/api/dcim/regions/';
const regions: Record<string, any> = {};
const treeSites: any[] = [];
trees.before(async () => {
  await boot();
  regions.europe = await app.post(R, { name: 'Europe', slug: 'europe' });
  regions.france = await app.post(R, { name: 'France', slug: 'france', parent: regions.europe.id });
  regions.paris = await app.post(R, { name: 'Paris', slug: 'paris', parent: { slug: 'france' } });
  regions.belgium = await app.post(R, { name: 'Belgium', slug: 'belgium', parent: regions.europe.id });
  regions.asia = await app.post(R, { name: 'Asia', slug: 'asia' });
  regions.japan = await app.post(R, { name: 'Japan', slug: 'japan', parent: regions.asia.id });
  treeSites.push(await app.post('/api/dcim/sites/', { name: 'Paris 1', slug: 'paris-1', region: regions.paris.id }));
  treeSites.push(await app.post('/api/dcim/sites/', { name: 'Paris 2', slug: 'paris-2', region: { slug: 'paris' } }));
});

const treeIds = () => new Set(Object.values(regions).map((r) => r.id));
async function region(name: string): Promise<any> {
  return app.get(`${R}${regions[name].id}/`);
}

trees('_depth is 0 for roots and grows by one per generation', async () => {
  assert.is((await region('europe'))._depth, 0);
  assert.is((await region('france'))._depth, 1);
  assert.is((await region('paris'))._depth, 2);
  assert.is((await region('asia'))._depth, 0);
  assert.is(regions.paris._depth, 2, 'the create response shows it too');
  assert.is((await app.get(`${R}${regions.paris.id}/?brief=1`))._depth, 2);
  assert.is((await region('paris')).parent.id, regions.france.id);
});

trees('the list is in tree order: depth first, siblings by name', async () => {
  const mine = treeIds();
  const order = (await app.get(`${R}?limit=1000`)).results.filter((r: any) => mine.has(r.id)).map((r: any) => r.name);
  assert.equal(order, ['Asia', 'Japan', 'Europe', 'Belgium', 'France', 'Paris']);
});

trees('site_count is cumulative; region_id on sites includes descendants', async () => {
  assert.is((await region('paris')).site_count, 2);
  assert.is((await region('france')).site_count, 2);
  assert.is((await region('europe')).site_count, 2);
  assert.is((await region('belgium')).site_count, 0);
  assert.is((await region('asia')).site_count, 0);
  const listed = (await app.get(`${R}?limit=1000`)).results.find((r: any) => r.id === regions.europe.id);
  assert.is(listed.site_count, 2);
  const brief = (await app.get(`${R}?brief=1&limit=1000`)).results.find((r: any) => r.id === regions.europe.id);
  assert.is(brief.site_count, 2);
  const want = treeSites.map((s) => s.id).sort();
  assert.equal((await ids(`/api/dcim/sites/?region_id=${regions.europe.id}`)).sort(), want);
  assert.equal((await ids('/api/dcim/sites/?region=europe')).sort(), want);
  assert.equal((await ids(`/api/dcim/sites/?region_id=${regions.paris.id}`)).sort(), want);
  assert.equal(await ids(`/api/dcim/sites/?region_id=${regions.asia.id}`), []);
  assert.equal(await ids(`/api/dcim/sites/?region_id=${regions.belgium.id}`), []);
  assert.not.ok((await ids(`/api/dcim/sites/?region_id__n=${regions.europe.id}`)).some((id) => want.includes(id)));
});

trees('parent_id on regions is direct children only', async () => {
  const children = await ids(`${R}?parent_id=${regions.europe.id}`);
  assert.equal(children.sort(), [regions.belgium.id, regions.france.id].sort());
  assert.equal(await ids(`${R}?parent_id=${regions.france.id}`), [regions.paris.id]);
  assert.equal((await ids(`${R}?parent=europe`)).sort(), [regions.belgium.id, regions.france.id].sort());
});

trees('a node may not become its own child or its descendant\'s child', async () => {
  const self = await app.api('PATCH', `${R}${regions.europe.id}/`, { parent: regions.europe.id });
  expectStatus(self, 400, 'self as parent:');
  fieldError(self, 'parent');
  const cycle = await app.api('PATCH', `${R}${regions.europe.id}/`, { parent: regions.paris.id });
  expectStatus(cycle, 400, 'a descendant as parent:');
  fieldError(cycle, 'parent');
  const child = await app.api('PATCH', `${R}${regions.france.id}/`, { parent: regions.paris.id });
  expectStatus(child, 400, 'a child as parent:');
  assert.is((await region('europe')).parent, null, 'unchanged');
  assert.is((await region('europe'))._depth, 0);
});

trees('moving a subtree updates depth, counts, order and filters', async () => {
  await app.patch(`${R}${regions.france.id}/`, { parent: regions.asia.id });
  assert.is((await region('france'))._depth, 1);
  assert.is((await region('paris'))._depth, 2);
  assert.is((await region('asia')).site_count, 2);
  assert.is((await region('europe')).site_count, 0);
  const want = treeSites.map((s) => s.id).sort();
  assert.equal((await ids(`/api/dcim/sites/?region_id=${regions.asia.id}`)).sort(), want);
  assert.equal(await ids(`/api/dcim/sites/?region_id=${regions.europe.id}`), []);
  // one level deeper: under Japan, France is at depth 2 and Paris at 3
  await app.patch(`${R}${regions.france.id}/`, { parent: regions.japan.id });
  assert.is((await region('france'))._depth, 2);
  assert.is((await region('paris'))._depth, 3);
  assert.is((await region('japan')).site_count, 2);
  const mine = treeIds();
  const order = (await app.get(`${R}?limit=1000`)).results.filter((r: any) => mine.has(r.id)).map((r: any) => `${r.name}:${r._depth}`);
  assert.equal(order, ['Asia:0', 'Japan:1', 'France:2', 'Paris:3', 'Europe:0', 'Belgium:1']);
  // renaming re-sorts siblings
  await app.patch(`${R}${regions.belgium.id}/`, { name: 'Zeeland' });
  await app.post(R, { name: 'Austria', slug: 'austria', parent: regions.europe.id }).then((r) => { regions.austria = r; });
  const after = (await app.get(`${R}?limit=1000`)).results.filter((r: any) => treeIds().has(r.id)).map((r: any) => r.name);
  assert.equal(after, ['Asia', 'Japan', 'France', 'Paris', 'Europe', 'Austria', 'Zeeland']);
  // renaming a node with descendants moves the whole subtree in the order
  await app.patch(`${R}${regions.asia.id}/`, { name: 'Zulu' });
  const renamed = (await app.get(`${R}?limit=1000`)).results.filter((r: any) => treeIds().has(r.id)).map((r: any) => r.name);
  assert.equal(renamed, ['Europe', 'Austria', 'Zeeland', 'Zulu', 'Japan', 'France', 'Paris']);
  // and back to a root
  await app.patch(`${R}${regions.france.id}/`, { parent: null });
  assert.is((await region('france'))._depth, 0);
  assert.is((await region('paris'))._depth, 1);
  await app.patch(`${R}${regions.france.id}/`, { parent: regions.japan.id });
});

trees('deleting a root deletes its subtree; the sites stay, without a region', async () => {
  expectStatus(await app.api('DELETE', `${R}${regions.asia.id}/`), 204);
  for (const name of ['asia', 'japan', 'france', 'paris']) {
    expectStatus(await app.api('GET', `${R}${regions[name].id}/`), 404, `${name} deleted with its ancestor:`);
  }
  for (const s of treeSites) {
    const site = await app.get(`/api/dcim/sites/${s.id}/`);
    assert.is(site.region, null);
  }
  expectStatus(await app.api('GET', `${R}${regions.europe.id}/`), 200, 'the other tree stays:');
  expectStatus(await app.api('GET', `${R}${regions.austria.id}/`), 200);
  // a leaf with a site can be deleted too: the site loses its region
  const leaf = await app.post(R, { name: 'Brussels', slug: 'brussels', parent: regions.europe.id });
  const site = await app.post('/api/dcim/sites/', { name: 'Brussels 1', slug: 'brussels-1', region: leaf.id });
  expectStatus(await app.api('DELETE', `${R}${leaf.id}/`), 204);
  assert.is((await app.get(`/api/dcim/sites/${site.id}/`)).region, null);
  assert.is((await region('europe')).site_count, 0);
});

trees.run();

// ---------------------------------------------------------------------------------------------
const counts = suite('reverse counts');
counts.before(boot);

counts('site device_count, manufacturer devicetype_count, tenant site_count', async () => {
  const tenant = await app.post('/api/tenancy/tenants/', { name: 'Counting Tenant', slug: 'counting-tenant' });
  const busy = await app.post('/api/dcim/sites/', { name: 'Busy Site', slug: 'busy-site', tenant: tenant.id });
  const idle = await app.post('/api/dcim/sites/', { name: 'Idle Site', slug: 'idle-site', tenant: { slug: 'counting-tenant' } });
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'Counter Corp', slug: 'counter-corp' });
  const t1 = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'C1', slug: 'c1' });
  await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'C2', slug: 'c2' });
  const { role } = await kit();
  const made = await app.post('/api/dcim/devices/', [1, 2, 3].map((n) => ({ name: `counted-${n}`, device_type: t1.id, role: role.id, site: busy.id })));
  assert.is((await app.get(`/api/dcim/sites/${busy.id}/`)).device_count, 3);
  assert.is((await app.get(`/api/dcim/sites/${idle.id}/`)).device_count, 0);
  const listed = (await app.get('/api/dcim/sites/?limit=1000')).results;
  assert.is(listed.find((s: any) => s.id === busy.id).device_count, 3);
  assert.is(listed.find((s: any) => s.id === idle.id).device_count, 0);
  assert.is((await app.get(`/api/dcim/manufacturers/${maker.id}/`)).devicetype_count, 2);
  assert.is((await app.get(`/api/dcim/manufacturers/${maker.id}/?brief=1`)).devicetype_count, 2);
  assert.is((await app.get(`/api/tenancy/tenants/${tenant.id}/`)).site_count, 2);
  // counts follow deletes and moves
  expectStatus(await app.api('DELETE', `/api/dcim/devices/${made[0].id}/`), 204);
  await app.patch(`/api/dcim/devices/${made[1].id}/`, { site: idle.id });
  assert.is((await app.get(`/api/dcim/sites/${busy.id}/`)).device_count, 1);
  assert.is((await app.get(`/api/dcim/sites/${idle.id}/`)).device_count, 1);
  await app.patch(`/api/dcim/sites/${idle.id}/`, { tenant: null });
  assert.is((await app.get(`/api/tenancy/tenants/${tenant.id}/`)).site_count, 1);
  assert.is((await app.get(`/api/dcim/device-types/${t1.id}/`)).device_count, 2);
});

counts('interface count_ipaddresses', async () => {
  const { type, role } = await kit();
  const site = await app.post('/api/dcim/sites/', { name: 'IP Count Site', slug: 'ip-count-site' });
  const d = await app.post('/api/dcim/devices/', { name: 'ip-counter', device_type: type.id, role: role.id, site: site.id });
  const [busy, idle] = await app.post('/api/dcim/interfaces/', [
    { device: d.id, name: 'et-0/0/0', type: '1000base-t' },
    { device: d.id, name: 'et-0/0/1', type: '1000base-t' },
  ]);
  await app.post('/api/ipam/ip-addresses/', ['198.51.100.1/24', '198.51.100.2/24'].map((address) => ({ address, assigned_object_type: 'dcim.interface', assigned_object_id: busy.id })));
  await app.post('/api/ipam/ip-addresses/', { address: '198.51.100.3/24' });
  assert.is((await app.get(`/api/dcim/interfaces/${busy.id}/`)).count_ipaddresses, 2);
  assert.is((await app.get(`/api/dcim/interfaces/${idle.id}/`)).count_ipaddresses, 0);
  const listed = (await app.get(`/api/dcim/interfaces/?device_id=${d.id}`)).results;
  assert.equal(listed.map((i: any) => [i.name, i.count_ipaddresses]), [['et-0/0/0', 2], ['et-0/0/1', 0]]);
});

counts('vlan group vlan_count', async () => {
  const group = await app.post('/api/ipam/vlan-groups/', { name: 'Counted VLANs', slug: 'counted-vlans' });
  const empty = await app.post('/api/ipam/vlan-groups/', { name: 'Empty VLANs', slug: 'empty-vlans' });
  const vlans = await app.post('/api/ipam/vlans/', [10, 20, 30].map((vid) => ({ vid, name: `v${vid}`, group: group.id })));
  await app.post('/api/ipam/vlans/', { vid: 40, name: 'v40' });
  assert.is((await app.get(`/api/ipam/vlan-groups/${group.id}/`)).vlan_count, 3);
  assert.is((await app.get(`/api/ipam/vlan-groups/${empty.id}/`)).vlan_count, 0);
  const brief = (await app.get('/api/ipam/vlan-groups/?brief=1&limit=1000')).results;
  assert.is(brief.find((g: any) => g.id === group.id).vlan_count, 3);
  assert.is(brief.find((g: any) => g.id === empty.id).vlan_count, 0);
  await app.patch(`/api/ipam/vlans/${vlans[0].id}/`, { group: empty.id });
  assert.is((await app.get(`/api/ipam/vlan-groups/${group.id}/`)).vlan_count, 2);
  assert.is((await app.get(`/api/ipam/vlan-groups/${empty.id}/`)).vlan_count, 1);
});

counts.after(async () => { await app?.stop(); });
counts.run();
