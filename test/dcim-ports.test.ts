/**
 * Port components: front ports map to a position of a rear port on the same device, rear ports keep
 * enough positions for their front ports, power outlets feed from a power port of their own device,
 * allocated draw stays within maximum draw, and components stay on their device. Each rule answers
 * a 400 naming the field, for single and bulk writes alike.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp, expectStatus, type TestApp } from './helpers.js';
import { createObject } from './factory.js';
import { model } from '../runtime/data/registry.js';

const test = suite('dcim ports');
let app: TestApp;
let deviceA: any;
let deviceB: any;

test.before(async () => {
  app = await startApp();
  deviceA = await createObject(app, model('Device'));
  deviceB = await createObject(app, model('Device'), { site: deviceA.site.id });
});
test.after(async () => { await app.stop(); });

test('a front port maps to a position its rear port has, on the same device', async () => {
  const rear = await app.post('/api/dcim/rear-ports/', { device: deviceA.id, name: 'R1', type: 'lc', positions: 2 });
  const front = await app.post('/api/dcim/front-ports/', { device: deviceA.id, name: 'F1', type: 'lc', rear_port: rear.id, rear_port_position: 2 });
  assert.is(front.rear_port.id, rear.id);
  assert.is(front.rear_port_position, 2);
  const beyond = await app.api('POST', '/api/dcim/front-ports/', { device: deviceA.id, name: 'F3', type: 'lc', rear_port: rear.id, rear_port_position: 3 });
  expectStatus(beyond, 400);
  assert.match(beyond.body.rear_port_position[0], /has only 2 positions/);
  const elsewhere = await app.api('POST', '/api/dcim/front-ports/', { device: deviceB.id, name: 'F1', type: 'lc', rear_port: rear.id });
  expectStatus(elsewhere, 400);
  assert.match(elsewhere.body.rear_port[0], /must belong to the same device/);
  const taken = await app.api('POST', '/api/dcim/front-ports/', { device: deviceA.id, name: 'F2', type: 'lc', rear_port: rear.id, rear_port_position: 2 });
  expectStatus(taken, 400);
  assert.ok(taken.body.non_field_errors, JSON.stringify(taken.body));
  // The same rules in a bulk request: the bad element carries the error, the good one none.
  const bulk = await app.api('POST', '/api/dcim/front-ports/', [
    { device: deviceA.id, name: 'F2', type: 'lc', rear_port: rear.id, rear_port_position: 1 },
    { device: deviceA.id, name: 'F4', type: 'lc', rear_port: rear.id, rear_port_position: 9 },
  ]);
  expectStatus(bulk, 400);
  assert.equal(bulk.body[0], {});
  assert.ok(bulk.body[1].rear_port_position);
  const ok = await app.api('POST', '/api/dcim/front-ports/', [{ device: deviceA.id, name: 'F2', type: 'lc', rear_port: rear.id, rear_port_position: 1 }]);
  expectStatus(ok, 201);
});

test('a rear port keeps as many positions as its front ports use', async () => {
  const rear = await app.post('/api/dcim/rear-ports/', { device: deviceA.id, name: 'R2', type: 'mpo', positions: 4 });
  await app.post('/api/dcim/front-ports/', { device: deviceA.id, name: 'F21', type: 'lc', rear_port: rear.id, rear_port_position: 3 });
  const shrink = await app.api('PATCH', `/api/dcim/rear-ports/${rear.id}/`, { positions: 2 });
  expectStatus(shrink, 400);
  assert.match(shrink.body.positions[0], /cannot be less than the number of mapped front ports \(3\)/);
  const fine = await app.patch(`/api/dcim/rear-ports/${rear.id}/`, { positions: 3 });
  assert.is(fine.positions, 3);
  const bulk = await app.api('PATCH', '/api/dcim/rear-ports/', [{ id: rear.id, positions: 1 }]);
  expectStatus(bulk, 400);
  assert.ok(bulk.body[0].positions);
});

test('power outlets feed from a power port of their own device; draw within maximum', async () => {
  const port = await app.post('/api/dcim/power-ports/', { device: deviceA.id, name: 'PSU1', type: 'iec-60320-c14', maximum_draw: 500, allocated_draw: 300 });
  assert.equal(port.type, { value: 'iec-60320-c14', label: 'C14' });
  const over = await app.api('PATCH', `/api/dcim/power-ports/${port.id}/`, { allocated_draw: 600 });
  expectStatus(over, 400);
  assert.match(over.body.allocated_draw[0], /cannot exceed the maximum draw \(500W\)/);
  const outlet = await app.post('/api/dcim/power-outlets/', { device: deviceA.id, name: 'O1', type: 'iec-60320-c13', power_port: port.id, feed_leg: 'A' });
  assert.equal(outlet.feed_leg, { value: 'A', label: 'A' });
  assert.is(outlet.power_port.id, port.id);
  const foreign = await app.api('POST', '/api/dcim/power-outlets/', { device: deviceB.id, name: 'O1', power_port: port.id });
  expectStatus(foreign, 400);
  assert.match(foreign.body.power_port[0], /must belong to the same device/);
  const blank = await app.post('/api/dcim/power-outlets/', { device: deviceB.id, name: 'O2', type: '', feed_leg: '' });
  assert.is(blank.type, null);
  assert.is(blank.feed_leg, null);
});

test('components stay on their device; names order naturally', async () => {
  const port = await app.post('/api/dcim/console-ports/', { device: deviceA.id, name: 'con10', type: 'rj-45', speed: 9600 });
  await app.post('/api/dcim/console-ports/', { device: deviceA.id, name: 'con9' });
  assert.equal(port.speed, { value: 9600, label: '9600 bps' });
  const moved = await app.api('PATCH', `/api/dcim/console-ports/${port.id}/`, { device: deviceB.id });
  expectStatus(moved, 400);
  assert.ok(moved.body.device);
  const names = (await app.get(`/api/dcim/console-ports/?device_id=${deviceA.id}`)).results.map((p: any) => p.name);
  assert.equal(names, ['con9', 'con10']);
  const server = await app.post('/api/dcim/console-server-ports/', { device: deviceA.id, name: 'ttyS1', label: 'serial', type: 'de-9', mark_connected: true });
  assert.is(server.display, 'ttyS1 (serial)');
  assert.is(server.mark_connected, true);
});

test.run();
