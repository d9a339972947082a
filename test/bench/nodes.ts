/**
 * One NetLedger node against two, on one PostgreSQL (run by deploy/ha/measure-nodes.sh, which
 * brings up the cluster of deploy/ha/cluster.sh with two nodes). The same closed-loop load goes
 * first to node 1 alone (NODE_URL), then to the HTTP frontend that spreads it over both nodes
 * (HTTP_URL): device details, a page of 50 devices, and site creation. Prints requests per second
 * for each and the ratio; no assertions.
 */
import { loadavg } from 'node:os';
import { load } from './load.js';

const { HTTP_URL, NODE_URL, ADMIN_TOKEN } = process.env as Record<string, string>;
const SECONDS = Number(process.env.SECONDS_PER_RUN ?? 10);
const CLIENTS = Number(process.env.CLIENTS ?? 16);
const headers = { Authorization: `Token ${ADMIN_TOKEN}`, Accept: 'application/json' };

async function call(base: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(base + path, { method, headers: { ...headers, 'Content-Type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

/** 500 devices on 20 sites, created in bulk through the frontend. */
async function seed(): Promise<number[]> {
  const tag = Date.now().toString(36);
  const sites = await call(HTTP_URL, 'POST', '/api/dcim/sites/', Array.from({ length: 20 }, (_, i) => ({ name: `nodes-${tag}-${i}`, slug: `nodes-${tag}-${i}` })));
  const manufacturer = await call(HTTP_URL, 'POST', '/api/dcim/manufacturers/', { name: `m-${tag}`, slug: `m-${tag}` });
  const type = await call(HTTP_URL, 'POST', '/api/dcim/device-types/', { manufacturer: manufacturer.id, model: `t-${tag}`, slug: `t-${tag}` });
  const role = await call(HTTP_URL, 'POST', '/api/dcim/device-roles/', { name: `r-${tag}`, slug: `r-${tag}`, color: '00ff00' });
  const devices = await call(HTTP_URL, 'POST', '/api/dcim/devices/', Array.from({ length: 500 }, (_, i) => ({
    name: `d-${tag}-${i}`, device_type: type.id, role: role.id, site: sites[i % sites.length].id, status: 'active',
  })));
  return devices.map((d: { id: number }) => d.id);
}

/** Sites created by CLIENTS concurrent writers for SECONDS against `base`: requests per second. */
async function writes(base: string, label: string): Promise<number> {
  const until = performance.now() + SECONDS * 1000;
  let done = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, async (_, client) => {
    for (let n = 0; performance.now() < until; n++) {
      const slug = `w-${label}-${client}-${n}-${Date.now().toString(36)}`;
      try { await call(base, 'POST', '/api/dcim/sites/', { name: slug, slug }); done++; } catch { failed++; }
    }
  }));
  if (failed) console.log(`  ${failed} failed writes against ${base}`);
  return done / ((performance.now() - started) / 1000);
}

const ids = await seed();
const detailUrls = (base: string) => ids.slice(0, 200).map((id) => `${base}/api/dcim/devices/${id}/`);
const pageUrls = (base: string) => Array.from({ length: 10 }, (_, i) => `${base}/api/dcim/devices/?limit=50&offset=${i * 50}`);
const rows: [string, number, number][] = [];
for (const [work, run] of [
  ['device detail', (base: string) => load({ urls: detailUrls(base), headers, clients: CLIENTS, seconds: SECONDS }).then((r) => r.perSecond)],
  ['50 devices a page', (base: string) => load({ urls: pageUrls(base), headers, clients: CLIENTS, seconds: SECONDS }).then((r) => r.perSecond)],
  ['create a site', (base: string) => writes(base, base === NODE_URL ? 'one' : 'two')],
] as const) {
  const one = await run(NODE_URL);
  const two = await run(HTTP_URL);
  rows.push([work, one, two]);
}
console.log(`\none node against two (${CLIENTS} clients, ${SECONDS} s each; load average ${loadavg().map((l) => l.toFixed(1)).join(' / ')})`);
console.log('| work | one node (req/s) | two nodes (req/s) | two / one |');
console.log('| --- | --- | --- | --- |');
for (const [work, one, two] of rows) console.log(`| ${work} | ${one.toFixed(0)} | ${two.toFixed(0)} | ${(two / one).toFixed(2)}x |`);
