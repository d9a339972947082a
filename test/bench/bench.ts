/**
 * `npm run bench`: for SQLite and then PostgreSQL (each in its own process, test/bench/engine.ts),
 * seeds the dataset through the API (1,000 devices × 10 interfaces, 10,000 IP addresses assigned to
 * interfaces, 2 tags on every device) and prints the issue-11 table: every figure with NetBox 3.1's
 * figure and the target, and the 1000-device page against the bare floor (floor.ts) measured in the
 * same run. Beside each wall time, the service process's CPU time for the same work: on a busy machine
 * wall times swing, CPU times much less. Prints figures only; no assertions.
 *
 *   npm run bench                         both engines (PostgreSQL at DATABASE_URL or the tests' server)
 *   npm run bench -- --engines sqlite     one engine
 *   npm run bench -- --scale              also 100,000 devices and 1,000,000 IP addresses, compared with the small run
 *   npm run bench -- --webhooks           also webhook delivery rates
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const enginesArg = args.includes('--engines') ? args[args.indexOf('--engines') + 1] : 'sqlite,postgres';
const engines = enginesArg.split(',').map((e) => e.trim()).filter((e) => e === 'sqlite' || e === 'postgres');
const extra = args.filter((a) => a === '--webhooks');
type Figures = Record<string, number>;

function runEngine(engine: string, scale: boolean): Promise<Figures | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./engine.ts', import.meta.url)), '--engine', engine, ...(scale ? ['--scale'] : []), ...extra], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
    child.on('close', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      try { resolve(code === 0 ? JSON.parse(line) : null); } catch { resolve(null); }
    });
  });
}

/** label, NetBox 3.1's figure, the target, and how to show one engine's figures */
const ms = (f: Figures, key: string, digits = 0) => `${f[key].toFixed(digits)} ms${f[`${key}_cpu`] === undefined ? '' : ` (CPU ${f[`${key}_cpu`].toFixed(digits)})`}`;
const ROWS: [string, string, string, (f: Figures) => string][] = [
  ['GET 1000 devices, full / the floor', '-', '<= 2x', (f) => `${f.floor_ratio.toFixed(2)}x wall, ${f.floor_ratio_cpu.toFixed(2)}x CPU (${f.devices_1000_cpu.toFixed(0)} / ${f.floor_1000_cpu.toFixed(0)} ms)`],
  ['GET 1000 devices, full', '1,017 ms', '<= 34 ms', (f) => ms(f, 'devices_1000')],
  ['GET 1000 devices, brief', '-', '-', (f) => ms(f, 'devices_1000_brief')],
  ['GET 1000 interfaces', '1,036 ms', '<= 35 ms', (f) => ms(f, 'interfaces_1000')],
  ['GET 1000 IP addresses', '2,026 ms', '<= 41 ms', (f) => ms(f, 'ips_1000')],
  ['GET IPs ?parent=10.0.0.0/8&limit=100', '203 ms', '<= 4 ms', (f) => ms(f, 'ips_parent', 1)],
  ['GET IPs ?parent=10.0.1.0/24&limit=100', '-', '-', (f) => ms(f, 'ips_parent_narrow', 1)],
  ['GET IPs ?q=10.0.1.&limit=100', '-', '< 50 ms at scale', (f) => ms(f, 'ips_q', 1)],
  ['device detail, one client', '-', '-', (f) => ms(f, 'device_detail', 2)],
  ['device detail, 8 clients, one process', '35 req/s', '>= 2,000 req/s on 2 cores', (f) => `${f.detail_8_clients.toFixed(0)} req/s (p50 ${f.detail_8_clients_p50.toFixed(1)} ms); ${(1000 / f.device_detail_cpu).toFixed(0)}/s per core by CPU`],
  ['default list pages, 8 clients, one process', '-', '-', (f) => `${f.lists_8_clients.toFixed(0)} req/s`],
  ['bulk POST 1000 IPs', '9.9 s', '<= 99 ms', (f) => ms(f, 'bulk_post_1000_ips')],
  ['bulk PATCH 1000 IPs', '14.5 s', '<= 145 ms', (f) => ms(f, 'bulk_patch_1000_ips')],
  ['bulk DELETE 1000 IPs', '11.3 s', '<= 113 ms', (f) => ms(f, 'bulk_delete_1000_ips')],
  ['bulk DELETE 100 devices x 10 interfaces', '14.1 s', '<= 141 ms', (f) => ms(f, 'bulk_delete_100_devices')],
  ['seeding through the API', '501 s (21,093)', '<= 5 s', (f) => `${(f.seed / 1000).toFixed(2)} s (CPU ${(f.seed_cpu / 1000).toFixed(2)} s; ${f.seed_objects} objects)`],
  ['process memory (peak RSS under load)', '-', '< 300 MB', (f) => `${f.rss_mb.toFixed(0)} MB`],
];

function table(title: string, figures: Map<string, Figures | null>): void {
  const names = [...figures.keys()];
  const header = ['work', 'NetBox 3.1', ...names, 'target'];
  const lines = ROWS.map(([label, netbox, target, show]) => [label, netbox, ...names.map((n) => { const f = figures.get(n); try { return f ? show(f) : 'failed'; } catch { return '-'; } }), target]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const row = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(`\n${title}\n`);
  console.log(row(header));
  console.log(row(widths.map((w) => '-'.repeat(w))));
  for (const l of lines) console.log(row(l));
}

const small = new Map<string, Figures | null>();
for (const engine of engines) small.set(engine === 'sqlite' ? 'SQLite' : 'PostgreSQL', await runEngine(engine, false));
table('NetLedger bench: 1,000 devices × 10 interfaces, 10,000 IP addresses, tags on every device (medians)', small);

if (args.includes('--scale')) {
  const big = new Map<string, Figures | null>();
  for (const engine of engines) big.set(engine === 'sqlite' ? 'SQLite' : 'PostgreSQL', await runEngine(engine, true));
  table('At scale: 100,000 devices × 1 interface, 1,000,000 IP addresses', big);
  console.log('\nDefault page of every list, scale / small (target <= 2x):\n');
  for (const [name, f] of big) {
    const s = small.get(name);
    if (!f || !s) continue;
    const lists = Object.keys(f).filter((k) => k.startsWith('list '));
    const worst = lists.map((k) => [k.slice(5), f[k] / s[k], f[k]] as const).sort((a, b) => b[1] - a[1]);
    console.log(`${name}: worst ${worst.slice(0, 5).map(([k, r, ms]) => `${k} ${r.toFixed(1)}x (${ms.toFixed(1)} ms)`).join(', ')}`);
  }
}
if ([...small.values()].some((f) => !f)) process.exitCode = 1;
