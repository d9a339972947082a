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

test('the elevation lists units top down with the device on each face', async () => {
  const full = await createObject(app, model('DeviceType'), { manufacturer: base.device_type.manufacturer.id, u_height: 2, is_full_depth: true });
  const half = await createObject(app, model('DeviceType'), { manufacturer: base.device_type.manufacturer.id, u_height: 1, is_full_depth: false });
  const server = await app.post('/api/dcim/devices/', { name: 'srv', device_type: full.id, role: base.role.id, site: base.site.id, rack: rack.id, position: 4, face: 'front' });
  const panel = await app.post('/api/dcim/devices/', { name: 'patch', device_type: half.id, role: base.role.id, site: base.site.id, rack: rack.id, position: 1, face: 'rear' });
  const front = await app.get(`/api/dcim/racks/${rack.id}/elevation/`);
  assert.is(front.count, 6);
  assert.equal(front.results.map((u: any) => u.id), [6, 5, 4, 3, 2, 1]);
  assert.equal(front.results.map((u: any) => u.device?.id ?? null), [null, server.id, server.id, null, null, null]);
  assert.equal(front.results[1].face, { value: 'front', label: 'Front' });
  const rear = await app.get(`/api/dcim/racks/${rack.id}/elevation/?face=rear&limit=2&offset=4`);
  assert.equal(rear.results.map((u: any) => [u.name, u.device?.id ?? null, u.occupied]), [['U2', null, false], ['U1', panel.id, true]]);
  assert.ok(rear.previous);
  const excluded = await app.get(`/api/dcim/racks/${rack.id}/elevation/?exclude=${server.id}`);
  assert.ok(excluded.results.every((u: any) => u.device === null));
  const svg = await app.api('GET', `/api/dcim/racks/${rack.id}/elevation/?render=svg`);
  expectStatus(svg, 200);
  assert.match(svg.headers.get('content-type') ?? '', /image\/svg\+xml/);
  assert.match(svg.text, /<svg[^>]*>.*srv/s);
  expectStatus(await app.api('GET', `/api/dcim/racks/${rack.id}/elevation/?face=side`), 400);
});

test.run();
