/**
 * PostgreSQL reads started in the same turn share one round trip (runtime/data/db.ts, inBatch): each
 * read must still get its own rows, a failing read its own error, and the others their rows. On
 * SQLite the same calls run one by one; the test holds there too.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { onConnection, readByIds, readRows } from '../runtime/data/reads.js';
import { simpleQueryRows } from '../runtime/data/pg-rows.js';
import { engine, expectStatus, startApp, watchPgQueries, type TestApp } from './helpers.js';

let starting: Promise<TestApp> | undefined;
let app: TestApp;
const test = suite('read batching');
test.before(async () => { app = await (starting ??= startApp()); });
test.after(async () => { await app?.stop(); });

test('reads of one turn each get their own rows, and a failing one its own error', async () => {
  const made: { id: number }[] = [];
  for (const slug of ['rb-a', 'rb-b', 'rb-c']) made.push(await app.post('/api/tenancy/tenants/', { name: slug, slug }));
  const db = app.running.db;
  const [one, two, bad, named, both] = await Promise.allSettled([
    readByIds(db, 'test:tenant', [made[0].id], (ids) => db('tenancy_tenant').select('id', 'slug').whereIn('id', ids)),
    readRows(db, db('tenancy_tenant').select('slug').where('id', made[1].id)),
    readRows(db, db('no_such_table').select('id')),
    readRows(db, db('tenancy_tenant').select('id').where('slug', 'rb-c')),
    readByIds(db, 'test:tenant', [made[0].id, made[2].id], (ids) => db('tenancy_tenant').select('id', 'slug').whereIn('id', ids).orderBy('id')),
  ]);
  assert.equal(one.status === 'fulfilled' && one.value.map((r) => r.slug), ['rb-a']);
  assert.equal(two.status === 'fulfilled' && two.value.map((r) => r.slug), ['rb-b']);
  assert.is(bad.status, 'rejected');
  assert.equal(named.status === 'fulfilled' && named.value.map((r) => Number(r.id)), [made[2].id]);
  assert.equal(both.status === 'fulfilled' && both.value.map((r) => r.slug), ['rb-a', 'rb-c']);
  // The API still answers after a failed batch (its connection went back to the pool).
  expectStatus(await app.api('GET', `/api/tenancy/tenants/${made[1].id}/`), 200);
});

test('reads prepared by earlier batches: a failing one still leaves the others their rows, every time', async () => {
  const made: { id: number }[] = [];
  for (const slug of ['rp-a', 'rp-b']) made.push(await app.post('/api/tenancy/tenants/', { name: slug, slug }));
  const db = app.running.db;
  // The first run sends the texts as they are, the second prepares them, the third runs the prepared ones.
  for (let round = 0; round < 4; round++) {
    const [one, bad, two] = await Promise.allSettled([
      readRows(db, db('tenancy_tenant').select('slug').where('id', made[0].id)),
      readRows(db, db('no_such_table').select('id').where('id', made[0].id)),
      readByIds(db, 'test:prepared', [made[1].id], (ids) => db('tenancy_tenant').select('slug').whereIn('id', ids)),
    ]);
    assert.equal(one.status === 'fulfilled' && one.value.map((r) => r.slug), ['rp-a'], `round ${round}`);
    assert.is(bad.status, 'rejected', `round ${round}`);
    assert.equal(two.status === 'fulfilled' && two.value.map((r) => r.slug), ['rp-b'], `round ${round}`);
  }
});

// The batch's own query (pg-rows.ts simpleQueryRows) exists on PostgreSQL only.
if (engine === 'postgres') {
  test('a batch with a value its type parser refuses fails whole, and its connection reads on', async () => {
    await onConnection(app.running.db, async (connection) => {
      const INT4 = 23;
      const refusing = {
        query: (q: unknown) => connection.query(q),
        getTypeParser: (oid: number, format: 'text') => (oid === INT4 ? () => { throw new Error('refused int4'); } : connection.getTypeParser(oid, format)),
      };
      let failure: unknown = null;
      await simpleQueryRows(refusing, "select 1::int4 as n, 'a' as s from generate_series(1, 3); select 'after' as s").catch((error) => { failure = error; });
      assert.match(String(failure), /refused int4/);
      // The rest of the answer was read: the next query on this connection gets its own rows.
      assert.equal(await simpleQueryRows(connection, "select 2::int4 as n; select 'y' as s"), [[{ n: 2 }], [{ s: 'y' }]]);
    });
  });
}

test('a table changed under a prepared read (another process migrating) still reads, with the new column', async () => {
  const tenant = await app.post('/api/tenancy/tenants/', { name: 'rp-alter', slug: 'rp-alter' });
  const path = `/api/tenancy/tenants/${tenant.id}/`;
  const before = [];
  for (let i = 0; i < 3; i++) before.push(await app.get(path));
  const db = app.running.db;
  // Plain ALTER TABLE on both engines: knex rebuilds a SQLite table to drop a column, which its counter triggers refuse.
  await db.raw('ALTER TABLE tenancy_tenant ADD COLUMN read_batch_extra integer');
  try {
    // PostgreSQL refuses to run a plan whose `select *` changed shape; the read runs again, unprepared.
    for (let i = 0; i < 3; i++) assert.equal(await app.get(path), before[0]);
    const [row] = await readRows(db, db('tenancy_tenant').select('*').where('id', tenant.id));
    assert.ok('read_batch_extra' in row);
  } finally {
    await db.raw('ALTER TABLE tenancy_tenant DROP COLUMN read_batch_extra');
  }
  assert.equal(await app.get(path), before[0]);
});

test('a parent= page reads the same rows every time (its byte-string bounds written out, then prepared)', async () => {
  await app.post('/api/ipam/ip-addresses/', Array.from({ length: 12 }, (_, i) => ({ address: `203.0.113.${i + 1}/24`, description: 'rb-parent' })));
  await app.post('/api/ipam/ip-addresses/', [{ address: '203.0.114.1/24', description: 'rb-parent' }]);
  const path = '/api/ipam/ip-addresses/?parent=203.0.113.0/24&limit=5&offset=2';
  const first = await app.get(path);
  assert.is(first.count, 12);
  assert.equal(first.results.map((r: { address: string }) => r.address), ['203.0.113.3/24', '203.0.113.4/24', '203.0.113.5/24', '203.0.113.6/24', '203.0.113.7/24']);
  // The first sighting runs as text, the second prepares, the third executes the prepared statement.
  for (let i = 0; i < 3; i++) assert.equal(await app.get(path), first, `run ${i + 2}`);
  const db = app.running.db;
  const bounds = (last: number) => db('ipam_ipaddress').select('address').where('family', 4).where('address_host', '>=', Buffer.from([...Array(12).fill(0), 203, 0, 113, 0])).where('address_host', '<=', Buffer.from([...Array(12).fill(0), 203, 0, 113, last])).orderBy('address_host');
  const [narrow, none] = await Promise.all([readRows(db, bounds(2)), readRows(db, bounds(0))]);
  assert.equal(narrow.map((r) => r.address), ['203.0.113.1/24', '203.0.113.2/24']);
  assert.equal(none, []);
});

test('a page of many rows reads their relations with the same statements whatever their number', async () => {
  const tag = await app.post('/api/extras/tags/', { name: 'rb-many', slug: 'rb-many' });
  await app.post('/api/tenancy/tenants/', Array.from({ length: 260 }, (_, i) => ({ name: `rbm-${i}`, slug: `rbm-${i}`, tags: [tag.id] })));
  const db = app.running.db;
  const read = async (limit: number) => {
    const texts = new Set<string>();
    const record = (q: { sql: string }) => { texts.add(q.sql); };
    db.on('query', record);
    try {
      const page = await app.get(`/api/tenancy/tenants/?slug__isw=rbm-&limit=${limit}`);
      assert.is(page.count, 260);
      assert.is(page.results.length, limit);
      for (const t of page.results) assert.equal(t.tags.map((x: { slug: string }) => x.slug), ['rb-many'], `${t.name}'s tags`);
      return texts;
    } finally {
      db.removeListener('query', record);
    }
  };
  const [some, more] = [await read(150), await read(250)];
  // On PostgreSQL a long id list is one array parameter (runtime/data/id-arrays.ts): the texts do not
  // grow with the page, so each connection prepares them once. SQLite's texts list every id.
  if (engine === 'postgres') assert.equal([...more].sort(), [...some].sort());
  else assert.is(more.size, some.size);
});

test('a device detail: the object, then its relations with their own (the type\'s manufacturer) in one round trip', async () => {
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'rt-maker', slug: 'rt-maker' });
  const type = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'rt-type', slug: 'rt-type' });
  const site = await app.post('/api/dcim/sites/', { name: 'rt-site', slug: 'rt-site' });
  const role = await app.post('/api/dcim/device-roles/', { name: 'rt-role', slug: 'rt-role' });
  const tag = await app.post('/api/extras/tags/', { name: 'rt-tag', slug: 'rt-tag' });
  const device = await app.post('/api/dcim/devices/', { name: 'rt-device', device_type: type.id, role: role.id, site: site.id, tags: [tag.id] });
  const path = `/api/dcim/devices/${device.id}/`;
  // Warm: the texts are prepared, the caches filled.
  for (let i = 0; i < 3; i++) await app.get(path);
  const runs = [];
  for (let i = 0; i < 3; i++) runs.push(await watchPgQueries(() => app.get(path)));
  for (const { result } of runs) {
    assert.is(result.device_type.manufacturer.name, 'rt-maker');
    assert.equal(result.tags.map((t: { slug: string }) => t.slug), ['rt-tag']);
  }
  // PostgreSQL: (cache version, device), then (tags, device type, manufacturer, site, role, ...).
  // The fewest of three runs: a write of another test's app may make the version move once.
  if (engine === 'postgres') assert.is(Math.min(...runs.map((r) => r.calls)), 2, `round trips: ${runs.map((r) => r.calls)}`);
});

test.run();
