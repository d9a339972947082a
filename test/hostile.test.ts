/**
 * Hostile and malformed requests get the exact 4xx that names the field and the reason, never a 500
 * or a reset: huge integers (pagination, filters, bodies, path ids), Host headers that cannot form a
 * URL, deep or oversized JSON, repeated parameters, too many filter values, oversized request targets,
 * NUL characters; strict filters (an unknown parameter is a 400 naming it) and STRICT_FILTERS=0.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from 'node:http';
import { connect } from 'node:net';
import { ConfigError, loadConfig } from '../runtime/core/config.js';
import { ADMIN_TOKEN, expectStatus, startApp, type TestApp } from './helpers.js';

const starting = startApp();
let app: TestApp;
const SITES = '/api/dcim/sites/';
const test = suite('hostile input');

test.before(async () => { app = await starting; });
test.after(() => app.stop());

interface Raw { status: number; body: any; headers: Record<string, string | string[] | undefined> }

/** A request through node:http, which (unlike fetch) may send any Host header. */
function raw(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  const u = new URL(app.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method, path, setHost: false, headers: { Host: u.host, Authorization: `Token ${ADMIN_TOKEN}`, ...headers } }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => {
        let parsed: unknown = text;
        try { parsed = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
        resolve({ status: res.statusCode ?? 0, body: parsed, headers: res.headers });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function expectError(method: string, path: string, status: number, body: unknown, options: { raw?: string; headers?: Record<string, string> } = {}): Promise<void> {
  const reply = await app.api(method, path, undefined, options);
  expectStatus(reply, status, `${method} ${path.slice(0, 120)}`);
  assert.equal(reply.body, body, `${method} ${path.slice(0, 120)}`);
}

test('an offset or limit beyond the safe integers is a 400 naming it (GET and HEAD)', async () => {
  const message = [`Ensure this value is less than or equal to ${Number.MAX_SAFE_INTEGER}.`];
  await expectError('GET', `${SITES}?offset=99999999999999999999`, 400, { offset: message });
  await expectError('GET', `${SITES}?limit=99999999999999999999`, 400, { limit: message });
  await expectError('GET', '/api/ipam/prefixes/?offset=99999999999999999999', 400, { offset: message });
  const head = await app.api('HEAD', `${SITES}?offset=99999999999999999999`);
  assert.is(head.status, 400);
  // The largest safe offset is fine: an empty page.
  const far = await app.get(`${SITES}?offset=${Number.MAX_SAFE_INTEGER}`);
  assert.equal(far.results, []);
});

test('integers beyond their column are a 400 naming the field: filters, bodies; path ids are 404', async () => {
  await expectError('GET', `${SITES}?id=99999999999999999999`, 400, { id: ['Ensure this value is between -2147483647 and 2147483647.'] });
  await expectError('GET', `${SITES}?region_id=3000000000`, 400, { region_id: ['Ensure this value is between -2147483647 and 2147483647.'] });
  await expectError('GET', '/api/dcim/racks/?u_height__gt=99999999999999999999', 400, { u_height__gt: [`Ensure this value is between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}.`] });
  const safe = [`Ensure this value is between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}.`];
  await expectError('POST', SITES, 400, { tenant: safe }, { raw: '{"name": "big", "slug": "big", "tenant": 12345678901234567890}', headers: { 'Content-Type': 'application/json' } });
  await expectError('POST', SITES, 400, [{}, { description: ['Enter a finite number.'] }], { raw: '[{"name": "a", "slug": "a"}, {"name": "b", "slug": "b", "description": 1e400}]', headers: { 'Content-Type': 'application/json' } });
  await expectError('GET', `${SITES}99999999999/`, 404, { detail: 'Not found.' });
  await expectError('PUT', `${SITES}2147483648/`, 404, { detail: 'Not found.' }, { raw: '{}', headers: { 'Content-Type': 'application/json' } });
  assert.is((await app.get(`${SITES}?name=big`)).count, 0, 'nothing was written');
});

test('a Host header that cannot form a URL is a 400 naming Host; no Host at all falls back to the server address', async () => {
  for (const host of ['[::g]', 'a b', '127.0.0.1:99999', 'x/y', '[::1']) {
    const reply = await raw('GET', SITES, { Host: host });
    assert.is(reply.status, 400, host);
    assert.equal(reply.body, { Host: [`'${host}' is not a valid host: expected a name or an address, with an optional port up to 65535.`] }, host);
  }
  const fine = await raw('GET', '/api/', { Host: 'inventory.example.net:8443' });
  assert.is(fine.status, 200);
  assert.is(fine.body.dcim, 'http://inventory.example.net:8443/api/dcim/');
  const ipv6 = await raw('GET', '/api/', { Host: '[2001:db8::1]:8000' });
  assert.is(ipv6.body.dcim, 'http://[2001:db8::1]:8000/api/dcim/');
});

test('JSON nested 10,000 deep is refused while it arrives: 400, nothing written', async () => {
  const before = (await app.get(`${SITES}?limit=1`)).count;
  const deep = `{"name": "deep", "slug": "deep", "description": ${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
  // The object is level 1, so the 64th bracket is the first level too many.
  await expectError('POST', SITES, 400, { detail: `JSON parse error - nested deeper than 64 levels (at byte ${deep.indexOf('[') + 63}).` }, { raw: deep, headers: { 'Content-Type': 'application/json' } });
  // Brackets inside strings are text, not nesting.
  const text = await app.api('POST', SITES, { name: 'brackets', slug: 'brackets', description: '['.repeat(150) });
  expectStatus(text, 201);
  assert.is((await app.get(`${SITES}?limit=1`)).count, before + 1);
});

test('a tag filter repeated 1,000 times is a 400 naming tag; 500 tags work (and AND)', async () => {
  const tags = await app.api('POST', '/api/extras/tags/', [{ name: 'h-a', slug: 'h-a' }, { name: 'h-b', slug: 'h-b' }]);
  expectStatus(tags, 201);
  await app.post(SITES, { name: 'tagged-ab', slug: 'tagged-ab', tags: [{ slug: 'h-a' }, { slug: 'h-b' }] });
  await app.post(SITES, { name: 'tagged-a', slug: 'tagged-a', tags: [{ slug: 'h-a' }] });
  const many = Array.from({ length: 1000 }, () => 'tag=h-a').join('&');
  await expectError('GET', `${SITES}?${many}`, 400, { tag: ['At most 500 values are accepted for one parameter; 1000 were given.'] });
  const both = await app.get(`${SITES}?${Array.from({ length: 250 }, () => 'tag=h-a&tag=h-b').join('&')}`);
  assert.equal(both.results.map((s: any) => s.name), ['tagged-ab']);
  const other = Array.from({ length: 499 }, (_, i) => `tag=nope-${i}`).join('&');
  assert.is((await app.get(`${SITES}?tag=h-a&${other}`)).count, 0, 'every tag must be carried');
  const ic = await app.get(`${SITES}?${Array.from({ length: 499 }, (_, i) => `name__ic=zz${i}`).join('&')}&name__ic=tagged-a`);
  assert.is(ic.count, 2, '500 ORed lookups stay within SQLite expression depth');
});

test('a 5 MB path is answered 431 (not reset); an 8 KB+ request target is a 414', async () => {
  const reply = await raw('PUT', `${SITES}${'a'.repeat(5_000_000)}/`, { 'Content-Type': 'application/json' }, '{"name": "x"}');
  assert.is(reply.status, 431);
  assert.equal(reply.body, { detail: 'Request line and headers too large: at most 16384 bytes are accepted.' });
  const long = await app.api('GET', `${SITES}?q=${'a'.repeat(9000)}`);
  assert.is(long.status, 414);
  assert.equal(long.body, { detail: 'Request target too long: 9019 characters; at most 8192 are accepted.' });
});

test('repeated single-valued parameters are a 400 naming each', async () => {
  const once = (n: number) => [`Give this parameter once; it was given ${n} times.`];
  await expectError('GET', `${SITES}?limit=1&limit=2`, 400, { limit: once(2) });
  await expectError('GET', `${SITES}?offset=1&offset=2&ordering=name&ordering=-name`, 400, { offset: once(2), ordering: once(2) });
  await expectError('GET', `${SITES}?q=a&q=b`, 400, { q: once(2) });
  await expectError('GET', '/api/users/users/?is_active=true&is_active=false', 400, { is_active: ['This filter takes one value; 2 were given.'] });
  await expectError('GET', `${SITES}?description__empty=true&description__empty=false`, 400, { description__empty: ['This filter takes one value; 2 were given.'] });
  // Multi-valued filters OR as before.
  assert.is((await app.get(`${SITES}?name=tagged-a&name=tagged-ab`)).count, 2);
});

test('NUL characters are a 400 naming the parameter or field', async () => {
  await expectError('GET', `${SITES}?name=a%00b`, 400, { name: ['Null characters are not allowed.'] });
  await expectError('POST', SITES, 400, { name: ['Null characters are not allowed.'] }, { raw: '{"name": "a\\u0000b", "slug": "ab"}', headers: { 'Content-Type': 'application/json' } });
});

test('too many query values in all is a 400', async () => {
  const params = Array.from({ length: 2001 }, (_, i) => `q${i % 5}=`).join('&');
  await expectError('GET', `${SITES}?${params}`, 400, { detail: 'The query string carries 2001 values; at most 2000 are accepted.' });
});

test('strict filters: an unknown parameter or lookup is a 400 naming it, before anything is read', async () => {
  await expectError('GET', '/api/dcim/interfaces/?vdc_id=5', 400, {
    vdc_id: ["Unknown filter: /api/dcim/interfaces/ has no filter named 'vdc_id'. Unknown parameters are refused, so that a typo cannot widen the result."],
  });
  const typo = await app.api('GET', '/api/dcim/interfaces/?device__name__isw=a&nmae=b');
  expectStatus(typo, 400);
  assert.equal(Object.keys(typo.body).sort(), ['device__name__isw', 'nmae']);
  await expectError('GET', `${SITES}?name__foo=x`, 400, { name__foo: ["'foo' is not a lookup of filter 'name'; use one of: n, ic, nic, isw, nisw, iew, niew, ie, nie, empty."] });
  await expectError('GET', `${SITES}?cf_nothing=1`, 400, { cf_nothing: [`No custom field named 'nothing' applies to ${SITES}.`] });
  // Control parameters, filters with lookups, empty values and HEAD pass.
  expectStatus(await app.api('GET', `${SITES}?limit=5&offset=0&brief=1&ordering=-name&exclude=tags&format=json&name__ic=tag&name=&tag=h-a`), 200);
  expectStatus(await app.api('HEAD', `${SITES}?nmae=x`), 400);
});

test('strict filters: a bulk delete driven by a mistyped list never widens', async () => {
  await app.post(SITES, { name: 'keep-1', slug: 'keep-1' });
  // A client lists by a filter it mistyped, then deletes what it got: it gets nothing to delete.
  const list = await app.api('GET', `${SITES}?nmae=keep-1`);
  expectStatus(list, 400);
  assert.ok((await app.get(`${SITES}?name=keep-1`)).count === 1);
});

test('anonymous requests may send only a small body; an announced oversized body is a 413 at once', async () => {
  const anonymous = await app.api('POST', SITES, undefined, { token: null, raw: JSON.stringify({ name: 'x', description: 'a'.repeat(70_000) }), headers: { 'Content-Type': 'application/json' } });
  assert.is(anonymous.status, 413, anonymous.text);
  assert.equal(anonymous.body, { detail: 'Request body too large: at most 65536 bytes are accepted.' });
  const small = await app.api('POST', SITES, { name: 'x', slug: 'x' }, { token: null });
  assert.is(small.status, 403, 'a small anonymous body reaches the permission check');
  const announced = await raw('POST', SITES, { 'Content-Type': 'application/json', 'Content-Length': String(5 * 1024 * 1024) }, '');
  assert.is(announced.status, 413);
  assert.is(announced.headers.connection, 'close');
});

test('an HTTP/1.0 request without Host falls back to the server address', async () => {
  const u = new URL(app.url);
  const text = await rawSocket(u, `GET /api/ HTTP/1.0\r\n\r\n`);
  assert.match(text, /^HTTP\/1\.1 200/);
  assert.ok(text.includes(`"dcim":"http://${u.host}/api/dcim/"`), text.slice(-300));
});

test('limits are configuration: bad values stop the start, naming the variable', () => {
  for (const [name, value] of [['MAX_BODY_SIZE', 'lots'], ['MAX_BODY_SIZE', '10G'], ['MAX_JSON_DEPTH', '1'], ['REQUEST_TIMEOUT', '-1'], ['STRICT_FILTERS', 'maybe']]) {
    assert.throws(() => loadConfig({ DATA_DIR: '/tmp/netledger-config-check', SECRET_KEY: 'x'.repeat(40), [name]: value }), (e: Error) => e instanceof ConfigError && e.message.startsWith(`${name}:`), `${name}=${value}`);
  }
  const limits = loadConfig({ DATA_DIR: '/tmp/netledger-config-check', SECRET_KEY: 'x'.repeat(40), MAX_BODY_SIZE: '512K' }).limits;
  assert.is(limits.maxBodySize, 512 * 1024);
});

test.run();

/** Sends raw bytes and returns everything the server answers until it closes (or `waitMs` passes). */
function rawSocket(u: URL, text: string, waitMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(u.port), u.hostname);
    let received = '';
    const timer = setTimeout(() => { socket.destroy(); resolve(`${received}[still open after ${waitMs} ms]`); }, waitMs);
    socket.on('data', (c) => { received += c; });
    socket.on('close', () => { clearTimeout(timer); resolve(received); });
    socket.on('error', (e) => { clearTimeout(timer); reject(e); });
    socket.write(text);
  });
}

const slow = suite('slow clients');
const slowStarting = startApp({ HEADERS_TIMEOUT: '1', REQUEST_TIMEOUT: '2', KEEPALIVE_TIMEOUT: '1' });
let slowApp: TestApp;
slow.before(async () => { slowApp = await slowStarting; });
slow.after(() => slowApp.stop());

slow('headers sent too slowly are answered 408 and the connection closed', async () => {
  const text = await rawSocket(new URL(slowApp.url), 'GET /api/ HTTP/1.1\r\nHost: x\r\nX-Slow: ');
  assert.match(text, /^HTTP\/1\.1 408 /);
  assert.ok(text.includes('"detail":"Request'), text);
});

slow('a body that stops arriving is answered 408 and the connection closed', async () => {
  const text = await rawSocket(new URL(slowApp.url), `POST /api/dcim/sites/ HTTP/1.1\r\nHost: x\r\nAuthorization: Token ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name": `);
  assert.match(text, /^HTTP\/1\.1 408 /);
});

slow('an idle keep-alive connection is closed', async () => {
  const text = await rawSocket(new URL(slowApp.url), 'GET /api/ HTTP/1.1\r\nHost: x\r\n\r\n', 8000);
  assert.match(text, /^HTTP\/1\.1 200/);
  assert.not.ok(text.endsWith('[still open after 8000 ms]'), 'closed by the server');
});

slow.run();

const lax = suite('STRICT_FILTERS=0');
const laxStarting = startApp({ STRICT_FILTERS: '0' });
let laxApp: TestApp;
lax.before(async () => { laxApp = await laxStarting; });
lax.after(() => laxApp.stop());

lax('an unknown parameter is ignored, as NetBox does; malformed values are still refused', async () => {
  await laxApp.post(SITES, { name: 'lax-1', slug: 'lax-1' });
  await laxApp.post(SITES, { name: 'lax-2', slug: 'lax-2' });
  const ignored = await laxApp.get(`${SITES}?nmae=lax-1&virtual_chassis_member_id=5`);
  assert.is(ignored.count, 2);
  const bad = await laxApp.api('GET', `${SITES}?id=99999999999999999999`);
  assert.is(bad.status, 400);
  const repeated = await laxApp.api('GET', `${SITES}?limit=1&limit=2`);
  assert.is(repeated.status, 400);
});

lax.run();
