/**
 * Where devices sit (NetBox's rules): site, location and rack agree; rack positions fit the rack,
 * come in half units and never overlap (full-depth devices block both faces); 0U and child devices
 * take no position; platforms and device types agree on the manufacturer; primary and out-of-band
 * IPs belong to the device or its virtual chassis. Also the rules of racks, locations and device
 * types that depend on mounted devices. Each rule: a 400 naming the field, single and bulk, and the
 * accepted counterpart.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp, expectStatus, expectFieldError, type TestApp } from './helpers.js';
import { createObject } from './factory.js';
import { model } from '../runtime/data/registry.js';

const test = suite('dcim placement');
let app: TestApp;
let base: any;
let rack: any;
let fullType: any;
let halfType: any;

test.before(async () => {
  app = await startApp();
  base = await createObject(app, model('Device'));
  rack = await app.post('/api/dcim/racks/', { name: 'R-place', site: base.site.id, u_height: 10 });
  fullType = await createObject(app, model('DeviceType'), { manufacturer: base.device_type.manufacturer.id, u_height: 2, is_full_depth: true });
  halfType = await createObject(app, model('DeviceType'), { manufacturer: base.device_type.manufacturer.id, u_height: 1, is_full_depth: false });
});
test.after(async () => { await app.stop(); });

const device = (extra: Record<string, unknown>) => ({ device_type: halfType.id, role: base.role.id, site: base.site.id, ...extra });
const refused = (method: string, path: string, body: unknown, field: string) => expectFieldError(app, method, path, body, field);

test('positions fit the rack and do not overlap; full depth blocks both faces', async () => {
  await app.post('/api/dcim/devices/', device({ name: 'full-5', device_type: fullType.id, rack: rack.id, position: 5, face: 'front' }));
  assert.match(await refused('POST', '/api/dcim/devices/', device({ name: 'rear-6', rack: rack.id, position: 6, face: 'rear' }), 'position'), /U6 is already occupied/);
  await app.post('/api/dcim/devices/', device({ name: 'rear-7', rack: rack.id, position: 7, face: 'rear' }));
  // A half-depth device leaves the other face free.
  await app.post('/api/dcim/devices/', device({ name: 'front-7', rack: rack.id, position: 7, face: 'front' }));
  await refused('POST', '/api/dcim/devices/', device({ name: 'top', device_type: fullType.id, rack: rack.id, position: 10, face: 'front' }), 'position');
  assert.match(await refused('POST', '/api/dcim/devices/', device({ name: 'half', rack: rack.id, position: 2.3, face: 'front' }), 'position'), /increments of 0.5/);
  await app.post('/api/dcim/devices/', device({ name: 'half-ok', rack: rack.id, position: 2.5, face: 'front' }));
  // Two elements of one request may not overlap each other either.
  const bulk = await app.api('POST', '/api/dcim/devices/', [device({ name: 'b1', rack: rack.id, position: 9, face: 'front' }), device({ name: 'b2', rack: rack.id, position: 9, face: 'front' })]);
  expectStatus(bulk, 400);
  assert.equal(bulk.body[0], {});
  assert.ok(bulk.body[1].position);
  await refused('POST', '/api/dcim/devices/', device({ name: 'noface', face: 'front' }), 'face');
  await refused('POST', '/api/dcim/devices/', device({ name: 'norack', position: 3, face: 'front' }), 'position');
  const moved = await app.api('PATCH', '/api/dcim/devices/', [{ id: (await app.get('/api/dcim/devices/?name=front-7')).results[0].id, position: 8 }]);
  expectStatus(moved, 200);
});

test('0U and child devices take no position; the rack, location and site agree', async () => {
  const zero = await createObject(app, model('DeviceType'), { manufacturer: base.device_type.manufacturer.id, u_height: 0 });
  assert.match(await refused('POST', '/api/dcim/devices/', device({ name: 'pdu', device_type: zero.id, rack: rack.id, position: 1, face: 'rear' }), 'position'), /U0 device type/);
  await app.post('/api/dcim/devices/', device({ name: 'pdu', device_type: zero.id, rack: rack.id }));
  const child = await createObject(app, model('DeviceType'), { manufacturer: base.device_type.manufacturer.id, u_height: 0, subdevice_role: 'child' });
  await refused('POST', '/api/dcim/devices/', device({ name: 'blade', device_type: child.id, rack: rack.id, face: 'front' }), 'face');
  const otherSite = await createObject(app, model('Site'));
  assert.match(await refused('POST', '/api/dcim/devices/', device({ name: 'elsewhere', site: otherSite.id, rack: rack.id }), 'rack'), /must belong to the same site/);
  const location = await app.post('/api/dcim/locations/', { name: 'Hall', slug: 'hall', site: base.site.id });
  const farLocation = await app.post('/api/dcim/locations/', { name: 'Far', slug: 'far', site: otherSite.id });
  await refused('POST', '/api/dcim/devices/', [device({ name: 'loc', location: farLocation.id })], 'location');
  const inHall = await app.post('/api/dcim/racks/', { name: 'R-hall', site: base.site.id, location: location.id });
  const placed = await app.post('/api/dcim/devices/', device({ name: 'in-hall', rack: inHall.id }));
  assert.is(placed.location.id, location.id);
  const sub = await app.post('/api/dcim/locations/', { name: 'Cage', slug: 'cage', site: base.site.id, parent: location.id });
  await refused('POST', '/api/dcim/devices/', device({ name: 'cage-dev', rack: inHall.id, location: sub.id }), 'rack');
  await refused('POST', '/api/dcim/racks/', { name: 'R-far', site: base.site.id, location: farLocation.id }, 'location');
  await refused('POST', '/api/dcim/locations/', { name: 'Bad', slug: 'bad', site: otherSite.id, parent: location.id }, 'parent');
});

test('platforms and device types agree on their manufacturer; new devices inherit from the type', async () => {
  const other = await createObject(app, model('Manufacturer'));
  const foreign = await app.post('/api/dcim/platforms/', { name: 'ForeignOS', slug: 'foreign-os', manufacturer: other.id });
  assert.match(await refused('POST', '/api/dcim/devices/', device({ name: 'p1', platform: foreign.id }), 'platform'), /limited to/);
  const own = await app.post('/api/dcim/platforms/', { name: 'OwnOS', slug: 'own-os', manufacturer: base.device_type.manufacturer.id });
  const typed = await createObject(app, model('DeviceType'), { manufacturer: base.device_type.manufacturer.id, airflow: 'front-to-rear', default_platform: own.id });
  const made = await app.post('/api/dcim/devices/', device({ name: 'inherits', device_type: typed.id }));
  assert.is(made.platform.id, own.id);
  assert.is(made.airflow.value, 'front-to-rear');
});

test('device types: half units, child types are 0U, racked instances must still fit', async () => {
  await refused('POST', '/api/dcim/device-types/', { manufacturer: base.device_type.manufacturer.id, model: 'odd', slug: 'odd', u_height: 1.3 }, 'u_height');
  await refused('POST', '/api/dcim/device-types/', { manufacturer: base.device_type.manufacturer.id, model: 'kid', slug: 'kid', subdevice_role: 'child', u_height: 1 }, 'u_height');
  const small = await createObject(app, model('DeviceType'), { manufacturer: base.device_type.manufacturer.id, u_height: 1, is_full_depth: false });
  const rack2 = await app.post('/api/dcim/racks/', { name: 'R-grow', site: base.site.id, u_height: 4 });
  await app.post('/api/dcim/devices/', [device({ name: 'g1', device_type: small.id, rack: rack2.id, position: 1, face: 'front' }), device({ name: 'g2', device_type: small.id, rack: rack2.id, position: 2, face: 'front' })]);
  assert.match(await refused('PATCH', `/api/dcim/device-types/${small.id}/`, { u_height: 2 }, 'u_height'), /sufficient space/);
  await refused('PATCH', `/api/dcim/device-types/${small.id}/`, { u_height: 0 }, 'u_height');
  await app.patch(`/api/dcim/device-types/${small.id}/`, { u_height: 1, comments: 'still fits' });
  assert.match(await refused('PATCH', `/api/dcim/racks/${rack2.id}/`, { u_height: 1 }, 'u_height'), /at least 2U/);
  await refused('PATCH', `/api/dcim/racks/${rack2.id}/`, { starting_unit: 2 }, 'starting_unit');
  await app.patch(`/api/dcim/racks/${rack2.id}/`, { u_height: 2 });
  const parent = await createObject(app, model('DeviceType'), { manufacturer: base.device_type.manufacturer.id, subdevice_role: 'parent' });
  await app.post('/api/dcim/device-bay-templates/', { device_type: parent.id, name: 'b1' });
  await refused('PATCH', `/api/dcim/device-types/${parent.id}/`, { subdevice_role: null }, 'subdevice_role');
  await refused('POST', '/api/dcim/racks/', { name: 'R-dim', site: base.site.id, outer_width: 600 }, 'outer_unit');
  await refused('POST', '/api/dcim/racks/', { name: 'R-kg', site: base.site.id, max_weight: 600 }, 'weight_unit');
  await app.post('/api/dcim/racks/', { name: 'R-dims', site: base.site.id, outer_width: 600, outer_unit: 'mm', max_weight: 600, weight_unit: 'kg' });
});

test('primary and out-of-band IPs belong to the device or its virtual chassis', async () => {
  const a = await app.post('/api/dcim/devices/', device({ name: 'ip-a' }));
  const b = await app.post('/api/dcim/devices/', device({ name: 'ip-b' }));
  const ethA = await app.post('/api/dcim/interfaces/', { device: a.id, name: 'eth0', type: '1000base-t' });
  const ethB = await app.post('/api/dcim/interfaces/', { device: b.id, name: 'eth0', type: '1000base-t' });
  const mgmtB = await app.post('/api/dcim/interfaces/', { device: b.id, name: 'mgmt0', type: '1000base-t', mgmt_only: true });
  const ip = (address: string, iface: any) => app.post('/api/ipam/ip-addresses/', { address, assigned_object_type: 'dcim.interface', assigned_object_id: iface.id });
  const onA = await ip('192.0.2.1/24', ethA);
  const onB = await ip('192.0.2.2/24', ethB);
  const onMgmtB = await ip('192.0.2.3/24', mgmtB);
  const v6 = await ip('2001:db8::1/64', ethA);
  await app.patch(`/api/dcim/devices/${a.id}/`, { primary_ip4: onA.id, primary_ip6: v6.id, oob_ip: onA.id });
  assert.match(await refused('PATCH', `/api/dcim/devices/${a.id}/`, { primary_ip4: onB.id }, 'primary_ip4'), /not assigned to this device/);
  assert.match(await refused('PATCH', `/api/dcim/devices/${a.id}/`, { primary_ip4: v6.id }, 'primary_ip4'), /not an IPv4 address/);
  await refused('PATCH', '/api/dcim/devices/', [{ id: a.id, oob_ip: onB.id }], 'oob_ip');
  // In one virtual chassis, a member's non-management interfaces count for the others.
  const vc = await app.post('/api/dcim/virtual-chassis/', { name: 'vc-ip', master: a.id });
  await app.patch(`/api/dcim/devices/${b.id}/`, { virtual_chassis: vc.id, vc_position: 2 });
  await refused('PATCH', `/api/dcim/devices/${b.id}/`, { vc_position: null }, 'vc_position');
  const master = await app.patch(`/api/dcim/devices/${a.id}/`, { primary_ip4: onB.id });
  assert.is(master.primary_ip4.id, onB.id);
  await refused('PATCH', `/api/dcim/devices/${a.id}/`, { primary_ip4: onMgmtB.id }, 'primary_ip4');
});

test.run();
