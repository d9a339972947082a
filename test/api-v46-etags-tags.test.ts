/**
 * Two NetBox 4.6 REST API features for concurrent clients: weak ETags with If-Match on one object's
 * writes (412 when it changed since), and `add_tags` / `remove_tags` beside `tags`. Both are 4.6's:
 * 3.7 answers without ETags and ignores those keys.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite<{ app: TestApp }>('api-v46-etags-tags');

test.before(async (ctx) => { ctx.app = await startApp({ RUN_WORKER: '0' }); });
test.after(async ({ app }) => { await app.stop(); });

const WEAK = /^W\/"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+00:00"$/;
let n = 0;
const site = async (app: TestApp, extra: Record<string, unknown> = {}) => { n++; return app.post('/v4.6/api/dcim/sites/', { name: `ETag Site ${n}`, slug: `etag-site-${n}`, ...extra }); };
const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

test('an object answer carries a weak ETag in 4.6; a list and 3.7 do not', async ({ app }) => {
  const created = await app.api('POST', '/v4.6/api/dcim/sites/', { name: 'ETag First', slug: 'etag-first' });
  expectStatus(created, 201);
  const tag = created.headers.get('etag');
  assert.match(tag ?? '', WEAK, `created: ${tag}`);
  const read = await app.api('GET', `/v4.6/api/dcim/sites/${created.body.id}/`);
  assert.is(read.headers.get('etag'), tag, 'the same object unchanged has the same tag');
  assert.ok(tag!.includes(read.body.last_updated.slice(0, 19)), 'the tag follows last_updated');
  assert.is((await app.api('GET', `/v3.7/api/dcim/sites/${created.body.id}/`)).headers.get('etag'), null, '3.7 has no ETags');
  assert.is((await app.api('GET', '/v4.6/api/dcim/sites/')).headers.get('etag'), null, 'a list has none');
  const bulk = await app.api('POST', '/v4.6/api/dcim/sites/', [{ name: 'ETag Bulk', slug: 'etag-bulk' }]);
  expectStatus(bulk, 201);
  assert.is(bulk.headers.get('etag'), null, 'a bulk create has none');
});

test('If-Match: the current tag writes and answers the new tag; a stale one is 412 and writes nothing', async ({ app }) => {
  const made = await site(app);
  const first = (await app.api('GET', `/v4.6/api/dcim/sites/${made.id}/`)).headers.get('etag')!;
  await pause();
  const patched = await app.api('PATCH', `/v4.6/api/dcim/sites/${made.id}/`, { description: 'one' }, { headers: { 'If-Match': first } });
  expectStatus(patched, 200);
  const second = patched.headers.get('etag')!;
  assert.match(second, WEAK);
  assert.is.not(second, first, 'a change makes a new tag');

  const stale = await app.api('PATCH', `/v4.6/api/dcim/sites/${made.id}/`, { description: 'two' }, { headers: { 'If-Match': first } });
  expectStatus(stale, 412);
  assert.type(stale.body.detail, 'string');
  assert.is(stale.headers.get('etag'), second, 'the 412 names the current tag');
  assert.is((await app.get(`/v4.6/api/dcim/sites/${made.id}/`)).description, 'one', 'nothing written');
  expectStatus(await app.api('PUT', `/v4.6/api/dcim/sites/${made.id}/`, { name: made.name, slug: made.slug, description: 'put' }, { headers: { 'If-Match': first } }), 412);

  // one of several tags, or `*`, passes
  expectStatus(await app.api('PATCH', `/v4.6/api/dcim/sites/${made.id}/`, { description: 'three' }, { headers: { 'If-Match': `${first}, ${second}` } }), 200);
  expectStatus(await app.api('PATCH', `/v4.6/api/dcim/sites/${made.id}/`, { description: 'four' }, { headers: { 'If-Match': '*' } }), 200);
  // 3.7 ignores If-Match, as NetBox 3.7 does
  expectStatus(await app.api('PATCH', `/v3.7/api/dcim/sites/${made.id}/`, { description: 'five' }, { headers: { 'If-Match': first } }), 200);

  const current = (await app.api('GET', `/v4.6/api/dcim/sites/${made.id}/`)).headers.get('etag')!;
  expectStatus(await app.api('DELETE', `/v4.6/api/dcim/sites/${made.id}/`, undefined, { headers: { 'If-Match': first } }), 412);
  expectStatus(await app.api('GET', `/v4.6/api/dcim/sites/${made.id}/`), 200);
  expectStatus(await app.api('DELETE', `/v4.6/api/dcim/sites/${made.id}/`, undefined, { headers: { 'If-Match': current } }), 204);
});

test('add_tags and remove_tags change the tags without naming them all', async ({ app }) => {
  const [red, green, blue] = await Promise.all(['red', 'green', 'blue'].map((c) => app.post('/api/extras/tags/', { name: `Tag ${c}`, slug: `tag-${c}` })));
  const made = await site(app, { add_tags: [{ slug: 'tag-red' }] });
  assert.equal(made.tags.map((t: any) => t.id), [red.id], 'add_tags on create');
  const slugs = (o: any) => o.tags.map((t: any) => t.slug).sort();

  const added = await app.patch(`/v4.6/api/dcim/sites/${made.id}/`, { add_tags: [green.id, { name: 'Tag blue' }] });
  assert.equal(slugs(added), ['tag-blue', 'tag-green', 'tag-red']);
  const removed = await app.patch(`/v4.6/api/dcim/sites/${made.id}/`, { remove_tags: [{ slug: 'tag-red' }], add_tags: [] });
  assert.equal(slugs(removed), ['tag-blue', 'tag-green']);
  const both = await app.patch(`/v4.6/api/dcim/sites/${made.id}/`, { add_tags: [red.id], remove_tags: [blue.id] });
  assert.equal(slugs(both), ['tag-green', 'tag-red']);
  const again = await app.patch(`/v4.6/api/dcim/sites/${made.id}/`, { add_tags: [red.id], remove_tags: [blue.id] });
  assert.equal(slugs(again), ['tag-green', 'tag-red'], 'adding a tag it has and removing one it lacks change nothing');
  assert.not.ok('add_tags' in again || 'remove_tags' in again, 'write-only');

  // the change log records the tags as they end
  const changes = await app.get(`/v4.6/api/core/object-changes/?changed_object_type=dcim.site&changed_object_id=${made.id}&ordering=-time&limit=1`);
  assert.equal(changes.results[0].postchange_data.tags.sort(), ['Tag green', 'Tag red'].sort());

  // a bulk PATCH edits each object's own tags
  const other = await site(app, { tags: [blue.id] });
  const bulk = await app.api('PATCH', '/v4.6/api/dcim/sites/', [{ id: made.id, add_tags: [blue.id] }, { id: other.id, add_tags: [red.id] }]);
  expectStatus(bulk, 200);
  assert.equal(slugs(bulk.body[0]), ['tag-blue', 'tag-green', 'tag-red']);
  assert.equal(slugs(bulk.body[1]), ['tag-blue', 'tag-red']);

  // an empty `tags` replaces the whole list (the edits change nothing then), as in NetBox
  assert.equal(slugs(await app.patch(`/v4.6/api/dcim/sites/${other.id}/`, { tags: [], add_tags: [green.id] })), []);

  // 3.7 has no such keys: ignored
  const in37 = await app.patch(`/v3.7/api/dcim/sites/${made.id}/`, { add_tags: [{ slug: 'tag-blue' }], remove_tags: [red.id] });
  assert.equal(slugs(in37), ['tag-blue', 'tag-green', 'tag-red']);
});

test('add_tags and remove_tags: each mistake is a 400 naming its field', async ({ app }) => {
  const tag = await app.post('/api/extras/tags/', { name: 'Tag lone', slug: 'tag-lone' });
  const made = await site(app);
  const cases: [string, string, Record<string, unknown>, string, RegExp][] = [
    ['PATCH', `/v4.6/api/dcim/sites/${made.id}/`, { tags: [tag.id], add_tags: [tag.id] }, 'tags', /together/],
    ['POST', '/v4.6/api/dcim/sites/', { name: 'ETag Bad', slug: 'etag-bad', remove_tags: [tag.id] }, 'remove_tags', /creating/],
    ['PATCH', `/v4.6/api/dcim/sites/${made.id}/`, { add_tags: [tag.id], remove_tags: [{ slug: 'tag-lone' }] }, 'remove_tags', /Tag lone/],
    ['PATCH', `/v4.6/api/dcim/sites/${made.id}/`, { add_tags: [{ slug: 'no-such-tag' }] }, 'add_tags', /./],
    ['PATCH', `/v4.6/api/dcim/sites/${made.id}/`, { remove_tags: 'tag-lone' }, 'remove_tags', /list/],
  ];
  for (const [method, path, body, field, message] of cases) {
    const reply = await app.api(method, path, body);
    expectStatus(reply, 400, JSON.stringify(body));
    assert.ok(field in reply.body, `${JSON.stringify(body)} names ${field}: ${JSON.stringify(reply.body)}`);
    assert.match(String(reply.body[field]), message);
  }
  assert.equal((await app.get(`/v4.6/api/dcim/sites/${made.id}/`)).tags, [], 'nothing written');
});

test.run();
