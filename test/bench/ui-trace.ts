/**
 * Part of `npm run bench:ui`: the trace page of an interface whose path takes 10 cables through nine
 * patch panels (front and rear ports), and the page of a cable, rendered server-side and timed by
 * their Server-Timing header over HTTP. SQLite by default, PostgreSQL when DATABASE_URL is set.
 * Prints figures only; no assertions.
 */
import { uiBench } from './ui-bench.js';

const PANELS = 9;
const RUNS = 200;

const bench = await uiBench('trace');
const { call } = bench;

try {
  const site = await call('POST', '/api/dcim/sites/', { name: 'Bench site', slug: 'bench-site' });
  const maker = await call('POST', '/api/dcim/manufacturers/', { name: 'Maker', slug: 'maker' });
  const type = await call('POST', '/api/dcim/device-types/', { manufacturer: maker.id, model: 'Model', slug: 'model' });
  const role = await call('POST', '/api/dcim/device-roles/', { name: 'Role', slug: 'role' });
  const devices = await call('POST', '/api/dcim/devices/', Array.from({ length: PANELS + 2 }, (_, i) => ({ name: i === 0 ? 'switch-a' : i === PANELS + 1 ? 'switch-b' : `panel-${i}`, site: site.id, device_type: type.id, role: role.id })));
  const [a, b] = await call('POST', '/api/dcim/interfaces/', [devices[0], devices[PANELS + 1]].map((d) => ({ device: d.id, name: 'ge-0/0/0', type: '1000base-t' })));
  const panels = [];
  for (const d of devices.slice(1, PANELS + 1)) {
    const rear = await call('POST', '/api/dcim/rear-ports/', { device: d.id, name: 'Rear', type: '8p8c', positions: 1 });
    const front = await call('POST', '/api/dcim/front-ports/', { device: d.id, name: 'Front', type: '8p8c', rear_port: rear.id });
    panels.push({ front, rear });
  }
  // switch-a → front 1 · rear 1 → rear 2 · front 2 → front 3 · … · rear 9 → switch-b: ten cables
  const ends: [string, number][] = [['dcim.interface', a.id]];
  panels.forEach((p, i) => {
    const [inPort, outPort] = i % 2 === 0 ? [['dcim.frontport', p.front.id], ['dcim.rearport', p.rear.id]] : [['dcim.rearport', p.rear.id], ['dcim.frontport', p.front.id]];
    ends.push(inPort as [string, number], outPort as [string, number]);
  });
  ends.push(['dcim.interface', b.id]);
  for (let i = 0; i < ends.length; i += 2) {
    await call('POST', '/api/dcim/cables/', { a_terminations: [{ object_type: ends[i][0], object_id: ends[i][1] }], b_terminations: [{ object_type: ends[i + 1][0], object_id: ends[i + 1][1] }], label: `C${i / 2 + 1}`, type: 'cat6', color: '2196f3', length: 2, length_unit: 'm' });
  }
  const hops = (await call('GET', `/api/dcim/interfaces/${a.id}/trace/`)).length;

  const { report } = await bench.login();
  const cable = (await call('GET', '/api/dcim/cables/?label=C5')).results[0];
  for (const [what, path] of [[`trace page of a ${hops}-hop path`, `/dcim/interfaces/${a.id}/trace/`], ['rear port trace page (its paths, the first drawn)', `/dcim/rear-ports/${panels[4].rear.id}/trace/`], ['cable page', `/dcim/cables/${cable.id}/`]]) {
    await report(what, path, RUNS, 20);
  }
} finally {
  await bench.close();
}
