/**
 * The endpoints NetBox 4.x added or moved, served under the 4.6 API only (404 under /v3.7/ and the
 * 3.7 default /api/, as in NetBox 3.7): object types and change records under /api/core/, from the
 * same rows as 3.7's /api/extras/content-types/ and /api/extras/object-changes/.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite<{ app: TestApp }>('api-v46-models');

test.before(async (ctx) => {
  ctx.app = await startApp();
});

test.after(async ({ app }) => { await app.stop(); });

test('object types: /v4.6/api/core/object-types/ in 4.6 shape, from the rows 3.7 serves as content types; each path 404 in the other version', async ({ app }) => {
  const types = await app.get('/v4.6/api/core/object-types/?app_label=dcim&model=site');
  assert.is(types.count, 1);
  const site = types.results[0];
  const old = (await app.get('/api/extras/content-types/?app_label=dcim&model=site')).results[0];
  assert.is(site.id, old.id, 'one set of rows');
  assert.is(site.url, `${app.url}/v4.6/api/core/object-types/${site.id}/`);
  assert.is(site.app_label, 'dcim');
  assert.is(site.model, 'site');
  assert.is(site.app_name, 'DCIM');
  assert.is(site.model_name, 'site');
  assert.is(site.model_name_plural, 'sites');
  assert.is(site.public, true);
  assert.is(site.is_plugin_model, false);
  assert.is(site.rest_api_endpoint, '/api/dcim/sites/');
  for (const f of ['change_logging', 'custom_fields', 'tags', 'contacts', 'journaling']) assert.ok(site.features.includes(f), f);
  assert.equal(Object.keys(old).sort(), ['app_label', 'display', 'id', 'model', 'url'], '3.7 keeps its shape');
  assert.is((await app.get(`/v4.6/api/core/object-types/${site.id}/`)).id, site.id);
  // a change record's type is reached by its 4.6 path; the object type of object types names that path
  const self = (await app.get('/v4.6/api/core/object-types/?app_label=contenttypes&model=contenttype')).results[0];
  assert.is(self.rest_api_endpoint, '/api/core/object-types/');
  assert.is((await app.get('/v4.6/api/core/object-types/?features=journaling&app_label=dcim&model=site')).count, 1);
  assert.is((await app.get('/v4.6/api/core/object-types/?features=journaling&app_label=contenttypes')).count, 0, 'content types keep no change log');
  assert.is((await app.get('/v4.6/api/core/object-types/?public=false')).count, 0);
  expectStatus(await app.api('GET', '/v3.7/api/extras/content-types/?public=true'), 400, 'public is a 4.6 filter');
  for (const [path, status] of [['/v4.6/api/extras/content-types/', 404], ['/v3.7/api/core/object-types/', 404], ['/api/core/object-types/', 404], [`/v4.6/api/extras/content-types/${site.id}/`, 404], ['/v3.7/api/extras/content-types/', 200]] as const) {
    expectStatus(await app.api('GET', path), status, path);
  }
  const root46 = await app.get('/v4.6/api/');
  assert.is(root46.core, `${app.url}/v4.6/api/core/`);
  assert.equal(Object.keys(await app.get('/v4.6/api/core/')).sort(), ['object-changes', 'object-types']);
  assert.not.ok('core' in await app.get('/v3.7/api/'), '3.7 has no core app');
  expectStatus(await app.api('GET', '/v3.7/api/core/'), 404, '/v3.7/api/core/');
  assert.not.ok('content-types' in await app.get('/v4.6/api/extras/'));
  assert.not.ok('object-changes' in await app.get('/v4.6/api/extras/'));
  assert.ok('content-types' in await app.get('/v3.7/api/extras/'));
});

test('change records: /v4.6/api/core/object-changes/, the change log 3.7 serves at /api/extras/object-changes/', async ({ app }) => {
  const region = await app.post('/v4.6/api/dcim/regions/', { name: 'Changed', slug: 'changed' });
  const changes = await app.get(`/v4.6/api/core/object-changes/?changed_object_type=dcim.region&changed_object_id=${region.id}`);
  assert.is(changes.count, 1);
  const change = changes.results[0];
  assert.is(change.url, `${app.url}/v4.6/api/core/object-changes/${change.id}/`);
  assert.is(change.display_url, `${app.url}/extras/object-changes/${change.id}/`);
  assert.is(change.action.value, 'create');
  assert.is(change.changed_object.url, `${app.url}/v4.6/api/dcim/regions/${region.id}/`);
  assert.is(change.postchange_data.slug, 'changed');
  const old = await app.get(`/api/extras/object-changes/${change.id}/`);
  assert.is(old.id, change.id);
  assert.is(old.url, `${app.url}/api/extras/object-changes/${change.id}/`);
  assert.not.ok('display_url' in old);
  for (const path of ['/v4.6/api/extras/object-changes/', `/v4.6/api/extras/object-changes/${change.id}/`, '/v3.7/api/core/object-changes/', '/api/core/object-changes/']) {
    expectStatus(await app.api('GET', path), 404, path);
  }
  // read-only in both versions
  const refused = await app.api('POST', '/v4.6/api/core/object-changes/', {});
  assert.is(refused.status, 405);
});

test.run();
