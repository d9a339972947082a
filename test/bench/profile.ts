/**
 * `npm run bench:profile -- [--engine postgres] [path ...]`: seeds the bench's device set (1,000
 * devices with tags, tenant, platform and rack, 10 interfaces each, an address on every interface)
 * through the API, then profiles only the requests (the V8 CPU profiler, as `node --cpu-prof` but
 * without the seeding) and prints where the time goes:
 * self time by function and by file. The raw profile is written to ./bench-profile.cpuprofile (open
 * it in Chrome DevTools or speedscope).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Session } from 'node:inspector/promises';
import { loadConfig } from '../../runtime/core/config.js';
import { start } from '../../runtime/server.js';
import { addressOf } from './addresses.js';
import { seedDeviceSet } from './device-set.js';
import { apiCall } from './api-call.js';

const args = process.argv.slice(2);
const engine = args.includes('--engine') && args[args.indexOf('--engine') + 1] === 'postgres' ? 'postgres' : 'sqlite';
const paths = args.filter((a) => a.startsWith('/'));
const targets = paths.length ? paths : ['/api/dcim/devices/?limit=1000'];
const ROUNDS = Number(process.env.ROUNDS ?? 40);
const TOKEN = 'c'.repeat(40);
const dataDir = mkdtempSync(join(tmpdir(), 'netledger-profile-'));
const schema = `profile_${randomBytes(4).toString('hex')}`;
const running = await start(loadConfig({
  ...(process.env as Record<string, string>), DATA_DIR: dataDir, PORT: '0', ADMIN_TOKEN: TOKEN, LOG_REQUESTS: '0', RUN_WORKER: '0',
  ...(engine === 'postgres' ? { DATABASE_URL: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test', DATABASE_SCHEMA: schema } : { DATABASE_URL: '' }),
}));

const call = apiCall(running.url, TOKEN);

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }

try {
  // The bench's interfaces and addresses too (10 per device, one address per interface), so address
  // pages such as /api/ipam/ip-addresses/?parent=10.0.0.0/8&limit=100 profile on the bench's data.
  const { devices, interfaces } = await seedDeviceSet(call);
  for (let i = 0; i < interfaces.length; i += 1000) {
    await call('POST', '/api/ipam/ip-addresses/', interfaces.slice(i, i + 1000).map((f, k) => ({ address: addressOf(i + k), assigned_object_type: 'dcim.interface', assigned_object_id: f.id })));
  }
  // The statistics (and, on PostgreSQL, the visibility map) a service has after a bulk load once its
  // statistics round or autovacuum has run: without them the planner guesses, and the profile shows
  // the guesses (parent=10.0.0.0/8 took 14.6 ms a request instead of 4-5).
  for (const table of ['dcim_device', 'extras_taggeditem', 'dcim_interface', 'ipam_ipaddress']) {
    await running.db.raw(engine === 'postgres' ? `VACUUM ANALYZE ${table}` : `ANALYZE ${table}`);
  }
  const resolved = targets.map((t) => t.replace('{device}', String(devices[0].id)));
  for (const path of resolved) await call('GET', path);
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  const t0 = performance.now();
  const perPath = new Map<string, number[]>(resolved.map((p) => [p, []]));
  for (let i = 0; i < ROUNDS; i++) {
    for (const path of resolved) {
      const start = performance.now();
      await call('GET', path);
      perPath.get(path)!.push(performance.now() - start);
    }
  }
  const elapsed = performance.now() - t0;
  const { profile } = await session.post('Profiler.stop');
  writeFileSync('bench-profile.cpuprofile', JSON.stringify(profile));
  // Self time per function and per file, from the samples.
  const nodes = new Map<number, ProfileNode>((profile.nodes as ProfileNode[]).map((n) => [n.id, n]));
  const hits = new Map<number, number>();
  for (const s of profile.samples as number[]) hits.set(s, (hits.get(s) ?? 0) + 1);
  const total = (profile.samples as number[]).length;
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  for (const [id, n] of hits) {
    const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
    const file = url.replace(/^file:\/\//, '').replace(process.cwd() + '/', '') || '(native)';
    const fn = `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + n);
    const group = file.includes('node_modules/') ? `node_modules/${file.split('node_modules/')[1].split('/')[0]}` : file;
    byFile.set(group, (byFile.get(group) ?? 0) + n);
  }
  const top = (m: Map<string, number>, k: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, k).map(([name, n]) => `${((100 * n) / total).toFixed(1).padStart(5)}%  ${name}`).join('\n');
  console.log(`${engine}: ${ROUNDS} × ${resolved.join(', ')}: ${(elapsed / ROUNDS).toFixed(1)} ms per round`);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  if (resolved.length > 1) for (const [path, times] of perPath) console.log(`  ${path}: median ${median(times).toFixed(1)} ms`);
  console.log(`\nself time by file:\n${top(byFile, 15)}\n\nself time by function:\n${top(byFunction, 30)}`);
  session.disconnect();
} finally {
  if (engine === 'postgres') await running.db.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]);
  await running.close();
  rmSync(dataDir, { recursive: true, force: true });
}
