/**
 * Power panels and feeds (site rules, available power, powerfeed_count on racks), rack
 * reservations (units inside the rack, never reserved twice) and the rack elevation.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp, expectStatus, type TestApp } from './helpers.js';
import { createObject } from './factory.js';
import { model } from '../runtime/data/registry.js';

const test = suite('dcim power and racks');
let app: TestApp;
let base: any;
let rack: any;

test.before(async () => {
  app = await startApp();
  base = await createObject(app, model('Device'));
  rack = await app.post('/api/dcim/racks/', { name: 'R-power', site: base.site.id, u_height: 6 });
});
test.after(async () => { await app.stop(); });

test('power panels and feeds stay within one site; available power is computed', async () => {
  const otherSite = await createObject(app, model('Site'));
  const farLocation = await app.post('/api/dcim/locations/', { name: 'Far', slug: 'far', site: otherSite.id });
  const bad = await app.api('POST', '/api/dcim/power-panels/', { site: base.site.id, name: 'P0', location: farLocation.id });
  expectStatus(bad, 400);
  assert.ok(bad.body.location);
  const panel = await app.post('/api/dcim/power-panels/', { site: base.site.id, name: 'P1' });
  const feed = await app.post('/api/dcim/power-feeds/', { power_panel: panel.id, name: 'F-A', rack: rack.id, voltage: 230, amperage: 16, max_utilization: 80 });
  assert.is(feed.available_power, 2944);
  assert.equal([feed.status.value, feed.type.value, feed.supply.value, feed.phase.value], ['active', 'primary', 'ac', 'single-phase']);
  const three = await app.post('/api/dcim/power-feeds/', { power_panel: panel.id, name: 'F-B', phase: 'three-phase', voltage: 400, amperage: 32 });
  assert.is(three.available_power, Math.round(400 * 32 * 0.8 * 1.732));
  assert.is((await app.get(`/api/dcim/racks/${rack.id}/`)).powerfeed_count, 1);
  assert.is((await app.get(`/api/dcim/power-panels/${panel.id}/`)).powerfeed_count, 2);
  const farRack = await app.post('/api/dcim/racks/', { name: 'R-far', site: otherSite.id });
  const wrong = await app.api('POST', '/api/dcim/power-feeds/', [{ power_panel: panel.id, name: 'F-C', rack: farRack.id }]);
  expectStatus(wrong, 400);
  assert.ok(wrong.body[0].rack);
  const negative = await app.api('POST', '/api/dcim/power-feeds/', { power_panel: panel.id, name: 'F-D', voltage: -48 });
  expectStatus(negative, 400);
  assert.ok(negative.body.voltage);
  await app.post('/api/dcim/power-feeds/', { power_panel: panel.id, name: 'F-D', voltage: -48, supply: 'dc' });
});

test('rack reservations hold units of the rack, never twice', async () => {
  const me = (await app.get('/api/users/users/?username=admin')).results[0];
  const first = await app.post('/api/dcim/rack-reservations/', { rack: rack.id, units: [2, 1], user: me.id, description: 'maintenance' });
  assert.equal(first.units, [1, 2]);
  assert.is(first.display, 'Reservation for rack R-power');
  const outside = await app.api('POST', '/api/dcim/rack-reservations/', { rack: rack.id, units: [7], user: me.id, description: 'x' });
  expectStatus(outside, 400);
  assert.match(outside.body.units[0], /Invalid unit/);
  const twice = await app.api('POST', '/api/dcim/rack-reservations/', [{ rack: rack.id, units: [3], user: me.id, description: 'a' }, { rack: rack.id, units: [2, 3], user: me.id, description: 'b' }]);
  expectStatus(twice, 400);
  assert.equal(twice.body[0], {});
  assert.match(twice.body[1].units[0], /already been reserved: 2, 3/);
  await app.post('/api/dcim/rack-reservations/', { rack: rack.id, units: [3], user: me.id, description: 'a' });
  const holding = await app.get(`/api/dcim/rack-reservations/?unit=2&rack_id=${rack.id}`);
  assert.equal(holding.results.map((r: any) => r.id), [first.id]);
});

test('the elevation lists half units top down with the device on each face, as NetBox 3.7', async () => {
  const full = await createObject(app, model('DeviceType'), { manufacturer: base.device_type.manufacturer.id, u_height: 2, is_full_depth: true });
  const half = await createObject(app, model('DeviceType'), { manufacturer: base.device_type.manufacturer.id, u_height: 1, is_full_depth: false });
  const server = await app.post('/api/dcim/devices/', { name: 'srv', device_type: full.id, role: base.role.id, site: base.site.id, rack: rack.id, position: 4, face: 'front' });
  const panel = await app.post('/api/dcim/devices/', { name: 'patch', device_type: half.id, role: base.role.id, site: base.site.id, rack: rack.id, position: 1.5, face: 'rear' });
  const front = await app.get(`/api/dcim/racks/${rack.id}/elevation/`);
  assert.is(front.count, 12);
  assert.equal(front.results.map((u: any) => u.id), [6.5, 6, 5.5, 5, 4.5, 4, 3.5, 3, 2.5, 2, 1.5, 1]);
  assert.equal(front.results.map((u: any) => u.name).slice(0, 3), ['U6.5', 'U6', 'U5.5']);
  assert.equal(front.results.map((u: any) => u.display).slice(0, 2), ['U6.5', 'U6']);
  assert.equal(front.results.map((u: any) => u.device?.id ?? null), [null, null, server.id, server.id, server.id, server.id, null, null, null, null, null, null]);
  assert.equal(front.results[2].face, { value: 'front', label: 'Front' });
  assert.equal(Object.keys(front.results[2].device).sort(), ['display', 'display_name', 'id', 'name', 'url']);
  // the rear face: the half-U panel from 1.5 to 2.5, and the full-depth server
  const rear = await app.get(`/api/dcim/racks/${rack.id}/elevation/?face=rear&limit=4&offset=8`);
  assert.equal(rear.results.map((u: any) => [u.name, u.device?.id ?? null, u.occupied]), [['U2.5', null, false], ['U2', panel.id, true], ['U1.5', panel.id, true], ['U1', null, false]]);
  assert.ok(rear.previous);
  assert.is(rear.next, null);
  // expand_devices=false: a device only on its bottom unit
  const compact = await app.get(`/api/dcim/racks/${rack.id}/elevation/?expand_devices=false`);
  assert.equal(compact.results.filter((u: any) => u.occupied).map((u: any) => [u.id, u.device.id]), [[4, server.id]]);
  const excluded = await app.get(`/api/dcim/racks/${rack.id}/elevation/?exclude=${server.id}`);
  assert.ok(excluded.results.every((u: any) => u.device === null && !u.occupied));
  assert.equal((await app.get(`/api/dcim/racks/${rack.id}/elevation/?q=5.`)).results.map((u: any) => u.id), [5.5, 5]);
  // the default page size applies (PAGINATE_COUNT), with a next link
  const tall = await app.post('/api/dcim/racks/', { name: 'R-tall', site: base.site.id, u_height: 42 });
  const page = await app.get(`/api/dcim/racks/${tall.id}/elevation/`);
  assert.equal([page.count, page.results.length, page.results[0].id], [84, 50, 42.5]);
  assert.match(page.next, /limit=50&offset=50/);
  const down = await app.post('/api/dcim/racks/', { name: 'R-down', site: base.site.id, u_height: 2, desc_units: true, starting_unit: 3 });
  assert.equal((await app.get(`/api/dcim/racks/${down.id}/elevation/`)).results.map((u: any) => u.id), [3, 3.5, 4, 4.5]);
  for (const [query, field] of [['face=side', 'face'], ['render=png', 'render'], ['exclude=x', 'exclude'], ['expand_devices=maybe', 'expand_devices'], ['include_images=2', 'include_images'], ['unit_width=wide', 'unit_width']]) {
    const bad = await app.api('GET', `/api/dcim/racks/${rack.id}/elevation/?${query}`);
    expectStatus(bad, 400, query);
    assert.equal(Object.keys(bad.body), [field], query);
  }
});

test('render=svg draws the face: a slot per unit, a labelled box per device at its half-unit height', async () => {
  const svg = await app.api('GET', `/api/dcim/racks/${rack.id}/elevation/?render=svg&unit_height=20&unit_width=200&include_images=false`);
  expectStatus(svg, 200);
  assert.match(svg.headers.get('content-type') ?? '', /image\/svg\+xml/);
  assert.match(svg.text, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.is((svg.text.match(/class="slot"/g) ?? []).length, 6);
  // the 2U server: 40 px tall, less the border; named and linked
  assert.match(svg.text, /<a href="[^"]*\/dcim\/devices\/\d+\/"><title>srv<\/title><rect class="device" x="\d+" y="\d+" width="198" height="38"/);
  assert.match(svg.text, />srv<\/text>/);
  assert.not.match(svg.text, />patch</);
  const rear = await app.api('GET', `/api/dcim/racks/${rack.id}/elevation/?render=svg&face=rear`);
  assert.match(rear.text, />patch<\/text>/);
  assert.match(rear.text, /<rect class="device" x="\d+" y="\d+" width="218" height="20"/);
  // a user who may not see devices gets the units drawn as taken, without names
  const user = await app.post('/api/users/users/', { username: 'rack-viewer', password: 'rack-viewer-pass-1' });
  await app.post('/api/users/permissions/', { name: 'racks only', object_types: ['dcim.rack'], actions: ['view'], users: [user.id] });
  const token = await app.post('/api/users/tokens/', { user: user.id, key: 'b'.repeat(40) });
  const headers = { Authorization: `Token ${token.key ?? 'b'.repeat(40)}` };
  const limited = await fetch(`${app.url}/api/dcim/racks/${rack.id}/elevation/?render=svg`, { headers });
  const text = await limited.text();
  assert.is(limited.status, 200);
  assert.match(text, /class="blocked"/);
  assert.not.match(text, /srv/);
  const json = await (await fetch(`${app.url}/api/dcim/racks/${rack.id}/elevation/`, { headers })).json() as any;
  assert.equal(json.results.filter((u: any) => u.occupied).map((u: any) => u.device), [null, null, null, null]);
});

test.run();
