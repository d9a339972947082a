/**
 * `tsx test/bench/ab-page.ts <checkout A> <checkout B> [path] [rounds]`: an A/B of one GET between two
 * checkouts of NetLedger (say `git worktree add ../before <commit>`, its node_modules linked), on
 * SQLite, in one process: both services start side by side on the same data (1000 devices with two
 * tags, tenant, platform and rack; 10 interfaces each), and their requests alternate, so a host
 * whose speed swings from minute to minute slows both alike. Prints the median wall and CPU time of
 * each (client included) and B's ratio to A. Default path: the 1000-device page; 100 rounds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { seedDeviceSet } from './device-set.js';
import { apiCall } from './api-call.js';

const [rootA, rootB, path = '/api/dcim/devices/?limit=1000', roundsArg = '100'] = process.argv.slice(2);
if (!rootA || !rootB) throw new Error('usage: tsx test/bench/ab-page.ts <checkout A> <checkout B> [path] [rounds]');
const TOKEN = 'c'.repeat(40);

interface Side { get(): Promise<[number, number]>; stop(): Promise<void> }

async function boot(root: string): Promise<Side> {
  const from = (file: string) => import(pathToFileURL(resolve(root, file)).href);
  const { loadConfig } = await from('runtime/core/config.ts');
  const { start } = await from('runtime/server.ts');
  const dataDir = mkdtempSync(join(tmpdir(), 'netledger-ab-'));
  const running = await start(loadConfig({ ...(process.env as Record<string, string>), DATA_DIR: dataDir, PORT: '0', ADMIN_TOKEN: TOKEN, LOG_REQUESTS: '0', RUN_WORKER: '0', DATABASE_URL: '' }));
  const call = apiCall(running.url, TOKEN);
  await seedDeviceSet(call);
  await running.db.raw('ANALYZE');
  return {
    async get() {
      const cpu = process.cpuUsage();
      const t0 = performance.now();
      await call('GET', path);
      const used = process.cpuUsage(cpu);
      return [performance.now() - t0, (used.user + used.system) / 1000];
    },
    async stop() {
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const a = await boot(rootA);
const b = await boot(rootB);
try {
  for (let i = 0; i < 20; i++) { await a.get(); await b.get(); }
  const times = { a: [] as number[], b: [] as number[], cpuA: [] as number[], cpuB: [] as number[] };
  for (let i = 0; i < Number(roundsArg); i++) {
    // Each goes first every other round.
    const order: ['a' | 'b', Side][] = i % 2 ? [['a', a], ['b', b]] : [['b', b], ['a', a]];
    for (const [name, side] of order) {
      const [wall, cpu] = await side.get();
      times[name].push(wall);
      times[name === 'a' ? 'cpuA' : 'cpuB'].push(cpu);
    }
  }
  const median = (v: number[]) => [...v].sort((x, y) => x - y)[v.length >> 1];
  const [wa, wb, ca, cb] = [median(times.a), median(times.b), median(times.cpuA), median(times.cpuB)];
  console.log(`${path}: A ${wa.toFixed(2)} ms (CPU ${ca.toFixed(2)}), B ${wb.toFixed(2)} ms (CPU ${cb.toFixed(2)}); B / A: wall ${(wb / wa).toFixed(3)}, CPU ${(cb / ca).toFixed(3)}`);
} finally {
  await a.stop();
  await b.stop();
}
