/**
 * `tsx test/bench/bulk-rounds.ts [--engine postgres] [--rounds N] [--keep schema]`: the bench's four
 * bulk writes (1000 IP addresses created, changed, deleted; 100 devices deleted with their 10
 * interfaces each and the 1,000 addresses on them) repeated N times on the bench's dataset, so an A/B
 * of a change reads medians instead of engine.ts's single timing. Prints per write the median wall
 * time, the service's CPU (in process: the client's small share included) and, on PostgreSQL, the
 * CPU of the server backends this process uses (from /proc, 10 ms ticks). `--keep <schema>` leaves the
 * seeded PostgreSQL schema in place for EXPLAIN experiments. `--profile <write>` (e.g. `POST`)
 * profiles that write's calls and prints the self and inclusive time of the service's functions.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Session } from 'node:inspector/promises';
import { loadConfig } from '../../runtime/core/config.js';
import { start } from '../../runtime/server.js';
import { addressOf } from './addresses.js';
import { apiCall } from './api-call.js';

const args = process.argv.slice(2);
const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const engine = opt('--engine') === 'postgres' ? 'postgres' : 'sqlite';
const ROUNDS = Number(opt('--rounds') ?? 7);
const keep = opt('--keep');
const profiled = opt('--profile');
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 200 });
interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
const profiles: { nodes: ProfileNode[]; samples: number[] }[] = [];
const TOKEN = 'c'.repeat(40);
const dataDir = mkdtempSync(join(tmpdir(), 'netledger-bulk-'));
const schema = keep ?? `bulk_${randomBytes(4).toString('hex')}`;
const app = `bulk_${process.pid}`;
const url = `${process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test'}?application_name=${app}`;
const running = await start(loadConfig({
  ...(process.env as Record<string, string>), DATA_DIR: dataDir, PORT: '0', ADMIN_TOKEN: TOKEN, LOG_REQUESTS: '0', RUN_WORKER: '0',
  ...(engine === 'postgres' ? { DATABASE_URL: url, DATABASE_SCHEMA: schema } : { DATABASE_URL: '' }),
}));

const call = apiCall(running.url, TOKEN);

/** CPU ms of the PostgreSQL backends serving this process (0 on SQLite). */
async function serverCpu(): Promise<number> {
  if (engine !== 'postgres') return 0;
  const { rows } = await running.db.raw('select pid from pg_stat_activity where application_name = ?', [app]);
  let ticks = 0;
  for (const { pid } of rows) {
    try { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); ticks += Number(f[11]) + Number(f[12]); } catch { /* gone */ }
  }
  return ticks * 10;
}

const figures: Record<string, { wall: number[]; cpu: number[]; server: number[] }> = {};
async function measure<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const s0 = await serverCpu();
  const profiling = profiled && key.startsWith(profiled);
  if (profiling) await session.post('Profiler.start');
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const out = await fn();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  if (profiling) profiles.push((await session.post('Profiler.stop')).profile as never);
  const s1 = await serverCpu();
  const f = (figures[key] ??= { wall: [], cpu: [], server: [] });
  f.wall.push(wall); f.cpu.push((c.user + c.system) / 1000); f.server.push(s1 - s0);
  return out;
}
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

/** Self and inclusive share of the samples by function (a function counted once per sample however deep it recurses). */
function report(): void {
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  for (const profile of profiles) {
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const name = (id: number) => { const { functionName, url, lineNumber } = nodes.get(id)!.callFrame; return `${functionName || '(anonymous)'} ${url.replace(/^file:\/\//, '').replace(process.cwd() + '/', '') || '(native)'}:${lineNumber + 1}`; };
    for (const sample of profile.samples) {
      total++;
      self.set(name(sample), (self.get(name(sample)) ?? 0) + 1);
      const seen = new Set<string>();
      for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) seen.add(name(id));
      for (const f of seen) inclusive.set(f, (inclusive.get(f) ?? 0) + 1);
    }
  }
  const top = (m: Map<string, number>, k: number, filter = (_: string) => true) => [...m].filter(([f]) => filter(f)).sort((a, b) => b[1] - a[1]).slice(0, k).map(([f, n]) => `${((100 * n) / total).toFixed(1).padStart(5)}%  ${f}`).join('\n');
  console.log(`self:\n${top(self, 25)}\n\ninclusive (runtime/):\n${top(inclusive, 40, (f) => f.includes('runtime/'))}`);
}

let site: any, type: any, role: any, tenant: any, platform: any, racks: any[] = [], tags: any[] = [];
let serial = 0;
/** `count` devices with 2 tags, 10 interfaces each, one address per interface. */
async function devices(count: number): Promise<void> {
  for (let i = 0; i < count; i += 1000) {
    const made = await call('POST', '/api/dcim/devices/', Array.from({ length: Math.min(1000, count - i) }, () => {
      const n = serial++;
      return { name: `dev${n}`, site: site.id, device_type: type.id, role: role.id, tenant: tenant.id, platform: platform.id, rack: racks[n % racks.length].id, tags: [tags[n % 5].id, tags[(n + 1) % 5].id] };
    }));
    const ifs = await call('POST', '/api/dcim/interfaces/', made.flatMap((d: any) => Array.from({ length: 10 }, (_, j) => ({ device: d.id, name: `eth${j}`, type: '1000base-t' }))));
    await call('POST', '/api/ipam/ip-addresses/', ifs.map((f: any) => ({ address: addressOf(f.id), assigned_object_type: 'dcim.interface', assigned_object_id: f.id })));
  }
}

try {
  const seeded = (await call('GET', '/api/dcim/sites/?slug=bench')).count > 0;
  if (!seeded) {
    site = await call('POST', '/api/dcim/sites/', { name: 'Bench', slug: 'bench' });
    const maker = await call('POST', '/api/dcim/manufacturers/', { name: 'Maker', slug: 'maker' });
    type = await call('POST', '/api/dcim/device-types/', { manufacturer: maker.id, model: 'Box', slug: 'box' });
    role = await call('POST', '/api/dcim/device-roles/', { name: 'Leaf', slug: 'leaf' });
    tenant = await call('POST', '/api/tenancy/tenants/', { name: 'Bench tenant', slug: 'bench-tenant' });
    platform = await call('POST', '/api/dcim/platforms/', { name: 'Linux', slug: 'linux' });
    racks = await call('POST', '/api/dcim/racks/', Array.from({ length: 20 }, (_, i) => ({ name: `R${i}`, site: site.id })));
    tags = await call('POST', '/api/extras/tags/', Array.from({ length: 5 }, (_, i) => ({ name: `tag${i}`, slug: `tag${i}` })));
    await call('POST', '/api/ipam/prefixes/', { prefix: '10.0.0.0/8' });
    await devices(1000);
  } else {
    site = (await call('GET', '/api/dcim/sites/?slug=bench')).results[0];
    type = (await call('GET', '/api/dcim/device-types/?slug=box')).results[0];
    role = (await call('GET', '/api/dcim/device-roles/?slug=leaf')).results[0];
    tenant = (await call('GET', '/api/tenancy/tenants/?slug=bench-tenant')).results[0];
    platform = (await call('GET', '/api/dcim/platforms/?slug=linux')).results[0];
    racks = (await call('GET', '/api/dcim/racks/?limit=100')).results;
    tags = (await call('GET', '/api/extras/tags/?limit=100')).results;
    serial = 1_000_000 + Date.now() % 1_000_000;
  }
  for (let r = 0; r < ROUNDS; r++) {
    const created = await measure('POST 1000 IPs', () => call('POST', '/api/ipam/ip-addresses/', Array.from({ length: 1000 }, (_, i) => ({ address: `192.168.${Math.floor(i / 256)}.${i % 256}/16`, status: 'active' }))));
    await measure('PATCH 1000 IPs', () => call('PATCH', '/api/ipam/ip-addresses/', created.map((x: any) => ({ id: x.id, description: 'changed', status: 'reserved' }))));
    await measure('DELETE 1000 IPs', () => call('DELETE', '/api/ipam/ip-addresses/', created.map((x: any) => ({ id: x.id }))));
    const count = (await call('GET', '/api/dcim/devices/?limit=1&brief=1')).count;
    const doomed = (await call('GET', `/api/dcim/devices/?limit=100&offset=${count - 100}&brief=1`)).results;
    await measure('DELETE 100 devices', () => call('DELETE', '/api/dcim/devices/', doomed.map((x: any) => ({ id: x.id }))));
    await devices(100);
  }
  console.log(`${engine}, ${ROUNDS} rounds, medians (ms): wall / service CPU / server CPU`);
  for (const [key, f] of Object.entries(figures)) console.log(`${key.padEnd(20)} ${median(f.wall).toFixed(1).padStart(7)} ${median(f.cpu).toFixed(1).padStart(7)} ${median(f.server).toFixed(0).padStart(5)}`);
  if (profiles.length) report();
} finally {
  if (!keep && engine === 'postgres') await running.db.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]);
  await running.close();
  rmSync(dataDir, { recursive: true, force: true });
}
