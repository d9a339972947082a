/**
 * IPAM scenarios through HTTP: prefix defaults and validation, the network filters (within,
 * contains, mask_length, family, parent, address …) on IPv4 and IPv6 data, numeric ordering,
 * prefix `children`/`_depth` per VRF, and IP addresses assigned to interfaces (a generic relation).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type Reply, type TestApp } from './helpers.js';

// One service for the whole file, started by the first suite and stopped by the last
// (uvu loads test files as CommonJS, so there is no top-level await).
let starting: Promise<TestApp> | undefined;
let app: TestApp;
async function boot(): Promise<void> {
  app = await (starting ??= startApp());
}

const PREFIXES = '/api/ipam/prefixes/';
const ADDRESSES = '/api/ipam/ip-addresses/';

async function post(path: string, body: unknown, what = ''): Promise<any> {
  const reply = await app.api('POST', path, body);
  expectStatus(reply, 201, `POST ${path} ${JSON.stringify(body)} ${what}`);
  return reply.body;
}

async function list(path: string, params: string): Promise<Reply> {
  const reply = await app.api('GET', `${path}?limit=1000&${params}`);
  expectStatus(reply, 200, `GET ${path}?${params}`);
  return reply;
}

/** The field values of the listed objects that belong to `mine` (other suites' data is ignored), sorted. */
function pick(reply: Reply, mine: Map<number, string>): string[] {
  return reply.body.results.filter((r: any) => mine.has(r.id)).map((r: any) => mine.get(r.id)!).sort();
}

function fieldError(reply: Reply, field: string): string {
  const messages = reply.body?.[field];
  assert.ok(Array.isArray(messages) && messages.length > 0, `expected an error on '${field}', got ${reply.text}`);
  return messages.join(' ');
}

// ---------------------------------------------------------------------------------------------
const prefixBasics = suite('prefix: defaults, brief, validation');
prefixBasics.before(boot);

prefixBasics('a prefix created with only prefix and site gets the documented defaults', async () => {
  const site = await post('/api/dcim/sites/', { name: 'IPAM Site', slug: 'ipam-site' });
  const p = await post(PREFIXES, { prefix: '172.20.0.0/16', site: site.id });
  assert.equal(p.status, { value: 'active', label: 'Active' });
  assert.is(p.is_pool, false);
  assert.is(p.description, '');
  assert.equal(p.family, { value: 4, label: 'IPv4' });
  assert.is(p.prefix, '172.20.0.0/16');
  assert.is(p.display, '172.20.0.0/16');
  assert.is(p.site.id, site.id);
  assert.is(p.site.slug, 'ipam-site');
  assert.is(p.vrf, null);
  assert.is(p.url, `${app.url}${PREFIXES}${p.id}/`);
  // and it reads back the same way
  const again = await app.api('GET', `${PREFIXES}${p.id}/`);
  expectStatus(again, 200);
  assert.equal(again.body.status, { value: 'active', label: 'Active' });
  assert.equal(again.body.family, { value: 4, label: 'IPv4' });
});

prefixBasics('brief shows family as the plain number', async () => {
  const p = await post(PREFIXES, { prefix: '172.21.0.0/16' });
  const brief = await app.api('GET', `${PREFIXES}${p.id}/?brief=1`);
  expectStatus(brief, 200);
  assert.is(brief.body.family, 4);
  assert.is(brief.body.prefix, '172.21.0.0/16');
  assert.equal(Object.keys(brief.body).sort(), ['_depth', 'display', 'family', 'id', 'prefix', 'url']);
  const briefList = await list(PREFIXES, `brief=1&prefix=172.21.0.0/16`);
  assert.is(briefList.body.results.length, 1);
  assert.is(briefList.body.results[0].family, 4);
});

prefixBasics('host bits set → 400 on prefix suggesting the network', async () => {
  const reply = await app.api('POST', PREFIXES, { prefix: '10.1.2.3/8' });
  expectStatus(reply, 400);
  assert.match(fieldError(reply, 'prefix'), '10.0.0.0/8');
});

prefixBasics('/0, garbage and wrong types → 400 on prefix, never 500', async () => {
  for (const bad of ['0.0.0.0/0', '::/0', 'garbage', '10.0.0.0/33', '300.1.1.0/24', '10.0.0.0/abc', '', '2001:db8::/129', 12345, ['10.0.0.0/8'], { a: 1 }]) {
    const reply = await app.api('POST', PREFIXES, { prefix: bad });
    expectStatus(reply, 400, `prefix ${JSON.stringify(bad)}:`);
    fieldError(reply, 'prefix');
  }
  const missing = await app.api('POST', PREFIXES, { description: 'no prefix' });
  expectStatus(missing, 400);
  fieldError(missing, 'prefix');
  // a PATCH with a bad prefix is refused the same way, and the prefix is unchanged
  const p = await post(PREFIXES, { prefix: '172.22.0.0/16' });
  const patch = await app.api('PATCH', `${PREFIXES}${p.id}/`, { prefix: '172.22.0.1/16' });
  expectStatus(patch, 400);
  assert.match(fieldError(patch, 'prefix'), '172.22.0.0/16');
  assert.is((await app.api('GET', `${PREFIXES}${p.id}/`)).body.prefix, '172.22.0.0/16');
});

prefixBasics('a duplicate prefix is refused in the global table and in a VRF that enforces uniqueness', async () => {
  await post(PREFIXES, { prefix: '172.23.0.0/16' });
  const dup = await app.api('POST', PREFIXES, { prefix: '172.23.0.0/16' });
  expectStatus(dup, 400, 'duplicate in the global table:');
  assert.match(fieldError(dup, 'prefix'), 'Duplicate prefix');
  const strict = await post('/api/ipam/vrfs/', { name: 'strict' });
  await post(PREFIXES, { prefix: '172.23.0.0/16', vrf: strict.id });
  expectStatus(await app.api('POST', PREFIXES, { prefix: '172.23.0.0/16', vrf: strict.id }), 400, 'duplicate in an enforcing VRF:');
  const loose = await post('/api/ipam/vrfs/', { name: 'loose', enforce_unique: false });
  await post(PREFIXES, { prefix: '172.23.0.0/16', vrf: loose.id });
  await post(PREFIXES, { prefix: '172.23.0.0/16', vrf: loose.id });
  await post(ADDRESSES, { address: '172.23.0.1/16' });
  const addr = await app.api('POST', ADDRESSES, { address: '172.23.0.1/24' });
  expectStatus(addr, 400, 'the same host twice in the global table:');
  fieldError(addr, 'address');
});

prefixBasics('IPv6 prefixes work (family 6, canonical text)', async () => {
  const p = await post(PREFIXES, { prefix: '3FFF:0100::/24' });
  assert.is(p.prefix, '3fff:100::/24');
  assert.equal(p.family, { value: 6, label: 'IPv6' });
  const brief = await app.api('GET', `${PREFIXES}${p.id}/?brief=1`);
  assert.is(brief.body.family, 6);
  const host = await app.api('POST', PREFIXES, { prefix: '3fff:100::1/24' });
  expectStatus(host, 400);
  assert.match(fieldError(host, 'prefix'), '3fff:100::/24');
});

prefixBasics('IP addresses: garbage and /0 → 400; a bare address becomes /32 or /128', async () => {
  for (const bad of ['garbage', '10.0.0.1/33', '0.0.0.0/0', '1.2.3', 42]) {
    const reply = await app.api('POST', ADDRESSES, { address: bad });
    expectStatus(reply, 400, `address ${JSON.stringify(bad)}:`);
    fieldError(reply, 'address');
  }
  const v4 = await post(ADDRESSES, { address: '172.20.9.77' });
  assert.is(v4.address, '172.20.9.77/32');
  assert.equal(v4.family, { value: 4, label: 'IPv4' });
  const v6 = await post(ADDRESSES, { address: '3fff:100::77' });
  assert.is(v6.address, '3fff:100::77/128');
  assert.equal(v6.family, { value: 6, label: 'IPv6' });
  const brief = await app.api('GET', `${ADDRESSES}${v6.id}/?brief=1`);
  assert.equal(Object.keys(brief.body).sort(), ['address', 'display', 'family', 'id', 'url']);
  assert.is(brief.body.family, 6);
});

prefixBasics.run();

// ---------------------------------------------------------------------------------------------
const prefixFilters = suite('prefix: network filters on IPv4 and IPv6 data');
const data = ['10.0.0.0/8', '10.1.0.0/16', '10.1.2.0/24', '10.2.0.0/16', '192.168.0.0/16', '2001:db8::/32', '2001:db8:1::/48'];
const mine = new Map<number, string>();
const q = async (params: string) => pick(await list(PREFIXES, params), mine);
prefixFilters.before(async () => {
  await boot();
  const created = await app.api('POST', PREFIXES, data.map((prefix) => ({ prefix, description: `filter data ${prefix}` })));
  expectStatus(created, 201, 'bulk create of the filter data:');
  for (const p of created.body) mine.set(p.id, p.prefix);
});

prefixFilters('the data is stored as given', async () => {
  assert.equal([...mine.values()].sort(), [...data].sort());
});

prefixFilters('within is strict; within_include includes the prefix itself', async () => {
  assert.equal(await q('within=10.0.0.0/8'), ['10.1.0.0/16', '10.1.2.0/24', '10.2.0.0/16']);
  assert.equal(await q('within_include=10.0.0.0/8'), ['10.0.0.0/8', '10.1.0.0/16', '10.1.2.0/24', '10.2.0.0/16']);
  assert.equal(await q('within=10.1.0.0/16'), ['10.1.2.0/24']);
  assert.equal(await q('within=10.1.2.0/24'), []);
  assert.equal(await q('within=2001:db8::/32'), ['2001:db8:1::/48']);
  assert.equal(await q('within_include=2001:db8::/32'), ['2001:db8:1::/48', '2001:db8::/32']);
});

prefixFilters('contains: an address or a prefix', async () => {
  assert.equal(await q('contains=10.1.2.3'), ['10.0.0.0/8', '10.1.0.0/16', '10.1.2.0/24']);
  assert.equal(await q('contains=10.1.2.0/24'), ['10.0.0.0/8', '10.1.0.0/16', '10.1.2.0/24']);
  assert.equal(await q('contains=10.2.200.1'), ['10.0.0.0/8', '10.2.0.0/16']);
  assert.equal(await q('contains=192.168.255.255'), ['192.168.0.0/16']);
  assert.equal(await q('contains=11.0.0.1'), []);
  assert.equal(await q('contains=2001:db8:1::5'), ['2001:db8:1::/48', '2001:db8::/32']);
});

prefixFilters('mask_length, its lookups and repeats (OR)', async () => {
  assert.equal(await q('mask_length=16'), ['10.1.0.0/16', '10.2.0.0/16', '192.168.0.0/16']);
  assert.equal(await q('mask_length__gte=16'), ['10.1.0.0/16', '10.1.2.0/24', '10.2.0.0/16', '192.168.0.0/16', '2001:db8:1::/48', '2001:db8::/32']);
  assert.equal(await q('mask_length__lte=16'), ['10.0.0.0/8', '10.1.0.0/16', '10.2.0.0/16', '192.168.0.0/16']);
  assert.equal(await q('mask_length=8&mask_length=24'), ['10.0.0.0/8', '10.1.2.0/24']);
});

prefixFilters('family, exact prefix, and AND across parameters', async () => {
  assert.equal(await q('family=6'), ['2001:db8:1::/48', '2001:db8::/32']);
  assert.equal(await q('family=4'), ['10.0.0.0/8', '10.1.0.0/16', '10.1.2.0/24', '10.2.0.0/16', '192.168.0.0/16']);
  assert.equal(await q('prefix=10.1.0.0/16'), ['10.1.0.0/16']);
  assert.equal(await q('prefix=10.1.0.0/16&prefix=2001:db8::/32'), ['10.1.0.0/16', '2001:db8::/32']);
  assert.equal(await q('within=10.0.0.0/8&mask_length=16'), ['10.1.0.0/16', '10.2.0.0/16']);
  assert.equal(await q('family=6&mask_length=16'), []);
});

prefixFilters('q searches the prefix text', async () => {
  assert.equal(await q('q=10.1'), ['10.1.0.0/16', '10.1.2.0/24']);
  assert.equal(await q('q=db8:1'), ['2001:db8:1::/48']);
});

prefixFilters('q given as a CIDR also finds the prefixes containing it', async () => {
  assert.equal(await q('q=10.1.2.0/24'), ['10.0.0.0/8', '10.1.0.0/16', '10.1.2.0/24']);
});

prefixFilters('malformed network values → 400', async () => {
  for (const params of ['within=bogus', 'within_include=10.0.0.0/99', 'contains=not-an-ip', 'mask_length=abc']) {
    const reply = await app.api('GET', `${PREFIXES}?${params}`);
    expectStatus(reply, 400, params);
  }
});

prefixFilters.run();

// ---------------------------------------------------------------------------------------------
const ordering = suite('prefix and address ordering is numeric, IPv4 before IPv6');
let orderVrf: any;
ordering.before(async () => {
  await boot();
  orderVrf = await post('/api/ipam/vrfs/', { name: 'ordering' });
});

ordering('prefixes: 9/8 < 9.255/16 < 10/8 < 10/16 < 100/8 < IPv6', async () => {
  const input = ['2001:db8::/32', '100.0.0.0/8', '10.0.0.0/16', '9.255.0.0/16', '10.0.0.0/8', '9.0.0.0/8'];
  for (const prefix of input) await post(PREFIXES, { prefix, vrf: orderVrf.id });
  const reply = await list(PREFIXES, `vrf_id=${orderVrf.id}`);
  assert.equal(reply.body.results.map((r: any) => r.prefix), ['9.0.0.0/8', '9.255.0.0/16', '10.0.0.0/8', '10.0.0.0/16', '100.0.0.0/8', '2001:db8::/32']);
  // the same order comes out page by page
  const first = await app.api('GET', `${PREFIXES}?vrf_id=${orderVrf.id}&limit=2`);
  const page = await app.api('GET', `${PREFIXES}?vrf_id=${orderVrf.id}&limit=2&offset=2`);
  assert.equal([...first.body.results, ...page.body.results].map((r: any) => r.prefix), ['9.0.0.0/8', '9.255.0.0/16', '10.0.0.0/8', '10.0.0.0/16']);
});

ordering('addresses: 10.0.0.9 < 10.0.0.10 < 10.0.0.100 < 100.0.0.1 < IPv6', async () => {
  const input = ['2001:db8::1/64', '10.0.0.100/24', '100.0.0.1/24', '10.0.0.10/24', '10.0.0.9/24'];
  await post(ADDRESSES, input.map((address) => ({ address, vrf: orderVrf.id })));
  const reply = await list(ADDRESSES, `vrf_id=${orderVrf.id}`);
  assert.equal(reply.body.results.map((r: any) => r.address), ['10.0.0.9/24', '10.0.0.10/24', '10.0.0.100/24', '100.0.0.1/24', '2001:db8::1/64']);
});

ordering.run();

// ---------------------------------------------------------------------------------------------
const hierarchy = suite('prefix: children and _depth per VRF');
hierarchy.before(boot);

hierarchy('children and _depth count prefixes of the same VRF only', async () => {
  // the filter data above lives in the global table: 10/8 ⊃ 10.1/16 ⊃ 10.1.2/24, 10/8 ⊃ 10.2/16, …
  const other = await post('/api/ipam/vrfs/', { name: 'other' });
  const foreign = await post(PREFIXES, { prefix: '10.1.5.0/24', vrf: other.id });
  const foreignParent = await post(PREFIXES, { prefix: '10.0.0.0/8', vrf: other.id });
  const reply = await list(PREFIXES, 'vrf_id=null');
  const byPrefix = new Map<string, any>(reply.body.results.filter((r: any) => mine.has(r.id)).map((r: any) => [r.prefix, r]));
  const expected: Record<string, [number, number]> = {
    '10.0.0.0/8': [0, 3],
    '10.1.0.0/16': [1, 1],
    '10.1.2.0/24': [2, 0],
    '10.2.0.0/16': [1, 0],
    '192.168.0.0/16': [0, 0],
    '2001:db8::/32': [0, 1],
    '2001:db8:1::/48': [1, 0],
  };
  for (const [prefix, [depth, children]] of Object.entries(expected)) {
    assert.ok(byPrefix.has(prefix), `${prefix} listed`);
    assert.is(byPrefix.get(prefix)._depth, depth, `${prefix} _depth`);
    assert.is(byPrefix.get(prefix).children, children, `${prefix} children`);
  }
  // the detail view agrees
  const detail = await app.api('GET', `${PREFIXES}${byPrefix.get('10.1.0.0/16').id}/`);
  assert.is(detail.body._depth, 1);
  assert.is(detail.body.children, 1);
  // in the other VRF, 10.1.5.0/24 has only that VRF's 10.0.0.0/8 above it
  const f = await app.api('GET', `${PREFIXES}${foreign.id}/`);
  assert.is(f.body._depth, 1);
  assert.is(f.body.children, 0);
  const fp = await app.api('GET', `${PREFIXES}${foreignParent.id}/`);
  assert.is(fp.body.children, 1);
  assert.is(fp.body._depth, 0);
  // brief carries _depth too
  const brief = await app.api('GET', `${PREFIXES}${byPrefix.get('10.1.2.0/24').id}/?brief=1`);
  assert.is(brief.body._depth, 2);
});

hierarchy('children and _depth follow writes', async () => {
  const vrf = await post('/api/ipam/vrfs/', { name: 'moving' });
  const top = await post(PREFIXES, { prefix: '10.50.0.0/16', vrf: vrf.id });
  const leaf = await post(PREFIXES, { prefix: '10.50.1.0/24', vrf: vrf.id });
  assert.is((await app.api('GET', `${PREFIXES}${leaf.id}/`)).body._depth, 1);
  assert.is((await app.api('GET', `${PREFIXES}${top.id}/`)).body.children, 1);
  // moving the parent out of the VRF detaches the two
  const moved = await app.api('PATCH', `${PREFIXES}${top.id}/`, { vrf: null, prefix: '10.60.0.0/16' });
  expectStatus(moved, 200);
  assert.is((await app.api('GET', `${PREFIXES}${leaf.id}/`)).body._depth, 0);
  assert.is(moved.body.children, 0);
  expectStatus(await app.api('DELETE', `${PREFIXES}${top.id}/`), 204);
});

hierarchy.run();

// ---------------------------------------------------------------------------------------------
const addressFilters = suite('ip addresses: network filters');
const addrs = new Map<number, string>();
let addrVrf: any;
const qa = async (params: string) => pick(await list(ADDRESSES, params), addrs);
addressFilters.before(async () => {
  await boot();
  addrVrf = await post('/api/ipam/vrfs/', { name: 'addresses' });
  for (const input of [
    { address: '10.1.2.5/24' },
    { address: '10.1.2.6/25' },
    { address: '10.2.0.9' },
    { address: '2001:db8:1::5/64' },
    { address: '10.1.2.5/24', vrf: 0 },
  ]) {
    const body = 'vrf' in input ? { ...input, vrf: addrVrf.id } : input;
    const a = await post(ADDRESSES, body);
    addrs.set(a.id, `${a.address}${a.vrf ? ' vrf' : ''}`);
  }
});

addressFilters('create: the address keeps its mask; a bare one becomes /32', async () => {
  assert.equal([...addrs.values()].sort(), ['10.1.2.5/24', '10.1.2.5/24 vrf', '10.1.2.6/25', '10.2.0.9/32', '2001:db8:1::5/64']);
});

addressFilters('parent finds the hosts inside a prefix', async () => {
  assert.equal(await qa('parent=10.1.2.0/24&vrf_id=null'), ['10.1.2.5/24', '10.1.2.6/25']);
  assert.equal(await qa('parent=10.2.0.0/16'), ['10.2.0.9/32']);
  assert.equal(await qa('parent=10.1.2.4/31&vrf_id=null'), ['10.1.2.5/24']);
  assert.equal(await qa('parent=2001:db8::/32'), ['2001:db8:1::5/64']);
  assert.equal(await qa('parent=10.1.2.0/24&parent=10.2.0.0/16&vrf_id=null'), ['10.1.2.5/24', '10.1.2.6/25', '10.2.0.9/32']);
});

addressFilters('address: bare host matches any mask; with a mask it must match', async () => {
  assert.equal(await qa('address=10.1.2.5'), ['10.1.2.5/24', '10.1.2.5/24 vrf']);
  assert.equal(await qa('address=10.1.2.5/24'), ['10.1.2.5/24', '10.1.2.5/24 vrf']);
  assert.equal(await qa('address=10.1.2.5/25'), []);
  assert.equal(await qa('address=10.1.2.5&address=10.2.0.9'), ['10.1.2.5/24', '10.1.2.5/24 vrf', '10.2.0.9/32']);
  assert.equal(await qa('address=2001:db8:1::5'), ['2001:db8:1::5/64']);
});

addressFilters('mask_length, family, vrf_id (and vrf_id=null)', async () => {
  assert.equal(await qa('mask_length=24'), ['10.1.2.5/24', '10.1.2.5/24 vrf']);
  assert.equal(await qa('mask_length=24&mask_length=32'), ['10.1.2.5/24', '10.1.2.5/24 vrf', '10.2.0.9/32']);
  assert.equal(await qa('mask_length__gte=25'), ['10.1.2.6/25', '10.2.0.9/32', '2001:db8:1::5/64']);
  assert.equal(await qa('family=6'), ['2001:db8:1::5/64']);
  assert.equal(await qa('family=4&mask_length=25'), ['10.1.2.6/25']);
  assert.equal(await qa(`vrf_id=${addrVrf.id}`), ['10.1.2.5/24 vrf']);
  assert.equal(await qa('vrf_id=null'), ['10.1.2.5/24', '10.1.2.6/25', '10.2.0.9/32', '2001:db8:1::5/64']);
  assert.equal(await qa(`vrf_id=null&vrf_id=${addrVrf.id}`), ['10.1.2.5/24', '10.1.2.5/24 vrf', '10.1.2.6/25', '10.2.0.9/32', '2001:db8:1::5/64']);
  const all = (await list(ADDRESSES, 'vrf_id=null')).body.results;
  assert.ok(all.every((r: any) => r.vrf === null), 'vrf_id=null lists only addresses without a VRF');
});

addressFilters('q matches the address text', async () => {
  assert.equal(await qa('q=10.1.2'), ['10.1.2.5/24', '10.1.2.5/24 vrf', '10.1.2.6/25']);
});

addressFilters('q on the address is a prefix of its text, as NetBox (address__istartswith on TEXT(address)), beside dns_name and description', async () => {
  assert.equal(await qa('q=0.1.2'), [], 'a substring inside the address is no match');
  assert.equal(await qa('q=10.2.0.9'), ['10.2.0.9/32']);
  assert.equal(await qa('q=2001:DB8:1'), ['2001:db8:1::5/64'], 'case-insensitive');
  assert.equal(await qa('q=10.1.2.5/24'), ['10.1.2.5/24', '10.1.2.5/24 vrf'], 'the text holds the mask');
  assert.equal(await qa('q=10.1.2.5/2'), ['10.1.2.5/24', '10.1.2.5/24 vrf'], 'a prefix of the mask too');
  assert.equal(await qa('q=10.1.2.5/25'), []);
  const named = await post(ADDRESSES, { address: '192.0.2.1/32', dns_name: 'core-10.1.2.example', description: 'uplink to 0.1.2' });
  try {
    const found = async (q: string) => (await list(ADDRESSES, `q=${encodeURIComponent(q)}`)).body.results.map((r: any) => r.id);
    assert.ok((await found('10.1.2')).includes(named.id), 'dns_name still matches anywhere');
    assert.equal(await found('0.1.2'), [named.id], 'description still matches anywhere');
    assert.equal(await found('UPLINK'), [named.id], 'case-insensitive on text');
    assert.equal(await found('up'), [named.id], 'fewer than three characters too');
    assert.equal(await found('k t'), [named.id], 'spaces are text');
    await app.api('PATCH', `${ADDRESSES}${named.id}/`, { description: 'downlink' });
    assert.equal(await found('uplink'), [], 'an edited description is searched as it is now');
    assert.equal(await found('downlink'), [named.id]);
    await app.api('PATCH', `${ADDRESSES}${named.id}/`, { description: '', dns_name: '' });
    assert.equal(await found('downlink'), [], 'emptied text matches nothing');
    await app.api('PATCH', `${ADDRESSES}${named.id}/`, { description: 'back again' });
    assert.equal(await found('back again'), [named.id], 'and text given again is found');
  } finally {
    await app.api('DELETE', `${ADDRESSES}${named.id}/`);
  }
});

addressFilters('malformed parent → 400', async () => {
  expectStatus(await app.api('GET', `${ADDRESSES}?parent=bogus`), 400, 'parent=bogus');
  expectStatus(await app.api('GET', `${ADDRESSES}?mask_length=x`), 400, 'mask_length=x');
});

addressFilters.run();

// ---------------------------------------------------------------------------------------------
const assignment = suite('ip addresses assigned to interfaces');
let device: any;
let iface: any;
let otherIface: any;
assignment.before(async () => {
  await boot();
  const site = await post('/api/dcim/sites/', { name: 'Assign Site', slug: 'assign-site' });
  const manufacturer = await post('/api/dcim/manufacturers/', { name: 'Acme', slug: 'acme' });
  const type = await post('/api/dcim/device-types/', { manufacturer: manufacturer.id, model: 'Router 9000', slug: 'router-9000' });
  const role = await post('/api/dcim/device-roles/', { name: 'Router', slug: 'router' });
  device = await post('/api/dcim/devices/', { name: 'edge1', device_type: type.id, role: role.id, site: site.id });
  const other = await post('/api/dcim/devices/', { name: 'edge2', device_type: type.id, role: role.id, site: site.id });
  iface = await post('/api/dcim/interfaces/', { device: device.id, name: 'eth0', type: '1000base-t' });
  otherIface = await post('/api/dcim/interfaces/', { device: other.id, name: 'eth0', type: '1000base-t' });
});

assignment('assigned_object is the nested interface with its nested device', async () => {
  const a = await post(ADDRESSES, { address: '192.0.2.10/24', assigned_object_type: 'dcim.interface', assigned_object_id: iface.id });
  assert.is(a.assigned_object_type, 'dcim.interface');
  assert.is(a.assigned_object_id, iface.id);
  const o = a.assigned_object;
  assert.ok(o, 'assigned_object set');
  assert.equal(Object.keys(o).sort(), ['_occupied', 'cable', 'connection_status', 'device', 'display', 'id', 'name', 'url']);
  assert.is(o.connection_status, false, 'no cable: not connected');
  assert.is(o.id, iface.id);
  assert.is(o.url, `${app.url}/api/dcim/interfaces/${iface.id}/`);
  assert.is(o.display, 'eth0');
  assert.is(o.name, 'eth0');
  assert.is(o.cable, null);
  assert.is(o._occupied, false);
  assert.equal(Object.keys(o.device).sort(), ['display', 'display_name', 'id', 'name', 'url']);
  assert.is(o.device.id, device.id);
  assert.is(o.device.url, `${app.url}/api/dcim/devices/${device.id}/`);
  assert.is(o.device.name, 'edge1');
  assert.is(o.device.display, 'edge1');
  assert.is(o.device.display_name, 'edge1');
  // GET shows the same
  const again = await app.api('GET', `${ADDRESSES}${a.id}/`);
  assert.equal(again.body.assigned_object, o);
  // an unassigned address shows nulls
  const loose = await post(ADDRESSES, { address: '192.0.2.11/24' });
  assert.is(loose.assigned_object, null);
  assert.is(loose.assigned_object_type, null);
  assert.is(loose.assigned_object_id, null);
});

assignment('connection_status: true on a cabled interface with a complete path, false otherwise, in lists and details', async () => {
  const [near, far, spare] = await app.post('/api/dcim/interfaces/', [
    { device: device.id, name: 'cs0', type: '1000base-t' }, { device: device.id, name: 'cs1', type: '1000base-t' }, { device: device.id, name: 'cs2', type: '1000base-t' },
  ]);
  const on = await post(ADDRESSES, { address: '198.51.100.1/24', assigned_object_type: 'dcim.interface', assigned_object_id: near.id });
  const off = await post(ADDRESSES, { address: '198.51.100.2/24', assigned_object_type: 'dcim.interface', assigned_object_id: spare.id });
  const fhrp = await post('/api/ipam/fhrp-groups/', { protocol: 'vrrp2', group_id: 77 });
  const group = await post(ADDRESSES, { address: '198.51.100.3/24', assigned_object_type: 'ipam.fhrpgroup', assigned_object_id: fhrp.id });
  const cable = await post('/api/dcim/cables/', { a_terminations: [{ object_type: 'dcim.interface', object_id: near.id }], b_terminations: [{ object_type: 'dcim.interface', object_id: far.id }] });
  try {
    assert.is((await app.get(`${ADDRESSES}${on.id}/`)).assigned_object.connection_status, true, 'detail: connected');
    assert.is((await app.get(`${ADDRESSES}${off.id}/`)).assigned_object.connection_status, false, 'detail: not connected');
    const list = (await app.get(`${ADDRESSES}?id=${on.id}&id=${off.id}&id=${group.id}`)).results;
    const byId = new Map(list.map((r: any) => [r.id, r.assigned_object]));
    assert.is((byId.get(on.id) as any).connection_status, true, 'list: connected');
    assert.is((byId.get(off.id) as any).connection_status, false, 'list: not connected');
    assert.is('connection_status' in (byId.get(group.id) as any), false, 'an FHRP group has none');
    // the interface's own forms are NetBox 3.7's
    assert.is('connection_status' in (await app.get(`/api/dcim/interfaces/${near.id}/`)), false);
    expectStatus(await app.api('DELETE', `/api/dcim/cables/${cable.id}/`), 204);
    assert.is((await app.get(`${ADDRESSES}${on.id}/`)).assigned_object.connection_status, false, 'cable gone: not connected');
  } finally {
    await app.api('DELETE', `/api/dcim/cables/${cable.id}/`);
    for (const a of [on, off, group]) await app.api('DELETE', `${ADDRESSES}${a.id}/`);
    await app.api('DELETE', `/api/ipam/fhrp-groups/${fhrp.id}/`);
    for (const i of [near, far, spare]) await app.api('DELETE', `/api/dcim/interfaces/${i.id}/`);
  }
});

assignment('interface_id and device_id find the address; the interface counts it', async () => {
  const a = await post(ADDRESSES, { address: '192.0.2.20/24', assigned_object_type: 'dcim.interface', assigned_object_id: iface.id });
  const b = await post(ADDRESSES, { address: '192.0.2.21/24', assigned_object_type: 'dcim.interface', assigned_object_id: otherIface.id });
  const ids = (r: Reply) => r.body.results.map((x: any) => x.id);
  const byIface = ids(await list(ADDRESSES, `interface_id=${iface.id}`));
  assert.ok(byIface.includes(a.id));
  assert.not.ok(byIface.includes(b.id));
  const byDevice = ids(await list(ADDRESSES, `device_id=${device.id}`));
  assert.ok(byDevice.includes(a.id));
  assert.not.ok(byDevice.includes(b.id));
  assert.ok(ids(await list(ADDRESSES, `device=edge1`)).includes(a.id), 'device (name)');
  assert.ok(ids(await list(ADDRESSES, `assigned_to_interface=true`)).includes(a.id));
  assert.not.ok(ids(await list(ADDRESSES, `assigned_to_interface=false`)).includes(a.id));
  const count = (await app.api('GET', `/api/dcim/interfaces/${otherIface.id}/`)).body.count_ipaddresses;
  assert.is(count, 1);
});

assignment('reassigning by PATCH moves the address', async () => {
  const a = await post(ADDRESSES, { address: '192.0.2.30/24', assigned_object_type: 'dcim.interface', assigned_object_id: iface.id });
  const moved = await app.api('PATCH', `${ADDRESSES}${a.id}/`, { assigned_object_id: otherIface.id });
  expectStatus(moved, 200);
  assert.is(moved.body.assigned_object.id, otherIface.id);
  assert.is(moved.body.assigned_object.device.name, 'edge2');
  assert.is((await app.api('GET', `/api/dcim/interfaces/${iface.id}/`)).body.count_ipaddresses, 2, 'only the two addresses still on eth0 of edge1');
});

assignment('PATCH with assigned_object_type and assigned_object_id null clears the assignment', async () => {
  const a = await post(ADDRESSES, { address: '192.0.2.31/24', assigned_object_type: 'dcim.interface', assigned_object_id: iface.id });
  const cleared = await app.api('PATCH', `${ADDRESSES}${a.id}/`, { assigned_object_type: null, assigned_object_id: null });
  expectStatus(cleared, 200);
  assert.is(cleared.body.assigned_object, null);
  assert.is(cleared.body.assigned_object_type, null);
  assert.is(cleared.body.assigned_object_id, null);
  assert.is((await app.api('GET', `${ADDRESSES}${a.id}/`)).body.assigned_object, null);
});

assignment('bad assignments → 400', async () => {
  const missing = await app.api('POST', ADDRESSES, { address: '192.0.2.40/24', assigned_object_type: 'dcim.interface', assigned_object_id: 999999 });
  expectStatus(missing, 400, 'missing target:');
  fieldError(missing, 'assigned_object_id');
  const noId = await app.api('POST', ADDRESSES, { address: '192.0.2.41/24', assigned_object_type: 'dcim.interface' });
  expectStatus(noId, 400, 'type without id:');
  fieldError(noId, 'assigned_object_id');
  const noType = await app.api('POST', ADDRESSES, { address: '192.0.2.42/24', assigned_object_id: iface.id });
  expectStatus(noType, 400, 'id without type:');
  fieldError(noType, 'assigned_object_type');
  const unknown = await app.api('POST', ADDRESSES, { address: '192.0.2.43/24', assigned_object_type: 'dcim.nosuchthing', assigned_object_id: iface.id });
  expectStatus(unknown, 400, 'unknown type:');
  fieldError(unknown, 'assigned_object_type');
  const wrongType = await app.api('POST', ADDRESSES, { address: '192.0.2.44/24', assigned_object_type: 'dcim.site', assigned_object_id: 1 });
  expectStatus(wrongType, 400, 'a type that cannot be assigned:');
  // nothing was created by the refused requests
  const after = await list(ADDRESSES, 'parent=192.0.2.40/29');
  assert.equal(after.body.results.map((r: any) => r.address).filter((x: string) => x.startsWith('192.0.2.4')), []);
});

assignment('deleting the interface deletes its addresses, as NetBox 3.7 does; an unassigned address stays', async () => {
  const spare = await post('/api/dcim/interfaces/', { device: device.id, name: 'eth9', type: '1000base-t' });
  const a = await post(ADDRESSES, { address: '192.0.2.50/24', assigned_object_type: 'dcim.interface', assigned_object_id: spare.id });
  const loose = await post(ADDRESSES, { address: '192.0.2.51/24' });
  expectStatus(await app.api('DELETE', `/api/dcim/interfaces/${spare.id}/`), 204, 'delete the interface:');
  expectStatus(await app.api('GET', `${ADDRESSES}${a.id}/`), 404);
  expectStatus(await app.api('GET', `${ADDRESSES}${loose.id}/`), 200);
  const changes = await list('/api/extras/object-changes/', `changed_object_type=ipam.ipaddress&changed_object_id=${a.id}&action=delete`);
  assert.is(changes.body.count, 1, 'the cascaded delete is in the change log');
  await app.api('DELETE', `${ADDRESSES}${loose.id}/`);
});

assignment.after(async () => { await app?.stop(); });
assignment.run();
