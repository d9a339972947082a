/**
 * `npm run bench:throughput`: device detail under concurrent clients, served the way production
 * serves it (`npm start`: the compiled dist/, WEB_CONCURRENCY processes, the request log on), against
 * the floor (detail-floor.ts: bare node:http, the same number of processes, one prepared query) in
 * the same run. The two alternate in rounds, so both see the same machine; the ratio NetLedger/floor
 * holds on a noisy machine where absolute figures do not. The load client (autocannon) runs in this
 * process, on the same cores as the servers: it takes CPU from both alike.
 *
 *   npm run bench:throughput -- [--engines sqlite,postgres] [--processes 1,2] [--clients 8]
 *                               [--seconds 5] [--rounds 3] [--devices 1000] [--profile DIR] [--root DIR]
 *                               [--compare DIR]
 *
 * Besides req/s, the service's CPU milliseconds per request (its processes' user + system time from
 * /proc) and, on PostgreSQL, its backends' (the server processes of the service's connections, found
 * by application_name; they share the cores). Prints a table; the figures are the last line, as JSON.
 */
import { spawn, fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { buildIfStale, startFlags } from './build.js';

const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const engines = arg('--engines', 'sqlite,postgres').split(',');
const processCounts = arg('--processes', '1,2').split(',').map(Number);
const clients = Number(arg('--clients', '8'));
const seconds = Number(arg('--seconds', '5'));
const rounds = Number(arg('--rounds', '3'));
const DEVICES = Number(arg('--devices', '1000'));
/** `--profile DIR`: after the one-process rounds, a CPU profile of that process under the same load (node --cpu-prof). */
const profileDir = args.includes('--profile') ? arg('--profile', '') : null;
const TOKEN = 'c'.repeat(40);
/** `--root DIR`: serve another checkout's dist/ (an earlier commit, built there) against the same floor and client. */
const root = args.includes('--root') ? `${arg('--root', '').replace(/\/$/, '')}/` : fileURLToPath(new URL('../..', import.meta.url));
buildIfStale(root);
/**
 * `--compare DIR`: another checkout's build (an earlier commit, built there) served beside this one on
 * the same data, each round measuring the floor, this build and that one in turn: on a machine whose
 * speed changes from minute to minute, only such alternating rounds compare two versions.
 */
const compareRoot = args.includes('--compare') ? `${arg('--compare', '').replace(/\/$/, '')}/` : null;
if (compareRoot) buildIfStale(compareRoot);
const headers = { Authorization: `Token ${TOKEN}`, 'Content-Type': 'application/json', Accept: 'application/json' };
const log = (line: string) => process.stderr.write(`${line}\n`);

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address() as { port: number }; s.close(() => resolve(port)); });
  });
}

async function waitUntilUp(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try { if ((await fetch(url, { headers })).ok) return; } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

/** Every server started, so a failed run leaves none behind. */
const children = new Set<ChildProcess>();

function stop(child: ChildProcess): Promise<void> {
  children.delete(child);
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** `npm start` (compiled) with these settings; resolves once it answers the bench's token. */
async function startService(env: Record<string, string>, processes: number, nodeOptions: string[] = [], from = root): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(join(from, 'node_modules/.bin/node'), [...startFlags(from), ...nodeOptions, 'dist/runtime/cli.js', 'start'], {
    cwd: from, stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', WEB_CONCURRENCY: String(processes), LOG_FORMAT: 'json' },
  });
  children.add(child);
  const url = `http://127.0.0.1:${port}`;
  // With the token: the first admin exists only once the first process serves.
  await waitUntilUp(`${url}/api/`, child);
  return { url, child };
}

async function startFloor(engine: string, processes: number, dataDir: string, databaseUrl: string, schema: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const source = engine === 'postgres' ? ['--postgres', databaseUrl, '--schema', schema] : ['--sqlite', join(dataDir, 'netledger.sqlite3')];
  const child = fork(fileURLToPath(new URL('./detail-floor.ts', import.meta.url)), ['--port', String(port), '--processes', String(processes), ...source], { execArgv: ['--import', 'tsx'] });
  children.add(child);
  await new Promise<void>((resolve) => child.once('message', () => resolve()));
  return { url: `http://127.0.0.1:${port}`, child };
}

async function call(base: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

/** The dataset, through the API: devices with 10 interfaces each, 10 IP addresses per device, two tags each, one config context. */
async function seed(base: string): Promise<number[]> {
  const post = (path: string, body: unknown) => call(base, 'POST', path, body);
  const site = await post('/api/dcim/sites/', { name: 'Bench', slug: 'bench' });
  const maker = await post('/api/dcim/manufacturers/', { name: 'Maker', slug: 'maker' });
  const type = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Box', slug: 'box' });
  const role = await post('/api/dcim/device-roles/', { name: 'Leaf', slug: 'leaf' });
  const tenant = await post('/api/tenancy/tenants/', { name: 'Bench tenant', slug: 'bench-tenant' });
  const platform = await post('/api/dcim/platforms/', { name: 'Linux', slug: 'linux' });
  const racks = await post('/api/dcim/racks/', Array.from({ length: 20 }, (_, i) => ({ name: `R${i}`, site: site.id })));
  const tags = await post('/api/extras/tags/', Array.from({ length: 5 }, (_, i) => ({ name: `tag${i}`, slug: `tag${i}` })));
  await post('/api/extras/config-contexts/', { name: 'bench', data: { ntp: ['10.0.0.1'], dns: { servers: ['10.0.0.53'] } }, sites: [site.id] });
  const devices: { id: number }[] = [];
  for (let i = 0; i < DEVICES; i += 1000) {
    devices.push(...await post('/api/dcim/devices/', Array.from({ length: Math.min(1000, DEVICES - i) }, (_, k) => ({
      name: `dev${i + k}`, site: site.id, device_type: type.id, role: role.id, tenant: tenant.id, platform: platform.id,
      rack: racks[(i + k) % 20].id, tags: [tags[(i + k) % 5].id, tags[(i + k + 1) % 5].id],
    }))));
  }
  const interfaces: { id: number }[] = [];
  for (let i = 0; i < devices.length; i += 100) {
    interfaces.push(...await post('/api/dcim/interfaces/', devices.slice(i, i + 100).flatMap((d) => Array.from({ length: 10 }, (_, j) => ({ device: d.id, name: `eth${j}`, type: '1000base-t' })))));
  }
  for (let i = 0; i < interfaces.length; i += 1000) {
    await post('/api/ipam/ip-addresses/', interfaces.slice(i, i + 1000).map((f, k) => {
      const n = i + k + 1;
      return { address: `10.${n >> 16}.${(n >> 8) & 255}.${n & 255}/8`, assigned_object_type: 'dcim.interface', assigned_object_id: f.id };
    }));
  }
  return devices.map((d) => d.id);
}

/** CPU milliseconds used so far by a process and its children (the cluster's workers). */
function cpuMs(pid: number): number {
  const ticks = (p: number) => { try { const f = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' '); return Number(f[11]) + Number(f[12]); } catch { return 0; } };
  let total = ticks(pid);
  for (const task of (() => { try { return readdirSync(`/proc/${pid}/task`); } catch { return []; } })()) {
    let kids = '';
    try { kids = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8'); } catch { /* gone */ }
    for (const kid of kids.split(' ').filter(Boolean)) total += ticks(Number(kid));
  }
  return total * 10;
}

/** The PostgreSQL server processes serving connections named `application` (empty on SQLite). */
async function backendPids(databaseUrl: string, application: string): Promise<number[]> {
  if (!databaseUrl) return [];
  const pg = createRequire(import.meta.url)('pg') as { Client: new (o: object) => { connect(): Promise<void>; query(sql: string, values: unknown[]): Promise<{ rows: { pid: number }[] }>; end(): Promise<void> } };
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query('select pid from pg_stat_activity where application_name = $1', [application])).rows.map((r) => r.pid);
  } finally {
    await client.end();
  }
}

interface Sample { perSecond: number; p50: number; p99: number; errors: number; cpuPerRequest: number; backendCpuPerRequest: number; load1: number }

async function measure(url: string, pid: number, ids: number[], duration: number, backends: number[] = []): Promise<Sample> {
  const load1 = loadavg()[0];
  const backendMs = () => backends.reduce((sum, p) => sum + cpuMs(p), 0);
  const b0 = backendMs();
  const c0 = cpuMs(pid);
  const result = await autocannon({
    url, connections: clients, duration, headers: { Authorization: `Token ${TOKEN}`, Accept: 'application/json' },
    requests: ids.map((id) => ({ method: 'GET', path: `/api/dcim/devices/${id}/` })),
  });
  const cpu = cpuMs(pid) - c0;
  const backendCpu = backendMs() - b0;
  const errors = result.errors + result.timeouts + result.non2xx;
  const total = Math.max(1, result.requests.total);
  return { perSecond: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors, cpuPerRequest: cpu / total, backendCpuPerRequest: backendCpu / total, load1 };
}

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }

/** Self time by function and by file over the profile's last `lastSeconds` (the load, not the start-up). */
function summarise(file: string, lastSeconds: number): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; endTime: number; startTime: number };
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let t = profile.startTime;
  let total = 0;
  const from = profile.endTime - lastSeconds * 1e6;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i];
    if (t < from) return;
    total++;
    const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
    const path = url.replace(/^file:\/\//, '').replace(root, '') || '(native)';
    const fn = `${functionName || '(anonymous)'} ${path}:${lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + 1);
    const group = path.includes('node_modules/') ? `node_modules/${path.split('node_modules/')[1].split('/')[0]}` : path;
    byFile.set(group, (byFile.get(group) ?? 0) + 1);
  });
  const top = (m: Map<string, number>, k: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, k).map(([name, n]) => `${((100 * n) / total).toFixed(1).padStart(5)}%  ${name}`).join('\n');
  return `self time by file:\n${top(byFile, 20)}\n\nself time by function:\n${top(byFunction, 40)}`;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const figures: Record<string, Record<string, number>> = {};

for (const engine of engines) {
  const dataDir = mkdtempSync(join(tmpdir(), 'netledger-throughput-'));
  const schema = `throughput_${randomBytes(4).toString('hex')}`;
  const databaseUrl = engine === 'postgres' ? process.env.DATABASE_URL || process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test' : '';
  // The service's connections carry the schema's name, so its backends can be told from others'.
  const serviceUrl = databaseUrl && `${databaseUrl}${databaseUrl.includes('?') ? '&' : '?'}application_name=${schema}`;
  const env: Record<string, string> = { DATA_DIR: dataDir, ADMIN_TOKEN: TOKEN, DATABASE_URL: serviceUrl, ...(engine === 'postgres' ? { DATABASE_SCHEMA: schema } : {}) };
  try {
    log(`[${engine}] starting`);
    let service = await startService(env, 2);
    log(`[${engine}] seeding ${DEVICES} devices`);
    const all = await seed(service.url);
    const ids = all.slice(0, 100);
    const sample = await call(service.url, 'GET', `/api/dcim/devices/${ids[0]}/`);
    await stop(service.child);
    for (const n of processCounts) {
      service = await startService(env, n);
      const floor = await startFloor(engine, n, dataDir, databaseUrl, schema);
      // The floor answers the same object with the same keys (values may differ in detail).
      const floorSample = await call(floor.url, 'GET', `/api/dcim/devices/${ids[0]}/`);
      const missing = Object.keys(sample).filter((k) => !(k in floorSample));
      if (missing.length) log(`[${engine}] the floor lacks: ${missing.join(', ')}`);
      await measure(floor.url, floor.child.pid!, ids, 2);
      await measure(service.url, service.child.pid!, ids, 2);
      // Both builds' connections carry the same name (same data): the compared one starts once this one's are known, and has the others.
      const backends = await backendPids(databaseUrl, schema);
      const compared = compareRoot ? await startService(env, n, [], compareRoot) : null;
      if (compared) await measure(compared.url, compared.child.pid!, ids, 2);
      const comparedBackends = compared ? (await backendPids(databaseUrl, schema)).filter((pid) => !backends.includes(pid)) : [];
      const app: Sample[] = [];
      const other: Sample[] = [];
      const bare: Sample[] = [];
      for (let r = 0; r < rounds; r++) {
        bare.push(await measure(floor.url, floor.child.pid!, ids, seconds));
        app.push(await measure(service.url, service.child.pid!, ids, seconds, backends));
        log(`[${engine} x${n}] round ${r + 1}: NetLedger ${app[r].perSecond.toFixed(0)} req/s (${app[r].cpuPerRequest.toFixed(2)} ms CPU/req, backends ${app[r].backendCpuPerRequest.toFixed(2)}), floor ${bare[r].perSecond.toFixed(0)} req/s, load ${app[r].load1.toFixed(2)}`);
        if (!compared) continue;
        other.push(await measure(compared.url, compared.child.pid!, ids, seconds, comparedBackends));
        log(`[${engine} x${n}] round ${r + 1}: ${compareRoot} ${other[r].perSecond.toFixed(0)} req/s (${other[r].cpuPerRequest.toFixed(2)} ms CPU/req, backends ${other[r].backendCpuPerRequest.toFixed(2)}), load ${other[r].load1.toFixed(2)}`);
      }
      const summary = (samples: Sample[]) => ({
        netledger: mean(samples.map((s) => s.perSecond)), floor: mean(bare.map((s) => s.perSecond)),
        ratio: mean(samples.map((s) => s.perSecond)) / mean(bare.map((s) => s.perSecond)),
        p50: mean(samples.map((s) => s.p50)), p99: mean(samples.map((s) => s.p99)),
        cpu_ms: mean(samples.map((s) => s.cpuPerRequest)), floor_cpu_ms: mean(bare.map((s) => s.cpuPerRequest)),
        backend_cpu_ms: mean(samples.map((s) => s.backendCpuPerRequest)),
        errors: samples.reduce((a, s) => a + s.errors, 0), load1: mean(samples.map((s) => s.load1)),
      });
      figures[`${engine} x${n}`] = summary(app);
      if (compared) figures[`${engine} x${n} (${compareRoot})`] = summary(other);
      await stop(floor.child);
      await stop(service.child);
      if (compared) await stop(compared.child);
      if (profileDir && n === 1) {
        const dir = join(profileDir, engine);
        rmSync(dir, { recursive: true, force: true });
        service = await startService(env, 1, ['--cpu-prof', '--cpu-prof-dir', dir]);
        await measure(service.url, service.child.pid!, ids, 2);
        const profiled = await measure(service.url, service.child.pid!, ids, seconds);
        await stop(service.child);
        log(`[${engine} x1] profiled: ${profiled.perSecond.toFixed(0)} req/s\n${summarise(join(dir, readdirSync(dir)[0]), seconds)}`);
      }
    }
  } finally {
    await Promise.all([...children].map(stop));
    if (engine === 'postgres') {
      const pg = createRequire(import.meta.url)('pg') as { Client: new (o: object) => { connect(): Promise<void>; query(sql: string): Promise<unknown>; end(): Promise<void> } };
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

console.log(`\nDevice detail, ${clients} clients (autocannon in the same machine), ${rounds} x ${seconds} s rounds alternating with the floor\n`);
console.log('| engine, processes | NetLedger req/s | floor req/s | NetLedger / floor | p50 / p99 ms | CPU ms per request (floor) | PostgreSQL backends\' CPU ms per request | errors | load avg |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const [key, f] of Object.entries(figures)) {
  console.log(`| ${key} | ${f.netledger.toFixed(0)} | ${f.floor.toFixed(0)} | ${(f.ratio * 100).toFixed(0)}% | ${f.p50.toFixed(1)} / ${f.p99.toFixed(1)} | ${f.cpu_ms.toFixed(2)} (${f.floor_cpu_ms.toFixed(2)}) | ${key.startsWith('postgres') ? f.backend_cpu_ms.toFixed(2) : '-'} | ${f.errors} | ${f.load1.toFixed(2)} |`);
}
console.log(JSON.stringify(figures));
