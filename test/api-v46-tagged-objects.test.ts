/**
 * NetBox 4's tagged objects (`/api/extras/tagged-objects/`): the tag assignments every model's `tags`
 * writes, read-only, with their brief shape, NetBox 4.6's filters, a list whose cost in SQL statements
 * does not grow with its size, and no such endpoint in 3.7.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { countQueries } from '../runtime/data/db.js';
import { expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite<{ app: TestApp; tags: any[]; sites: any[]; tenant: any }>('api-v46-tagged-objects');
const LIST = '/v4.6/api/extras/tagged-objects/';

test.before(async (ctx) => {
  ctx.app = await startApp({ RUN_WORKER: '0' });
  const { app } = ctx;
  ctx.tags = [];
  for (const n of [1, 2, 3]) ctx.tags.push(await app.post('/api/extras/tags/', { name: `TO Tag ${n}`, slug: `to-tag-${n}`, description: n === 3 ? 'the blue one' : '' }));
  const [t1, t2, t3] = ctx.tags.map((t) => t.id);
  ctx.sites = [];
  for (const [n, tags] of [[1, [t1, t2]], [2, [t2, t3]], [3, [t3, t1]]] as const) ctx.sites.push(await app.post('/api/dcim/sites/', { name: `TO Site ${n}`, slug: `to-site-${n}`, tags }));
  ctx.tenant = await app.post('/v4.6/api/tenancy/tenants/', { name: 'TO Tenant', slug: 'to-tenant', tags: [{ slug: 'to-tag-1' }] });
});

test.after(async ({ app }) => { await app.stop(); });

const pairs = (list: { results: any[] }) => list.results.map((r) => `${r.object_type}:${r.object.display}:${r.tag.slug}`).sort();

test('lists every tag assignment in the 4.6 shape: id, url, display, object_type, object_id, object (brief), tag (brief)', async ({ app, sites, tags, tenant }) => {
  const list = await app.get(`${LIST}?limit=100`);
  assert.is(list.count, 7);
  const one = list.results.find((r: any) => r.object_type === 'tenancy.tenant');
  // NetLedger has a web page for each (the list under Customization), which display_url links to
  assert.equal(Object.keys(one), ['id', 'url', 'display', 'display_url', 'object_type', 'object_id', 'object', 'tag']);
  assert.is(one.url, `${app.url}${LIST}${one.id}/`);
  assert.is(one.display, 'TO Tenant tagged with TO Tag 1');
  assert.is(one.object_id, tenant.id);
  assert.equal(one.object, { id: tenant.id, url: `${app.url}/v4.6/api/tenancy/tenants/${tenant.id}/`, display: 'TO Tenant', name: 'TO Tenant', slug: 'to-tenant', description: '' });
  assert.equal(one.tag, { id: tags[0].id, url: `${app.url}/v4.6/api/extras/tags/${tags[0].id}/`, display: 'TO Tag 1', name: 'TO Tag 1', slug: 'to-tag-1', color: '9e9e9e', description: '' });
  // grouped by tag
  assert.equal(list.results.map((r: any) => r.tag.slug), ['to-tag-1', 'to-tag-1', 'to-tag-1', 'to-tag-2', 'to-tag-2', 'to-tag-3', 'to-tag-3']);
  assert.equal(await app.get(`${LIST}${one.id}/`), one);
  // the brief form is NetBox's: the same fields but display_url
  const brief = (await app.get(`${LIST}?brief=1&limit=100`)).results;
  assert.equal(brief, list.results.map(({ display_url: _, ...rest }: any) => rest));
  // the same URL under /api/ with the version header
  const viaHeader = await app.api('GET', `/api/extras/tagged-objects/${one.id}/`, undefined, { headers: { Accept: 'application/json; version=4.6' } });
  expectStatus(viaHeader, 200);
  assert.is(viaHeader.body.url, `${app.url}/api/extras/tagged-objects/${one.id}/`);
  assert.ok(sites.length === 3);
});

test('NetBox 4.6 filters: tag, tag_id, object_type, object_type_id, object_id, id, q', async ({ app, sites, tags }) => {
  const count = async (query: string) => (await app.get(`${LIST}?${query}`)).count;
  assert.is(await count('tag=to-tag-1&tag=to-tag-2'), 5);
  assert.is(await count(`tag_id=${tags[0].id}&tag_id=${tags[1].id}`), 5);
  assert.is(await count('tag=to-tag-3'), 2);
  assert.is(await count('object_type=dcim.site'), 6);
  assert.is(await count('object_type=tenancy.tenant'), 1);
  const siteType = (await app.get('/v4.6/api/core/object-types/?app_label=dcim&model=site')).results[0].id;
  assert.is(await count(`object_type_id=${siteType}`), 6);
  assert.equal(pairs(await app.get(`${LIST}?object_type=dcim.site&object_id=${sites[0].id}&object_id=${sites[1].id}`)),
    ['dcim.site:TO Site 1:to-tag-1', 'dcim.site:TO Site 1:to-tag-2', 'dcim.site:TO Site 2:to-tag-2', 'dcim.site:TO Site 2:to-tag-3']);
  assert.is(await count('q=blue'), 2, 'q searches the tag description');
  assert.is(await count('q=TO%20Tag%202'), 2, 'q searches the tag name');
  const first = (await app.get(`${LIST}?tag=to-tag-2`)).results[0];
  assert.is(await count(`id=${first.id}`), 1);
  // bad input names the filter
  const bad = await app.api('GET', `${LIST}?object_type_id=x`);
  expectStatus(bad, 400);
  assert.ok('object_type_id' in bad.body, JSON.stringify(bad.body));
});

test('follows the objects: a tag change, an object delete and a tag delete show in the list', async ({ app, sites }) => {
  await app.patch(`/api/dcim/sites/${sites[2].id}/`, { tags: [] });
  assert.is((await app.get(`${LIST}?object_type=dcim.site&object_id=${sites[2].id}`)).count, 0);
  const extra = await app.post('/api/extras/tags/', { name: 'TO Gone', slug: 'to-gone' });
  const site = await app.post('/api/dcim/sites/', { name: 'TO Site 4', slug: 'to-site-4', tags: [extra.id] });
  assert.is((await app.get(`${LIST}?tag=to-gone`)).count, 1);
  expectStatus(await app.api('DELETE', `/api/dcim/sites/${site.id}/`), 204);
  assert.is((await app.get(`${LIST}?tag_id=${extra.id}`)).count, 0);
  const again = await app.post('/api/dcim/sites/', { name: 'TO Site 5', slug: 'to-site-5', tags: [extra.id] });
  expectStatus(await app.api('DELETE', `/api/extras/tags/${extra.id}/`), 204);
  assert.equal((await app.get(`/api/dcim/sites/${again.id}/`)).tags, []);
  assert.is((await app.get(`${LIST}?object_type=dcim.site&object_id=${again.id}`)).count, 0);
  // restore site 3's tags for the later tests
  await app.patch(`/api/dcim/sites/${sites[2].id}/`, { tags: sites[2].tags.map((t: any) => t.id) });
});

test('read-only: writes are 405', async ({ app }) => {
  const any = (await app.get(LIST)).results[0];
  expectStatus(await app.api('POST', LIST, { object_type: 'dcim.site', object_id: 1, tag: any.tag.id }), 405);
  expectStatus(await app.api('PATCH', `${LIST}${any.id}/`, { object_id: 1 }), 405);
  expectStatus(await app.api('DELETE', `${LIST}${any.id}/`), 405);
});

test('a list costs the same number of SQL statements for 2 rows as for 60 of the same two models', async ({ app }) => {
  const tag = await app.post('/api/extras/tags/', { name: 'TO Many', slug: 'to-many' });
  const sites = await app.post('/api/dcim/sites/', Array.from({ length: 30 }, (_, i) => ({ name: `TO Bulk ${i}`, slug: `to-bulk-${i}`, tags: [tag.id] })));
  const tenants = await app.post('/api/tenancy/tenants/', Array.from({ length: 30 }, (_, i) => ({ name: `TO Bulk ${i}`, slug: `to-bulk-${i}`, tags: [tag.id] })));
  assert.is(sites.length, 30);
  const measure = async (path: string) => {
    let best = Infinity;
    for (let i = 0; i < 2; i++) {
      const sql: string[] = [];
      const record = (q: { sql: string }) => { sql.push(q.sql); };
      app.running.db.on('query', record);
      const counter = countQueries(app.running.db);
      const reply = await app.api('GET', path);
      counter.stop();
      app.running.db.removeListener('query', record);
      if (process.env.SHOW_SQL) console.log(path, sql);
      expectStatus(reply, 200);
      best = Math.min(best, counter.count);
    }
    return best;
  };
  // the 30th and 31st rows: the last site and the first tenant
  const two = (await app.get(`${LIST}?tag=to-many&limit=2&offset=29`)).results;
  assert.equal(two.map((r: any) => [r.object_type, r.object_id]), [['dcim.site', sites[29].id], ['tenancy.tenant', tenants[0].id]]);
  const few = await measure(`${LIST}?tag=to-many&limit=2&offset=29`);
  const sixty = await measure(`${LIST}?tag=to-many&limit=60`);
  assert.is((await app.get(`${LIST}?tag=to-many&limit=60`)).results.length, 60);
  assert.is(sixty, few, `2 rows: ${few} statements, 60 rows: ${sixty}`);
});

test('3.7 has no tagged objects: 404 under /api/ and /v3.7/, and no path in its OpenAPI document; 4.6 documents it', async ({ app }) => {
  expectStatus(await app.api('GET', '/api/extras/tagged-objects/'), 404);
  expectStatus(await app.api('GET', '/v3.7/api/extras/tagged-objects/'), 404);
  expectStatus(await app.api('GET', '/v3.7/api/extras/tagged-objects/1/'), 404);
  const doc37 = await app.get('/v3.7/api/schema/?format=json');
  assert.not.ok(Object.keys(doc37.paths).some((p) => p.includes('tagged-objects')));
  const doc46 = await app.get('/v4.6/api/schema/?format=json');
  assert.ok(doc46.paths['/v4.6/api/extras/tagged-objects/']?.get, Object.keys(doc46.paths).filter((p) => p.includes('extras')).join(' '));
  assert.ok(doc46.paths['/v4.6/api/extras/tagged-objects/{id}/']?.get);
  assert.not.ok(doc46.paths['/v4.6/api/extras/tagged-objects/'].post);
  const params = doc46.paths['/v4.6/api/extras/tagged-objects/'].get.parameters.map((p: any) => p.name);
  for (const name of ['object_type', 'object_type_id', 'object_id', 'tag', 'tag_id', 'q', 'id']) assert.ok(params.includes(name), name);
  // 3.7's tags are unchanged: tagged_items counts them
  const tag = (await app.get('/v3.7/api/extras/tags/?slug=to-tag-2')).results[0];
  assert.is(tag.tagged_items, 2);
  assert.not.ok('display_url' in tag);
});

test.run();
