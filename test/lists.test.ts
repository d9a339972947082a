/**
 * The read path of list pages (docs/perf/lists.md): a small page's rows read and sorted in two steps
 * on SQLite, tags read as pairs of ids, links, reverse_one rows and cable paths through compiled
 * reads, the count taken beside the render. A page must say exactly what the object's own detail
 * says, and a small page must be the slice of the whole list.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN_TOKEN, startApp, type TestApp } from './helpers.js';

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
