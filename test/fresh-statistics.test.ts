/**
 * Planner statistics after bulk writes (runtime/data/fresh-statistics.ts): a table that committed
 * writes changed much is analysed off the request's path, a burst of bulk requests analyses it a few
 * times at most, and a trickle of small writes not at all. Counted from /metrics (and on PostgreSQL
 * from the server's own count of analyses).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { setTimeout as sleep } from 'node:timers/promises';
import { engine, startApp, type TestApp } from './helpers.js';

const test = suite(`statistics after bulk writes (${engine})`);

async function refreshes(app: TestApp, table: string): Promise<number> {
  const reply = await app.api('GET', '/metrics');
  const line = reply.text.split('\n').find((l) => l.startsWith(`netledger_statistics_refreshes_total{table="${table}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** The server's own count of manual analyses of `table` (PostgreSQL). */
async function serverAnalyses(app: TestApp, table: string): Promise<number> {
  const { rows } = await app.running.db.raw('select analyze_count from pg_stat_user_tables where schemaname = current_schema() and relname = ?', [table]);
  return Number(rows[0]?.analyze_count ?? 0);
}

/** Statistics of `table` as the planner sees them: its row count, or 0 when it has none. */
async function analysedRows(app: TestApp, table: string): Promise<number> {
  const db = app.running.db;
  if (engine === 'postgres') {
    const { rows } = await db.raw('select greatest(reltuples, 0)::float8 as n from pg_class where oid = to_regclass(?)', [table]);
    return Number(rows[0]?.n ?? 0);
  }
  const rows = await db.raw('select stat from sqlite_stat1 where tbl = ?', [table]).catch(() => []);
  return Number.parseInt(String(rows[0]?.stat ?? '0'), 10) || 0;
}

test('50 single-object writes leave the statistics to the regular rounds; a burst of 50 bulk requests analyses the table a few times, and the planner sees its rows', async () => {
  const app = await startApp();
  try {
    const single = await refreshes(app, 'tenancy_tenant');
    for (let r = 0; r < 50; r++) await app.post('/api/tenancy/tenants/', { name: `single-${r}`, slug: `single-${r}` });

    const before = await refreshes(app, 'extras_tag');
    assert.is(await analysedRows(app, 'extras_tag'), 0, 'no statistics of the empty table yet');
    for (let r = 0; r < 50; r++) {
      await app.post('/api/extras/tags/', Array.from({ length: 40 }, (_, i) => ({ name: `burst-${r}-${i}`, slug: `burst-${r}-${i}` })));
    }
    // The analyses run after the responses: wait for the first, then for the round in flight.
    for (let i = 0; i < 200 && (await refreshes(app, 'extras_tag')) === before; i++) await sleep(50);
    await app.running.statistics.stop();
    const analyses = (await refreshes(app, 'extras_tag')) - before;
    assert.ok(analyses >= 1, 'the table was analysed');
    assert.ok(analyses <= 3, `2,000 rows in 50 requests analysed the table ${analyses} times`);
    const seen = await analysedRows(app, 'extras_tag');
    assert.ok(seen >= 500 && seen <= 2000, `the planner's row count of the table: ${seen}`);
    assert.is(await refreshes(app, 'tenancy_tenant'), single, 'the single writes: no analysis');
    if (engine === 'postgres') {
      assert.is(await serverAnalyses(app, 'extras_tag'), analyses, 'PostgreSQL counted as many analyses');
      assert.is(await serverAnalyses(app, 'tenancy_tenant'), 0);
    }
  } finally {
    await app.stop();
  }
});

test.run();
