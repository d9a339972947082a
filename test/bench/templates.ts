/**
 * `npm run bench:templates`: creating 100 devices of a type with 48 interface templates (4,800
 * interfaces instantiated), one bulk request and one request per device, with the SQL statements each
 * takes; then the same with 2 templates, to show the statement count does not grow with the
 * templates. SQLite by default; PostgreSQL when DATABASE_URL is set (a throwaway schema). Figures only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../runtime/core/config.js';
import { start } from '../../runtime/server.js';
import { countQueries } from '../../runtime/data/db.js';
import { apiCall } from './api-call.js';

const TOKEN = 'c'.repeat(40);
const DEVICES = 100;
const dataDir = mkdtempSync(join(tmpdir(), 'netledger-bench-templates-'));
const schema = `bench_${randomBytes(4).toString('hex')}`;
const postgres = !!process.env.DATABASE_URL;
const running = await start(loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: '0', ADMIN_TOKEN: TOKEN, LOG_REQUESTS: '0', RUN_WORKER: '0', ...(postgres ? { DATABASE_SCHEMA: schema } : {}) }));

const call = apiCall(running.url, TOKEN);

async function measured(label: string, fn: () => Promise<unknown>): Promise<void> {
  const counter = countQueries(running.db);
  const t0 = performance.now();
  try {
    await fn();
  } finally {
    counter.stop();
  }
  console.log(`${label.padEnd(66)} ${(performance.now() - t0).toFixed(0).padStart(6)} ms ${String(counter.count).padStart(6)} statements`);
}

console.log(`NetLedger template bench on ${postgres ? 'PostgreSQL' : 'SQLite'}`);
try {
  const site = await call('POST', '/api/dcim/sites/', { name: 'Bench', slug: 'bench' });
  const maker = await call('POST', '/api/dcim/manufacturers/', { name: 'Maker', slug: 'maker' });
  const role = await call('POST', '/api/dcim/device-roles/', { name: 'Leaf', slug: 'leaf' });
  for (const templates of [48, 2]) {
    const type = await call('POST', '/api/dcim/device-types/', { manufacturer: maker.id, model: `Switch ${templates}`, slug: `switch-${templates}` });
    await call('POST', '/api/dcim/interface-templates/', Array.from({ length: templates }, (_, i) => ({ device_type: type.id, name: `et-0/0/${i}`, type: '10gbase-x-sfpp' })));
    const device = (name: string) => ({ name, site: site.id, device_type: type.id, role: role.id });
    await measured(`POST /api/dcim/devices/ (${DEVICES} devices × ${templates} templates, one bulk request)`, () =>
      call('POST', '/api/dcim/devices/', Array.from({ length: DEVICES }, (_, i) => device(`bulk-${templates}-${i}`))));
    await measured(`POST /api/dcim/devices/ (${DEVICES} devices × ${templates} templates, one request each)`, async () => {
      for (let i = 0; i < DEVICES; i++) await call('POST', '/api/dcim/devices/', device(`single-${templates}-${i}`));
    });
  }
  const total = await call('GET', '/api/dcim/interfaces/?limit=1');
  console.log(`interfaces instantiated: ${total.count}`);
} finally {
  await running.worker?.stop();
  if (postgres) await running.db.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]);
  await running.close();
  rmSync(dataDir, { recursive: true, force: true });
}
