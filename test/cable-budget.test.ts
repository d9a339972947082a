/**
 * Reads of cabled objects cost no tracing: a page of interfaces with their cables, link peers and
 * connected endpoints (some through a patch panel) costs the same number of statements for one row
 * as for all of them, and so do cables with their terminations and a trace.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { countQueries } from '../runtime/data/db.js';
import { expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite('cable reads: a fixed number of queries');
let app: TestApp;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const term = (type: string, id: number) => ({ object_type: type, object_id: id });

async function statements(path: string): Promise<{ count: number; body: any }> {
  const run = async () => {
    const counter = countQueries(app.running.db);
    try {
      const reply = await app.api('GET', path);
      expectStatus(reply, 200, path);
      return { count: counter.count, body: reply.body };
    } finally { counter.stop(); }
  };
  const a = await run();
  const b = await run();
  return a.count <= b.count ? a : b;
}

test.before(async () => {
  app = await startApp({ RUN_WORKER: '0' });
  const site = await app.post('/api/dcim/sites/', { name: 'Budget Cables', slug: 'budget-cables' });
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'Cable Budget', slug: 'cable-budget' });
  const type = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'CB', slug: 'cb' });
  const role = await app.post('/api/dcim/device-roles/', { name: 'CB', slug: 'cb', color: '0000ff' });
  const [left, right, panel] = await app.post('/api/dcim/devices/', ['left', 'right', 'panel'].map((name) => ({ name, device_type: type.id, role: role.id, site: site.id })));
  const a = await app.post('/api/dcim/interfaces/', range(20).map((i) => ({ device: left.id, name: `eth${i}`, type: '1000base-t' })));
  const b = await app.post('/api/dcim/interfaces/', range(20).map((i) => ({ device: right.id, name: `eth${i}`, type: '1000base-t' })));
  // ten straight cables, ten through the panel's front and rear ports
  await app.post('/api/dcim/cables/', range(10).map((i) => ({ a_terminations: [term('dcim.interface', a[i].id)], b_terminations: [term('dcim.interface', b[i].id)] })));
  const rears = await app.post('/api/dcim/rear-ports/', range(10).map((i) => ({ device: panel.id, name: `rear${i}`, type: '8p8c' })));
  const fronts = await app.post('/api/dcim/front-ports/', range(10).map((i) => ({ device: panel.id, name: `front${i}`, type: '8p8c', rear_port: rears[i].id })));
  await app.post('/api/dcim/cables/', range(10).flatMap((i) => [
    { a_terminations: [term('dcim.interface', a[10 + i].id)], b_terminations: [term('dcim.frontport', fronts[i].id)] },
    { a_terminations: [term('dcim.rearport', rears[i].id)], b_terminations: [term('dcim.interface', b[10 + i].id)] },
  ]));
});
test.after(() => app.stop());

// A few rows holding every kind of peer (interfaces, front ports, rear ports) against all rows: the
// statements per related model are fixed, so both cost the same.
test('interfaces with cables, link peers and connected endpoints: a few rows cost what a page costs', async () => {
  const few = await statements('/api/dcim/interfaces/?limit=1000&name=eth0&name=eth10');
  const all = await statements('/api/dcim/interfaces/?limit=1000');
  assert.is(few.body.results.length, 4);
  assert.is(all.body.results.length, 40);
  assert.ok(few.count >= 3, `statements are counted (${few.count})`);
  assert.is(all.count, few.count, `4 rows: ${few.count} statements, 40 rows: ${all.count}`);
  assert.ok(all.body.results.every((i: any) => i.connected_endpoints?.length === 1 && i.connected_endpoints_reachable === true), 'every interface reaches its peer');
  assert.ok(all.body.results.every((i: any) => i.cable?.id && i.link_peers.length === 1 && i._occupied === true));
  assert.ok(all.body.results.every((i: any) => i.connected_endpoints[0].device.name !== i.device.name));
  assert.equal(new Set(all.body.results.map((i: any) => i.link_peers_type)), new Set(['dcim.interface', 'dcim.frontport', 'dcim.rearport']));
});

test('cables with their terminations, and front and rear ports with their peers, likewise', async () => {
  const cables = (await app.api('GET', '/api/dcim/cables/?limit=1000')).body.results;
  const kinds = new Map<string, number>();
  for (const c of cables) kinds.set(`${c.a_terminations[0].object_type}>${c.b_terminations[0].object_type}`, c.id);
  assert.is(kinds.size, 3);
  for (const [few, all] of [
    [`/api/dcim/cables/?limit=1000&${[...kinds.values()].map((id) => `id=${id}`).join('&')}`, '/api/dcim/cables/?limit=1000'],
    ['/api/dcim/front-ports/?limit=1000&name=front0', '/api/dcim/front-ports/?limit=1000'],
    ['/api/dcim/rear-ports/?limit=1000&name=rear0', '/api/dcim/rear-ports/?limit=1000'],
  ]) {
    const a = await statements(few);
    const b = await statements(all);
    assert.ok(b.body.results.length >= 10 && b.body.results.length > a.body.results.length, all);
    assert.is(b.count, a.count, `${few}: ${a.count}, ${all}: ${b.count}`);
  }
});

test.run();
