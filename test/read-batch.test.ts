/**
 * PostgreSQL reads started in the same turn share one round trip (runtime/data/db.ts, inBatch): each
 * read must still get its own rows, a failing read its own error, and the others their rows. On
 * SQLite the same calls run one by one; the test holds there too.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readByIds, readRows } from '../runtime/data/db.js';
import { expectStatus, startApp, type TestApp } from './helpers.js';

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

test.run();
