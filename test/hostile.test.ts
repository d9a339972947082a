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
import { upload } from './upload.js';

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

test('a relation named by an id no row can have, or by attributes of the wrong type, is a 400 naming the field (never the database)', async () => {
  const site = await app.post(SITES, { name: 'rel-site', slug: 'rel-site', latitude: 10 });
  const racks = '/api/dcim/racks/';
  const numeric = (id: string) => [`Related object not found using the provided numeric ID: ${id}`];
  const byAttributes = (attrs: string, reason = '') => [`Related object not found using the provided attributes: ${attrs}${reason ? ` (${reason})` : ''}`];
  const rack = (site: unknown) => ({ name: 'rel-rack', site });
  await expectError('POST', racks, 400, { site: numeric('99999999999') }, { raw: JSON.stringify(rack(99999999999)), headers: { 'Content-Type': 'application/json' } });
  await expectError('POST', racks, 400, { site: numeric('2147483648') }, { raw: JSON.stringify(rack('2147483648')), headers: { 'Content-Type': 'application/json' } });
  await expectError('POST', racks, 400, { site: numeric('0') }, { raw: JSON.stringify(rack(0)), headers: { 'Content-Type': 'application/json' } });
  await expectError('POST', racks, 400, { site: ['Related objects must be referenced by numeric ID or by dictionary of attributes. Received an unrecognized value: 1.5'] }, { raw: JSON.stringify(rack(1.5)), headers: { 'Content-Type': 'application/json' } });
  await expectError('POST', racks, 400, { site: byAttributes('{"id":"x"}', 'id: no object has the id "x".') }, { raw: JSON.stringify(rack({ id: 'x' })), headers: { 'Content-Type': 'application/json' } });
  await expectError('POST', racks, 400, { site: byAttributes('{"id":99999999999}', 'id: no object has the id 99999999999.') }, { raw: JSON.stringify(rack({ id: 99999999999 })), headers: { 'Content-Type': 'application/json' } });
  await expectError('POST', racks, 400, { site: byAttributes('{"name":true}', 'name: Not a valid string.') }, { raw: JSON.stringify(rack({ name: true })), headers: { 'Content-Type': 'application/json' } });
  await expectError('POST', racks, 400, { site: byAttributes('{"latitude":"abc"}', 'latitude: A valid number is required.') }, { raw: JSON.stringify(rack({ latitude: 'abc' })), headers: { 'Content-Type': 'application/json' } });
  await expectError('POST', racks, 400, { site: byAttributes('{"status":5}', 'status: 5 is not a valid choice.') }, { raw: JSON.stringify(rack({ status: 5 })), headers: { 'Content-Type': 'application/json' } });
  // Nested: the inner dictionary is the one named.
  await expectError('POST', racks, 400, { site: byAttributes('{"id":99999999999}', 'id: no object has the id 99999999999.') }, { raw: JSON.stringify(rack({ tenant: { id: 99999999999 } })), headers: { 'Content-Type': 'application/json' } });
  await expectError('POST', racks, 400, { site: byAttributes('{"tenant":"x"}', 'tenant: no object has the id "x".') }, { raw: JSON.stringify(rack({ tenant: 'x' })), headers: { 'Content-Type': 'application/json' } });
  // A number given for a text attribute is compared as text, as NetBox does; a number attribute finds its object.
  await expectError('POST', racks, 400, { site: byAttributes('{"name":5}') }, { raw: JSON.stringify(rack({ name: 5 })), headers: { 'Content-Type': 'application/json' } });
  const found = await app.api('POST', racks, { name: 'rel-rack', site: { latitude: '10', name: 'rel-site' } });
  expectStatus(found, 201);
  assert.is(found.body.site.id, site.id);
  // Lists, generic relations and cable ends.
  await expectError('POST', SITES, 400, { tags: numeric('99999999999') }, { raw: '{"name": "t", "slug": "t", "tags": [99999999999]}', headers: { 'Content-Type': 'application/json' } });
  await expectError('POST', SITES, 400, { asns: byAttributes('{"id":99999999999}', 'id: no object has the id 99999999999.') }, { raw: '{"name": "t", "slug": "t", "asns": [{"id": 99999999999}]}', headers: { 'Content-Type': 'application/json' } });
  await expectError('POST', '/api/extras/journal-entries/', 400, { assigned_object_id: numeric('99999999999') }, { raw: '{"assigned_object_type": "dcim.site", "assigned_object_id": 99999999999, "comments": "x"}', headers: { 'Content-Type': 'application/json' } });
  await expectError('POST', '/api/dcim/cables/', 400, { a_terminations: ['interface 99999999999 does not exist.'] }, { raw: '{"a_terminations": [{"object_type": "dcim.interface", "object_id": 99999999999}], "b_terminations": [{"object_type": "dcim.interface", "object_id": 1}]}', headers: { 'Content-Type': 'application/json' } });
  // An integer as digits beyond what JavaScript counts exactly.
  await expectError('POST', '/api/vpn/l2vpns/', 400, { identifier: ['Ensure this value is between -9007199254740991 and 9007199254740991.'] }, { raw: '{"name": "l", "slug": "l", "type": "vxlan", "identifier": "99999999999999999999"}', headers: { 'Content-Type': 'application/json' } });
  assert.is((await app.get(`${racks}?name=rel-rack`)).count, 1, 'only the valid rack was written');
});

test('filters and path ids beyond an id column are a 400 naming the filter, or a 404', async () => {
  const between = ['Ensure this value is between -2147483647 and 2147483647.'];
  await expectError('GET', '/api/dcim/racks/?site_id=99999999999', 400, { site_id: between });
  await expectError('GET', '/api/dcim/racks/?site_id__n=99999999999', 400, { site_id__n: between });
  await expectError('GET', `${SITES}?id=1e400`, 400, { id: ['Enter a whole number.'] });
  await expectError('GET', `${SITES}?id__gt=1.5`, 400, { id__gt: ['Enter a whole number.'] });
  await expectError('GET', '/api/ipam/ip-addresses/?vminterface_id=99999999999', 400, { vminterface_id: between });
  // Filters through another model's relation (found by the fuzzer on PostgreSQL).
  await expectError('GET', '/api/ipam/route-targets/?importing_l2vpn=k,W@', 400, { importing_l2vpn: ['Enter a whole number.'] });
  await expectError('GET', '/api/ipam/route-targets/?importing_l2vpn_id=2147483648', 400, { importing_l2vpn_id: between });
  // Bulk writes naming ids no row can have (found by the fuzzer on PostgreSQL).
  const missing = (id: string) => [{ id: [`Object with id ${id} does not exist.`] }];
  await expectError('DELETE', '/api/dcim/power-feeds/', 400, missing('2147483648'), { raw: '[2147483648]', headers: { 'Content-Type': 'application/json' } });
  await expectError('DELETE', SITES, 400, missing('99999999999'), { raw: '[{"id": 99999999999}]', headers: { 'Content-Type': 'application/json' } });
  await expectError('PATCH', SITES, 400, missing('99999999999'), { raw: '[{"id": 99999999999, "name": "x"}]', headers: { 'Content-Type': 'application/json' } });
  for (const id of ['99999999999', '2147483648', '1e400', '0']) {
    await expectError('GET', `${SITES}${id}/`, 404, { detail: 'Not found.' });
    await expectError('PATCH', `${SITES}${id}/`, 404, { detail: 'Not found.' }, { raw: '{}', headers: { 'Content-Type': 'application/json' } });
    await expectError('DELETE', `${SITES}${id}/`, 404, { detail: 'Not found.' });
  }
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

test('JSON nested 10,000 deep is refused before it is parsed: 400, nothing written', async () => {
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
  await expectError('GET', '/api/dcim/interfaces/?colour_id=5', 400, {
    colour_id: ["Unknown filter: /api/dcim/interfaces/ has no filter named 'colour_id'. Unknown parameters are refused, so that a typo cannot widen the result."],
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

test('an oversized login POST is a clean 413 (never a reset), announced or chunked, while the client still sends', async () => {
  const detail = { detail: 'Request body too large: at most 16384 bytes are accepted.' };
  const announced = await raw('POST', '/login/', { 'Content-Type': 'application/x-www-form-urlencoded' }, `username=${'a'.repeat(100_000)}`);
  assert.is(announced.status, 413);
  assert.equal(announced.body, detail);
  assert.is(announced.headers.connection, 'close');
  const total = 50 * 1024 * 1024;
  for (const type of ['application/x-www-form-urlencoded', 'application/json']) {
    const chunked = await upload(new URL(app.url), '/login/', { 'Content-Type': type }, total, 0x61);
    assert.is(chunked.status, 413, chunked.error ?? chunked.body);
    assert.equal(JSON.parse(chunked.body), detail);
    assert.is(chunked.connection, 'close');
    assert.ok(chunked.sent < total, 'answered while the body was still arriving');
    assert.ok(chunked.ms < 1000, `answered in ${chunked.ms.toFixed(0)} ms`);
  }
  // The login page still works afterwards.
  const page = await raw('GET', '/login/', {});
  assert.is(page.status, 200);
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

test('no answer to HEAD carries a body: unparsable, oversized, refused early or by a filter', async () => {
  const u = new URL(app.url);
  const bodyOf = (text: string) => text.slice(text.indexOf('\r\n\r\n') + 4);
  const big = 'x'.repeat(200_000);
  for (const [request, status] of [
    [`HEAD /api/ HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\n\r\n`, 431],
    ['HEAD /api/\x01 HTTP/1.1\r\nHost: x\r\n\r\n', 400],
    ['HEAD /api/ HTTP/9.9 x\r\nHost: x\r\n\r\n', 400],
  ] as const) {
    const text = await rawSocket(u, request);
    assert.match(text, new RegExp(`^HTTP/1\\.1 ${status} `), JSON.stringify(text.slice(0, 80)));
    assert.is(bodyOf(text), '', `no body after a ${status} to HEAD`);
  }
  // The same with GET carries the JSON detail.
  assert.match(bodyOf(await rawSocket(u, `GET /api/ HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\n\r\n`)), /"detail"/);
  // On a kept-alive connection, the answer after a refused HEAD starts right after its headers.
  const auth = `Authorization: Token ${ADMIN_TOKEN}\r\n`;
  const text = await rawSocket(u, `HEAD /api/dcim/sites/?nmae=x HTTP/1.1\r\nHost: x\r\n${auth}\r\nHEAD /api/nowhere/ HTTP/1.1\r\nHost: x\r\n${auth}\r\nGET /api/status/ HTTP/1.1\r\nHost: x\r\n${auth}Connection: close\r\n\r\n`);
  const answers = text.split(/(?=HTTP\/1\.1 \d{3} )/);
  assert.equal(answers.map((a) => a.slice(9, 12)), ['400', '404', '200'], text.slice(0, 600));
  assert.ok(answers[0].endsWith('\r\n\r\n') && answers[1].endsWith('\r\n\r\n'), 'the HEAD answers end with their headers');
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

/** One piece of a chunked body. */
const piece = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;

const slow = suite('slow clients');
// The body budget is one body's worth, so a read left waiting after its 408 would block every chunked write.
const slowStarting = startApp({ HEADERS_TIMEOUT: '1', REQUEST_TIMEOUT: '2', KEEPALIVE_TIMEOUT: '1', MAX_BODY_SIZE: '64K', BODY_MEMORY_LIMIT: '64K' });
let slowApp: TestApp;
slow.before(async () => { slowApp = await slowStarting; });
slow.after(() => slowApp.stop());

slow('headers sent too slowly are answered 408 and the connection closed', async () => {
  const text = await rawSocket(new URL(slowApp.url), 'GET /api/ HTTP/1.1\r\nHost: x\r\nX-Slow: ');
  assert.match(text, /^HTTP\/1\.1 408 Request not received in time\r\n/);
  // node:http does not say which method a request whose headers never ended had: it may be a HEAD, so no body.
  assert.ok(text.endsWith('Content-Length: 0\r\nConnection: close\r\n\r\n'), text);
});

slow('a body that stops arriving is answered 408, the connection closed and the body budget given back', async () => {
  const u = new URL(slowApp.url);
  const text = await rawSocket(u, `POST /api/dcim/sites/ HTTP/1.1\r\nHost: x\r\nAuthorization: Token ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name": `);
  assert.match(text, /^HTTP\/1\.1 408 /);
  // A chunked body reserves the whole (one-body) budget: it is read only if the abandoned one gave its share back.
  const chunked = (name: string) => `POST /api/dcim/sites/ HTTP/1.1\r\nHost: x\r\nAuthorization: Token ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${piece(`{"name": "${name}", "slug": "${name}"}`)}0\r\n\r\n`;
  let answer = '';
  for (let i = 0; i < 20 && !answer.startsWith('HTTP/1.1 201'); i++) {
    if (i) await new Promise((r) => setTimeout(r, 100));
    answer = await rawSocket(u, chunked(`after-408-${i}`), 5000);
  }
  assert.match(answer, /^HTTP\/1\.1 201 /);
});

slow('an idle keep-alive connection is closed', async () => {
  const text = await rawSocket(new URL(slowApp.url), 'GET /api/ HTTP/1.1\r\nHost: x\r\n\r\n', 8000);
  assert.match(text, /^HTTP\/1\.1 200/);
  assert.not.ok(text.endsWith('[still open after 8000 ms]'), 'closed by the server');
});

slow.run();

const budget = suite('shared body budget');
const budgetStarting = startApp({ MAX_BODY_SIZE: '1M', BODY_MEMORY_LIMIT: '1M' });
let budgetApp: TestApp;
budget.before(async () => { budgetApp = await budgetStarting; });
budget.after(() => budgetApp.stop());

budget('a body the shared budget cannot hold now is refused at once, before any of it is sent, with Retry-After; the budget is given back', async () => {
  const u = new URL(budgetApp.url);
  // A chunked body reserves the whole limit (here the whole budget) while it arrives.
  const held = connect(Number(u.port), u.hostname);
  let heldAnswer = '';
  held.on('data', (c) => { heldAnswer += c; });
  held.write(`POST ${SITES} HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Token ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${piece('{"name": "held", ')}`);
  // Writes are refused once the held body is being read (a write sent before that is simply created).
  let refused: Awaited<ReturnType<TestApp['api']>> | undefined;
  for (let i = 0; i < 100 && refused?.status !== 413; i++) {
    refused = await budgetApp.api('POST', SITES, { name: `early-${i}`, slug: `early-${i}` });
    if (refused.status !== 413) await new Promise((r) => setTimeout(r, 50));
  }
  assert.is(refused!.status, 413, `${refused!.text} held: ${heldAnswer}`);
  assert.equal(refused!.body, { detail: 'Request body refused: the server is reading too many request bodies at once; retry shortly.' });
  assert.is(refused!.headers.get('retry-after'), '1');
  // Refused before reading: a request that announces a body and sends none of it is answered anyway.
  const started = performance.now();
  const unread = await rawSocket(u, `POST ${SITES} HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Token ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`, 5000);
  assert.match(unread, /^HTTP\/1\.1 413 /);
  assert.match(unread, /\r\nRetry-After: 1\r\n/i);
  assert.match(unread, /\r\nConnection: close\r\n/i);
  assert.ok(performance.now() - started < 2000, `answered in ${(performance.now() - started).toFixed(0)} ms`);
  // The held body completes normally, and gives its share back.
  held.write(`${piece('"slug": "held"}')}0\r\n\r\n`);
  await new Promise<void>((resolve) => { const check = () => (heldAnswer.includes('\r\n\r\n') ? resolve() : setTimeout(check, 20)); check(); });
  held.destroy();
  assert.match(heldAnswer, /^HTTP\/1\.1 201 /);
  expectStatus(await budgetApp.api('POST', SITES, { name: 'after', slug: 'after' }), 201);
  // A body within the limit but announced larger than what is left is refused whole, never half read.
  const big = await budgetApp.api('POST', SITES, { name: 'big', slug: 'big', description: 'x'.repeat(1024 * 1024) });
  assert.is(big.status, 413);
});

budget.run();

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
