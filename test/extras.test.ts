/**
 * Extras through HTTP: config contexts (merge order, every criterion, region and site-group
 * ancestry, clusters, tags, virtual machines, inactive contexts, local_context_data last, the query
 * budget of a device list),
 * journal entries (created_by, kind, filters, cascade with their object), content types, the
 * status document, the interactive documentation and the schema endpoints.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse as parseYaml } from 'yaml';
import { countQueries } from '../runtime/data/db.js';
import { syncContentTypes } from '../runtime/data/content-types.js';
import { modelList } from '../runtime/data/registry.js';
import { ADMIN_TOKEN, engine, expectStatus, startApp, type Reply, type TestApp } from './helpers.js';

// One service for the whole file, started by the first suite and stopped by the last
// (uvu loads test files as CommonJS, so there is no top-level await).
let starting: Promise<TestApp> | undefined;
let app: TestApp;
async function boot(): Promise<void> {
  app = await (starting ??= startApp());
}

let seq = 0;
const unique = (prefix: string) => `${prefix}-${++seq}`;




const named = (prefix: string) => { const name = unique(prefix); return { name, slug: name }; };

/** Device type and role shared by the devices of this file. */
let kitPromise: Promise<{ type: any; role: any }> | undefined;
function kit(): Promise<{ type: any; role: any }> {
  return (kitPromise ??= (async () => {
    const manufacturer = await app.post('/api/dcim/manufacturers/', named('mfr'));
    const type = await app.post('/api/dcim/device-types/', { manufacturer: manufacturer.id, model: 'CtxBox', slug: 'ctxbox' });
    const role = await app.post('/api/dcim/device-roles/', named('role'));
    return { type, role };
  })());
}

async function site(extra: Record<string, unknown> = {}): Promise<any> {
  return app.post('/api/dcim/sites/', { ...named('site'), ...extra });
}

async function device(extra: Record<string, unknown> = {}): Promise<any> {
  const { type, role } = await kit();
  const s = extra.site ?? (await site()).id;
  return app.post('/api/dcim/devices/', { name: unique('dev'), device_type: type.id, role: role.id, ...extra, site: s });
}

async function context(body: Record<string, unknown>): Promise<any> {
  return app.post('/api/extras/config-contexts/', { name: unique('ctx'), ...body });
}

async function rendered(deviceId: number): Promise<any> {
  return (await app.get(`/api/dcim/devices/${deviceId}/`)).config_context;
}

// ---------------------------------------------------------------------------------------------
const contexts = suite('config contexts');
contexts.before(boot);

contexts('merge order: weight, then name; later contexts win; dicts merge, lists replace', async () => {
  const s = await site();
  const d = await device({ site: s.id });
  await context({ name: 'order-b', weight: 1000, sites: [s.id], data: { a: 'b', nested: { x: 'b', y: 'b' }, list: [1, 2], only_b: true } });
  await context({ name: 'order-a', weight: 1000, sites: [s.id], data: { a: 'a', nested: { x: 'a', z: 'a' }, list: [3] } });
  await context({ name: 'order-z', weight: 10, sites: [s.id], data: { a: 'low', low: 1, nested: { w: 'low' } } });
  assert.equal(await rendered(d.id), {
    a: 'b',
    low: 1,
    nested: { w: 'low', x: 'b', z: 'a', y: 'b' },
    list: [1, 2],
    only_b: true,
  });
  // A heavier weight wins whatever its name.
  await context({ name: 'order-0', weight: 2000, sites: [s.id], data: { a: 'heavy', list: [] } });
  const after = await rendered(d.id);
  assert.is(after.a, 'heavy');
  assert.equal(after.list, []);
});

contexts('inactive contexts are ignored; is_active can be switched', async () => {
  const s = await site();
  const d = await device({ site: s.id });
  const off = await context({ is_active: false, sites: [s.id], data: { off: true } });
  assert.is(off.is_active, false);
  assert.equal(await rendered(d.id), {});
  await app.patch(`/api/extras/config-contexts/${off.id}/`, { is_active: true });
  assert.equal(await rendered(d.id), { off: true });
});

contexts('local_context_data is merged last and wins; an empty dict replaces', async () => {
  const s = await site();
  await context({ sites: [s.id], data: { ntp: { servers: ['a', 'b'], prefer: 'a' }, dns: { domain: 'example.com' }, x: 1 } });
  const d = await device({ site: s.id, local_context_data: { ntp: { servers: ['z'] }, dns: {}, y: 2 } });
  assert.equal(d.config_context, { ntp: { servers: ['z'], prefer: 'a' }, dns: {}, x: 1, y: 2 }, 'POST response renders it too');
  assert.equal(await rendered(d.id), d.config_context);
  const cleared = await app.patch(`/api/dcim/devices/${d.id}/`, { local_context_data: null });
  assert.equal(cleared.config_context, { ntp: { servers: ['a', 'b'], prefer: 'a' }, dns: { domain: 'example.com' }, x: 1 });
});

contexts('regions match the site\'s region and every ancestor of it', async () => {
  const top = await app.post('/api/dcim/regions/', named('region'));
  const middle = await app.post('/api/dcim/regions/', { ...named('region'), parent: top.id });
  const leaf = await app.post('/api/dcim/regions/', { ...named('region'), parent: middle.id });
  const other = await app.post('/api/dcim/regions/', named('region'));
  const d = await device({ site: (await site({ region: leaf.id })).id });
  const elsewhere = await device({ site: (await site({ region: other.id })).id });
  const noRegion = await device();
  await context({ regions: [top.id], data: { from_top: true } });
  await context({ regions: [leaf.id], data: { from_leaf: true } });
  await context({ regions: [other.id], data: { from_other: true } });
  assert.equal(await rendered(d.id), { from_top: true, from_leaf: true });
  assert.equal(await rendered(elsewhere.id), { from_other: true });
  assert.equal(await rendered(noRegion.id), {});
});

contexts('site groups match through ancestors too', async () => {
  const parent = await app.post('/api/dcim/site-groups/', named('sg'));
  const child = await app.post('/api/dcim/site-groups/', { ...named('sg'), parent: parent.id });
  const d = await device({ site: (await site({ group: child.id })).id });
  const outside = await device();
  await context({ site_groups: [parent.id], data: { group: 'parent' } });
  assert.equal(await rendered(d.id), { group: 'parent' });
  assert.equal(await rendered(outside.id), {});
});

contexts('sites, locations, device types, roles, platforms, tenants and tenant groups', async () => {
  const s = await site();
  const location = await app.post('/api/dcim/locations/', { ...named('loc'), site: s.id });
  const manufacturer = await app.post('/api/dcim/manufacturers/', named('mfr'));
  const type = await app.post('/api/dcim/device-types/', { manufacturer: manufacturer.id, model: unique('model'), slug: unique('model') });
  const role = await app.post('/api/dcim/device-roles/', named('role'));
  const platform = await app.post('/api/dcim/platforms/', named('platform'));
  const group = await app.post('/api/tenancy/tenant-groups/', named('tg'));
  const tenant = await app.post('/api/tenancy/tenants/', { ...named('tenant'), group: group.id });
  const d = await device({ site: s.id, location: location.id, device_type: type.id, role: role.id, platform: platform.id, tenant: tenant.id });
  const plain = await device({ site: s.id });
  await context({ locations: [location.id], data: { location: true } });
  await context({ device_types: [type.id], data: { device_type: true } });
  await context({ roles: [role.id], data: { role: true } });
  await context({ platforms: [platform.id], data: { platform: true } });
  await context({ tenants: [tenant.id], data: { tenant: true } });
  await context({ tenant_groups: [group.id], data: { tenant_group: true } });
  await context({ sites: [s.id], data: { site: true } });
  assert.equal(await rendered(d.id), { location: true, device_type: true, role: true, platform: true, tenant: true, tenant_group: true, site: true });
  assert.equal(await rendered(plain.id), { site: true }, 'a device at the same site without the other attributes');
  // Criteria AND across lists, OR inside one list.
  await context({ sites: [s.id], roles: [role.id], data: { both: true } });
  const other = await app.post('/api/dcim/platforms/', named('platform'));
  await context({ platforms: [other.id, platform.id], sites: [s.id], data: { either_platform: true } });
  const now = await rendered(d.id);
  assert.ok(now.both && now.either_platform, JSON.stringify(now));
  const plainNow = await rendered(plain.id);
  assert.not.ok('both' in plainNow || 'either_platform' in plainNow, JSON.stringify(plainNow));
});

contexts('clusters, cluster groups and cluster types; virtual machines get contexts too', async () => {
  const ctype = await app.post('/api/virtualization/cluster-types/', named('ctype'));
  const cgroup = await app.post('/api/virtualization/cluster-groups/', named('cgroup'));
  const s = await site();
  const cluster = await app.post('/api/virtualization/clusters/', { name: unique('cluster'), type: ctype.id, group: cgroup.id, site: s.id });
  const tag = await app.post('/api/extras/tags/', named('vmtag'));
  const location = await app.post('/api/dcim/locations/', { ...named('loc'), site: s.id });
  const d = await device({ site: s.id, cluster: cluster.id, location: location.id });
  const vm = await app.post('/api/virtualization/virtual-machines/', { name: unique('vm'), cluster: cluster.id, site: s.id, tags: [tag.id], local_context_data: { own: 1 } });
  await context({ cluster_types: [ctype.id], data: { cluster_type: true } });
  await context({ cluster_groups: [cgroup.id], data: { cluster_group: true } });
  await context({ clusters: [cluster.id], data: { cluster: true } });
  await context({ tags: [tag.slug], data: { vm_tag: true } });
  await context({ sites: [s.id], data: { site: true } });
  // Contexts naming locations or device types never apply to a virtual machine.
  await context({ sites: [s.id], locations: [location.id], data: { location: true } });
  assert.equal(await rendered(d.id), { cluster_type: true, cluster_group: true, cluster: true, site: true, location: true });
  const vmBody = await app.get(`/api/virtualization/virtual-machines/${vm.id}/`);
  assert.equal(vmBody.config_context, { cluster_type: true, cluster_group: true, cluster: true, vm_tag: true, site: true, own: 1 });
  const listed = await app.get(`/api/virtualization/virtual-machines/?id=${vm.id}&exclude=config_context`);
  assert.not.ok('config_context' in listed.results[0]);
});

contexts('tags: the device must carry one of the context\'s tags (tags written as slugs or ids)', async () => {
  const red = await app.post('/api/extras/tags/', named('red'));
  const blue = await app.post('/api/extras/tags/', named('blue'));
  const green = await app.post('/api/extras/tags/', named('green'));
  const redDevice = await device({ tags: [red.id] });
  const greenDevice = await device({ tags: [{ slug: green.slug }] });
  const bare = await device();
  const ctx = await context({ tags: [red.slug, blue.id], data: { tagged: true } });
  assert.equal(ctx.tags.map((t: any) => t.slug).sort(), [blue.slug, red.slug].sort());
  assert.equal(await rendered(redDevice.id), { tagged: true });
  assert.equal(await rendered(greenDevice.id), {});
  assert.equal(await rendered(bare.id), {});
  // Config contexts filter by their tags like every tagged model.
  const found = await app.get(`/api/extras/config-contexts/?tag=${red.slug}`);
  assert.equal(found.results.map((r: any) => r.id), [ctx.id]);
});

contexts('the representation: m2m criteria as nested objects, defaults, brief', async () => {
  const region = await app.post('/api/dcim/regions/', named('region'));
  const ctx = await context({ regions: [region.id], data: { k: 'v' } });
  assert.is(ctx.weight, 1000);
  assert.is(ctx.is_active, true);
  assert.is(ctx.description, '');
  assert.equal(ctx.data, { k: 'v' });
  assert.is(ctx.regions.length, 1);
  assert.is(ctx.regions[0].id, region.id);
  assert.is(ctx.regions[0].url, `${app.url}/api/dcim/regions/${region.id}/`);
  for (const key of ['site_groups', 'sites', 'locations', 'device_types', 'roles', 'platforms', 'cluster_types', 'cluster_groups', 'clusters', 'tenant_groups', 'tenants', 'tags']) assert.equal(ctx[key], [], key);
  assert.not.ok('custom_fields' in ctx);
  const brief = await app.get(`/api/extras/config-contexts/${ctx.id}/?brief=1`);
  assert.equal(Object.keys(brief).sort(), ['display', 'id', 'name', 'url']);
  assert.is(brief.display, ctx.name);
});

contexts('data must be a JSON object (400 keyed data); weight is bounded', async () => {
  for (const data of [[1, 2], 'text', 5, null]) {
    const reply = await app.api('POST', '/api/extras/config-contexts/', { name: unique('bad'), data });
    expectStatus(reply, 400, `data ${JSON.stringify(data)}`);
    assert.ok(Array.isArray(reply.body.data), reply.text);
  }
  const missing = await app.api('POST', '/api/extras/config-contexts/', { name: unique('bad') });
  expectStatus(missing, 400);
  assert.ok(reply400(missing, 'data'));
  const heavy = await app.api('POST', '/api/extras/config-contexts/', { name: unique('bad'), weight: 40000, data: {} });
  expectStatus(heavy, 400);
  assert.ok(reply400(heavy, 'weight'));
  const ctx = await context({ data: { a: 1 }, sites: [(await site()).id] });
  const bad = await app.api('PATCH', `/api/extras/config-contexts/${ctx.id}/`, { data: [1] });
  expectStatus(bad, 400);
  assert.ok(reply400(bad, 'data'));
});

function reply400(reply: Reply, field: string): boolean {
  return Array.isArray(reply.body?.[field]) && reply.body[field].length > 0;
}

contexts('?exclude=config_context and ?brief=1 leave it out; lists render it per device', async () => {
  const s = await site();
  await context({ sites: [s.id], data: { listed: s.id } });
  const a = await device({ site: s.id });
  const b = await device({ site: s.id, local_context_data: { own: true } });
  const list = await app.get(`/api/dcim/devices/?site_id=${s.id}`);
  const byId = new Map(list.results.map((r: any) => [r.id, r.config_context]));
  assert.equal(byId.get(a.id), { listed: s.id });
  assert.equal(byId.get(b.id), { listed: s.id, own: true });
  const excluded = await app.get(`/api/dcim/devices/?site_id=${s.id}&exclude=config_context`);
  for (const r of excluded.results) assert.not.ok('config_context' in r);
  assert.not.ok('config_context' in (await app.get(`/api/dcim/devices/${a.id}/?exclude=config_context`)));
  assert.not.ok('config_context' in (await app.get(`/api/dcim/devices/${a.id}/?brief=1`)));
});

contexts('a list of 1,000 devices with several contexts costs the same queries as a list of one', async () => {
  const region = await app.post('/api/dcim/regions/', named('region'));
  const child = await app.post('/api/dcim/regions/', { ...named('region'), parent: region.id });
  const group = await app.post('/api/dcim/site-groups/', named('sg'));
  const s = await site({ region: child.id, group: group.id });
  const tg = await app.post('/api/tenancy/tenant-groups/', named('tg'));
  const tenant = await app.post('/api/tenancy/tenants/', { ...named('tenant'), group: tg.id });
  const tag = await app.post('/api/extras/tags/', named('bulk'));
  const platform = await app.post('/api/dcim/platforms/', named('platform'));
  const { type, role } = await kit();
  const inputs = Array.from({ length: 1001 }, (_, i) => ({ name: `bulk-${i}`, device_type: type.id, role: role.id, site: s.id, tenant: tenant.id, platform: platform.id, tags: [tag.id], local_context_data: { index: i } }));
  const created = await app.api('POST', '/api/dcim/devices/', inputs);
  expectStatus(created, 201);
  await context({ regions: [region.id], data: { region: 1 } });
  await context({ site_groups: [group.id], weight: 10, data: { group: 1 } });
  await context({ tenant_groups: [tg.id], tenants: [tenant.id], data: { tenant: 1 } });
  await context({ tags: [tag.slug], platforms: [platform.id], data: { tagged: 1 } });
  await context({ sites: [s.id], device_types: [type.id], roles: [role.id], data: { site: 1 } });
  await context({ is_active: false, sites: [s.id], data: { inactive: 1 } });

  const measure = async (limit: number) => {
    const path = `/api/dcim/devices/?site_id=${s.id}&limit=${limit}&offset=1`;
    let best = Infinity;
    let body: any;
    for (let i = 0; i < 2; i++) {
      const counter = countQueries(app.running.db);
      const reply = await app.api('GET', path);
      counter.stop();
      expectStatus(reply, 200, path);
      best = Math.min(best, counter.count);
      body = reply.body;
    }
    return { count: best, body };
  };
  const one = await measure(1);
  const many = await measure(1000);
  assert.is(one.body.results.length, 1);
  assert.is(many.body.results.length, 1000);
  assert.is(many.count, one.count, `${one.count} queries for one device, ${many.count} for 1,000`);
  for (const r of many.body.results) {
    assert.equal(r.config_context, { group: 1, region: 1, site: 1, tagged: 1, tenant: 1, index: Number(r.name.slice(5)) });
  }
});

contexts.run();

// ---------------------------------------------------------------------------------------------
const journal = suite('journal entries');
journal.before(boot);

journal('created_by is the requesting user; created is a date-time; kind defaults to info', async () => {
  const s = await site();
  const entry = await app.post('/api/extras/journal-entries/', { assigned_object_type: 'dcim.site', assigned_object_id: s.id, comments: 'Rack delivered' });
  const admin = (await app.get('/api/users/users/?username=admin')).results[0];
  assert.is(entry.created_by.id, admin.id);
  assert.is(entry.created_by.username, 'admin');
  assert.match(entry.created, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+Z$/);
  assert.is(entry.last_updated, entry.created);
  assert.equal(entry.kind, { value: 'info', label: 'Info' });
  assert.is(entry.assigned_object_type, 'dcim.site');
  assert.is(entry.assigned_object_id, s.id);
  assert.is(entry.assigned_object.id, s.id);
  assert.is(entry.assigned_object.url, `${app.url}/api/dcim/sites/${s.id}/`);
  assert.equal(entry.tags, []);
  assert.equal(entry.custom_fields, {});
  assert.is(entry.display, `${entry.created} (info)`);
  const brief = await app.get(`/api/extras/journal-entries/${entry.id}/?brief=1`);
  assert.equal(Object.keys(brief).sort(), ['created', 'display', 'id', 'url']);
  const changed = await app.patch(`/api/extras/journal-entries/${entry.id}/`, { kind: 'warning' });
  assert.equal(changed.kind, { value: 'warning', label: 'Warning' });
  assert.is(changed.created, entry.created, 'created stays');
  assert.is(changed.created_by.id, admin.id, 'created_by stays');
  assert.ok(changed.last_updated >= entry.created);
});

journal('created_by may be given explicitly; validation of the assigned object', async () => {
  const user = await app.post('/api/users/users/', { username: unique('author'), password: 'long-enough-password' });
  const s = await site();
  const entry = await app.post('/api/extras/journal-entries/', { assigned_object_type: 'dcim.site', assigned_object_id: s.id, comments: 'x', created_by: user.id, kind: 'danger' });
  assert.is(entry.created_by.id, user.id);
  const missing = await app.api('POST', '/api/extras/journal-entries/', { comments: 'nothing assigned' });
  expectStatus(missing, 400);
  const gone = await app.api('POST', '/api/extras/journal-entries/', { assigned_object_type: 'dcim.site', assigned_object_id: 999999, comments: 'x' });
  expectStatus(gone, 400);
  const badType = await app.api('POST', '/api/extras/journal-entries/', { assigned_object_type: 'dcim.nothing', assigned_object_id: s.id, comments: 'x' });
  expectStatus(badType, 400);
  const noComments = await app.api('POST', '/api/extras/journal-entries/', { assigned_object_type: 'dcim.site', assigned_object_id: s.id });
  expectStatus(noComments, 400);
  assert.ok(reply400(noComments, 'comments'));
  const badKind = await app.api('POST', '/api/extras/journal-entries/', { assigned_object_type: 'dcim.site', assigned_object_id: s.id, comments: 'x', kind: 'loud' });
  expectStatus(badKind, 400);
  assert.ok(reply400(badKind, 'kind'));
});

journal('filters: assigned object, kind, created_by, created_after/before, content type id, q', async () => {
  const s = await site();
  const d = await device();
  const a = await app.post('/api/extras/journal-entries/', { assigned_object_type: 'dcim.site', assigned_object_id: s.id, comments: 'alpha note', kind: 'success' });
  const b = await app.post('/api/extras/journal-entries/', { assigned_object_type: 'dcim.device', assigned_object_id: d.id, comments: 'beta note' });
  const ids = async (query: string) => (await app.get(`/api/extras/journal-entries/?limit=1000&${query}`)).results.map((r: any) => r.id);
  assert.equal(await ids(`assigned_object_type=dcim.site&assigned_object_id=${s.id}`), [a.id]);
  assert.equal(await ids(`assigned_object_type=dcim.device&assigned_object_id=${d.id}`), [b.id]);
  assert.ok((await ids('kind=success')).includes(a.id));
  assert.not.ok((await ids('kind=success')).includes(b.id));
  assert.ok((await ids('created_by=admin')).includes(b.id));
  assert.ok((await ids(`created_after=${encodeURIComponent(a.created)}`)).includes(b.id));
  assert.not.ok((await ids('created_before=2000-01-01')).includes(a.id));
  expectStatus(await app.api('GET', '/api/extras/journal-entries/?created_after=yesterday'), 400);
  const types = (await app.get('/api/extras/content-types/?app_label=dcim&model=device')).results;
  assert.equal(await ids(`assigned_object_type_id=${types[0].id}&assigned_object_id=${d.id}`), [b.id]);
  assert.equal(await ids('q=ALPHA'), [a.id]);
  // Newest first.
  const all = await ids('');
  assert.ok(all.indexOf(b.id) < all.indexOf(a.id), 'ordered by -created');
});

journal('entries are deleted with their object', async () => {
  const s = await site();
  const entry = await app.post('/api/extras/journal-entries/', { assigned_object_type: 'dcim.site', assigned_object_id: s.id, comments: 'goes away' });
  const other = await app.post('/api/extras/journal-entries/', { assigned_object_type: 'dcim.site', assigned_object_id: (await site()).id, comments: 'stays' });
  expectStatus(await app.api('DELETE', `/api/dcim/sites/${s.id}/`), 204);
  expectStatus(await app.api('GET', `/api/extras/journal-entries/${entry.id}/`), 404);
  expectStatus(await app.api('GET', `/api/extras/journal-entries/${other.id}/`), 200);
  // Objects deleted through a cascade take their entries too.
  const parent = await site();
  const location = await app.post('/api/dcim/locations/', { ...named('loc'), site: parent.id });
  const onLocation = await app.post('/api/extras/journal-entries/', { assigned_object_type: 'dcim.location', assigned_object_id: location.id, comments: 'cascade' });
  expectStatus(await app.api('DELETE', `/api/dcim/sites/${parent.id}/`), 204);
  expectStatus(await app.api('GET', `/api/extras/journal-entries/${onLocation.id}/`), 404);
});

journal.run();

// ---------------------------------------------------------------------------------------------
const types = suite('content types');
types.before(boot);

types('every model, ordered by app_label and model, paginated, with stable ids', async () => {
  const list = await app.get('/api/extras/content-types/?limit=1000');
  assert.is(list.count, modelList.length);
  const keys = list.results.map((r: any) => `${r.app_label}.${r.model}`);
  assert.equal(keys, [...keys].sort((a: string, b: string) => a.localeCompare(b)));
  assert.equal(new Set(keys), new Set(modelList.map((m) => m.definition.contentType)));
  const device = list.results.find((r: any) => r.app_label === 'dcim' && r.model === 'device');
  assert.equal(device, { id: device.id, url: `${app.url}/api/extras/content-types/${device.id}/`, display: 'DCIM | device', app_label: 'dcim', model: 'device' });
  const prefix = list.results.find((r: any) => r.app_label === 'ipam' && r.model === 'prefix');
  assert.is(prefix.display, 'IPAM | prefix');
  assert.equal(await app.get(`/api/extras/content-types/${device.id}/`), device);
  const page = await app.get('/api/extras/content-types/?limit=2');
  assert.is(page.results.length, 2);
  assert.ok(page.next.includes('offset=2'));
  // Starting again keeps every id; a type that went missing comes back with a new one.
  const before = new Map(list.results.map((r: any) => [`${r.app_label}.${r.model}`, r.id]));
  await syncContentTypes(app.running.db);
  await app.running.db('extras_contenttype').where({ app_label: 'ipam', model: 'prefix' }).delete();
  await syncContentTypes(app.running.db);
  const after = (await app.get('/api/extras/content-types/?limit=1000')).results;
  for (const r of after) {
    if (r.app_label === 'ipam' && r.model === 'prefix') assert.ok(r.id > Math.max(...before.values() as Iterable<number>), 'a new id');
    else assert.is(r.id, before.get(`${r.app_label}.${r.model}`), `${r.app_label}.${r.model} keeps its id`);
  }
});

types('filters: id, app_label, model, q; read-only', async () => {
  const dcim = await app.get('/api/extras/content-types/?app_label=dcim&limit=1000');
  assert.ok(dcim.results.length > 5);
  assert.ok(dcim.results.every((r: any) => r.app_label === 'dcim'));
  const site = await app.get('/api/extras/content-types/?app_label=dcim&model=site');
  assert.is(site.count, 1);
  assert.equal((await app.get(`/api/extras/content-types/?id=${site.results[0].id}`)).results, site.results);
  const q = await app.get('/api/extras/content-types/?q=ipaddr');
  assert.equal(q.results.map((r: any) => `${r.app_label}.${r.model}`), ['ipam.ipaddress']);
  expectStatus(await app.api('POST', '/api/extras/content-types/', { app_label: 'x', model: 'y' }), 405);
  expectStatus(await app.api('DELETE', `/api/extras/content-types/${site.results[0].id}/`), 405);
});

types('any authenticated user may read them; anonymous readers need EXEMPT_VIEW_PERMISSIONS', async () => {
  const anonymous = await app.api('GET', '/api/extras/content-types/', undefined, { token: null });
  expectStatus(anonymous, 403);
  const user = await app.post('/api/users/users/', { username: unique('reader'), password: 'long-enough-password' });
  const token = await app.post('/api/users/tokens/', { user: user.id, write_enabled: false });
  expectStatus(await app.api('GET', '/api/extras/content-types/', undefined, { token: token.key }), 200);
  const open = await startApp({ EXEMPT_VIEW_PERMISSIONS: 'contenttypes.contenttype' });
  try {
    expectStatus(await open.api('GET', '/api/extras/content-types/', undefined, { token: null }), 200);
    expectStatus(await open.api('GET', '/api/dcim/sites/', undefined, { token: null }), 403);
  } finally {
    await open.stop();
  }
});

types.run();

// ---------------------------------------------------------------------------------------------
const service = suite('status, documentation and schema');
service.before(boot);

service('/api/status/ reports versions, the database and the workers, without a token', async () => {
  const reply = await app.api('GET', '/api/status/', undefined, { token: null });
  expectStatus(reply, 200);
  const body = reply.body;
  assert.is(body['netbox-version'], '3.7.8');
  assert.match(body['netledger-version'], /^\d+\.\d+\.\d+/);
  assert.is(body.database, engine === 'postgres' ? 'postgresql' : 'sqlite');
  assert.type(body['rq-workers-running'], 'number');
  assert.equal(body.plugins, {});
  for (const name of ['netledger', 'knex', 'koa']) assert.match(body['installed-apps'][name], /^\d+\.\d+/, name);
  assert.equal(Object.keys(body['installed-apps']), Object.keys(body['installed-apps']).sort());
  // nb_inventory asks without the trailing slash.
  const bare = await app.api('GET', '/api/status', undefined, { redirect: 'manual' });
  assert.ok([301, 302].includes(bare.status), `status ${bare.status}`);
  assert.match(bare.headers.get('location') ?? '', /\/api\/status\/$/);
  const followed = await app.api('GET', '/api/status', undefined, { redirect: 'follow' });
  expectStatus(followed, 200);
  assert.is(followed.body['netbox-version'], '3.7.8');
});

service('/api/plugins/ is an empty root', async () => {
  assert.equal(await app.get('/api/plugins/'), {});
  assert.ok((await app.get('/api/')).plugins.endsWith('/api/plugins/'));
});

service('/api/docs/ serves Swagger UI from local files, without a token', async () => {
  const page = await app.api('GET', '/api/docs/', undefined, { token: null, headers: { Accept: 'text/html' } });
  expectStatus(page, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(page.text, /swagger-ui/i);
  assert.not.match(page.text, /https?:\/\//, 'no external URL');
  const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  assert.ok(assets.some((a) => a.endsWith('swagger-ui-bundle.js')));
  for (const asset of assets) {
    const reply = await app.api('GET', new URL(asset, `${app.url}/api/docs/`).pathname, undefined, { token: null });
    expectStatus(reply, 200, asset);
    assert.ok(reply.text.length > 100, `${asset} has content`);
  }
  const bundle = await app.api('GET', '/api/docs/static/swagger-ui-bundle.js', undefined, { token: null });
  assert.match(bundle.headers.get('content-type') ?? '', /javascript/);
  expectStatus(await app.api('GET', '/api/docs/static/package.json', undefined, { token: null }), 404);
  expectStatus(await app.api('GET', '/api/docs/static/..%2Fpackage.json', undefined, { token: null }), 404);
});

service('the OpenAPI document: /api/schema/ (JSON, YAML) and /api/docs/?format=openapi, without a token', async () => {
  const json = await app.api('GET', '/api/schema/?format=json', undefined, { token: null });
  expectStatus(json, 200);
  assert.is(json.body.openapi, '3.1.0');
  const parameters = json.body.paths['/api/dcim/devices/'].get.parameters.map((p: any) => p.name);
  for (const name of ['site_id', 'site', 'role_id', 'tag', 'q', 'name__ic', 'id__gte', 'limit', 'offset', 'exclude']) assert.ok(parameters.includes(name), name);
  assert.ok(json.body.paths['/api/extras/config-contexts/']);
  assert.ok(json.body.paths['/api/extras/journal-entries/{id}/']);
  const legacy = await app.api('GET', '/api/docs/?format=openapi', undefined, { token: null });
  expectStatus(legacy, 200);
  assert.equal(legacy.body, json.body);
  const plain = await app.api('GET', '/api/schema/', undefined, { token: null });
  assert.equal(plain.body, json.body);
  const yaml = await app.api('GET', '/api/schema/?format=yaml', undefined, { token: null });
  expectStatus(yaml, 200);
  assert.not.match(yaml.headers.get('content-type') ?? '', /json/);
  assert.equal(parseYaml(yaml.text), json.body);
  const negotiated = await app.api('GET', '/api/schema/', undefined, { token: null, headers: { Accept: 'application/yaml' } });
  assert.equal(parseYaml(negotiated.text), json.body);
  // A token is accepted too.
  expectStatus(await app.api('GET', '/api/schema/', undefined, { token: ADMIN_TOKEN }), 200);
});

service.after(() => app.stop());
service.run();
