/**
 * What a version says about fields outside the representations, in that version's names: OPTIONS
 * answers (DRF's `actions`) and change-log snapshots (`prechange_data` / `postchange_data` of change
 * records, and webhook bodies' `snapshots`). One stored snapshot, shown as 4.6 names it through 4.6
 * (object_types, scope_type / scope_id, object_type, sizes in MB) and as 3.7 names it through 3.7
 * (content_types, site, content_type, sizes in GB), converted by runtime/core/snapshot-shape.ts.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import { expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite<{ app: TestApp; site: any; server: Server; received: any[]; port: number }>('api-v46-snapshots');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test.before(async (ctx) => {
  ctx.received = [];
  ctx.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => { ctx.received.push({ path: req.url, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }); res.writeHead(200).end('ok'); });
  });
  await new Promise<void>((resolve) => ctx.server.listen(0, '127.0.0.1', () => resolve()));
  ctx.port = (ctx.server.address() as { port: number }).port;
  ctx.app = await startApp({ WEBHOOK_RETRY_SCHEDULE: '1,1', WEBHOOK_TIMEOUT: '10' });
  ctx.site = await ctx.app.post('/api/dcim/sites/', { name: 'Snap Site', slug: 'snap-site' });
});

test.after(async ({ app, server }) => {
  await app?.stop();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
});

/** The change records of one object through a version's change log (oldest first). */
async function changesOf(app: TestApp, version: '3.7' | '4.6', type: string, id: number): Promise<any[]> {
  const path = version === '4.6' ? '/v4.6/api/core/object-changes/' : '/v3.7/api/extras/object-changes/';
  const list = await app.get(`${path}?changed_object_type=${type}&changed_object_id=${id}&ordering=time`);
  assert.ok(list.results.length > 0, `${version} logs ${type} ${id}`);
  return list.results;
}

test('OPTIONS describes the fields of the version asked, under its names', async ({ app }) => {
  const actions = async (path: string, method = 'POST') => {
    const res = await app.api('OPTIONS', path);
    expectStatus(res, 200);
    return res.body.actions[method];
  };
  const cf46 = await actions('/v4.6/api/extras/custom-fields/');
  assert.ok('object_types' in cf46 && !('content_types' in cf46), Object.keys(cf46).join());
  const cf37 = await actions('/v3.7/api/extras/custom-fields/');
  assert.ok('content_types' in cf37 && !('object_types' in cf37), Object.keys(cf37).join());
  const prefix46 = await actions('/v4.6/api/ipam/prefixes/');
  assert.ok('scope_type' in prefix46 && 'scope_id' in prefix46 && !('site' in prefix46), Object.keys(prefix46).join());
  assert.ok(prefix46.scope_type.choices.some((c: any) => c.value === 'dcim.location'));
  const prefix37 = await actions('/v3.7/api/ipam/prefixes/');
  assert.ok('site' in prefix37 && !('scope_type' in prefix37) && !('scope_id' in prefix37), Object.keys(prefix37).join());
  const device46 = await actions('/v4.6/api/dcim/devices/');
  assert.ok('role' in device46 && !('device_role' in device46));
  const device37 = await actions('/v3.7/api/dcim/devices/');
  assert.ok('role' in device37 && 'device_role' in device37);
  const assignment46 = await actions('/v4.6/api/tenancy/contact-assignments/');
  assert.ok('object_type' in assignment46 && !('content_type' in assignment46));
  assert.ok('content_type' in (await actions('/v3.7/api/tenancy/contact-assignments/')));
  // read-only from 4.2 on (the primary MAC address's value), written through 3.7
  assert.is((await actions('/v4.6/api/dcim/interfaces/')).mac_address.read_only, true);
  assert.is((await actions('/v3.7/api/dcim/interfaces/')).mac_address.read_only, false);
  // the default version (3.7) and the Accept header agree with the base paths
  assert.ok('content_types' in (await actions('/api/extras/custom-fields/')));
  const accepted = await app.api('OPTIONS', '/api/extras/custom-fields/', undefined, { headers: { Accept: 'application/json; version=4.6' } });
  assert.ok('object_types' in accepted.body.actions.POST);
});

test('change records show snapshots in the version\'s field names', async ({ app, site }) => {
  // custom fields: content_types (3.7) is object_types (4.x)
  const field = await app.post('/v3.7/api/extras/custom-fields/', { name: 'snap_cf', type: 'text', content_types: ['dcim.site'] });
  await app.patch(`/v4.6/api/extras/custom-fields/${field.id}/`, { object_types: ['dcim.site', 'dcim.device'] });
  const [made46, changed46] = await changesOf(app, '4.6', 'extras.customfield', field.id);
  assert.equal(made46.postchange_data.object_types, ['dcim.site']);
  assert.not.ok('content_types' in made46.postchange_data);
  assert.equal([changed46.prechange_data.object_types, changed46.postchange_data.object_types], [['dcim.site'], ['dcim.site', 'dcim.device']]);
  const [made37, changed37] = await changesOf(app, '3.7', 'extras.customfield', field.id);
  assert.equal(made37.postchange_data.content_types, ['dcim.site']);
  assert.not.ok('object_types' in made37.postchange_data);
  assert.equal(changed37.postchange_data.content_types, ['dcim.site', 'dcim.device']);

  // prefixes: 4.x's scope, 3.7's site; the cached scope columns are no version's
  const prefix = await app.post('/v4.6/api/ipam/prefixes/', { prefix: '10.99.0.0/16', scope_type: 'dcim.site', scope_id: site.id });
  const [p46] = await changesOf(app, '4.6', 'ipam.prefix', prefix.id);
  assert.equal([p46.postchange_data.scope_type, p46.postchange_data.scope_id, p46.postchange_data.prefix], ['dcim.site', site.id, '10.99.0.0/16']);
  assert.not.ok('site' in p46.postchange_data, Object.keys(p46.postchange_data).join());
  assert.not.ok(Object.keys(p46.postchange_data).some((k) => k.startsWith('_')), Object.keys(p46.postchange_data).join());
  const [p37] = await changesOf(app, '3.7', 'ipam.prefix', prefix.id);
  assert.is(p37.postchange_data.site, site.id);
  assert.not.ok('scope_type' in p37.postchange_data || 'scope_id' in p37.postchange_data, Object.keys(p37.postchange_data).join());

  // contact assignments: content_type (3.7) is object_type (4.x)
  const contact = await app.post('/api/tenancy/contacts/', { name: 'Snap Contact' });
  const role = await app.post('/api/tenancy/contact-roles/', { name: 'Snap Role', slug: 'snap-role' });
  const assignment = await app.post('/v4.6/api/tenancy/contact-assignments/', { object_type: 'dcim.site', object_id: site.id, contact: contact.id, role: role.id });
  const [a46] = await changesOf(app, '4.6', 'tenancy.contactassignment', assignment.id);
  assert.equal([a46.postchange_data.object_type, a46.postchange_data.object_id], ['dcim.site', site.id]);
  assert.not.ok('content_type' in a46.postchange_data);
  const [a37] = await changesOf(app, '3.7', 'tenancy.contactassignment', assignment.id);
  assert.is(a37.postchange_data.content_type, 'dcim.site');
  assert.not.ok('object_type' in a37.postchange_data);

  // virtual disks: one stored size in MB, shown in GB through 3.7 as its representation is
  const vm = await app.post('/api/virtualization/virtual-machines/', { name: 'snap-vm', site: site.id });
  const disk = await app.post('/v4.6/api/virtualization/virtual-disks/', { virtual_machine: vm.id, name: 'root', size: 20000 });
  assert.is((await changesOf(app, '4.6', 'virtualization.virtualdisk', disk.id))[0].postchange_data.size, 20000);
  assert.is((await changesOf(app, '3.7', 'virtualization.virtualdisk', disk.id))[0].postchange_data.size, 20);

  // a delete's prechange snapshot, in both
  expectStatus(await app.api('DELETE', `/api/ipam/prefixes/${prefix.id}/`), 204);
  const gone46 = (await changesOf(app, '4.6', 'ipam.prefix', prefix.id)).pop();
  assert.equal([gone46.action.value, gone46.prechange_data.scope_id, gone46.postchange_data], ['delete', site.id, null]);
  const gone37 = (await changesOf(app, '3.7', 'ipam.prefix', prefix.id)).pop();
  assert.equal([gone37.prechange_data.site, 'scope_id' in gone37.prechange_data], [site.id, false]);
});

test('a webhook body\'s snapshots take its version\'s names', async ({ app, port, received, site }) => {
  const url = (path: string) => `http://127.0.0.1:${port}${path}`;
  for (const [name, version] of [['snap-37', '3.7'], ['snap-46', '4.6']]) {
    const hook = await app.post('/v4.6/api/extras/webhooks/', { name, payload_url: url(`/${version}`), api_version: version });
    await app.post('/v4.6/api/extras/event-rules/', {
      name: `rule-${name}`, object_types: ['ipam.prefix'], event_types: ['object_created'],
      action_type: 'webhook', action_object_type: 'extras.webhook', action_object_id: hook.id,
    });
  }
  const prefix = await app.post('/v4.6/api/ipam/prefixes/', { prefix: '10.98.0.0/16', scope_type: 'dcim.site', scope_id: site.id });
  const until = Date.now() + 20_000;
  const body = (path: string) => received.find((r) => r.path === path && r.body.data?.id === prefix.id)?.body;
  while (!(body('/3.7') && body('/4.6')) && Date.now() < until) await sleep(25);
  const old = body('/3.7');
  const now = body('/4.6');
  assert.ok(old && now, 'both webhooks fired');
  assert.equal([now.snapshots.postchange.scope_type, now.snapshots.postchange.scope_id, 'site' in now.snapshots.postchange], ['dcim.site', site.id, false]);
  assert.equal([old.snapshots.postchange.site, 'scope_type' in old.snapshots.postchange], [site.id, false]);
  assert.is(now.snapshots.prechange, null);
});

test.run();
