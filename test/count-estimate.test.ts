/**
 * A list's `count` past COUNT_EXACT_LIMIT (runtime/data/count.ts): exact up to the limit on both
 * engines, as NetBox; above it an estimate (never below the limit), marked
 * by `X-Count-Estimated: true`, with a `next` link on every full page whatever the estimate says.
 * SQLite estimates a filter from a sample of rows. The limit here is 5 so a dozen rows cross it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import knex from 'knex';
import { engine, expectStatus, startApp, type Reply, type TestApp } from './helpers.js';

const TENANTS = '/api/tenancy/tenants/';
const test = suite('count: exact up to COUNT_EXACT_LIMIT, then an estimate');
let app: TestApp;

test.before(async () => {
  app = await startApp({ COUNT_EXACT_LIMIT: '5' });
  const made = await app.api('POST', TENANTS, Array.from({ length: 12 }, (_, i) => ({ name: `t${i}`, slug: `t${i}` })));
  expectStatus(made, 201, 'a dozen tenants');
  await app.api('POST', TENANTS, [{ name: 'other-a', slug: 'other-a' }, { name: 'other-b', slug: 'other-b' }]);
});
test.after(() => app.stop());

test('a filter matching no more than the limit is counted exactly, on both engines', async () => {
  const reply = await app.api('GET', `${TENANTS}?name__isw=other&limit=1`);
  expectStatus(reply, 200);
  assert.is(reply.body.count, 2);
  assert.is(reply.headers.get('x-count-estimated'), null);
});

test('a filter matching more than the limit is an estimate of at least limit + 1, marked', async () => {
  const reply = await app.api('GET', `${TENANTS}?name__isw=t&limit=2`);
  expectStatus(reply, 200);
  assert.is(reply.body.results.length, 2);
  assert.is(reply.headers.get('x-count-estimated'), 'true');
  assert.ok(reply.body.count >= 6, `estimate ${reply.body.count} is above the limit`);
  // SQLite samples up to 1,000 rows spread over the ids: here that is every row, so the share is exact.
  if (engine === 'sqlite') assert.is(reply.body.count, 12);
  assert.ok(reply.body.next, 'a next page');
});

test('walking next reaches every row even when the estimate is short', async () => {
  const seen: string[] = [];
  let path: string | null = `${TENANTS}?name__isw=t&limit=5`;
  while (path) {
    const reply: Reply = await app.api('GET', path);
    expectStatus(reply, 200);
    seen.push(...reply.body.results.map((r: { name: string }) => r.name));
    path = reply.body.next ? new URL(reply.body.next).pathname + new URL(reply.body.next).search : null;
  }
  assert.is(seen.length, 12);
});

test('unfiltered: exact until the table has statistics, then its row estimate, on both engines', async () => {
  let reply = await app.api('GET', `${TENANTS}?limit=1`);
  // A table without statistics (or analysed while it was small) is counted.
  assert.is(reply.body.count, 14);
  assert.is(reply.headers.get('x-count-estimated'), null);
  await app.running.db.raw('ANALYZE tenancy_tenant');
  reply = await app.api('GET', `${TENANTS}?limit=1`);
  assert.is(reply.headers.get('x-count-estimated'), 'true');
  assert.is(reply.body.count, 14, 'the statistics of a freshly analysed table are its row count');
  assert.ok(reply.body.next, 'a next page');
  // A short page still counts its own rows, whatever the statistics say.
  const all = await app.api('GET', `${TENANTS}?limit=50`);
  assert.is(all.body.count, 14);
  assert.is(all.headers.get('x-count-estimated'), null);
});

/** Waits (up to 15 s) until PostgreSQL's statistics show `rows` inserted into the table. */
async function reported(url: string, schema: string, table: string, rows: number): Promise<void> {
  const client = knex({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  try {
    for (let i = 0; i < 150; i++) {
      const stat = await client.raw('select n_tup_ins from pg_stat_user_tables where schemaname = ? and relname = ?', [schema, table]);
      if (Number(stat.rows[0]?.n_tup_ins) >= rows) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await client.destroy();
  }
}

test('a service restarted after a bulk load has its statistics, where autovacuum would not analyse', async () => {
  const makers = '/api/dcim/manufacturers/';
  const first = await startApp({ COUNT_EXACT_LIMIT: '5' });
  const { config } = first.running;
  // A table autovacuum leaves alone, whatever the server's setting.
  if (engine === 'postgres') await first.running.db.raw('ALTER TABLE dcim_manufacturer SET (autovacuum_enabled = false)');
  expectStatus(await first.api('POST', makers, Array.from({ length: 80 }, (_, i) => ({ name: `m${i}`, slug: `m${i}` }))), 201, '80 manufacturers');
  let reply = await first.api('GET', `${makers}?limit=1`);
  assert.is(reply.body.count, 80);
  assert.is(reply.headers.get('x-count-estimated'), null, 'no statistics yet: counted');
  // Its connections end, so their backends report the inserts to PostgreSQL's statistics (an idle one may wait 10 s).
  await first.running.close();
  if (engine === 'postgres') await reported(config.databaseUrl!, config.databaseSchema!, 'dcim_manufacturer', 80);
  const again = await startApp({
    COUNT_EXACT_LIMIT: '5', DATA_DIR: config.dataDir,
    ...(config.databaseSchema ? { DATABASE_SCHEMA: config.databaseSchema } : {}),
  });
  try {
    reply = await again.api('GET', `${makers}?limit=1`);
    assert.is(reply.headers.get('x-count-estimated'), 'true', 'the restarted service analysed the table');
    assert.is(reply.body.count, 80);
  } finally {
    await again.stop();
  }
});

test('a running service renews the statistics every STATISTICS_INTERVAL, where autovacuum would not analyse', async () => {
  const racks = '/api/dcim/rack-roles/';
  const running = await startApp({ COUNT_EXACT_LIMIT: '5', STATISTICS_INTERVAL: '0.5' });
  try {
    if (engine === 'postgres') await running.running.db.raw('ALTER TABLE dcim_rackrole SET (autovacuum_enabled = false)');
    expectStatus(await running.api('POST', racks, Array.from({ length: 80 }, (_, i) => ({ name: `r${i}`, slug: `r${i}` }))), 201, '80 rack roles');
    let reply = await running.api('GET', `${racks}?limit=1`);
    assert.is(reply.headers.get('x-count-estimated'), null, 'analysed while empty: counted');
    // No restart: a later round finds the table changed past the threshold and analyses it (on
    // PostgreSQL once the backends have reported the inserts, which an idle one does within 10 s).
    for (let i = 0; i < 150 && reply.headers.get('x-count-estimated') === null; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      reply = await running.api('GET', `${racks}?limit=1`);
    }
    assert.is(reply.headers.get('x-count-estimated'), 'true', 'a round analysed the table');
    assert.is(reply.body.count, 80);
  } finally {
    await running.stop();
  }
});

test.run();
