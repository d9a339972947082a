/**
 * Concurrent writes: racing requests may both pass validation, but the database's constraints
 * decide, and the loser gets a 4xx JSON error, never a 500 and never a duplicate.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { engine, startApp, type TestApp } from './helpers.js';

const test = suite('concurrent writes');
let app: TestApp;

test.before(async () => { app = await startApp({ RUN_WORKER: '0' }); });
test.after(() => app.stop());

test('ten concurrent creates of one unique slug: one 201, nine 400, one object', async () => {
  const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => app.api('POST', '/api/dcim/sites/', { name: `race-${i}`, slug: 'race' })));
  const statuses = replies.map((r) => r.status).sort();
  assert.equal(statuses, [201, 400, 400, 400, 400, 400, 400, 400, 400, 400], replies.map((r) => r.text.slice(0, 120)).join('\n'));
  for (const r of replies.filter((x) => x.status === 400)) assert.type(r.body, 'object');
  assert.is((await app.get('/api/dcim/sites/?slug=race')).count, 1);
});

test('concurrent bulk updates of the same objects all finish, with one of them last', async () => {
  const sites = await app.post('/api/dcim/sites/', Array.from({ length: 20 }, (_, i) => ({ name: `cc-${i}`, slug: `cc-${i}` })));
  const replies = await Promise.all(Array.from({ length: 6 }, (_, k) => app.api('PATCH', '/api/dcim/sites/', sites.map((s: any) => ({ id: s.id, description: `round ${k}` })))));
  for (const r of replies) assert.is(r.status, 200, r.text.slice(0, 200));
  const now = await app.get('/api/dcim/sites/?name__isw=cc-&limit=100');
  assert.is(new Set(now.results.map((s: any) => s.description)).size, 1, 'every object shows the same (last) round');
});

test('PostgreSQL: concurrent creates and deletes through two services on one database leave the unfiltered count exact', async () => {
  // The row tally is the count there; the writers of both services add their deltas at once. (Two
  // services on one SQLite file cannot share this process: better-sqlite3 waits for a lock
  // synchronously, so the holder, on the same thread, never gets to release it. Processes can.)
  if (engine !== 'postgres') return;
  // A second service on the same database.
  const { config } = app.running;
  const other = await startApp({ RUN_WORKER: '0', DATA_DIR: config.dataDir, ...(config.databaseSchema ? { DATABASE_SCHEMA: config.databaseSchema } : {}) });
  try {
    const path = '/api/tenancy/tenant-groups/';
    const before = (await app.get(`${path}?limit=1`)).count;
    const writes = Array.from({ length: 12 }, (_, i) => (i % 2 ? other : app).api('POST', path, Array.from({ length: 5 }, (_, k) => ({ name: `tg-${i}-${k}`, slug: `tg-${i}-${k}` }))));
    const made = await Promise.all(writes);
    for (const r of made) assert.is(r.status, 201, r.text.slice(0, 200));
    const doomed = made.slice(0, 4).flatMap((r) => r.body.map((g: { id: number }) => ({ id: g.id })));
    const removed = await Promise.all([app.api('DELETE', path, doomed.slice(0, 10)), other.api('DELETE', path, doomed.slice(10))]);
    for (const r of removed) assert.is(r.status, 204, r.text.slice(0, 200));
    const rows = Number((await app.running.db('tenancy_tenantgroup').count('* as n').first())?.n);
    assert.is(rows, before + 60 - 20);
    for (const service of [app, other]) {
      const reply = await service.api('GET', `${path}?limit=1`);
      assert.is(reply.body.count, rows);
      assert.is(reply.headers.get('x-count-estimated'), null);
    }
  } finally {
    await other.stop();
  }
});

test.run();
