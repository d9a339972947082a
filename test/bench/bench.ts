/**
 * `npm run bench`: seeds 1,000 devices with 10 interfaces each and 10,000 IP addresses through the
 * API, then times the bulk creates and the 1,000-row list pages. SQLite by default; PostgreSQL when
 * DATABASE_URL is set (in a throwaway schema). Prints figures only; no assertions.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../runtime/config.js';
import { start } from '../../runtime/server.js';

const TOKEN = 'b'.repeat(40);
const DEVICES = 1000;
const INTERFACES_PER_DEVICE = 10;
const ADDRESSES = 10_000;
const BATCH = 1000;

const dataDir = mkdtempSync(join(tmpdir(), 'netledger-bench-'));
const schema = `bench_${randomBytes(4).toString('hex')}`;
const postgres = !!process.env.DATABASE_URL;
const running = await start(loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: '0', ADMIN_TOKEN: TOKEN, LOG_REQUESTS: '0', ...(postgres ? { DATABASE_SCHEMA: schema } : {}) }));

async function call(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(running.url + path, {
    method,
    headers: { Authorization: `Token ${TOKEN}`, 'Content-Type': 'application/json', Accept: 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

async function timed<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const result = await fn();
  const ms = performance.now() - t0;
  console.log(`${label.padEnd(58)} ${ms.toFixed(0).padStart(7)} ms`);
  return result;
}

async function bulkCreate(path: string, items: unknown[]): Promise<any[]> {
  const out: any[] = [];
  for (let i = 0; i < items.length; i += BATCH) out.push(...(await call('POST', path, items.slice(i, i + BATCH))));
  return out;
}

console.log(`NetLedger bench on ${postgres ? 'PostgreSQL' : 'SQLite'} (${DEVICES} devices × ${INTERFACES_PER_DEVICE} interfaces, ${ADDRESSES} IP addresses, batches of ${BATCH})`);
try {
  const site = await call('POST', '/api/dcim/sites/', { name: 'Bench', slug: 'bench' });
  const maker = await call('POST', '/api/dcim/manufacturers/', { name: 'Maker', slug: 'maker' });
  const type = await call('POST', '/api/dcim/device-types/', { manufacturer: maker.id, model: 'Box', slug: 'box' });
  const role = await call('POST', '/api/dcim/device-roles/', { name: 'Leaf', slug: 'leaf' });
  const devices = await timed(`POST /api/dcim/devices/ (${DEVICES}, bulk)`, () =>
    bulkCreate('/api/dcim/devices/', Array.from({ length: DEVICES }, (_, i) => ({ name: `dev${i}`, site: site.id, device_type: type.id, role: role.id }))));
  const interfaces = await timed(`POST /api/dcim/interfaces/ (${DEVICES * INTERFACES_PER_DEVICE}, bulk)`, () =>
    bulkCreate('/api/dcim/interfaces/', devices.flatMap((d) => Array.from({ length: INTERFACES_PER_DEVICE }, (_, j) => ({ device: d.id, name: `eth${j}`, type: '1000base-t' })))));
  await timed(`POST /api/ipam/ip-addresses/ (${ADDRESSES}, bulk)`, () =>
    bulkCreate('/api/ipam/ip-addresses/', Array.from({ length: ADDRESSES }, (_, i) => ({
      address: `10.${Math.floor(i / 65536)}.${Math.floor(i / 256) % 256}.${i % 256}/16`,
      assigned_object_type: 'dcim.interface', assigned_object_id: interfaces[i % interfaces.length].id,
    }))));
  for (const path of ['/api/dcim/devices/?limit=1000', '/api/dcim/interfaces/?limit=1000', '/api/ipam/ip-addresses/?limit=1000', '/api/dcim/devices/?limit=1000&brief=1']) {
    await call('GET', path);
    const runs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      await call('GET', path);
      runs.push(performance.now() - t0);
    }
    runs.sort((a, b) => a - b);
    console.log(`${`GET ${path} (median of 5)`.padEnd(58)} ${runs[2].toFixed(0).padStart(7)} ms`);
  }
  await timed('PATCH /api/dcim/devices/ (1000, bulk, same change)', () => call('PATCH', '/api/dcim/devices/', devices.map((d) => ({ id: d.id, status: 'planned' }))));
  await timed('DELETE /api/ipam/ip-addresses/ (1000, bulk)', async () => {
    const page = await call('GET', '/api/ipam/ip-addresses/?limit=1000&brief=1');
    return call('DELETE', '/api/ipam/ip-addresses/', page.results.map((r: any) => ({ id: r.id })));
  });
} finally {
  if (postgres) await running.db.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]);
  await running.close();
  rmSync(dataDir, { recursive: true, force: true });
}
