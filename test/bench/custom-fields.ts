/**
 * `npm run bench:cf`: custom-field filters on 100,000 sites. Times cf_ filters with the expression
 * index the field created, then again after dropping it, and prints the database's query plan.
 * SQLite by default; PostgreSQL when DATABASE_URL is set.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../runtime/core/config.js';
import { start } from '../../runtime/server.js';
import { isPostgres } from '../../runtime/data/db.js';
import { apiCall } from './api-call.js';

const TOKEN = 'c'.repeat(40);
const COUNT = Number(process.env.CF_BENCH_COUNT ?? 100_000);
const dataDir = mkdtempSync(join(tmpdir(), 'netledger-cf-bench-'));
const schema = `cfbench_${randomBytes(4).toString('hex')}`;
const postgres = !!process.env.DATABASE_URL;
const running = await start(loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: '0', ADMIN_TOKEN: TOKEN, LOG_REQUESTS: '0', RUN_WORKER: '0', ...(postgres ? { DATABASE_SCHEMA: schema } : {}) }));

const call = apiCall(running.url, TOKEN);

async function median(path: string): Promise<[number, number]> {
  const runs: number[] = [];
  let count = 0;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    count = (await call('GET', path)).count;
    runs.push(performance.now() - t0);
  }
  return [runs.sort((a, b) => a - b)[2], count];
}

try {
  await call('POST', '/api/extras/custom-fields/', { name: 'ticket', type: 'integer', content_types: ['dcim.site'] });
  await call('POST', '/api/extras/custom-fields/', { name: 'code', type: 'text', filter_logic: 'exact', content_types: ['dcim.site'] });
  const t0 = performance.now();
  for (let i = 0; i < COUNT; i += 1000) {
    await call('POST', '/api/dcim/sites/', Array.from({ length: Math.min(1000, COUNT - i) }, (_, j) => ({ name: `s${i + j}`, slug: `s${i + j}`, custom_fields: { ticket: i + j, code: `C${(i + j) % 5000}` } })));
  }
  console.log(`custom-field bench on ${postgres ? 'PostgreSQL' : 'SQLite'}: ${COUNT} sites created in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const paths = ['/api/dcim/sites/?cf_ticket=4242&brief=1', '/api/dcim/sites/?cf_ticket__gte=99990&brief=1', '/api/dcim/sites/?cf_code=C42&brief=1&limit=1'];
  for (const p of paths) {
    const [ms, count] = await median(p);
    console.log(`  indexed   ${p.padEnd(52)} ${ms.toFixed(1).padStart(8)} ms  (count ${count})`);
  }
  const db = running.db;
  const plan = isPostgres(db)
    ? (await db.raw(`explain select id from dcim_site where ((custom_field_data::jsonb ->> 'ticket')::numeric) = 4242`)).rows.map((r: any) => r['QUERY PLAN']).join(' | ')
    : (await db.raw(`explain query plan select id from dcim_site where json_extract(custom_field_data, '$.ticket') = 4242`)).map((r: any) => r.detail).join(' | ');
  console.log(`  plan: ${plan}`);
  await db.raw('drop index cf_dcim_site_ticket');
  await db.raw('drop index cf_dcim_site_code');
  for (const p of paths) {
    const [ms] = await median(p);
    console.log(`  no index  ${p.padEnd(52)} ${ms.toFixed(1).padStart(8)} ms`);
  }
} finally {
  if (postgres) await running.db.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]);
  await running.close();
  rmSync(dataDir, { recursive: true, force: true });
}
