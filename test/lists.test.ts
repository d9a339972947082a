/**
 * The read path of list pages (docs/perf/lists.md): a small page's rows read and sorted in two steps
 * on SQLite, tags read as pairs of ids, links, reverse_one rows and cable paths through compiled
 * reads, the count taken beside the render. A page must say exactly what the object's own detail
 * says, and a small page must be the slice of the whole list.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN_TOKEN, engine, startApp, type TestApp } from './helpers.js';

let app: TestApp;
const test = suite('list pages');
const ips: { id: number }[] = [];
let cableId = 0;
let unnamed = 0;

test.before(async () => {
  app = await startApp();
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'Lists Maker', slug: 'lists-maker' });
  const type = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Lists Box', slug: 'lists-box' });
  const role = await app.post('/api/dcim/device-roles/', { name: 'Lists Role', slug: 'lists-role' });
  const site = await app.post('/api/dcim/sites/', { name: 'Lists Site', slug: 'lists-site' });
  const tags = await app.post('/api/extras/tags/', [{ name: 'zeta', slug: 'zeta' }, { name: 'Alpha', slug: 'alpha' }, { name: 'mid', slug: 'mid', color: 'ff0000' }]);
  // One device without a name: its display comes from its type and the type's maker (two levels down).
  const devices = await app.post('/api/dcim/devices/', [
    { name: 'lists-a', device_type: type.id, role: role.id, site: site.id, tags: [tags[0].id, tags[2].id] },
    { device_type: type.id, role: role.id, site: site.id, tags: [tags[1].id, tags[0].id, tags[2].id] },
  ]);
  unnamed = devices[1].id;
  const ifaces = await app.post('/api/dcim/interfaces/', devices.flatMap((d: { id: number }) => [0, 1, 2].map((j) => ({ device: d.id, name: `eth${j}`, type: '1000base-t' }))));
  const cable = await app.post('/api/dcim/cables/', { a_terminations: [{ object_type: 'dcim.interface', object_id: ifaces[0].id }], b_terminations: [{ object_type: 'dcim.interface', object_id: ifaces[3].id }] });
  cableId = cable.id;
  ips.push(...await app.post('/api/ipam/ip-addresses/', Array.from({ length: 30 }, (_, i) => ({
    address: `198.51.100.${(i * 7) % 30 + 1}/24`, dns_name: `host${i % 4}.example`,
    ...(i % 5 === 4 ? {} : { assigned_object_type: 'dcim.interface', assigned_object_id: ifaces[i % ifaces.length].id }),
  }))));
});
test.after(async () => { await app?.stop(); });

test('every object of a page reads as its own detail does (nested interface, device, type, maker, cable)', async () => {
  const page = await app.get('/api/ipam/ip-addresses/?parent=198.51.100.0/24&limit=100');
  assert.is(page.results.length, 30);
  for (const ip of page.results) assert.equal(ip, await app.get(`/api/ipam/ip-addresses/${ip.id}/`));
  const cabled = page.results.filter((ip: any) => ip.assigned_object?.cable);
  assert.ok(cabled.length > 0 && cabled.every((ip: any) => ip.assigned_object.cable.id === cableId), 'the cable of an interface shows in its nested form');
  const device = await app.get(`/api/dcim/devices/${unnamed}/`);
  assert.is(device.display, `Lists Maker Lists Box (${unnamed})`);
  assert.ok(page.results.some((ip: any) => ip.assigned_object?.device?.display === device.display), 'an unnamed device shows its type and maker');
  const devices = await app.get('/api/dcim/devices/?role=lists-role&limit=1000');
  for (const d of devices.results) assert.equal(d, await app.get(`/api/dcim/devices/${d.id}/`));
});

test('tags of a page come in name order, each in its full nested form', async () => {
  // Devices without a name come first (NetBox orders nulls first).
  const devices = (await app.get('/api/dcim/devices/?role=lists-role')).results;
  assert.equal(devices.map((d: any) => d.tags.map((t: any) => t.name)), [['Alpha', 'mid', 'zeta'], ['mid', 'zeta']]);
  const mid = devices[1].tags[0];
  assert.equal(Object.keys(mid), ['id', 'url', 'display', 'name', 'slug', 'color']);
  assert.is(mid.color, 'ff0000');
  assert.equal(devices[0].tags[1], mid);
});

test('a small page is the slice of the whole order, whatever the ordering and offset', async () => {
  for (const ordering of ['', '&ordering=-address', '&ordering=dns_name', '&ordering=-dns_name,address']) {
    const all = (await app.get(`/api/ipam/ip-addresses/?parent=198.51.100.0/24&limit=1000${ordering}`)).results.map((r: any) => r.id);
    assert.is(all.length, 30);
    for (const offset of [0, 4, 27]) {
      const page = await app.get(`/api/ipam/ip-addresses/?parent=198.51.100.0/24&limit=4&offset=${offset}${ordering}`);
      assert.equal(page.results.map((r: any) => r.id), all.slice(offset, offset + 4), `offset ${offset}${ordering}`);
      assert.is(page.count, 30);
      assert.is(page.next === null, offset + 4 >= 30);
    }
  }
});

test('a full first page is counted (with the same filters) beside its render', async () => {
  const reply = await app.api('GET', '/api/ipam/ip-addresses/?parent=198.51.100.0/24&dns_name=host1.example&limit=3');
  assert.is(reply.status, 200);
  assert.is(reply.body.count, ips.filter((_, i) => i % 4 === 1).length);
  assert.is(reply.body.results.length, 3);
  assert.ok(reply.body.next?.includes('offset=3'));
  assert.is(reply.headers.get('x-count-estimated'), null);
});

/** An address's place in the address order: family, network, mask length, host (numbers for comparing). */
function addressKey(text: string): { family: number; host: bigint; first: bigint; length: number } {
  const [addr, len] = text.split('/');
  const v6 = addr.includes(':');
  const bits = v6 ? 128 : 32;
  let host = 0n;
  if (v6) {
    const [head, tail = ''] = addr.split('::');
    const groups = [...head.split(':').filter(Boolean), ...Array(8 - head.split(':').filter(Boolean).length - tail.split(':').filter(Boolean).length).fill('0'), ...tail.split(':').filter(Boolean)];
    for (const g of groups) host = (host << 16n) | BigInt(parseInt(g, 16));
  } else for (const part of addr.split('.')) host = (host << 8n) | BigInt(Number(part));
  const length = Number(len);
  const mask = ((1n << BigInt(length)) - 1n) << BigInt(bits - length);
  return { family: v6 ? 6 : 4, host, first: host & mask, length };
}

test('parent= pages are the exact matches in the exact order: masks shorter and longer than the parent, VRFs, other filters, offsets, IPv6', async () => {
  const tenant = await app.post('/api/tenancy/tenants/', { name: 'Parent mix', slug: 'parent-mix' });
  const vrf = await app.post('/api/ipam/vrfs/', { name: 'parent-mix' });
  const texts = [
    // inside 100.64.1.0/24 with masks shorter than /24 (their network lies outside it), and longer; a
    // global address is unique, so the one duplicate (same address, two VRFs) is in a VRF once
    '100.64.1.5/10', '100.64.1.6/8', '100.64.1.7/16', '100.64.1.8/23', '100.64.1.10/1', '100.64.1.11/2', '100.64.1.12/4',
    '100.64.1.0/24', '100.64.1.1/24', '100.64.1.1/24', '100.64.1.200/25', '100.64.1.201/32', '100.64.1.202/31', '100.64.1.255/24',
    // the same networks and mask lengths as some of those, the host outside the /24 (inside wider parents)
    '100.64.2.5/16', '100.65.0.1/10', '100.65.0.1/15', '100.64.0.1/15', '100.127.255.255/10', '100.128.0.1/9', '101.0.0.1/8',
    '99.255.255.255/8', '100.64.0.0/16', '100.64.0.2/10', '100.63.255.255/10',
    '2001:db8:42::1/64', '2001:db8:42::3/32', '2001:db8:42::1/48', '2001:db8:42:1::5/128', '2001:db8:43::1/32', '2001:db8:42::/48',
    '2001:db8:42:ffff:ffff:ffff:ffff:ffff/47', '2001:db8:41:ffff::1/47', '2001:db9::1/16', '2001:db8:42::2/127', '2001:db8:42::4/1',
  ];
  const created: { id: number; address: string }[] = await app.post('/api/ipam/ip-addresses/', texts.map((address, i) => ({
    address, tenant: tenant.id, ...(i % 3 === 0 ? { vrf: vrf.id } : {}), ...(i % 4 === 1 ? { status: 'reserved' } : {}), dns_name: `h${i % 2}.example`,
  })));
  const rows = created.map((r, i) => ({ id: r.id, ...addressKey(texts[i]), vrf: i % 3 === 0 ? vrf.id : null, status: i % 4 === 1 ? 'reserved' : 'active', dns: `h${i % 2}.example` }));
  const cmp = (a: bigint | number, b: bigint | number) => (a < b ? -1 : a > b ? 1 : 0);
  const orders: Record<string, (a: typeof rows[0], b: typeof rows[0]) => number> = {
    '': (a, b) => cmp(a.family, b.family) || cmp(a.first, b.first) || cmp(a.length, b.length) || cmp(a.host, b.host) || cmp(a.id, b.id),
    '&ordering=-address': (a, b) => cmp(b.family, a.family) || cmp(b.first, a.first) || cmp(b.length, a.length) || cmp(b.host, a.host) || cmp(a.id, b.id),
    '&ordering=dns_name': (a, b) => cmp(Number(a.dns[1]), Number(b.dns[1])) || cmp(a.id, b.id),
  };
  orders['&ordering=address'] = orders[''];
  const extras: Record<string, (r: typeof rows[0]) => boolean> = {
    '': () => true,
    '&vrf_id=null': (r) => r.vrf === null,
    [`&vrf_id=${vrf.id}`]: (r) => r.vrf === vrf.id,
    '&status=reserved': (r) => r.status === 'reserved',
    '&dns_name=h1.example&mask_length__lt=24': (r) => r.dns === 'h1.example' && r.length < 24,
  };
  const parents = ['100.64.1.0/24', '100.64.1.77/24', '100.64.0.0/16', '100.64.0.0/15', '100.64.0.0/10', '100.0.0.0/8', '0.0.0.0/0', '100.64.1.201/32',
    '100.64.1.200/31', '2001:db8:42::/48', '2001:db8::/32', '2001:db8:42::1/128', '::/0'];
  for (const parent of parents) {
    const p = addressKey(parent);
    const bits = p.family === 6 ? 128 : 32;
    const last = p.first | ((1n << BigInt(bits - p.length)) - 1n);
    for (const [extra, keep] of Object.entries(extras)) {
      for (const [ordering, order] of Object.entries(orders)) {
        if (ordering && extra) continue;
        const expected = rows.filter((r) => r.family === p.family && r.host >= p.first && r.host <= last && keep(r)).sort(order).map((r) => r.id);
        const query = `/api/ipam/ip-addresses/?parent=${parent}&tenant_id=${tenant.id}${extra}${ordering}`;
        const whole = await app.get(`${query}&limit=1000`);
        assert.equal(whole.results.map((r: { id: number }) => r.id), expected, query);
        for (const offset of [0, 3, 7]) {
          const page = await app.get(`${query}&limit=4&offset=${offset}`);
          assert.equal(page.results.map((r: { id: number }) => r.id), expected.slice(offset, offset + 4), `${query} offset ${offset}`);
          assert.is(page.count, expected.length, `${query} count`);
        }
      }
    }
  }
});

test('SQLite with statistics: a parent= page in the address order takes its ids from the index in order, without sorting every match', async () => {
  if (engine !== 'sqlite') return;
  await app.post('/api/ipam/ip-addresses/', Array.from({ length: 1000 }, (_, i) => ({ address: `10.200.${i >> 8}.${i & 255}/8` })));
  await app.post('/api/ipam/ip-addresses/', Array.from({ length: 1000 }, (_, i) => ({ address: `10.201.${i >> 8}.${i & 255}/8` })));
  const db = app.running.db;
  // what PRAGMA optimize does for a populated database after a restart (runtime/data/statistics.ts)
  await db.raw('analyze');
  const seen: { sql: string; bindings: unknown[] }[] = [];
  const record = (q: { sql: string; bindings: unknown[] }) => { seen.push(q); };
  db.on('query', record);
  let page;
  try {
    page = await app.get('/api/ipam/ip-addresses/?parent=10.0.0.0/8&limit=10&offset=5');
  } finally {
    db.removeListener('query', record);
  }
  assert.equal(page.results.map((r: { address: string }) => r.address), Array.from({ length: 10 }, (_, i) => `10.200.0.${i + 5}/8`));
  const read = seen.find((q) => /^select .+? from `ipam_ipaddress` where `id` in \(/.test(q.sql));
  assert.ok(read, 'the page reads its rows by the ids of a subquery');
  const plan: { parent: number; detail: string }[] = await db.raw(`explain query plan ${read!.sql}`, read!.bindings as never);
  // Only the page's own 10 rows may be sorted (at the top level); the ids come in order from the index.
  const sorts = plan.filter((step) => /TEMP B-TREE/.test(step.detail) && step.parent !== 0);
  assert.equal(sorts.map((s) => s.detail), [], JSON.stringify(plan.map((s) => s.detail)));
});

test('SQLite: a page of IP addresses does not read the byte forms of the address (no representation shows them)', async () => {
  if (engine !== 'sqlite') return;
  const db = app.running.db;
  const seen: string[] = [];
  const record = (q: { sql: string }) => { seen.push(q.sql); };
  db.on('query', record);
  let small; let big;
  try {
    small = await app.get('/api/ipam/ip-addresses/?parent=198.51.100.0/24&limit=5');
    big = await app.get('/api/ipam/ip-addresses/?limit=300&ordering=dns_name');
  } finally {
    db.removeListener('query', record);
  }
  for (const ip of [...small.results, ...big.results.slice(0, 5)]) assert.equal(ip, await app.get(`/api/ipam/ip-addresses/${ip.id}/`));
  const pages = seen.filter((sql) => /^select .+? from `ipam_ipaddress` (where `id` in|order by)/.test(sql)).map((sql) => sql.slice(0, sql.indexOf(' from ')));
  assert.is(pages.length, 2, JSON.stringify(seen));
  for (const columns of pages) {
    assert.ok(columns.includes('`address`') && columns.includes('`family`'), columns);
    assert.not.ok(/\*|address_(host|first|last)/.test(columns), columns);
  }
});

test('a JSON answer leaves as its UTF-8 bytes: Content-Length, Content-Type and HEAD agree with the text', async () => {
  const name = 'Zürich ✓ 𝄞 "quoted" \\ back\nline';
  const site = await app.post('/api/dcim/sites/', { name: 'Lists Zürich', slug: 'lists-zurich', description: name });
  const reply = await app.api('GET', `/api/dcim/sites/?slug=lists-zurich`);
  assert.is(reply.status, 200);
  assert.is(reply.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.is(Number(reply.headers.get('content-length')), Buffer.byteLength(reply.text));
  assert.is(reply.text, JSON.stringify(reply.body));
  assert.is(reply.body.results[0].description, name);
  assert.equal(reply.body.results[0], await app.get(`/api/dcim/sites/${site.id}/`));
  const head = await fetch(`${app.url}/api/dcim/sites/?slug=lists-zurich`, { method: 'HEAD', headers: { Authorization: `Token ${ADMIN_TOKEN}` } });
  assert.is(head.status, 200);
  assert.is(head.headers.get('content-length'), reply.headers.get('content-length'));
  assert.is(head.headers.get('content-type'), 'application/json; charset=utf-8');
});

test.run();
