/**
 * Part of `npm run bench:ui`: a device with 200 interfaces (its page, and its interfaces tab with
 * all 200 on one page of 250 and as the first page of 100), each cabled to a patch panel's front port,
 * with a LAG, VLANs and an IP address on some of them; and a rack of 42 U filled with 1 U and 2 U
 * devices, front and rear (its page with both elevations). Rendered server-side and timed by their
 * Server-Timing header over HTTP. SQLite by default, PostgreSQL when DATABASE_URL is set. Prints
 * figures only; no assertions. ONLY=<regex> times only the paths whose description matches.
 */
import { uiBench } from './ui-bench.js';

const RUNS = Number(process.env.RUNS ?? 50);
const ONLY = new RegExp(process.env.ONLY ?? '');
const INTERFACES = 200;

const bench = await uiBench('pages');
const { call } = bench;

try {
  const site = await call('POST', '/api/dcim/sites/', { name: 'Bench site', slug: 'bench-site' });
  const rack = await call('POST', '/api/dcim/racks/', { name: 'R1', site: site.id, u_height: 42 });
  const maker = await call('POST', '/api/dcim/manufacturers/', { name: 'Maker', slug: 'maker' });
  const [one, two] = await call('POST', '/api/dcim/device-types/', [{ manufacturer: maker.id, model: 'One U', slug: 'one-u', u_height: 1 }, { manufacturer: maker.id, model: 'Two U', slug: 'two-u', u_height: 2 }]);
  const role = await call('POST', '/api/dcim/device-roles/', { name: 'Role', slug: 'role' });
  // the rack: 2 U devices in its lower half, 1 U devices above, the rear half-depth ones beside nothing
  const placed: Record<string, unknown>[] = [];
  for (let u = 1; u <= 20; u += 2) placed.push({ name: `big-${u}`, device_type: two.id, position: u, face: 'front' });
  for (let u = 21; u <= 42; u++) placed.push({ name: `small-${u}`, device_type: one.id, position: u, face: u % 2 ? 'front' : 'rear' });
  const devices = await call('POST', '/api/dcim/devices/', placed.map((d) => ({ ...d, site: site.id, rack: rack.id, role: role.id })));
  const [device, panel] = [devices[0], devices[1]];
  const lag = await call('POST', '/api/dcim/interfaces/', { device: device.id, name: 'ae0', type: 'lag' });
  const vlans = await call('POST', '/api/ipam/vlans/', Array.from({ length: 10 }, (_, i) => ({ vid: 100 + i, name: `v${100 + i}`, site: site.id })));
  const ifaces = await call('POST', '/api/dcim/interfaces/', Array.from({ length: INTERFACES - 1 }, (_, i) => ({
    device: device.id, name: `ge-0/0/${i}`, type: '1000base-t', ...(i < 4 ? { lag: lag.id } : {}),
    ...(i % 4 === 1 ? { mode: 'tagged', untagged_vlan: vlans[0].id, tagged_vlans: vlans.slice(1, 5).map((v: { id: number }) => v.id) } : {}),
  })));
  await call('POST', '/api/ipam/ip-addresses/', ifaces.slice(0, 50).map((f: { id: number }, i: number) => ({ address: `10.9.${Math.floor(i / 250)}.${(i % 250) + 1}/24`, assigned_object_type: 'dcim.interface', assigned_object_id: f.id })));
  const rear = await call('POST', '/api/dcim/rear-ports/', { device: panel.id, name: 'Rear', type: '8p8c', positions: 100 });
  const fronts = await call('POST', '/api/dcim/front-ports/', Array.from({ length: 100 }, (_, i) => ({ device: panel.id, name: `Front ${i + 1}`, type: '8p8c', rear_port: rear.id, rear_port_position: i + 1 })));
  for (let i = 0; i < 100; i++) {
    await call('POST', '/api/dcim/cables/', { a_terminations: [{ object_type: 'dcim.interface', object_id: ifaces[i].id }], b_terminations: [{ object_type: 'dcim.frontport', object_id: fronts[i].id }], label: `P${i + 1}` });
  }

  const { report } = await bench.login();
  for (const [what, path] of [
    [`device page, ${INTERFACES} interfaces`, `/dcim/devices/${device.id}/`],
    [`device interfaces tab, ${INTERFACES} interfaces (100 cabled) on one page of 250`, `/dcim/devices/${device.id}/interfaces/?per_page=250`],
    [`device interfaces tab, ${INTERFACES} interfaces (page 1 of 100 rows)`, `/dcim/devices/${device.id}/interfaces/`],
    ['rack page, 42 U full (front and rear elevations)', `/dcim/racks/${rack.id}/`],
  ]) {
    if (ONLY.test(what)) await report(what, path, RUNS, 5);
  }
} finally {
  await bench.close();
}
