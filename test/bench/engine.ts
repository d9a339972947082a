/**
 * One engine's bench run (test/bench/bench.ts starts one per engine and prints the table): seeds the
 * dataset through the API, then measures every row of the table against the floor (floor.ts) in the
 * same run. Progress goes to stderr; the figures are the last stdout line, as JSON.
 *
 *   --engine sqlite|postgres   (postgres: DATABASE_URL, default the tests' server, in a throwaway schema)
 *   --scale                    100,000 devices and 1,000,000 IP addresses instead (created in bulk)
 *   --webhooks                 also the webhook delivery figures
 *   --tsx                      serve the TypeScript sources under tsx instead of the compiled build
 *                              (the default, as `npm start`: memory figures are production's)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { modelList } from '../../runtime/data/registry.js';
import { apiVersions } from '../../generated/versions.js';
import type { ModelEntry } from '../../runtime/core/types.js';
import { load } from './load.js';
import { addressOf } from './addresses.js';
import { naturalKey } from '../../runtime/data/natural.js';
import { parseNetwork } from '../../runtime/core/ipnet.js';
import { postgresBulk, sqliteBulk } from './bulk-seed.js';
import { buildIfStale, startFlags } from './build.js';

const args = process.argv.slice(2);
const engine = args[args.indexOf('--engine') + 1] === 'postgres' ? 'postgres' : 'sqlite';
const scale = args.includes('--scale');
const withWebhooks = args.includes('--webhooks');
const underTsx = args.includes('--tsx');
const TOKEN = 'b'.repeat(40);
const DEVICES = scale ? 100_000 : 1000;
const INTERFACES_PER_DEVICE = scale ? 1 : 10;
const ADDRESSES = scale ? 1_000_000 : 10_000;
const BATCH = scale ? 5000 : 1000;
/** Rounds of the bulk writes: each row is their median. */
const BULK_ROUNDS = 5;
/**
 * Rounds of 100 devices deleted (700 of the small dataset's 1,000, at the end of the run). The delete
 * path warms over its first rounds (V8 optimising it, each pool connection's catalog caches for the
 * twenty-odd tables a cascade looks at): PostgreSQL's rounds fell from 173 to 132 ms over seven, so
 * three took their median from the warm-up.
 */
const DEVICE_ROUNDS = 7;
const TAGS = 5;
const RACKS = 20;

const log = (line: string) => process.stderr.write(`[${engine}${scale ? ' scale' : ''}] ${line}\n`);
const results: Record<string, number | string> = {};
const record = (key: string, value: number, unit = 'ms') => { results[key] = value; log(`${key.padEnd(52)} ${value.toFixed(unit === 'ms' ? 1 : 2).padStart(9)} ${unit}`); };

const dataDir = mkdtempSync(join(tmpdir(), 'netledger-bench-'));
const schema = `bench_${randomBytes(4).toString('hex')}`;
const databaseUrl = engine === 'postgres' ? process.env.DATABASE_URL || process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test' : '';
const env: Record<string, string> = {
  ...(process.env as Record<string, string>), DATA_DIR: dataDir, PORT: '0', ADMIN_TOKEN: TOKEN, LOG_REQUESTS: '0',
  ...(engine === 'postgres' ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema } : { DATABASE_URL: '' }),
};

/**
 * A forked helper process (the service, the floor) and a way to ask it something. `compiled`: plain
 * Node on dist/ (serve.ts --dist), the way production runs; otherwise under tsx.
 */
function helper(file: string, flag: string, compiled = false): { child: ChildProcess; ask<T>(message: unknown): Promise<T> } {
  const child = compiled
    ? fork(fileURLToPath(new URL(file, import.meta.url)), [flag, '--dist'], { execArgv: startFlags(fileURLToPath(new URL('../..', import.meta.url))) })
    : fork(fileURLToPath(new URL(file, import.meta.url)), [flag], { execArgv: ['--import', 'tsx'] });
  // One question at a time, so each answer reaches the one who asked (the memory sampler asks too).
  let queue: Promise<unknown> = Promise.resolve();
  const ask = <T>(message: unknown) => {
    const answer = queue.then(() => new Promise<T>((resolve) => { child.once('message', (m) => resolve(m as T)); child.send(message as never); }));
    queue = answer.catch(() => undefined);
    return answer;
  };
  return { child, ask };
}
if (!underTsx) buildIfStale(fileURLToPath(new URL('../..', import.meta.url)));
log(`service: ${underTsx ? 'TypeScript sources under tsx' : 'compiled dist/ under plain Node (as npm start)'}`);
let service = helper('./serve.ts', '--serve', !underTsx);
let running = await service.ask<{ url: string }>({ cmd: 'start', env });
const rss = async () => (await service.ask<{ rss: number }>({ cmd: 'rss' })).rss;
/** The service's CPU milliseconds so far (robust to a busy machine, unlike wall time). */
const cpu = async () => (await service.ask<{ cpu: number }>({ cmd: 'cpu' })).cpu;
/** A fresh service process on the seeded data: what it measures is serving, not the seeding's heap. */
async function restartService(): Promise<void> {
  await service.ask({ cmd: 'stop' });
  service = helper('./serve.ts', '--serve', !underTsx);
  running = await service.ask<{ url: string }>({ cmd: 'start', env });
}
const headers = { Authorization: `Token ${TOKEN}`, 'Content-Type': 'application/json', Accept: 'application/json' };

/** A model's list path as a client reaches it: under /api/ when the default version serves it, else under the first version that does (4.x-only models under /v4.6). */
function servedList(entry: ModelEntry): string {
  const { routes } = entry;
  if (routes.versions.includes(apiVersions.default)) return routes.list;
  const version = routes.versions[0];
  return `/v${version}${routes.byVersion?.[version]?.list ?? routes.list}`;
}

async function call(method: string, path: string, body?: unknown, base = running.url): Promise<any> {
  const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const out = await fn();
  return [out, performance.now() - t0];
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** The pages `npm run bench` compares between the 3.7 API (`/api/...`) and the 4.6 API (`/v4.6/api/...`), by key. */
const VERSIONED_PAGES = (device: number): [string, string][] => [
  ['devices_1000', '/api/dcim/devices/?limit=1000'],
  ['interfaces_1000', '/api/dcim/interfaces/?limit=1000'],
  ['ips_1000', '/api/ipam/ip-addresses/?limit=1000'],
  ['ips_parent', '/api/ipam/ip-addresses/?parent=10.0.0.0/8&limit=100'],
  ['device_detail', `/api/dcim/devices/${device}/`],
];

/** Median wall time of `runs` calls after a warm-up; the service's mean CPU time per call is recorded as `<key>_cpu`. */
async function medianOf(runs: number, fn: () => Promise<unknown>, key?: string): Promise<number> {
  await fn();
  const times: number[] = [];
  const c0 = await cpu();
  for (let i = 0; i < runs; i++) times.push((await timed(fn))[1]);
  if (key) results[`${key}_cpu`] = ((await cpu()) - c0) / runs;
  return median(times);
}

/** Median wall time of `runs` calls, the first included (no warm-up). */
async function rightAfter(runs: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push((await timed(fn))[1]);
  return median(times);
}

/**
 * `path` from the service and from the floor process, alternately (so both see the same machine),
 * after a warm-up of each: the medians under `<key>_alternated` and `<key>_floor`, their mean CPU
 * per call under `<key>_alternated_cpu` and `<key>_floor_cpu`; then the service's own time back to
 * back (as many runs), as every other row, under `key` (its mean CPU per call under `<key>_cpu`).
 * Alternated, each starts cold: the API's device page took 56-80 ms alternated and 31-43 back to
 * back (SQLite, the same runs), and a 100 ms pause after each floor request made it slower still
 * (71-82 ms), so it is not the other process's work overlapping but the caches gone cold between
 * requests. Hence the row's own figure back to back, as a service under load runs.
 */
async function againstFloor(key: string, runs: number, path: string): Promise<void> {
  const floorCpu = async () => (await floorProcess.ask<{ cpu: number }>({ cmd: 'cpu' })).cpu;
  await call('GET', path); await call('GET', path, undefined, floor!.url);
  const app: number[] = [];
  const bare: number[] = [];
  let appUsed = 0;
  let floorUsed = 0;
  for (let i = 0; i < runs; i++) {
    let c0 = await cpu();
    app.push((await timed(() => call('GET', path)))[1]);
    appUsed += (await cpu()) - c0;
    c0 = await floorCpu();
    bare.push((await timed(() => call('GET', path, undefined, floor!.url)))[1]);
    floorUsed += (await floorCpu()) - c0;
  }
  results[`${key}_alternated_cpu`] = appUsed / runs;
  results[`${key}_floor_cpu`] = floorUsed / runs;
  record(`${key}_alternated`, median(app));
  record(`${key}_floor`, median(bare));
  log(`${key}: ${(median(app) / median(bare)).toFixed(2)}x the floor's wall time, ${(appUsed / floorUsed).toFixed(2)}x its CPU`);
  record(key, await medianOf(runs, () => call('GET', path), key));
}

/** One call: its result, wall time and the service's CPU time. */
async function measured<T>(fn: () => Promise<T>): Promise<[T, number, number]> {
  const c0 = await cpu();
  const [out, ms] = await timed(fn);
  return [out, ms, (await cpu()) - c0];
}

/** One call timed: wall time recorded under `key`, the service's CPU time under `<key>_cpu`. */
async function once<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const [out, ms, used] = await measured(fn);
  results[`${key}_cpu`] = used;
  record(key, ms);
  return out;
}

async function bulkCreate(path: string, items: unknown[]): Promise<any[]> {
  const out: any[] = [];
  for (let i = 0; i < items.length; i += BATCH) {
    const page = await call('POST', path, items.slice(i, i + BATCH));
    // At scale only the ids are kept, so the client's memory does not count against the service's.
    for (const o of page) out.push(scale ? { id: o.id } : o);
    if (scale && (i / BATCH) % 20 === 19) log(`  ${path}: ${i + BATCH} of ${items.length}`);
  }
  return out;
}

const PREFIXES = scale ? 4096 : 40;
const SMALL_VLANS = 21;
const VLANS = scale ? 4000 : SMALL_VLANS;

/**
 * The dataset, through the API: the small one entirely (21,093 objects: the count), the scale
 * one's supporting objects and one device, interface and address as templates, the rest copied in
 * bulk SQL (bulk-seed.ts).
 */
async function seed(): Promise<number> {
  let objects = 0;
  const one = async (path: string, body: unknown) => { objects++; return call('POST', path, body); };
  const site = await one('/api/dcim/sites/', { name: 'Bench', slug: 'bench' });
  const maker = await one('/api/dcim/manufacturers/', { name: 'Maker', slug: 'maker' });
  const type = await one('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Box', slug: 'box' });
  const role = await one('/api/dcim/device-roles/', { name: 'Leaf', slug: 'leaf' });
  const tenant = await one('/api/tenancy/tenants/', { name: 'Bench tenant', slug: 'bench-tenant' });
  const platform = await one('/api/dcim/platforms/', { name: 'Linux', slug: 'linux' });
  const racks = await bulkCreate('/api/dcim/racks/', Array.from({ length: RACKS }, (_, i) => ({ name: `R${i}`, site: site.id })));
  const tags = await bulkCreate('/api/extras/tags/', Array.from({ length: TAGS }, (_, i) => ({ name: `tag${i}`, slug: `tag${i}` })));
  await one('/api/ipam/prefixes/', { prefix: '10.0.0.0/8' });
  // One /24 per 256 addresses, and VLANs: the other main lists the scale target names.
  await bulkCreate('/api/ipam/prefixes/', Array.from({ length: PREFIXES }, (_, i) => ({ prefix: `10.${Math.floor(i / 256)}.${i % 256}.0/24`, site: site.id })));
  await bulkCreate('/api/ipam/vlans/', Array.from({ length: VLANS }, (_, i) => ({ vid: 1 + (i % 4094), name: `vlan${i}`, site: site.id })));
  objects += RACKS + TAGS + PREFIXES + VLANS;
  const device = (i: number) => ({
    name: `dev${i}`, site: site.id, device_type: type.id, role: role.id, tenant: tenant.id, platform: platform.id,
    rack: racks[i % RACKS].id, tags: [tags[i % TAGS].id, tags[(i + 1) % TAGS].id],
  });
  if (scale) return objects + await bulkSeed(device, racks.map((r) => r.id), tags.map((t) => t.id));
  const devices = await bulkCreate('/api/dcim/devices/', Array.from({ length: DEVICES }, (_, i) => device(i)));
  const interfaces = await bulkCreate('/api/dcim/interfaces/', devices.flatMap((d) => Array.from({ length: INTERFACES_PER_DEVICE }, (_, j) => ({ device: d.id, name: `eth${j}`, type: '1000base-t' }))));
  devices.length = 0;
  for (let i = 0; i < ADDRESSES; i += BATCH * 10) {
    await bulkCreate('/api/ipam/ip-addresses/', Array.from({ length: Math.min(BATCH * 10, ADDRESSES - i) }, (_, k) => {
      const n = i + k;
      return { address: addressOf(n), assigned_object_type: 'dcim.interface', assigned_object_id: interfaces[n % interfaces.length].id };
    }));
  }
  objects += DEVICES + DEVICES * INTERFACES_PER_DEVICE + ADDRESSES;
  return objects;
}

/** The scale seed's devices (with their tags), interfaces and addresses: one of each through the API, the rest in bulk SQL. */
async function bulkSeed(device: (i: number) => Record<string, unknown>, rackIds: number[], tagIds: number[]): Promise<number> {
  const first = await call('POST', '/api/dcim/devices/', device(0));
  const iface = await call('POST', '/api/dcim/interfaces/', { device: first.id, name: 'eth0', type: '1000base-t' });
  const ip = await call('POST', '/api/ipam/ip-addresses/', { address: addressOf(0), assigned_object_type: 'dcim.interface', assigned_object_id: iface.id });
  const bulk = engine === 'postgres' ? postgresBulk(databaseUrl, schema) : sqliteBulk(join(dataDir, 'netledger.sqlite3'));
  try {
    const deviceRow = await bulk.row('dcim_device', 'id', first.id);
    await bulk.copies('dcim_device', deviceRow, DEVICES - 1, (i) => ({ name: `dev${i + 1}`, _name_natural: naturalKey(`dev${i + 1}`), rack_id: rackIds[(i + 1) % RACKS] }));
    const deviceIds = [first.id, ...await bulk.ids('dcim_device', first.id)];
    log(`  ${deviceIds.length} devices`);
    const tagRow = await bulk.row('extras_taggeditem', 'object_id', first.id);
    await bulk.copies('extras_taggeditem', tagRow, 2 * (DEVICES - 1), (j) => {
      const i = 1 + Math.floor(j / 2);
      return { object_id: deviceIds[i], tag_id: tagIds[(i + (j % 2)) % TAGS] };
    });
    const ifaceRow = await bulk.row('dcim_interface', 'id', iface.id);
    await bulk.copies('dcim_interface', ifaceRow, DEVICES - 1, (i) => ({ device_id: deviceIds[i + 1] }));
    const ifaceIds = [iface.id, ...await bulk.ids('dcim_interface', iface.id)];
    log(`  ${ifaceIds.length} interfaces`);
    const ipRow = await bulk.row('ipam_ipaddress', 'id', ip.id);
    await bulk.copies('ipam_ipaddress', ipRow, ADDRESSES - 1, (k) => {
      const n = parseNetwork(addressOf(k + 1))!;
      return { address: n.text, family: n.family, address_host: n.host, address_first: n.first, address_last: n.last, address_length: n.length, assigned_object_id: ifaceIds[(k + 1) % ifaceIds.length] };
    });
    log(`  ${ADDRESSES} IP addresses`);
    // Every table the seed filled, as after any bulk load (autovacuum would get there, later).
    await bulk.analyze(['dcim_device', 'extras_taggeditem', 'dcim_interface', 'ipam_ipaddress', 'ipam_prefix', 'ipam_vlan']);
  } finally {
    await bulk.close();
  }
  results.seed_sql = 1;
  return DEVICES + DEVICES * INTERFACES_PER_DEVICE + ADDRESSES;
}

/**
 * The write floor's devices: DEVICE_ROUNDS × 100 more, each as the dataset's (tags, interfaces, the
 * addresses on them), through the API. Their ids, in order.
 */
async function seedFloorDevices(): Promise<number[]> {
  const [site] = (await call('GET', '/api/dcim/sites/?slug=bench')).results;
  const [type] = (await call('GET', '/api/dcim/device-types/?slug=box')).results;
  const [role] = (await call('GET', '/api/dcim/device-roles/?slug=leaf')).results;
  const [tenant] = (await call('GET', '/api/tenancy/tenants/?slug=bench-tenant')).results;
  const [platform] = (await call('GET', '/api/dcim/platforms/?slug=linux')).results;
  const racks = (await call('GET', '/api/dcim/racks/?limit=100&brief=1')).results;
  const tags = (await call('GET', '/api/extras/tags/?limit=100&brief=1')).results;
  const devices = await bulkCreate('/api/dcim/devices/', Array.from({ length: DEVICE_ROUNDS * 100 }, (_, i) => ({
    name: `floor${i}`, site: site.id, device_type: type.id, role: role.id, tenant: tenant.id, platform: platform.id,
    rack: racks[i % racks.length].id, tags: [tags[i % tags.length].id, tags[(i + 1) % tags.length].id],
  })));
  const interfaces = await bulkCreate('/api/dcim/interfaces/', devices.flatMap((d) => Array.from({ length: INTERFACES_PER_DEVICE }, (_, j) => ({ device: d.id, name: `eth${j}`, type: '1000base-t' }))));
  // As many addresses on each interface as the dataset has (1 on the small one, 10 at scale).
  const perInterface = ADDRESSES / (DEVICES * INTERFACES_PER_DEVICE);
  await bulkCreate('/api/ipam/ip-addresses/', interfaces.flatMap((f, k) => Array.from({ length: perInterface }, (_, j) => ({
    address: addressOf(ADDRESSES + k * perInterface + j), assigned_object_type: 'dcim.interface', assigned_object_id: f.id,
  }))));
  return devices.map((d) => d.id);
}

async function webhooks(events: number, batch: number): Promise<void> {
  const received = new Map<string, number>();
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const name = JSON.parse(Buffer.concat(chunks).toString('utf8')).data.name as string;
      if (!received.has(name)) received.set(name, performance.now());
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  const port = (receiver.address() as { port: number }).port;
  try {
    const hook = await call('POST', '/api/extras/webhooks/', { name: `bench-${batch}`, content_types: ['tenancy.tenant'], type_create: true, payload_url: `http://127.0.0.1:${port}/` });
    const t0 = performance.now();
    for (let b = 0; b < events / batch; b++) {
      const names = Array.from({ length: batch }, (_, i) => `wh-${batch}-${b}-${i}`);
      await call('POST', '/api/tenancy/tenants/', names.map((name) => ({ name, slug: name })));
    }
    const deadline = Date.now() + 120_000;
    while (received.size < events && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    await call('DELETE', `/api/extras/webhooks/${hook.id}/`);
    const last = Math.max(...received.values());
    record(`webhooks: events/s (bulk of ${batch})`, received.size / ((last - t0) / 1000), '/s');
  } finally {
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}

let floor: { url: string } | null = null;
const floorProcess = helper('./floor.ts', '--floor-process');
try {
  log(`seeding ${DEVICES} devices × ${INTERFACES_PER_DEVICE} interfaces, ${ADDRESSES} IP addresses, ${TAGS} tags (2 on every device)`);
  // The same pages on the empty database first: the rows after the seed then measure the planner's
  // statistics, not a process whose code for these pages never ran.
  const AFTER_SEED = ['/api/ipam/ip-addresses/?limit=1000', '/api/ipam/ip-addresses/?parent=10.0.0.0/8&limit=100'];
  for (let i = 0; i < 5; i++) for (const path of AFTER_SEED) await call('GET', path);
  const objects = await once('seed', seed);
  results.seed_objects = objects;
  // The first pages right after the seed, from the process that seeded and without a warm-up: the
  // planner works from whatever statistics the seed's writes left (the rows below, on a fresh process).
  record('ips_1000_after_seed', await rightAfter(5, () => call('GET', AFTER_SEED[0])));
  record('ips_parent_after_seed', await rightAfter(9, () => call('GET', AFTER_SEED[1])));
  await restartService();
  floor = await floorProcess.ask<{ url: string }>({ engine, file: join(dataDir, 'netledger.sqlite3'), url: databaseUrl, schema });

  await againstFloor('devices_1000', 9, '/api/dcim/devices/?limit=1000');
  record('interfaces_1000', await medianOf(7, () => call('GET', '/api/dcim/interfaces/?limit=1000'), 'interfaces_1000'));
  record('ips_1000', await medianOf(7, () => call('GET', '/api/ipam/ip-addresses/?limit=1000'), 'ips_1000'));
  record('devices_1000_brief', await medianOf(7, () => call('GET', '/api/dcim/devices/?limit=1000&brief=1'), 'devices_1000_brief'));
  await againstFloor('ips_parent', 21, '/api/ipam/ip-addresses/?parent=10.0.0.0/8&limit=100');
  record('ips_parent_narrow', await medianOf(21, () => call('GET', '/api/ipam/ip-addresses/?parent=10.0.1.0/24&limit=100'), 'ips_parent_narrow'));
  record('ips_q', await medianOf(21, () => call('GET', '/api/ipam/ip-addresses/?q=10.0.1.&limit=100'), 'ips_q'));
  // Cursor pagination (4.6's `start`): page 1 and page 1,000 (or the last, on the small dataset) cost the same.
  const firstIp = Number((await call('GET', '/v4.6/api/ipam/ip-addresses/?start=0&limit=1&brief=1')).results[0].id);
  const deepPage = Math.min(999, Math.floor(ADDRESSES / 100) - 1);
  record('ips_cursor_page1', await medianOf(21, () => call('GET', `/v4.6/api/ipam/ip-addresses/?start=${firstIp}&limit=100`), 'ips_cursor_page1'));
  record('ips_cursor_deep', await medianOf(21, () => call('GET', `/v4.6/api/ipam/ip-addresses/?start=${firstIp + deepPage * 100}&limit=100`), 'ips_cursor_deep'));
  const firstDevice = (await call('GET', '/api/dcim/devices/?limit=1&brief=1')).results[0].id as number;
  record('device_detail', await medianOf(51, () => call('GET', `/api/dcim/devices/${firstDevice}/`), 'device_detail'));
  record('device_detail_nocontent', await medianOf(51, () => call('GET', `/api/dcim/devices/${firstDevice}/?brief=1`), 'device_detail_nocontent'));

  // The main pages through both API versions, alternated so that both see the same machine.
  for (const [key, path] of VERSIONED_PAGES(firstDevice)) {
    const v37: [unknown, number, number][] = [];
    const v46: [unknown, number, number][] = [];
    await call('GET', path); await call('GET', `/v4.6${path}`);
    for (let i = 0; i < 21; i++) {
      v37.push(await measured(() => call('GET', path)));
      v46.push(await measured(() => call('GET', `/v4.6${path}`)));
    }
    for (const [version, runs] of [['v37', v37], ['v46', v46]] as const) {
      results[`${key}_${version}_cpu`] = median(runs.map(([, , used]) => used));
      record(`${key}_${version}`, median(runs.map(([, ms]) => ms)));
    }
  }

  // Every list's default page (the scale run compares these with the small dataset's).
  // The main lists (the scale target's) get more runs and their CPU time: on a busy machine that is the steadier figure.
  const MAIN = ['/api/dcim/devices/', '/api/dcim/interfaces/', '/api/ipam/ip-addresses/', '/api/ipam/prefixes/', '/api/dcim/sites/', '/api/ipam/vlans/'];
  for (const entry of modelList) {
    const list = servedList(entry);
    const key = `list ${list}`;
    const main = MAIN.includes(list);
    record(key, await medianOf(main ? 15 : 3, () => call('GET', list), main ? key : undefined));
  }
  // The small dataset's VLAN list is shorter than a page (21 rows, no count); at scale also a page of
  // that many rows, so the scale target can compare like with like (bench.ts prints both).
  if (scale) record('vlans_small_page', await medianOf(15, () => call('GET', `/api/ipam/vlans/?limit=${SMALL_VLANS}`), 'vlans_small_page'));

  const ids = (await call('GET', '/api/dcim/devices/?limit=100&brief=1')).results.map((d: { id: number }) => d.id);
  const urls = ids.map((id: number) => `${running.url}/api/dcim/devices/${id}/`);
  // The service's memory under load, sampled from its process.
  let rssPeak = await rss();
  const sampler = setInterval(async () => { rssPeak = Math.max(rssPeak, await rss()); }, 200);
  const detail = await load({ urls, headers: { Authorization: `Token ${TOKEN}`, Accept: 'application/json' }, clients: 8, seconds: 5 });
  record('detail_8_clients', detail.perSecond, 'req/s');
  record('detail_8_clients_p50', detail.p50);
  if (detail.errors) log(`${detail.errors} errors under load`);
  const listLoad = await load({ urls: [`${running.url}/api/ipam/ip-addresses/`, `${running.url}/api/dcim/devices/`, `${running.url}/api/dcim/interfaces/`], headers: { Authorization: `Token ${TOKEN}`, Accept: 'application/json' }, clients: 8, seconds: 3 });
  record('lists_8_clients', listLoad.perSecond, 'req/s');
  clearInterval(sampler);
  results.rss_mb = rssPeak / 1048576;
  log(`rss ${(results.rss_mb as number).toFixed(0)} MB`);

  // Bulk writes, as medians like every other row: BULK_ROUNDS times 1000 new IP addresses created,
  // changed and deleted, then DEVICE_ROUNDS times 100 devices deleted with their interfaces and
  // addresses. The first round of each is also logged: it runs in a fresh process, so it pays for V8
  // compiling the write path and SQLite preparing texts it has not seen (about 100-150 ms of CPU more).
  // Each write is followed by the same write on other objects through the write floor (bare SQL in
  // one transaction, write-floor.ts), so the two see the same machine; the floor deletes devices
  // seeded for it here, like the bench's (after the reads: the read figures keep their dataset).
  const floorDevices = await seedFloorDevices();
  const rounds: Record<string, [number, number][]> = {};
  const floorRounds: Record<string, number[]> = {};
  const timedRound = async <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const [out, ms, used] = await measured(fn);
    (rounds[key] ??= []).push([ms, used]);
    return out;
  };
  const floorRound = async <T>(key: string, method: string, path: string, body: unknown): Promise<T> => {
    const [out, ms] = await timed(() => call(method, path, body, floor!.url));
    (floorRounds[key] ??= []).push(ms);
    return out as T;
  };
  for (let r = 0; r < BULK_ROUNDS; r++) {
    const created = await timedRound('bulk_post_1000_ips', () => call('POST', '/api/ipam/ip-addresses/', Array.from({ length: 1000 }, (_, i) => ({ address: `192.168.${Math.floor(i / 256)}.${i % 256}/16`, status: 'active' }))));
    const floorMade = await floorRound<{ id: number }[]>('bulk_post_1000_ips', 'POST', '/api/ipam/ip-addresses/', Array.from({ length: 1000 }, (_, i) => ({ address: `172.16.${Math.floor(i / 256)}.${i % 256}/16`, status: 'active' })));
    await timedRound('bulk_patch_1000_ips', () => call('PATCH', '/api/ipam/ip-addresses/', created.map((o: { id: number }) => ({ id: o.id, description: `changed ${r}`, status: 'reserved' }))));
    await floorRound('bulk_patch_1000_ips', 'PATCH', '/api/ipam/ip-addresses/', floorMade.map((o) => ({ id: o.id, description: `changed ${r}`, status: 'reserved' })));
    await timedRound('bulk_delete_1000_ips', () => call('DELETE', '/api/ipam/ip-addresses/', created.map((o: { id: number }) => ({ id: o.id }))));
    await floorRound('bulk_delete_1000_ips', 'DELETE', '/api/ipam/ip-addresses/', floorMade.map((o) => ({ id: o.id })));
  }
  for (let r = 0; r < DEVICE_ROUNDS; r++) {
    const doomed = (await call('GET', `/api/dcim/devices/?limit=100&offset=${DEVICES - 100 * (r + 1)}&brief=1`)).results;
    await timedRound('bulk_delete_100_devices', () => call('DELETE', '/api/dcim/devices/', doomed.map((o: { id: number }) => ({ id: o.id }))));
    await floorRound('bulk_delete_100_devices', 'DELETE', '/api/dcim/devices/', floorDevices.slice(100 * r, 100 * (r + 1)).map((id) => ({ id })));
  }
  for (const [key, runs] of Object.entries(rounds)) {
    results[`${key}_cpu`] = median(runs.map(([, c]) => c));
    log(`${key}: first round ${runs[0][0].toFixed(1)} ms (CPU ${runs[0][1].toFixed(1)}), rounds ${runs.map(([ms]) => ms.toFixed(0)).join(' ')} ms; the floor's ${floorRounds[key].map((ms) => ms.toFixed(0)).join(' ')} ms`);
    record(key, median(runs.map(([ms]) => ms)));
    record(`${key}_floor`, median(floorRounds[key]));
  }
  if (withWebhooks) await webhooks(2000, 100);
} finally {
  floorProcess.child.send('stop');
  await service.ask({ cmd: 'stop', dropSchema: engine === 'postgres' ? schema : undefined });
  rmSync(dataDir, { recursive: true, force: true });
}
process.stdout.write(`${JSON.stringify(results)}\n`);
