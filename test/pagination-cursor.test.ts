/**
 * Cursor pagination, new in NetBox 4.6: `?start=<id>` on every list of the 4.6 API returns the objects
 * whose id is at least that, ordered by id, with `count: null`, a `next` link carrying
 * `start=<last id + 1>` while a page comes back full, and no `previous`. `start` with `offset` or
 * `ordering` is a 400 naming both. The 3.7 API has no `start` (a 400 unknown parameter, as strict
 * filters answer any other).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite<{ app: TestApp; ids: number[] }>('pagination-cursor');

test.before(async (ctx) => {
  ctx.app = await startApp();
  const made = await ctx.app.post('/api/dcim/sites/', Array.from({ length: 7 }, (_, i) => ({ name: `Cursor ${String.fromCharCode(71 - i)}`, slug: `cursor-${i}` })));
  // one in the middle goes, so ids have a gap
  const gone = made[3].id;
  expectStatus(await ctx.app.api('DELETE', `/api/dcim/sites/${gone}/`), 204);
  ctx.ids = made.map((s: any) => s.id).filter((id: number) => id !== gone).sort((a: number, b: number) => a - b);
});

test.after(async ({ app }) => { await app.stop(); });

test('start pages by id: count null, next from the last id + 1 with the same limit and filters, no previous', async ({ app, ids }) => {
  const seen: number[] = [];
  let url: string | null = `/v4.6/api/dcim/sites/?start=0&limit=2&name__isw=cursor`;
  let pages = 0;
  while (url) {
    const page: any = await app.get(url.replace(app.url, ''));
    assert.is(page.count, null, 'no count');
    assert.is(page.previous, null, 'forward only');
    seen.push(...page.results.map((s: any) => s.id));
    if (page.next) {
      const next = new URL(page.next);
      assert.is(next.pathname, '/v4.6/api/dcim/sites/');
      assert.is(next.searchParams.get('start'), String(page.results[page.results.length - 1].id + 1));
      assert.is(next.searchParams.get('limit'), '2');
      assert.is(next.searchParams.get('name__isw'), 'cursor', 'filters carry over');
    } else assert.ok(page.results.length < 2, 'a full page always has a next one');
    url = page.next;
    pages++;
  }
  assert.equal(seen, ids, 'every object once, in id order, whatever the default order (name)');
  assert.is(pages, 4, '6 objects by 2: three full pages, then an empty one');
});

test('start picks up at an id, gaps included; limit=0 and a start past the end', async ({ app, ids }) => {
  const from = await app.get(`/v4.6/api/dcim/sites/?start=${ids[2]}&limit=50`);
  assert.equal(from.results.map((s: any) => s.id), ids.slice(2));
  assert.is(from.next, null);
  const all = await app.get('/v4.6/api/dcim/sites/?start=0&limit=0');
  assert.equal(all.results.map((s: any) => s.id), ids);
  const past = await app.get(`/v4.6/api/dcim/sites/?start=${ids[ids.length - 1] + 1}`);
  assert.equal(past, { count: null, next: null, previous: null, results: [] });
  const brief = await app.get('/v4.6/api/dcim/sites/?start=0&brief=1&limit=1');
  assert.equal(Object.keys(brief.results[0]).sort(), ['description', 'display', 'id', 'name', 'slug', 'url']);
});

test('start with offset or ordering, or not a whole number, is a 400 naming the parameters', async ({ app }) => {
  const both = await app.api('GET', '/v4.6/api/dcim/sites/?start=0&offset=2');
  assert.is(both.status, 400);
  assert.match(both.body.start[0], /'start' and 'offset' are mutually exclusive/);
  const ordered = await app.api('GET', '/v4.6/api/dcim/sites/?start=0&ordering=name');
  assert.is(ordered.status, 400);
  assert.match(ordered.body.ordering[0], /start/);
  for (const value of ['-1', 'abc', '1.5']) {
    const bad = await app.api('GET', `/v4.6/api/dcim/sites/?start=${value}`);
    assert.is(bad.status, 400, value);
    assert.ok(bad.body.start, value);
  }
});

test('3.7 has no start; Accept: version=4.6 on /api/ has it; offset pages keep their count in 4.6', async ({ app, ids }) => {
  for (const path of ['/api/dcim/sites/?start=0', '/v3.7/api/dcim/sites/?start=0']) {
    const reply = await app.api('GET', path);
    assert.is(reply.status, 400, path);
    assert.ok(reply.body.start, path);
  }
  const asked = await app.api('GET', '/api/dcim/sites/?start=0&limit=1', undefined, { headers: { Accept: 'application/json; version=4.6' } });
  expectStatus(asked, 200);
  assert.is(asked.body.count, null);
  assert.is(asked.body.results[0].id, ids[0]);
  const offset = await app.get('/v4.6/api/dcim/sites/?limit=2&offset=2');
  assert.is(offset.count, ids.length);
  assert.ok(offset.previous);
});

test('every list takes start, filters and permissions still apply', async ({ app }) => {
  const tenants = await app.post('/api/tenancy/tenants/', [{ name: 'T1', slug: 't1' }, { name: 'T2', slug: 't2' }]);
  const page = await app.get(`/v4.6/api/tenancy/tenants/?start=${tenants[1].id}`);
  assert.equal(page.results.map((t: any) => t.id), [tenants[1].id]);
  const filtered = await app.get(`/v4.6/api/tenancy/tenants/?start=0&slug=t1`);
  assert.equal(filtered.results.map((t: any) => t.id), [tenants[0].id]);
});

test.run();
