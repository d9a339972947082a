/** Services belong to exactly one device or virtual machine and list valid port numbers. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';
import { createObject } from './factory.js';
import { model } from '../runtime/data/registry.js';

const test = suite('services');
let app: TestApp;

test.before(async () => { app = await startApp({ RUN_WORKER: '0' }); });
test.after(() => app.stop());

test('exactly one parent; ports from 1 to 65535', async () => {
  const device = await createObject(app, model('Device'));
  const vm = await createObject(app, model('VirtualMachine'));
  const ok = await app.post('/api/ipam/services/', { device: device.id, name: 'ssh', protocol: 'tcp', ports: [22] });
  assert.equal(ok.ports, [22]);
  const none = await app.api('POST', '/api/ipam/services/', { name: 'orphan', protocol: 'tcp', ports: [22] });
  expectStatus(none, 400);
  assert.ok(none.body.__all__[0].includes('device or a virtual machine'), 'NetBox\'s Service.clean() names no field');
  expectStatus(await app.api('POST', '/api/ipam/services/', { device: device.id, virtual_machine: vm.id, name: 'both', protocol: 'tcp', ports: [22] }), 400);
  for (const ports of [[], [0], [65536], ['x'], 'http']) {
    const bad = await app.api('POST', '/api/ipam/services/', { virtual_machine: vm.id, name: 'bad', protocol: 'udp', ports });
    expectStatus(bad, 400, JSON.stringify(ports));
    assert.ok(bad.body.ports);
  }
  expectStatus(await app.api('PATCH', `/api/ipam/services/${ok.id}/`, { device: null }), 400, 'cannot lose its parent');
});

test.run();
