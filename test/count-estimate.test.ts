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

test('unfiltered on SQLite: exact until the table has statistics, then its row estimate', async () => {
  if (engine !== 'sqlite') return;
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

/** The unfiltered count and its mark. */
async function unfiltered(path: string): Promise<[number, string | null]> {
  const reply = await app.api('GET', `${path}?limit=1`);
  expectStatus(reply, 200);
  return [reply.body.count, reply.headers.get('x-count-estimated')];
}

test('unfiltered on PostgreSQL: exact past the limit from the row tally, whatever the statistics, through every kind of write', async () => {
  if (engine !== 'postgres') return;
  const { db } = app.running;
  assert.equal(await unfiltered(TENANTS), [14, null]);
  await db.raw('ANALYZE tenancy_tenant');
  assert.equal(await unfiltered(TENANTS), [14, null], 'analysed: still exact');
  // Bulk create and bulk delete through the API: one delta each.
  const more = await app.api('POST', TENANTS, Array.from({ length: 5 }, (_, i) => ({ name: `more${i}`, slug: `more${i}` })));
  expectStatus(more, 201);
  expectStatus(await app.api('DELETE', TENANTS, more.body.slice(0, 2).map((t: { id: number }) => ({ id: t.id }))), 204);
  assert.equal(await unfiltered(TENANTS), [17, null], 'statistics now stale: still exact');
  // Writes past the API (raw SQL, a transaction rolled back) count as the table does.
  await db.raw("insert into tenancy_tenant (name, slug, custom_field_data) values ('raw', 'raw', '{}')");
  await db.transaction(async (trx) => {
    await trx.raw("insert into tenancy_tenant (name, slug, custom_field_data) values ('gone', 'gone', '{}')");
    await trx.rollback();
  }).catch(() => undefined);
  assert.equal(await unfiltered(TENANTS), [18, null], 'a raw insert counts, a rolled-back one does not');
  const racks = '/api/dcim/rack-roles/';
  expectStatus(await app.api('POST', racks, Array.from({ length: 3 }, (_, i) => ({ name: `rr${i}`, slug: `rr${i}` }))), 201);
  await db.raw('truncate dcim_rackrole cascade');
  assert.equal(await unfiltered(racks), [0, null], 'truncated: none');
  expectStatus(await app.api('POST', racks, [{ name: 'after', slug: 'after' }]), 201);
  assert.equal(await unfiltered(racks), [1, null]);
});

test('PostgreSQL: a table written one object at a time has its deltas folded into one row, its count unchanged', async () => {
  if (engine !== 'postgres') return;
  const { db } = app.running;
  const parts = async () => Number((await db.raw("select count(*) as n from row_tally where table_name = 'tenancy_tenant'")).rows[0].n);
  for (let i = 0; i < 70; i++) expectStatus(await app.api('POST', TENANTS, { name: `one${i}`, slug: `one${i}` }), 201);
  assert.ok(await parts() > 64, 'one delta per write');
  assert.equal(await unfiltered(TENANTS), [88, null], 'the deltas summed');
  // The read folded them in the background.
  for (let i = 0; i < 100 && (await parts()) > 1; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.is(await parts(), 1, 'folded into one row');
  assert.equal(await unfiltered(TENANTS), [88, null], 'the same count from the folded row');
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

/**
 * A page whose count the planner statistics answer: on SQLite the unfiltered list (sqlite_stat1); on
 * PostgreSQL, whose unfiltered counts are exact (the row tally), a filter matching past the limit
 * (the plan's row estimate: without statistics PostgreSQL guesses from the table's pages, 23 for 80
 * rack roles; analysed, it knows the 80).
 */
async function fromStatistics(api: TestApp['api'], path: string, rows: number): Promise<boolean> {
  const reply = await api('GET', `${path}?${engine === 'postgres' ? 'id__gt=0&' : ''}limit=1`);
  expectStatus(reply, 200);
  return reply.headers.get('x-count-estimated') === 'true' && reply.body.count === rows;
}

test('a service restarted after a bulk load has its statistics, where autovacuum would not analyse', async () => {
  const makers = '/api/dcim/manufacturers/';
  const first = await startApp({ COUNT_EXACT_LIMIT: '5' });
  const { config } = first.running;
  // A table autovacuum leaves alone, whatever the server's setting.
  if (engine === 'postgres') await first.running.db.raw('ALTER TABLE dcim_manufacturer SET (autovacuum_enabled = false)');
  expectStatus(await first.api('POST', makers, Array.from({ length: 80 }, (_, i) => ({ name: `m${i}`, slug: `m${i}` }))), 201, '80 manufacturers');
  const reply = await first.api('GET', `${makers}?limit=1`);
  assert.is(reply.body.count, 80);
  assert.is(await fromStatistics(first.api, makers, 80), false, 'no statistics yet');
  // Its connections end, so their backends report the inserts to PostgreSQL's statistics (an idle one may wait 10 s).
  await first.running.close();
  if (engine === 'postgres') await reported(config.databaseUrl!, config.databaseSchema!, 'dcim_manufacturer', 80);
  const again = await startApp({
    COUNT_EXACT_LIMIT: '5', DATA_DIR: config.dataDir,
    ...(config.databaseSchema ? { DATABASE_SCHEMA: config.databaseSchema } : {}),
  }, { takesOverDatabase: true });
  try {
    assert.is(await fromStatistics(again.api, makers, 80), true, 'the restarted service analysed the table');
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
    let analysed = await fromStatistics(running.api, racks, 80);
    assert.is(analysed, false, 'analysed while empty');
    // No restart: a later round finds the table changed past the threshold and analyses it (on
    // PostgreSQL once the backends have reported the inserts, which an idle one does within 10 s).
    for (let i = 0; i < 150 && !analysed; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      analysed = await fromStatistics(running.api, racks, 80);
    }
    assert.is(analysed, true, 'a round analysed the table');
  } finally {
    await running.stop();
  }
});

test('PostgreSQL: a running service vacuums the tables autovacuum leaves alone once their dead rows pass its threshold', async () => {
  if (engine !== 'postgres') return;
  const roles = '/api/tenancy/contact-roles/';
  const running = await startApp({ STATISTICS_INTERVAL: '0.5' });
  try {
    const { db } = running.running;
    await db.raw('ALTER TABLE tenancy_contactrole SET (autovacuum_enabled = false)');
    const made = await running.api('POST', roles, Array.from({ length: 100 }, (_, i) => ({ name: `c${i}`, slug: `c${i}` })));
    expectStatus(made, 201, '100 contact roles');
    // 80 dead rows: past autovacuum's threshold of 50 plus a fifth of the table.
    expectStatus(await running.api('DELETE', roles, made.body.slice(0, 80).map((r: { id: number }) => ({ id: r.id }))), 204);
    const vacuums = async () => Number((await db.raw("select vacuum_count from pg_stat_user_tables where schemaname = current_schema() and relname = 'tenancy_contactrole'")).rows[0].vacuum_count);
    // The service's backends report the deletes to the statistics within 10 s; a round after that vacuums.
    let done = await vacuums();
    for (let i = 0; i < 150 && !done; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      done = await vacuums();
    }
    assert.ok(done > 0, 'a round vacuumed the table');
    const reply = await running.api('GET', `${roles}?limit=1`);
    assert.is(reply.body.count, 20);
  } finally {
    await running.stop();
  }
});

test.run();
