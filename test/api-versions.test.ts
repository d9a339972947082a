/**
 * Two API versions from one server and one database: /v4.6/api/, /v3.7/api/ and /api/ (API_VERSION),
 * `Accept: application/json; version=X.Y`, the 406 for a version not served, `API-Version` on every
 * answer, /api/status/, URLs under the base they were asked under, and objects written through one
 * version read back through the other in its own shape.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite<{ app: TestApp; device: any }>('api-versions');

test.before(async (ctx) => {
  ctx.app = await startApp();
  const { app } = ctx;
  const site = await app.post('/v4.6/api/dcim/sites/', { name: 'Site A', slug: 'site-a', description: 'first site' });
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'Maker', slug: 'maker' });
  const type = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Box', slug: 'box' });
  const role = await app.post('/api/dcim/device-roles/', { name: 'Leaf', slug: 'leaf' });
  ctx.device = await app.post('/v4.6/api/dcim/devices/', { name: 'dev1', site: site.id, device_type: type.id, role: role.id });
});

test.after(async ({ app }) => { await app.stop(); });

test('API-Version on every answer; /api/status/ names the matching NetBox release and NetLedger', async ({ app }) => {
  for (const [path, version, netbox] of [['/api/status/', '3.7', '3.7.8'], ['/v3.7/api/status/', '3.7', '3.7.8'], ['/v4.6/api/status/', '4.6', '4.6.8']]) {
    const reply = await app.api('GET', path);
    expectStatus(reply, 200, path);
    assert.is(reply.headers.get('api-version'), version, path);
    assert.is(reply.body['netbox-version'], netbox, path);
    assert.is(reply.body['netledger-version'], '0.1.0');
  }
  const missing = await app.api('GET', '/v4.6/api/dcim/sites/999999/');
  assert.is(missing.status, 404);
  assert.is(missing.headers.get('api-version'), '4.6', 'errors carry it too');
});

test('Accept: application/json; version=X.Y selects the version on any base; an unknown one is a 406 naming those served', async ({ app }) => {
  const asked = await app.api('GET', '/api/status/', undefined, { headers: { Accept: 'application/json; version=4.6' } });
  assert.is(asked.headers.get('api-version'), '4.6');
  assert.is(asked.body['netbox-version'], '4.6.8');
  const back = await app.api('GET', '/v4.6/api/status/', undefined, { headers: { Accept: 'application/json; version=3.7' } });
  assert.is(back.headers.get('api-version'), '3.7');
  for (const [path, accept] of [['/api/status/', 'application/json; version=9.9'], ['/v4.6/api/dcim/sites/', 'application/json; version=2.10'], ['/v5.1/api/status/', 'application/json']]) {
    const reply = await app.api('GET', path, undefined, { headers: { Accept: accept } });
    assert.is(reply.status, 406, `${path} ${accept}`);
    assert.match(reply.body.detail, /3\.7, 4\.6/);
    assert.ok(reply.headers.get('api-version'));
  }
});

test('every URL of an answer carries the base it was asked under', async ({ app, device }) => {
  const root = await app.get('/v4.6/api/');
  assert.is(root.dcim, `${app.url}/v4.6/api/dcim/`);
  assert.is((await app.get('/v4.6/api/dcim/')).devices, `${app.url}/v4.6/api/dcim/devices/`);
  assert.is(device.url, `${app.url}/v4.6/api/dcim/devices/${device.id}/`);
  assert.is(device.site.url, `${app.url}/v4.6/api/dcim/sites/${device.site.id}/`);
  assert.is(device.display_url, `${app.url}/dcim/devices/${device.id}/`, 'the web interface is not versioned');
  const created = await app.api('POST', '/v4.6/api/dcim/regions/', { name: 'R', slug: 'r' });
  assert.is(created.headers.get('location'), `${app.url}/v4.6/api/dcim/regions/${created.body.id}/`);
  await app.post('/v4.6/api/dcim/regions/', { name: 'R2', slug: 'r2' });
  const page = await app.get('/v4.6/api/dcim/regions/?limit=1');
  assert.ok(page.next.startsWith(`${app.url}/v4.6/api/dcim/regions/?`), page.next);
  const second = await app.get(new URL(page.next).pathname + new URL(page.next).search);
  assert.ok(second.previous.startsWith(`${app.url}/v4.6/api/dcim/regions/`));
  const old = await app.get('/v3.7/api/dcim/regions/?limit=1');
  assert.ok(old.next.startsWith(`${app.url}/v3.7/api/dcim/regions/?`));
  assert.ok((await app.get('/api/dcim/regions/?limit=1')).next.startsWith(`${app.url}/api/dcim/regions/?`));
  const slashless = await app.api('GET', '/v4.6/api/dcim/regions?limit=1');
  assert.is(slashless.status, 302);
  assert.is(slashless.headers.get('location'), '/v4.6/api/dcim/regions/?limit=1');
});

test('an object written through 4.6 reads back through 3.7 in its shape, and back', async ({ app, device }) => {
  assert.is(device.role.slug, 'leaf');
  assert.not.ok('device_role' in device, '4.6 has only role');
  assert.match(device.created, /T/, 'created is a date-time in 4.6');
  assert.is(device.site.description, 'first site', "4.x nested forms carry the description");
  const old = await app.get(`/v3.7/api/dcim/devices/${device.id}/`);
  assert.is(old.device_role.slug, 'leaf');
  assert.is(old.role.slug, 'leaf');
  assert.not.ok('display_url' in old);
  assert.is(old.created, device.created.slice(0, 10), 'created is a date in 3.7');
  assert.equal(Object.keys(old.site).sort(), ['display', 'id', 'name', 'slug', 'url']);
  assert.is(old.url, `${app.url}/v3.7/api/dcim/devices/${device.id}/`);
  const role = await app.post('/api/dcim/device-roles/', { name: 'Spine', slug: 'spine' });
  await app.patch(`/v3.7/api/dcim/devices/${device.id}/`, { device_role: role.id });
  const now = await app.get(`/v4.6/api/dcim/devices/${device.id}/`);
  assert.is(now.role.slug, 'spine');
  const brief = await app.get(`/v4.6/api/dcim/sites/${device.site.id}/?brief=1`);
  assert.equal(Object.keys(brief).sort(), ['description', 'display', 'id', 'name', 'slug', 'url']);
  const list = await app.get('/api/dcim/devices/', );
  assert.ok('device_role' in list.results[0], '/api/ serves 3.7 by default');
});

test('/v4.6/api/schema/ is the 4.6 document; /api/schema/ the default one', async ({ app }) => {
  const doc = await app.get('/v4.6/api/schema/?format=json');
  assert.match(String(doc.info.version), /^4\.6\.8/);
  assert.ok(doc.components.schemas.Device.properties.display_url);
  assert.not.ok(doc.components.schemas.Device.properties.device_role);
  // paths start with the base the request came under, as NetBox's do under its BASE_PATH
  assert.ok(doc.paths['/v4.6/api/dcim/devices/']?.get, 'the 4.6 document names its paths under /v4.6');
  assert.not.ok(doc.paths['/api/dcim/devices/']);
  const old = await app.get('/api/schema/?format=json');
  assert.match(String(old.info.version), /^3\.7\.8/);
  assert.ok(old.components.schemas.Device.properties.device_role);
  assert.ok(old.paths['/api/dcim/devices/']?.get);
  const viaAccept = (await app.api('GET', '/api/schema/?format=json', undefined, { headers: { Accept: 'application/json; version=4.6' } })).body;
  assert.match(String(viaAccept.info.version), /^4\.6\.8/);
  assert.ok(viaAccept.paths['/api/dcim/devices/']?.get, 'the 4.6 document under /api/ names its paths under /api/');
  const docs = await app.api('GET', '/v4.6/api/docs/');
  assert.is(docs.status, 200);
});

test('API_VERSION=4.6 makes /api/ serve 4.6', async () => {
  const app = await startApp({ API_VERSION: '4.6' });
  try {
    const status = await app.api('GET', '/api/status/');
    assert.is(status.headers.get('api-version'), '4.6');
    assert.is(status.body['netbox-version'], '4.6.8');
    const site = await app.post('/api/dcim/sites/', { name: 'S', slug: 's' });
    assert.ok(site.display_url);
    const old = await app.api('GET', '/api/status/', undefined, { headers: { Accept: 'application/json; version=3.7' } });
    assert.is(old.headers.get('api-version'), '3.7');
  } finally {
    await app.stop();
  }
});

test.run();
