/**
 * `npm run bench:ui`: the web interface's list page of 50 devices (with sites, racks, roles, types
 * and tenants to link) rendered server-side, timed over HTTP on one machine (so the figure is an
 * upper bound of the render time); and the page weight a first visit transfers: the HTML plus the
 * static files, compressed as a browser asks for them. SQLite by default, PostgreSQL when
 * DATABASE_URL is set. Prints figures only; no assertions.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../runtime/core/config.js';
import { start } from '../../runtime/server.js';
import { apiCall } from './api-call.js';

const TOKEN = 'c'.repeat(40);
const PASSWORD = 'bench-password-ui';
const DEVICES = 200;
const RUNS = 200;

const dataDir = mkdtempSync(join(tmpdir(), 'netledger-bench-ui-'));
const postgres = !!process.env.DATABASE_URL;
const running = await start(loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: '0', ADMIN_TOKEN: TOKEN, ADMIN_PASSWORD: PASSWORD, LOG_REQUESTS: '0', RUN_WORKER: '0', ...(postgres ? { DATABASE_SCHEMA: `bench_${randomBytes(4).toString('hex')}` } : {}) }));

const call = apiCall(running.url, TOKEN);

try {
  const tenant = await call('POST', '/api/tenancy/tenants/', { name: 'Bench tenant', slug: 'bench-tenant' });
  const site = await call('POST', '/api/dcim/sites/', { name: 'Bench site', slug: 'bench-site', tenant: tenant.id });
  const rack = await call('POST', '/api/dcim/racks/', { name: 'R1', site: site.id });
  const maker = await call('POST', '/api/dcim/manufacturers/', { name: 'Maker', slug: 'maker' });
  const type = await call('POST', '/api/dcim/device-types/', { manufacturer: maker.id, model: 'Model', slug: 'model' });
  const role = await call('POST', '/api/dcim/device-roles/', { name: 'Role', slug: 'role' });
  await call('POST', '/api/dcim/devices/', Array.from({ length: DEVICES }, (_, i) => ({ name: `device-${i}`, site: site.id, rack: rack.id, device_type: type.id, role: role.id, tenant: tenant.id })));

  const login = await fetch(`${running.url}/login/`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `username=admin&password=${PASSWORD}&next=/`, redirect: 'manual' });
  const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const page = async (path: string, headers: Record<string, string> = {}) => {
    const started = performance.now();
    const res = await fetch(`${running.url}${path}`, { headers: { Cookie: cookie, ...headers } });
    const bytes = (await res.arrayBuffer()).byteLength;
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    const server = Number(/dur=([\d.]+)/.exec(res.headers.get('server-timing') ?? '')?.[1] ?? NaN);
    return { ms: performance.now() - started, server, bytes, res };
  };
  const path = '/dcim/devices/?per_page=50';
  for (let i = 0; i < 20; i++) await page(path);
  const times: number[] = [];
  const serverTimes: number[] = [];
  // CPU time as well as wall time: on a shared machine the wall time mostly measures the neighbours.
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < RUNS; i++) {
    const { ms, server } = await page(path);
    times.push(ms);
    serverTimes.push(server);
  }
  const cpu = process.cpuUsage(cpuBefore);
  const cpuPerPage = (cpu.user + cpu.system) / 1000 / RUNS;
  const at = (list: number[], q: number) => [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor(q * list.length))].toFixed(1);
  console.log(`list page of 50 devices (${postgres ? 'PostgreSQL' : 'SQLite'}, ${RUNS} requests): server-side (Server-Timing) median ${at(serverTimes, 0.5)} ms, p95 ${at(serverTimes, 0.95)} ms, min ${at(serverTimes, 0)} ms; round trip median ${at(times, 0.5)} ms; CPU ${cpuPerPage.toFixed(1)} ms per page (server and client, one process)`);

  // Page weight of a first visit: the HTML and every static file it names, as a browser fetches them.
  const first = await page(path, { 'Accept-Encoding': 'br, gzip' });
  const html = await (await fetch(`${running.url}${path}`, { headers: { Cookie: cookie } })).text();
  let total = first.bytes;
  const parts = [`HTML ${(first.bytes / 1024).toFixed(1)} KB`];
  for (const [, url] of html.matchAll(/(?:href|src)="(\/static\/[^"]+)"/g)) {
    const asset = await fetch(`${running.url}${url}`, { headers: { 'Accept-Encoding': 'br, gzip' }, decompress: false } as RequestInit);
    const size = Number(asset.headers.get('content-length') ?? (await asset.arrayBuffer()).byteLength);
    total += size;
    parts.push(`${url.split('/').pop()} ${(size / 1024).toFixed(1)} KB ${asset.headers.get('content-encoding') ?? ''}`.trim());
  }
  console.log(`page weight of a first visit: ${(total / 1024).toFixed(1)} KB (${parts.join(', ')}); cached static files: ${(first.bytes / 1024).toFixed(1)} KB`);
} finally {
  await running.close();
  rmSync(dataDir, { recursive: true, force: true });
}
