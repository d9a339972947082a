/**
 * `npm run bench`: for SQLite and then PostgreSQL (each in its own process, test/bench/engine.ts),
 * seeds the dataset through the API (1,000 devices × 10 interfaces, 10,000 IP addresses assigned to
 * interfaces, 2 tags on every device) and prints the issue-11 table: every figure with NetBox 3.1's
 * figure and the target, and the 1000-device page, the parent= page of addresses and the bulk writes
 * against their bare floors (floor.ts, parent-floor.ts, write-floor.ts) measured in the same run. Beside each wall time, the service process's CPU time for the same work: on a busy machine
 * wall times swing, CPU times much less. Prints figures only; no assertions.
 *
 *   npm run bench                         both engines (PostgreSQL at DATABASE_URL or the tests' server)
 *   npm run bench -- --engines sqlite     one engine
 *   npm run bench -- --scale              also 100,000 devices and 1,000,000 IP addresses, compared with the small run
 *   npm run bench -- --webhooks           also webhook delivery rates
 *   npm run bench -- --tsx                serve the sources under tsx instead of the compiled build (npm start's)
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cpus, loadavg } from 'node:os';

const args = process.argv.slice(2);
const enginesArg = args.includes('--engines') ? args[args.indexOf('--engines') + 1] : 'sqlite,postgres';
const engines = enginesArg.split(',').map((e) => e.trim()).filter((e) => e === 'sqlite' || e === 'postgres');
const extra = args.filter((a) => a === '--webhooks' || a === '--tsx');
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

/**
 * One row of the issue's table: how to show an engine's figures, and how to judge them. `value` is the
 * figure the target is about; `netbox` NetBox 3.1's figure in the same unit (ms, or req/s when
 * `higher` is set); `goal` the target in that unit. The ratio column is NetBox's figure over ours
 * (how many times faster), the verdict compares `value` with `goal`.
 */
interface Row { label: string; netbox: string; target: string; show(f: Figures): string; value?(f: Figures): number; netboxValue?: number; goal?: number; higher?: boolean }
const ms = (f: Figures, key: string, digits = 0) => `${f[key].toFixed(digits)} ms${f[`${key}_cpu`] === undefined ? '' : ` (CPU ${f[`${key}_cpu`].toFixed(digits)})`}`;
/** A timed row with NetBox's figure and a "NetBox / factor" target. */
const versus = (label: string, key: string, netboxMs: number, factor: number, digits = 0): Row => ({
  label, netbox: `${netboxMs.toLocaleString('en')} ms`, target: `>= ${factor}x NetBox (<= ${(netboxMs / factor).toFixed(netboxMs / factor < 10 ? 1 : 0)} ms)`,
  show: (f) => ms(f, key, digits), value: (f) => f[key], netboxValue: netboxMs, goal: netboxMs / factor,
});
/** The bulk writes, in the table's order; each has a floor (write-floor.ts) measured beside it. */
const BULK = ['bulk_post_1000_ips', 'bulk_patch_1000_ips', 'bulk_delete_1000_ips', 'bulk_delete_100_devices'];
/** The pages engine.ts measures through both API versions: its key, and the name the table shows. */
const VERSIONED = [['devices_1000', 'devices'], ['interfaces_1000', 'interfaces'], ['ips_1000', 'IPs'], ['ips_parent', 'parent='], ['device_detail', 'device']];
/** A versioned page's 4.6 figure over its 3.7 figure; `suffix` '_cpu' for the service's CPU time. */
const versionRatio = (f: Figures, key: string, suffix: '' | '_cpu') => f[`${key}_v46${suffix}`] / f[`${key}_v37${suffix}`];
const ROWS: Row[] = [
  { label: 'GET 1000 devices, full / the floor', netbox: '-', target: '<= 2x the floor', show: (f) => `${(f.devices_1000_alternated / f.devices_1000_floor).toFixed(2)}x wall, ${(f.devices_1000_alternated_cpu / f.devices_1000_floor_cpu).toFixed(2)}x CPU (${f.devices_1000_alternated.toFixed(0)} / ${f.devices_1000_floor.toFixed(0)} ms alternated)`, value: (f) => f.devices_1000_alternated / f.devices_1000_floor, goal: 2 },
  versus('GET 1000 devices, full', 'devices_1000', 1017, 30),
  { label: 'GET 1000 devices, brief', netbox: '-', target: '-', show: (f) => ms(f, 'devices_1000_brief') },
  versus('GET 1000 interfaces', 'interfaces_1000', 1036, 30),
  versus('GET 1000 IP addresses', 'ips_1000', 2026, 50),
  versus('GET IPs ?parent=10.0.0.0/8&limit=100', 'ips_parent', 203, 50, 1),
  { label: 'GET IPs ?parent=10.0.0.0/8 / the floor', netbox: '-', target: '<= 2x the floor', show: (f) => `${(f.ips_parent_alternated / f.ips_parent_floor).toFixed(2)}x wall, ${(f.ips_parent_alternated_cpu / f.ips_parent_floor_cpu).toFixed(2)}x CPU (${f.ips_parent_alternated.toFixed(1)} / ${f.ips_parent_floor.toFixed(1)} ms alternated)`, value: (f) => f.ips_parent_alternated / f.ips_parent_floor, goal: 2 },
  { label: 'GET IPs ?parent=10.0.1.0/24&limit=100', netbox: '-', target: '-', show: (f) => ms(f, 'ips_parent_narrow', 1) },
  { label: 'GET IPs ?q=10.0.1.&limit=100', netbox: '-', target: '< 50 ms (at scale)', show: (f) => ms(f, 'ips_q', 1), value: (f) => f.ips_q, goal: 50 },
  { label: 'GET /v4.6 IPs ?start=<first id>&limit=100 (cursor page 1)', netbox: '-', target: '-', show: (f) => ms(f, 'ips_cursor_page1', 1) },
  { label: 'GET /v4.6 IPs ?start=<id of page 1,000>&limit=100 (the last page on the small dataset)', netbox: '-', target: 'as page 1', show: (f) => ms(f, 'ips_cursor_deep', 1) },
  {
    // Judged by the service's CPU time: alternated wall times of a few ms swing by 30% on a busy machine.
    label: 'the same page through /v4.6 / through /api (3.7), alternated: CPU (wall)', netbox: '-', target: '<= 1.1x CPU, each',
    show: (f) => VERSIONED.map(([key, name]) => `${name} ${versionRatio(f, key, '_cpu').toFixed(2)}x (${versionRatio(f, key, '').toFixed(2)}x)`).join(', '),
    value: (f) => Math.max(...VERSIONED.map(([key]) => versionRatio(f, key, '_cpu'))), goal: 1.1,
  },
  {
    label: 'first page right after the seed / warmed', netbox: '-', target: '<= 1.5x warmed, each',
    show: (f) => `1000 IPs ${f.ips_1000_after_seed.toFixed(0)} ms (${(f.ips_1000_after_seed / f.ips_1000).toFixed(2)}x), parent= ${f.ips_parent_after_seed.toFixed(1)} ms (${(f.ips_parent_after_seed / f.ips_parent).toFixed(2)}x)`,
    value: (f) => Math.max(f.ips_1000_after_seed / f.ips_1000, f.ips_parent_after_seed / f.ips_parent), goal: 1.5,
  },
  { label: 'device detail, one client', netbox: '-', target: '-', show: (f) => ms(f, 'device_detail', 2) },
  {
    label: 'device detail, 8 clients, one process', netbox: '35 req/s', target: '>= 2,000 req/s on 2 cores (>= 1,000 per process)',
    show: (f) => `${f.detail_8_clients.toFixed(0)} req/s (p50 ${f.detail_8_clients_p50.toFixed(1)} ms); ${(1000 / f.device_detail_cpu).toFixed(0)}/s per core by CPU`,
    value: (f) => f.detail_8_clients, netboxValue: 35, goal: 1000, higher: true,
  },
  { label: 'default list pages, 8 clients, one process', netbox: '-', target: '-', show: (f) => `${f.lists_8_clients.toFixed(0)} req/s` },
  versus('bulk POST 1000 IPs', 'bulk_post_1000_ips', 9900, 100),
  versus('bulk PATCH 1000 IPs', 'bulk_patch_1000_ips', 14500, 100),
  versus('bulk DELETE 1000 IPs', 'bulk_delete_1000_ips', 11300, 100),
  versus('bulk DELETE 100 devices x 10 interfaces', 'bulk_delete_100_devices', 14100, 100),
  {
    label: 'the four bulk writes / their floors', netbox: '-', target: '<= 2x the floor, each',
    show: (f) => BULK.map((k) => `${(f[k] / f[`${k}_floor`]).toFixed(2)}x`).join(', ') + ` (floors ${BULK.map((k) => f[`${k}_floor`].toFixed(0)).join(' / ')} ms)`,
    value: (f) => Math.max(...BULK.map((k) => f[k] / f[`${k}_floor`])), goal: 2,
  },
  {
    label: 'seeding through the API', netbox: '501 s (21,093)', target: '>= 100x NetBox (<= 5 s)',
    show: (f) => `${(f.seed / 1000).toFixed(2)} s (CPU ${(f.seed_cpu / 1000).toFixed(2)} s; ${f.seed_objects.toLocaleString('en')} objects${f.seed_sql ? ', bulk SQL' : ''})`,
    value: (f) => f.seed, netboxValue: 501_000, goal: 5000,
  },
  { label: 'process memory (peak RSS under load)', netbox: '-', target: '< 300 MB', show: (f) => `${f.rss_mb.toFixed(0)} MB`, value: (f) => f.rss_mb, goal: 300 },
];

/** "33x": NetBox's figure over ours (or ours over NetBox's for rates); "-" without a NetBox figure. */
function versusNetbox(r: Row, f: Figures): string {
  if (!r.value || !r.netboxValue) return '-';
  const v = r.value(f);
  return `${(r.higher ? v / r.netboxValue : r.netboxValue / v).toFixed(0)}x`;
}

function verdict(r: Row, f: Figures): string {
  if (!r.value || r.goal === undefined) return '';
  const v = r.value(f);
  return (r.higher ? v >= r.goal : v <= r.goal) ? 'pass' : 'FAIL';
}

function table(title: string, figures: Map<string, Figures | null>, judge = true): void {
  const names = [...figures.keys()];
  const header = ['work', 'NetBox 3.1', ...names.flatMap((n) => [n, 'vs NetBox', 'verdict']), 'target'];
  const cell = (f: Figures | null | undefined, fn: (f: Figures) => string) => { try { return f ? fn(f) : 'failed'; } catch { return '-'; } };
  const lines = ROWS.map((r) => [r.label, r.netbox, ...names.flatMap((n) => {
    const f = figures.get(n);
    return [cell(f, r.show), cell(f, (x) => versusNetbox(r, x)), judge ? cell(f, (x) => verdict(r, x)) : ''];
  }), r.target]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const row = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(`\n${title}\n`);
  console.log(row(header));
  console.log(row(widths.map((w) => '-'.repeat(w))));
  for (const l of lines) console.log(row(l));
}

const load = () => loadavg().map((l) => l.toFixed(2)).join(' / ');
console.log(`load average at start (1 / 5 / 15 min): ${load()} on ${cpus().length} cores`);
const small = new Map<string, Figures | null>();
for (const engine of engines) small.set(engine === 'sqlite' ? 'SQLite' : 'PostgreSQL', await runEngine(engine, false));
table('NetLedger bench: 1,000 devices × 10 interfaces, 10,000 IP addresses, tags on every device (medians)', small);
console.log(`\nload average after the small runs: ${load()}`);

/** The lists the issue names for the scale target: default page within 2x of the small dataset. */
const MAIN_LISTS = ['/api/dcim/devices/', '/api/dcim/interfaces/', '/api/ipam/ip-addresses/', '/api/ipam/prefixes/', '/api/dcim/sites/', '/api/ipam/vlans/'];

if (args.includes('--scale')) {
  const big = new Map<string, Figures | null>();
  for (const engine of engines) big.set(engine === 'sqlite' ? 'SQLite' : 'PostgreSQL', await runEngine(engine, true));
  // The small-dataset verdicts do not apply here (the figures cover 100x the rows); the scale targets follow.
  table('At scale: 100,000 devices × 1 interface, 1,000,000 IP addresses (verdicts: see below)', big, false);
  console.log('\nScale targets (each engine):\n');
  for (const [name, f] of big) {
    const s = small.get(name);
    if (!f || !s) { console.log(`${name}: failed`); continue; }
    const judge = (ok: boolean) => (ok ? 'pass' : 'FAIL');
    /** The small run's `small` figure against the scale run's `big` one, wall and CPU, each judged <= 2x. */
    const compare = (label: string, small: string, big: string) => {
      const r = f[big] / s[small];
      const c = f[`${big}_cpu`] / s[`${small}_cpu`];
      console.log(`${name.padEnd(10)} ${label} wall ${s[small].toFixed(1).padStart(6)} -> ${f[big].toFixed(1).padStart(6)} ms ${r.toFixed(2).padStart(5)}x ${judge(r <= 2)}; CPU ${s[`${small}_cpu`].toFixed(1).padStart(5)} -> ${f[`${big}_cpu`].toFixed(1).padStart(5)} ms ${c.toFixed(2).padStart(5)}x ${judge(c <= 2)}  (<= 2x)`);
    };
    for (const list of MAIN_LISTS) compare(`default page ${list.padEnd(26)}`, `list ${list}`, `list ${list}`);
    // The small dataset's 21 VLANs fill less than a page: the scale page has 50 rows and a count.
    if (f.vlans_small_page !== undefined) compare('  VLANs like for like (21 rows: ?limit=21 at scale)', 'list /api/ipam/vlans/', 'vlans_small_page');
    for (const [key, label] of [['ips_parent', '?parent=10.0.0.0/8&limit=100'], ['ips_q', '?q=10.0.1.&limit=100']] as const) {
      console.log(`${name.padEnd(10)} IPs ${label.padEnd(35)} ${f[key].toFixed(1).padStart(6)} ms  (< 50 ms) ${judge(f[key] < 50)}`);
    }
    console.log(`${name.padEnd(10)} peak RSS under the 8-client load          ${f.rss_mb.toFixed(0).padStart(6)} MB  (< 300 MB) ${judge(f.rss_mb < 300)}`);
    const others = Object.keys(f).filter((k) => k.startsWith('list ') && !k.endsWith('_cpu') && !MAIN_LISTS.includes(k.slice(5)) && s[k]);
    const worst = others.map((k) => [k.slice(5), f[k] / s[k], f[k]] as const).sort((a, b) => b[1] - a[1]);
    console.log(`${name.padEnd(10)} other lists, worst: ${worst.slice(0, 4).map(([k, r, ms]) => `${k} ${r.toFixed(1)}x (${ms.toFixed(1)} ms)`).join(', ')}`);
  }
  console.log(`\nload average at the end: ${load()}`);
}
if ([...small.values()].some((f) => !f)) process.exitCode = 1;
