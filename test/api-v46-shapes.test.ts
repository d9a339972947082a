/**
 * NetBox 4.6's shapes beside 3.7's, through HTTP on one database: webhook bodies in the version a
 * webhook names (a real receiver here on 127.0.0.1), and the 3.7 shape left as it was.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import { engine, expectStatus, startApp, type TestApp } from './helpers.js';

interface Received { path: string; body: any }

const test = suite<{ app: TestApp; server: Server; received: Received[]; port: number; type: any; site: any; role: any }>(`api 4.6 shapes (${engine})`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(what: string, fn: () => T | undefined | false): Promise<T> {
  const until = Date.now() + 20_000;
  for (;;) {
    const value = fn();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

test.before(async (ctx) => {
  ctx.received = [];
  ctx.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      ctx.received.push({ path: req.url ?? '/', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => ctx.server.listen(0, '127.0.0.1', () => resolve()));
  ctx.port = (ctx.server.address() as { port: number }).port;
  ctx.app = await startApp({ WEBHOOK_RETRY_SCHEDULE: '1,1', WEBHOOK_TIMEOUT: '10' });
  const { app } = ctx;
  ctx.site = await app.post('/api/dcim/sites/', { name: 'Shapes', slug: 'shapes', description: 'the site' });
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'ShapeMaker', slug: 'shapemaker' });
  ctx.type = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'ShapeBox', slug: 'shapebox' });
  ctx.role = await app.post('/api/dcim/device-roles/', { name: 'Edge', slug: 'edge' });
});

test.after(async ({ app, server }) => {
  await app?.stop();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
});

test('a webhook says which version its body takes: 3.7 by default, 4.6 when it asks', async ({ app, port, received, site, type, role }) => {
  const url = (path: string) => `http://127.0.0.1:${port}${path}`;
  const old = await app.post('/api/extras/webhooks/', { name: 'to-37', payload_url: url('/37') });
  assert.equal(old.api_version, { value: '3.7', label: 'NetBox 3.7' }, 'the default');
  const wrong = await app.api('POST', '/api/extras/webhooks/', { name: 'to-99', payload_url: url('/99'), api_version: '9.9' });
  expectStatus(wrong, 400);
  assert.ok(wrong.body.api_version, wrong.text);
  const now = await app.post('/v4.6/api/extras/webhooks/', { name: 'to-46', payload_url: url('/46'), api_version: '4.6' });
  assert.is(now.api_version.value, '4.6');
  for (const hook of [old, now]) {
    await app.post('/api/extras/event-rules/', {
      name: `rule-${hook.name}`, content_types: ['dcim.device'], type_create: true, type_update: true, type_delete: true,
      action_type: 'webhook', action_object_type: 'extras.webhook', action_object_id: hook.id,
    });
  }
  const device = await app.post('/api/dcim/devices/', { name: 'hooked', site: site.id, device_type: type.id, role: role.id });
  const [a, b] = await waitFor('both created events', () => {
    const a = received.find((r) => r.path === '/37' && r.body.event === 'created');
    const b = received.find((r) => r.path === '/46' && r.body.event === 'created');
    return a && b && [a.body, b.body];
  });
  assert.is(a.data.device_role.slug, 'edge', '3.7 has device_role');
  assert.not.ok('display_url' in a.data);
  assert.is(a.data.created.length, 10, '3.7 created is a date');
  assert.equal(Object.keys(a.data.site).sort(), ['display', 'id', 'name', 'slug', 'url']);
  assert.is(a.data.url, `${app.url}/api/dcim/devices/${device.id}/`);
  assert.not.ok('device_role' in b.data, '4.6 has only role');
  assert.is(b.data.role.slug, 'edge');
  assert.is(b.data.display_url, `${app.url}/dcim/devices/${device.id}/`);
  assert.match(b.data.created, /T/);
  assert.is(b.data.site.description, 'the site');
  assert.is(b.data.url, `${app.url}/v4.6/api/dcim/devices/${device.id}/`);
  assert.is(b.snapshots.postchange.name, 'hooked');

  await app.patch(`/v4.6/api/dcim/devices/${device.id}/`, { description: 'changed' });
  const updated = await waitFor('the 4.6 update', () => received.find((r) => r.path === '/46' && r.body.event === 'updated'));
  assert.is(updated.body.data.description, 'changed');
  assert.ok(updated.body.data.display_url);
  const removed = await app.api('DELETE', `/api/dcim/devices/${device.id}/`);
  expectStatus(removed, 204);
  const [c, d] = await waitFor('both deleted events', () => {
    const c = received.find((r) => r.path === '/37' && r.body.event === 'deleted');
    const d = received.find((r) => r.path === '/46' && r.body.event === 'deleted');
    return c && d && [c.body, d.body];
  });
  assert.is(c.data.device_role.slug, 'edge');
  assert.not.ok('display_url' in c.data);
  assert.not.ok('device_role' in d.data, 'a deleted object in 4.6 shape too');
  assert.is(d.data.display_url, `${app.url}/dcim/devices/${device.id}/`);
  const back = await app.get(`/api/extras/webhooks/${now.id}/`);
  assert.is(back.api_version.value, '4.6', 'the setting reads back through 3.7');
});

test('a filter exists in the versions its field or its YAML names: enabled on 4.6 tokens, device_role on 3.7 devices', async ({ app, site, type, role }) => {
  const user = await app.post('/api/users/users/', { username: 'filtered', password: 'Filtered-pass-1' });
  const off = await app.post('/v4.6/api/users/tokens/', { user: user.id, enabled: false, description: 'off' });
  await app.post('/v4.6/api/users/tokens/', { user: user.id, description: 'on' });
  const old = await app.api('GET', `/v3.7/api/users/tokens/?user_id=${user.id}&enabled=false`);
  expectStatus(old, 400);
  assert.match(old.body.enabled[0], /no filter named 'enabled'/, '3.7 tokens have no enabled filter');
  expectStatus(await app.api('GET', `/api/users/tokens/?enabled__n=false`), 400);
  const now = await app.get(`/v4.6/api/users/tokens/?user_id=${user.id}&enabled=false`);
  assert.equal(now.results.map((t: any) => t.id), [off.id], '4.6 filters on enabled');
  assert.is((await app.get(`/v3.7/api/users/tokens/?user_id=${user.id}`)).count, 2, 'the rest of the 3.7 filter set is as it was');

  await app.post('/api/dcim/devices/', { name: 'roled', site: site.id, device_type: type.id, role: role.id });
  assert.is((await app.get('/v3.7/api/dcim/devices/?device_role=edge')).count, 1, '3.7 keeps device_role');
  assert.is((await app.get(`/v3.7/api/dcim/devices/?device_role_id=${role.id}`)).count, 1);
  const gone = await app.api('GET', '/v4.6/api/dcim/devices/?device_role=edge');
  expectStatus(gone, 400);
  assert.ok(gone.body.device_role, gone.text);
  assert.is((await app.get('/v4.6/api/dcim/devices/?role=edge')).count, 1, '4.6 filters on role');

  // each version's OpenAPI document lists that version's filters (its paths start with the base)
  const params = async (base: string, path: string) => ((await app.get(`${base}/api/schema/`)).paths[base + path].get.parameters as any[]).map((p) => p.name);
  assert.ok((await params('/v4.6', '/api/users/tokens/')).includes('enabled'));
  assert.not.ok((await params('/v3.7', '/api/users/tokens/')).includes('enabled'));
  assert.ok((await params('/v3.7', '/api/dcim/devices/')).includes('device_role'));
  assert.not.ok((await params('/v4.6', '/api/dcim/devices/')).includes('device_role'));
});

test('4.6 ?fields= answers only the fields named, ?omit= all but those; 3.7 ignores fields and has no omit', async ({ app, site }) => {
  const one = await app.get(`/v4.6/api/dcim/sites/${site.id}/?fields=id,name,display_url`);
  assert.equal(Object.keys(one), ['id', 'display_url', 'name'], 'the full form\'s order');
  const list = await app.get(`/v4.6/api/dcim/sites/?id=${site.id}&fields=name,status&brief=1`);
  assert.equal(list.results, [{ name: 'Shapes', status: { value: 'active', label: 'Active' } }], 'fields wins over brief');
  const unknown = await app.api('GET', `/v4.6/api/dcim/sites/?fields=name,nonesuch`);
  expectStatus(unknown, 400);
  assert.match(unknown.body.fields[0], /nonesuch/);
  const omitted = await app.get(`/v4.6/api/dcim/sites/${site.id}/?omit=tags,custom_fields,region`);
  assert.ok('name' in omitted && 'display_url' in omitted);
  for (const key of ['tags', 'custom_fields', 'region']) assert.not.ok(key in omitted, key);
  const both = await app.get(`/v4.6/api/dcim/sites/${site.id}/?fields=id&omit=id`);
  assert.equal(both, { id: site.id }, 'fields wins over omit');
  expectStatus(await app.api('GET', `/v4.6/api/dcim/sites/?omit=nonesuch`), 400);

  // a generic relation's keys may be named one by one
  const ip = await app.post('/api/ipam/ip-addresses/', { address: '192.0.2.7/24' });
  const picked = await app.get(`/v4.6/api/ipam/ip-addresses/${ip.id}/?fields=id,assigned_object_type`);
  assert.equal(picked, { id: ip.id, assigned_object_type: null });
  const rest = await app.get(`/v4.6/api/ipam/ip-addresses/${ip.id}/?omit=assigned_object`);
  assert.ok('assigned_object_type' in rest && 'assigned_object_id' in rest && !('assigned_object' in rest));
  const cursor = await app.get(`/v4.6/api/dcim/sites/?start=0&fields=id`);
  assert.ok(cursor.results.every((r: any) => Object.keys(r).join() === 'id'), 'cursor pages too');

  // 3.7: `fields` is ignored, `omit` is an unknown parameter
  const old = await app.get(`/v3.7/api/dcim/sites/${site.id}/?fields=id`);
  assert.ok('name' in old && 'tags' in old && !('display_url' in old));
  expectStatus(await app.api('GET', `/v3.7/api/dcim/sites/?omit=tags`), 400);
  const doc = async (base: string) => ((await app.get(`${base}/api/schema/`)).paths[`${base}/api/dcim/sites/`].get.parameters as any[]).map((p) => p.name);
  assert.ok((await doc('/v4.6')).includes('omit'));
  assert.not.ok((await doc('/v3.7')).includes('omit'));
});

test('users: is_staff in 3.7 only; a 4.6 write ignores it, as NetBox ignores a key its serializer lacks', async ({ app }) => {
  const old = await app.post('/v3.7/api/users/users/', { username: 'staffer', password: 'Staffer-pass-1', is_staff: true });
  assert.is(old.is_staff, true);
  const now = await app.get(`/v4.6/api/users/users/${old.id}/`);
  assert.not.ok('is_staff' in now);
  assert.is(now.username, 'staffer');
  await app.patch(`/v4.6/api/users/users/${old.id}/`, { is_staff: false, first_name: 'Sam' });
  const back = await app.get(`/v3.7/api/users/users/${old.id}/`);
  assert.is(back.is_staff, true, 'the 4.6 write left it');
  assert.is(back.first_name, 'Sam');
  assert.is((await app.get('/v3.7/api/users/users/?is_staff=true&username=staffer')).count, 1);
  expectStatus(await app.api('GET', '/v4.6/api/users/users/?is_staff=true'), 400);
});

test('content_types is 4.6\'s object_types, a custom field\'s object_type its related_object_type: one stored value, written and filtered through either name', async ({ app }) => {
  const old = await app.post('/v3.7/api/extras/custom-fields/', { name: 'owner_site', type: 'object', object_type: 'dcim.site', content_types: ['dcim.device'] });
  const now = await app.get(`/v4.6/api/extras/custom-fields/${old.id}/`);
  assert.equal(now.object_types, ['dcim.device']);
  assert.is(now.related_object_type, 'dcim.site');
  for (const key of ['content_types', 'object_type']) assert.not.ok(key in now, key);
  assert.ok(Object.keys(now).indexOf('object_types') < Object.keys(now).indexOf('type'), 'where NetBox 4.6 puts it');
  const made = await app.post('/v4.6/api/extras/custom-fields/', { name: 'peer_site', type: 'object', related_object_type: 'dcim.site', object_types: ['dcim.rack'] });
  assert.equal(made.object_types, ['dcim.rack']);
  const back = await app.get(`/v3.7/api/extras/custom-fields/${made.id}/`);
  assert.equal(back.content_types, ['dcim.rack']);
  assert.is(back.object_type, 'dcim.site');
  for (const key of ['object_types', 'related_object_type']) assert.not.ok(key in back, key);
  // errors name the field as the version does
  const missing = await app.api('POST', '/v4.6/api/extras/custom-fields/', { name: 'nothing', type: 'text' });
  expectStatus(missing, 400);
  assert.ok(missing.body.object_types, missing.text);
  assert.not.ok(missing.body.content_types);
  const wrong = await app.api('PATCH', `/v4.6/api/extras/custom-fields/${made.id}/`, { object_types: ['dcim.nonesuch'] });
  expectStatus(wrong, 400);
  assert.ok(wrong.body.object_types, wrong.text);
  // a 3.7 name through 4.6 is not read
  await app.patch(`/v4.6/api/extras/custom-fields/${made.id}/`, { content_types: ['dcim.site'] });
  assert.equal((await app.get(`/v4.6/api/extras/custom-fields/${made.id}/`)).object_types, ['dcim.rack']);

  const ids = (r: any) => r.results.map((x: any) => x.id).sort();
  assert.equal(ids(await app.get('/v4.6/api/extras/custom-fields/?object_type=dcim.rack')), [made.id]);
  assert.equal(ids(await app.get('/v4.6/api/extras/custom-fields/?related_object_type=dcim.site')).length, 2);
  assert.equal(ids(await app.get('/v3.7/api/extras/custom-fields/?content_types=dcim.rack')), [made.id]);
  expectStatus(await app.api('GET', '/v4.6/api/extras/custom-fields/?content_types=dcim.rack'), 400);
  expectStatus(await app.api('GET', '/v3.7/api/extras/custom-fields/?object_type_id=1'), 400);
  const types = await app.get('/v3.7/api/extras/content-types/?app_label=dcim&model=rack');
  assert.equal(ids(await app.get(`/v4.6/api/extras/custom-fields/?object_type_id=${types.results[0].id}`)), [made.id]);

  // the other models NetBox 4.0 renamed it on
  for (const [path, body] of [
    ['extras/custom-links', { name: 'link', link_text: 'x', link_url: 'http://x/' }],
    ['extras/export-templates', { name: 'tpl', template_code: '{{ x }}' }],
    ['extras/saved-filters', { name: 'sf', slug: 'sf', parameters: { status: 'active' } }],
  ] as const) {
    const created = await app.post(`/v4.6/api/${path}/`, { ...body, object_types: ['dcim.site'] });
    assert.equal(created.object_types, ['dcim.site'], path);
    assert.equal((await app.get(`/v3.7/api/${path}/${created.id}/`)).content_types, ['dcim.site'], path);
    assert.is((await app.get(`/v4.6/api/${path}/?object_type=dcim.site`)).count, 1, path);
  }
  const doc = (await app.get('/v4.6/api/schema/')).components.schemas;
  assert.ok(doc.WritableCustomField.required.includes('object_types'));
  assert.not.ok('content_types' in doc.CustomField.properties);
});

test('event rules: 3.7\'s five booleans are 4.6\'s event_types, one stored form written through either version', async ({ app }) => {
  const hook = await app.post('/api/extras/webhooks/', { name: 'events-target', payload_url: 'http://127.0.0.1:9/' });
  const action = { action_type: 'webhook', action_object_type: 'extras.webhook', action_object_id: hook.id };
  const old = await app.post('/v3.7/api/extras/event-rules/', { name: 'old-rule', content_types: ['dcim.site'], type_create: true, type_job_end: true, ...action });
  const seen = await app.get(`/v4.6/api/extras/event-rules/${old.id}/`);
  assert.equal(seen.event_types, ['object_created', 'job_completed', 'job_failed', 'job_errored']);
  for (const key of ['type_create', 'type_update', 'type_delete', 'type_job_start', 'type_job_end']) assert.not.ok(key in seen, key);
  const made = await app.post('/v4.6/api/extras/event-rules/', { name: 'new-rule', object_types: ['dcim.device'], event_types: ['object_updated', 'object_deleted'], ...action });
  assert.equal(made.event_types, ['object_updated', 'object_deleted']);
  const back = await app.get(`/v3.7/api/extras/event-rules/${made.id}/`);
  assert.equal([back.type_create, back.type_update, back.type_delete, back.type_job_start, back.type_job_end], [false, true, true, false, false]);
  assert.not.ok('event_types' in back);
  await app.patch(`/v4.6/api/extras/event-rules/${made.id}/`, { event_types: ['object_created'] });
  assert.equal((await app.get(`/v3.7/api/extras/event-rules/${made.id}/`)).type_update, false, 'a 4.6 write replaces the set');
  await app.patch(`/v3.7/api/extras/event-rules/${made.id}/`, { type_delete: true });
  assert.equal((await app.get(`/v4.6/api/extras/event-rules/${made.id}/`)).event_types, ['object_created', 'object_deleted']);
  const bad = await app.api('PATCH', `/v4.6/api/extras/event-rules/${made.id}/`, { event_types: ['object_exploded'] });
  expectStatus(bad, 400);
  assert.match(bad.body.event_types[0], /object_exploded/);
  const none = await app.api('POST', '/v4.6/api/extras/event-rules/', { name: 'no-events', object_types: ['dcim.site'], ...action });
  expectStatus(none, 400);

  const names = (r: any) => r.results.map((x: any) => x.name).filter((n: string) => n.endsWith('-rule')).sort();
  assert.equal(names(await app.get('/v4.6/api/extras/event-rules/?event_type=job_failed')), ['old-rule']);
  assert.equal(names(await app.get('/v4.6/api/extras/event-rules/?event_type=object_deleted&event_type=job_started')), ['new-rule']);
  assert.ok(names(await app.get('/v3.7/api/extras/event-rules/?type_create=true')).includes('old-rule'));
  expectStatus(await app.api('GET', '/v3.7/api/extras/event-rules/?event_type=object_created'), 400);
  expectStatus(await app.api('GET', '/v4.6/api/extras/event-rules/?type_create=true'), 400);
});

test.run();
