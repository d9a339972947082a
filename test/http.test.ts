/**
 * HTTP conventions of the API as NetBox 3.7 clients see them: response headers, discovery endpoints,
 * the trailing-slash redirect, HEAD, 404/405, body parsing, validation error shapes, all-or-none bulk
 * writes, protected deletes and the PUT/PATCH difference.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { model, modelList } from '../runtime/data/registry.js';
import { expectStatus, startApp, type Reply, type TestApp } from './helpers.js';
import { createObject } from './factory.js';
import { get as httpGet } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

const starting = startApp();
let app: TestApp;
const test = suite('HTTP conventions');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SITES = '/api/dcim/sites/';
let seq = 0;

test.before(async () => { app = await starting; });
test.after(() => app.stop());

/** Creates a site with a unique name and slug (extra fields merged in). */
async function site(extra: Record<string, unknown> = {}): Promise<any> {
  const n = ++seq;
  const reply = await app.api('POST', SITES, { name: `http-site-${n}`, slug: `http-site-${n}`, ...extra });
  expectStatus(reply, 201, 'create site');
  return reply.body;
}

async function siteCount(): Promise<number> {
  const reply = await app.api('GET', `${SITES}?limit=1`);
  expectStatus(reply, 200);
  return reply.body.count;
}

async function getSite(id: number): Promise<any> {
  const reply = await app.api('GET', `${SITES}${id}/`);
  expectStatus(reply, 200, `site ${id}`);
  return reply.body;
}

/** A device at the given site: sites with devices are protected from deletion. */
async function deviceAt(siteId: number, name: string): Promise<any> {
  return createObject(app, model('Device'), { site: siteId, name });
}

function locationOf(reply: Reply): string {
  const location = reply.headers.get('location');
  assert.ok(location, 'a Location header');
  const u = new URL(location!, app.url);
  return u.pathname + u.search;
}

test('every /api/ response carries API-Version: 3.7 and a fresh UUID X-Request-ID, errors included', async () => {
  const replies: [string, Reply, number][] = [
    ['root', await app.api('GET', '/api/', undefined, { token: null }), 200],
    ['list', await app.api('GET', SITES), 200],
    ['create', await app.api('POST', SITES, { name: 'hdr-site', slug: 'hdr-site' }), 201],
    ['no token', await app.api('GET', SITES, undefined, { token: null }), 403],
    ['unknown id', await app.api('GET', `${SITES}999999/`), 404],
    ['bad JSON', await app.api('POST', SITES, undefined, { raw: '{"name":', headers: { 'Content-Type': 'application/json' } }), 400],
    ['validation', await app.api('POST', SITES, { slug: 'no-name' }), 400],
    ['method', await app.api('POST', `${SITES}999999/`, { name: 'x' }), 405],
  ];
  const seen = new Set<string>();
  for (const [what, reply, status] of replies) {
    expectStatus(reply, status, what);
    assert.is(reply.headers.get('api-version'), '3.7', `${what}: API-Version`);
    const id = reply.headers.get('x-request-id');
    assert.ok(id && UUID.test(id), `${what}: X-Request-ID is a UUID (${id})`);
    seen.add(id!);
  }
  assert.is(seen.size, replies.length, 'X-Request-ID differs per request');
});

test('GET /api/ answers without a token and lists the applications with absolute URLs', async () => {
  const reply = await app.api('GET', '/api/', undefined, { token: null });
  expectStatus(reply, 200);
  for (const name of ['circuits', 'dcim', 'extras', 'ipam', 'plugins', 'status', 'tenancy', 'users', 'virtualization', 'vpn', 'wireless']) {
    assert.is(reply.body[name], `${app.url}/api/${name}/`, `root lists ${name}`);
  }
});

test('every application URL listed by /api/ answers 200 with JSON', async () => {
  const root = (await app.api('GET', '/api/')).body as Record<string, string>;
  const broken: string[] = [];
  for (const [name, url] of Object.entries(root)) {
    const u = new URL(url);
    const reply = await app.api('GET', u.pathname);
    if (reply.status !== 200 || typeof reply.body !== 'object' || reply.body === null) broken.push(`${name} → ${reply.status}`);
  }
  assert.equal(broken, [], `listed but not served: ${broken.join(', ')}`);
});

test('GET /api/dcim/ lists the endpoints of the application with absolute URLs', async () => {
  const reply = await app.api('GET', '/api/dcim/');
  expectStatus(reply, 200);
  const dcim = modelList.filter((m) => m.definition.app === 'dcim' && m.routes.versions.includes('3.7'));
  assert.ok(dcim.length > 0);
  for (const m of dcim) assert.is(reply.body[m.definition.endpoint], `${app.url}/api/dcim/${m.definition.endpoint}/`, m.definition.endpoint);
  assert.is(reply.body.sites, `${app.url}/api/dcim/sites/`);
  assert.is(reply.body.devices, `${app.url}/api/dcim/devices/`);
  assert.not.ok('prefixes' in reply.body, 'only dcim endpoints');
});

test('GET /api/status/ reports a 3.7 netbox-version; /api/status (no slash) redirects to it', async () => {
  const reply = await app.api('GET', '/api/status/', undefined, { token: null });
  expectStatus(reply, 200);
  assert.type(reply.body['netbox-version'], 'string');
  assert.ok(reply.body['netbox-version'].startsWith('3.7'), reply.body['netbox-version']);
  const bare = await app.api('GET', '/api/status', undefined, { token: null });
  assert.ok(bare.status === 301 || bare.status === 302, `redirect, got ${bare.status}`);
  assert.is(locationOf(bare), '/api/status/');
  const followed = await app.api('GET', '/api/status', undefined, { token: null, redirect: 'follow' });
  expectStatus(followed, 200);
  assert.ok(followed.body['netbox-version'].startsWith('3.7'));
});

test('a list or detail path without the trailing slash is a 302 to the slashed path, query kept', async () => {
  const list = await app.api('GET', '/api/dcim/sites?limit=5&name=x');
  expectStatus(list, 302);
  assert.is(locationOf(list), '/api/dcim/sites/?limit=5&name=x');
  const s = await site();
  const detail = await app.api('GET', `/api/dcim/sites/${s.id}`);
  expectStatus(detail, 302);
  assert.is(locationOf(detail), `/api/dcim/sites/${s.id}/`);
  const followed = await app.api('GET', `/api/dcim/sites/${s.id}`, undefined, { redirect: 'follow' });
  expectStatus(followed, 200);
  assert.is(followed.body.id, s.id);
});

test('HEAD on a list answers like GET (200) without a body', async () => {
  await site();
  const reply = await app.api('HEAD', SITES);
  expectStatus(reply, 200);
  assert.is(reply.text, '');
  assert.ok((reply.headers.get('content-type') ?? '').startsWith('application/json'), 'JSON content type');
  const anonymous = await app.api('HEAD', SITES, undefined, { token: null });
  expectStatus(anonymous, 403, 'HEAD is a read like GET: a token is needed');
});

test('an unsupported method on an existing path is 405 with a JSON detail', async () => {
  const s = await site();
  const post = await app.api('POST', `${SITES}${s.id}/`, { name: 'nope', slug: 'nope' });
  expectStatus(post, 405);
  assert.equal(post.body, { detail: 'Method "POST" not allowed.' });
  const patch = await app.api('PATCH', '/api/status/', { a: 1 });
  expectStatus(patch, 405);
  assert.equal(patch.body, { detail: 'Method "PATCH" not allowed.' });
  assert.is((await getSite(s.id)).name, s.name, 'the site is untouched');
});

async function expectNotFound(requests: [string, string, unknown][]): Promise<void> {
  const wrong: string[] = [];
  for (const [method, path, body] of requests) {
    const reply = await app.api(method, path, body);
    if (reply.status !== 404 || JSON.stringify(reply.body) !== '{"detail":"Not found."}') wrong.push(`${method} ${path} → ${reply.status} ${reply.text.slice(0, 120)}`);
  }
  assert.equal(wrong, [], wrong.join('; '));
}

test('unknown ids are 404 {"detail":"Not found."}', async () => {
  await expectNotFound([
    ['GET', `${SITES}999999/`, undefined],
    ['PATCH', `${SITES}999999/`, { description: 'x' }],
    ['PUT', `${SITES}999999/`, { name: 'x', slug: 'x' }],
    ['DELETE', `${SITES}999999/`, undefined],
  ]);
});

test('non-numeric ids are 404 {"detail":"Not found."}', async () => {
  await expectNotFound([
    ['GET', `${SITES}abc/`, undefined],
    ['GET', `${SITES}12abc/`, undefined],
    ['PATCH', `${SITES}abc/`, { description: 'x' }],
    ['DELETE', `${SITES}abc/`, undefined],
  ]);
});

test('a malformed JSON body is 400 with detail; nothing is created', async () => {
  const before = await siteCount();
  const reply = await app.api('POST', SITES, undefined, { raw: '{"name": "broken", "slug": ', headers: { 'Content-Type': 'application/json' } });
  expectStatus(reply, 400);
  assert.type(reply.body.detail, 'string');
  assert.ok(reply.body.detail.startsWith('JSON parse error'), reply.body.detail);
  assert.is(await siteCount(), before);
});

test('a body with Content-Type text/plain is 415; nothing is created', async () => {
  const before = await siteCount();
  const reply = await app.api('POST', SITES, undefined, { raw: JSON.stringify({ name: 'plain-site', slug: 'plain-site' }), headers: { 'Content-Type': 'text/plain' } });
  expectStatus(reply, 415);
  assert.type(reply.body.detail, 'string');
  assert.is(await siteCount(), before);
});

test('Content-Type "application/json;" (pynetbox) and "application/json; charset=utf-8" are JSON', async () => {
  for (const [type, name] of [['application/json;', 'semicolon-site'], ['application/json; charset=utf-8', 'charset-site'], ['Application/JSON', 'upper-site']]) {
    const reply = await app.api('POST', SITES, { name, slug: name, description: type }, { headers: { 'Content-Type': type } });
    expectStatus(reply, 201, type);
    assert.is(reply.body.name, name, `${type}: the body was read`);
    assert.is(reply.body.description, type);
  }
  // pynetbox's bulk DELETE also carries the semicolon form.
  const s = await site();
  const del = await app.api('DELETE', SITES, [{ id: s.id }], { headers: { 'Content-Type': 'application/json;' } });
  expectStatus(del, 204);
  expectStatus(await app.api('GET', `${SITES}${s.id}/`), 404);
});

test('validation errors are 400 {field: [messages]} and create nothing', async () => {
  const before = await siteCount();
  const missing = await app.api('POST', SITES, { slug: 'no-name-here' });
  expectStatus(missing, 400, 'missing name');
  assert.equal(missing.body, { name: ['This field is required.'] });

  const choice = await app.api('POST', SITES, { name: 'bad-choice', slug: 'bad-choice', status: 'foo' });
  expectStatus(choice, 400, 'bad choice');
  assert.equal(Object.keys(choice.body), ['status']);
  assert.ok(/foo.* is not a valid choice\.$/.test(choice.body.status[0]), choice.body.status[0]);

  const long = await app.api('POST', SITES, { name: 'x'.repeat(101), slug: 'long-name' });
  expectStatus(long, 400, 'over-long name');
  assert.equal(long.body, { name: ['Ensure this field has no more than 100 characters.'] });

  const slug = await app.api('POST', SITES, { name: 'bad-slug', slug: 'not a slug!' });
  expectStatus(slug, 400, 'bad slug');
  assert.equal(slug.body, { slug: ['Enter a valid "slug" consisting of letters, numbers, underscores or hyphens.'] });

  const region = await app.api('POST', SITES, { name: 'bad-region', slug: 'bad-region', region: 99999 });
  expectStatus(region, 400, 'unknown region');
  assert.equal(Object.keys(region.body), ['region']);
  assert.ok(region.body.region[0].includes('99999'), region.body.region[0]);
  assert.is(region.body.region[0], 'Related object not found using the provided numeric ID: 99999');

  const both = await app.api('POST', SITES, { status: 'foo' });
  expectStatus(both, 400, 'several fields');
  assert.equal(Object.keys(both.body).sort(), ['name', 'slug', 'status']);
  for (const messages of Object.values(both.body)) assert.ok(Array.isArray(messages) && messages.length > 0);

  assert.is(await siteCount(), before, 'nothing was created');
});

test('a bad choice is worded as NetBox words it: "<value> is not a valid choice."', async () => {
  const reply = await app.api('POST', SITES, { name: 'bad-choice-2', slug: 'bad-choice-2', status: 'foo' });
  expectStatus(reply, 400);
  assert.equal(reply.body, { status: ['foo is not a valid choice.'] });
});

test('bulk create with one bad element: 400 array aligned with the request, nothing created', async () => {
  const before = await siteCount();
  const reply = await app.api('POST', SITES, [
    { name: 'bulk-good-1', slug: 'bulk-good-1' },
    { name: 'bulk-bad', slug: 'bulk-bad', status: 'nonsense' },
    { name: 'bulk-good-2', slug: 'bulk-good-2' },
  ]);
  expectStatus(reply, 400);
  assert.ok(Array.isArray(reply.body), 'an array of per-element errors');
  assert.is(reply.body.length, 3);
  assert.equal(reply.body[0], {});
  assert.equal(Object.keys(reply.body[1]), ['status']);
  assert.equal(reply.body[2], {});
  assert.is(await siteCount(), before, 'nothing was created');
  const good = await app.api('GET', `${SITES}?name=bulk-good-1&name=bulk-good-2`);
  assert.is(good.body.count, 0, 'not even the valid elements');
});

test('bulk PATCH whose third element is invalid changes nothing', async () => {
  const [a, b, c] = [await site({ description: 'orig-a' }), await site({ description: 'orig-b' }), await site({ description: 'orig-c' })];
  const reply = await app.api('PATCH', SITES, [
    { id: a.id, description: 'changed-a', status: 'planned' },
    { id: b.id, description: 'changed-b' },
    { id: c.id, description: 'changed-c', status: 'not-a-status' },
  ]);
  expectStatus(reply, 400);
  assert.ok(Array.isArray(reply.body), 'an array of per-element errors');
  assert.equal(reply.body[0], {});
  assert.equal(reply.body[1], {});
  assert.equal(Object.keys(reply.body[2]), ['status']);
  for (const [obj, description] of [[a, 'orig-a'], [b, 'orig-b'], [c, 'orig-c']] as [any, string][]) {
    const now = await getSite(obj.id);
    assert.is(now.description, description, `site ${obj.id} description unchanged`);
    assert.is(now.status.value, 'active', `site ${obj.id} status unchanged`);
    assert.is(now.last_updated, obj.last_updated, `site ${obj.id} not written`);
  }
  // A name taken by another site is invalid too, and also aborts everything.
  const dup = await app.api('PATCH', SITES, [{ id: a.id, description: 'again-a' }, { id: b.id, description: 'again-b' }, { id: c.id, name: a.name }]);
  expectStatus(dup, 400);
  assert.is((await getSite(a.id)).description, 'orig-a');
  assert.is((await getSite(b.id)).description, 'orig-b');
  assert.is((await getSite(c.id)).name, c.name);
});

test('bulk DELETE with one protected element (a site with a device) is 409 and deletes nothing', async () => {
  const free = await site();
  const busy = await site();
  const other = await site();
  await deviceAt(busy.id, `dev-bulk-${busy.id}`);
  const before = await siteCount();
  const reply = await app.api('DELETE', SITES, [{ id: free.id }, { id: busy.id }, { id: other.id }]);
  expectStatus(reply, 409);
  assert.type(reply.body.detail, 'string');
  assert.ok(reply.body.detail.startsWith('Unable to delete object.'), reply.body.detail);
  for (const s of [free, busy, other]) await getSite(s.id);
  assert.is(await siteCount(), before);
});

test('single DELETE of a protected object is 409 naming the dependent', async () => {
  const busy = await site();
  const device = await deviceAt(busy.id, `dev-single-${busy.id}`);
  const reply = await app.api('DELETE', `${SITES}${busy.id}/`);
  expectStatus(reply, 409);
  assert.type(reply.body.detail, 'string');
  assert.ok(reply.body.detail.startsWith('Unable to delete object.'), reply.body.detail);
  assert.ok(reply.body.detail.includes(device.name), `names the device: ${reply.body.detail}`);
  assert.ok(reply.body.detail.includes(`(${device.id})`), `gives the device id: ${reply.body.detail}`);
  await getSite(busy.id);
  // Once the dependent is gone the delete goes through.
  expectStatus(await app.api('DELETE', `/api/dcim/devices/${device.id}/`), 204);
  expectStatus(await app.api('DELETE', `${SITES}${busy.id}/`), 204);
});

test('DELETE on a detail URL is 204 with an empty body; bulk DELETE [{"id"}] is 204', async () => {
  const one = await site();
  const reply = await app.api('DELETE', `${SITES}${one.id}/`);
  expectStatus(reply, 204);
  assert.is(reply.text, '');
  expectStatus(await app.api('GET', `${SITES}${one.id}/`), 404);
  const many = [await site(), await site(), await site()];
  const before = await siteCount();
  const bulk = await app.api('DELETE', SITES, many.map((s) => ({ id: s.id })));
  expectStatus(bulk, 204);
  assert.is(bulk.text, '');
  for (const s of many) expectStatus(await app.api('GET', `${SITES}${s.id}/`), 404);
  assert.is(await siteCount(), before - 3);
});

test('PUT requires the required fields; PATCH does not', async () => {
  const s = await site({ description: 'before' });
  const put = await app.api('PUT', `${SITES}${s.id}/`, { description: 'put without name' });
  expectStatus(put, 400);
  assert.equal(put.body.name, ['This field is required.']);
  assert.equal(put.body.slug, ['This field is required.']);
  assert.is((await getSite(s.id)).description, 'before', 'a failed PUT changes nothing');
  const patch = await app.api('PATCH', `${SITES}${s.id}/`, { description: 'patched' });
  expectStatus(patch, 200);
  assert.is(patch.body.description, 'patched');
  assert.is(patch.body.name, s.name);
  assert.is(patch.body.slug, s.slug);
  const full = await app.api('PUT', `${SITES}${s.id}/`, { name: `${s.name}-put`, slug: `${s.slug}-put` });
  expectStatus(full, 200);
  assert.is(full.body.name, `${s.name}-put`);
});

test('unknown body keys are ignored', async () => {
  const reply = await app.api('POST', SITES, { name: 'extra-keys', slug: 'extra-keys', no_such_field: 1, prefix: '10.0.0.0/8' });
  expectStatus(reply, 201);
  assert.is(reply.body.name, 'extra-keys');
  assert.not.ok('no_such_field' in reply.body);
  const patch = await app.api('PATCH', `${SITES}${reply.body.id}/`, { description: 'd', whatever: { a: 1 } });
  expectStatus(patch, 200);
  assert.is(patch.body.description, 'd');
});

/** A GET by node:http, which (unlike fetch) leaves the body as sent: compressed bytes stay compressed. */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    httpGet(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

test('the web interface\'s static files: brotli, gzip and plain bodies are the same file, cached a year; If-None-Match is 304', async () => {
  const login = await (await fetch(`${app.url}/login/`)).text();
  const paths = [...login.matchAll(/(?:href|src)="(\/static\/[0-9a-f]{12}\/[\w.-]+)"/g)].map((m) => m[1]);
  const css = paths.find((p) => p.endsWith('/tabler.css'));
  assert.ok(css, `the login page links Tabler's stylesheet by a versioned URL: ${paths.join(', ')}`);
  const plain = await rawGet(app.url + css, { 'Accept-Encoding': 'identity' });
  assert.is(plain.status, 200);
  assert.is(plain.headers['content-encoding'], undefined);
  assert.match(String(plain.headers['content-type']), /^text\/css/);
  assert.match(String(plain.headers['cache-control']), /max-age=31536000/);
  assert.ok(plain.body.length > 100_000, `the whole stylesheet (${plain.body.length} bytes)`);
  const br = await rawGet(app.url + css, { 'Accept-Encoding': 'gzip, br' });
  assert.is(br.headers['content-encoding'], 'br');
  assert.ok(br.body.length < plain.body.length / 5, `compressed: ${br.body.length} of ${plain.body.length} bytes`);
  assert.ok(brotliDecompressSync(br.body).equals(plain.body), 'the brotli body decodes to the file');
  const gzip = await rawGet(app.url + css, { 'Accept-Encoding': 'gzip' });
  assert.is(gzip.headers['content-encoding'], 'gzip');
  assert.ok(gunzipSync(gzip.body).equals(plain.body), 'the gzip body decodes to the file');
  const again = await rawGet(app.url + css, { 'Accept-Encoding': 'br', 'If-None-Match': String(plain.headers.etag) });
  assert.is(again.status, 304);
  assert.is(again.body.length, 0);
  assert.is((await rawGet(`${app.url}/static/000000000000/tabler.css`, {})).status, 404);
});

test.run();
