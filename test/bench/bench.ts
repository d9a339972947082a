/**
 * `npm run bench`: seeds 1,000 devices with 10 interfaces each and 10,000 IP addresses through the
 * API, then times the bulk creates and the 1,000-row list pages; then webhooks: 2,000 tenants created
 * in bulk requests with one webhook pointing at an in-process receiver, for events per second and the
 * commit-to-receiver latency. SQLite by default; PostgreSQL when DATABASE_URL is set (in a throwaway
 * schema). Prints figures only; no assertions.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../runtime/core/config.js';
import { start } from '../../runtime/server.js';
import { createServer } from 'node:http';

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

/**
 * Webhooks: events per second and commit-to-receiver latency (p50, p95), against an in-process
 * receiver: `events` tenants created in bulk requests of `batch`, one request after the other.
 */
async function benchWebhooks(events: number, batch: number): Promise<void> {
  const worker = running.worker;
  if (!worker) {
    console.log('webhooks: not measured (RUN_WORKER=0)');
    return;
  }
  const received = new Map<string, number>();
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const name = JSON.parse(Buffer.concat(chunks).toString('utf8')).data.name as string;
      if (!received.has(name)) received.set(name, at);
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  const port = (receiver.address() as { port: number }).port;
  // The service wakes its worker right after each commit (wake() without arguments): that instant is the commit time.
  const commits: number[] = [];
  let recording = false;
  const wake = worker.wake.bind(worker);
  worker.wake = (force?: boolean) => {
    if (recording && force === undefined) commits.push(performance.now());
    wake(force);
  };
  try {
    const hook = await call('POST', '/api/extras/webhooks/', { name: `bench-${batch}`, content_types: ['tenancy.tenant'], type_create: true, payload_url: `http://127.0.0.1:${port}/` });
    const batches: string[][] = [];
    recording = true;
    const t0 = performance.now();
    for (let b = 0; b < events / batch; b++) {
      const names = Array.from({ length: batch }, (_, i) => `bench-${batch}-${b}-${i}`);
      await call('POST', '/api/tenancy/tenants/', batch === 1 ? { name: names[0], slug: names[0] } : names.map((name) => ({ name, slug: name })));
      batches.push(names);
    }
    recording = false;
    const written = performance.now() - t0;
    const deadline = Date.now() + 120_000;
    while (received.size < events && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    await call('DELETE', `/api/extras/webhooks/${hook.id}/`);
    if (received.size < events || commits.length !== batches.length) {
      console.log(`webhooks: only ${received.size} of ${events} events arrived (${commits.length} commits seen)`);
      return;
    }
    const latencies = batches.flatMap((names, b) => names.map((n) => received.get(n)! - commits[b])).sort((a, b) => a - b);
    const last = Math.max(...received.values());
    const seconds = (last - commits[0]) / 1000;
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
    const how = batch === 1 ? 'one per request' : `bulk of ${batch}`;
    console.log(`${`POST /api/tenancy/tenants/ (${events}, ${how}, 1 webhook)`.padEnd(58)} ${written.toFixed(0).padStart(7)} ms`);
    console.log(`${`  webhooks: events per second (first commit → last receipt)`.padEnd(58)} ${(events / seconds).toFixed(0).padStart(7)} /s`);
    console.log(`${`  webhooks: commit → receiver latency p50 / p95`.padEnd(58)} ${`${pct(50).toFixed(1)} / ${pct(95).toFixed(1)}`.padStart(7)} ms`);
  } finally {
    worker.wake = wake;
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
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
  await benchWebhooks(2000, 100);
  await benchWebhooks(200, 1);
} finally {
  // The worker first: it must not be recording while the schema goes.
  await running.worker?.stop();
  if (postgres) await running.db.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]);
  await running.close();
  rmSync(dataDir, { recursive: true, force: true });
}
