/**
 * Virtual disks: a VM's virtual_disk_count, and its disk kept as the total size of its virtual disks
 * while it has any (writes to the VM may not contradict it; null takes it).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';
import { createObject } from './factory.js';
import { model } from '../runtime/data/registry.js';

const test = suite('virtual disks');
let app: TestApp;
const DISKS = '/api/virtualization/virtual-disks/';
const vmPath = (id: number) => `/api/virtualization/virtual-machines/${id}/`;

test.before(async () => { app = await startApp({ RUN_WORKER: '0' }); });
test.after(() => app.stop());

test('disk follows the virtual disks: create, resize, move, delete', async () => {
  const vm = await createObject(app, model('VirtualMachine'), { disk: 10 });
  const other = await createObject(app, model('VirtualMachine'));
  assert.is(vm.disk, 10, 'without virtual disks, disk is free');
  const [root, data] = await app.post(DISKS, [{ virtual_machine: vm.id, name: 'root', size: 20 }, { virtual_machine: vm.id, name: 'data', size: 100 }]);
  assert.equal(Object.keys((await app.get(`${DISKS}${root.id}/?brief=1`))).sort(), ['display', 'id', 'name', 'size', 'url', 'virtual_machine']);
  let shown = await app.get(vmPath(vm.id));
  assert.is(shown.disk, 120);
  assert.is(shown.virtual_disk_count, 2);
  await app.patch(`${DISKS}${data.id}/`, { size: 50 });
  assert.is((await app.get(vmPath(vm.id))).disk, 70);
  await app.patch(`${DISKS}${data.id}/`, { virtual_machine: other.id });
  assert.is((await app.get(vmPath(vm.id))).disk, 20, 'the old VM loses the moved disk');
  assert.is((await app.get(vmPath(other.id))).disk, 50, 'the new VM gains it');
  expectStatus(await app.api('DELETE', `${DISKS}${root.id}/`), 204);
  shown = await app.get(vmPath(vm.id));
  assert.is(shown.disk, null, 'no virtual disk left: no total');
  assert.is(shown.virtual_disk_count, 0);
  assert.is((await app.get(`${DISKS}?virtual_machine_id=${other.id}`)).count, 1);
  // disks go with their VM
  expectStatus(await app.api('DELETE', vmPath(other.id)), 204);
  expectStatus(await app.api('GET', `${DISKS}${data.id}/`), 404);
});

test('rule: a VM with virtual disks takes only their total as disk (single and bulk)', async () => {
  const vm = await createObject(app, model('VirtualMachine'));
  const bare = await createObject(app, model('VirtualMachine'));
  await app.post(DISKS, { virtual_machine: vm.id, name: 'root', size: 30 });
  const message = { disk: ['Must equal 30, the total size of its virtual disks, while it has any.'] };
  const single = await app.api('PATCH', vmPath(vm.id), { disk: 99 });
  expectStatus(single, 400);
  assert.equal(single.body, message);
  const bulk = await app.api('PATCH', '/api/virtualization/virtual-machines/', [{ id: bare.id, disk: 99 }, { id: vm.id, disk: 99 }]);
  expectStatus(bulk, 400);
  assert.equal(bulk.body, [{}, message]);
  assert.is((await app.get(vmPath(bare.id))).disk, null, 'nothing written');
  assert.is((await app.patch(vmPath(vm.id), { disk: 30 })).disk, 30, 'the total is accepted');
  assert.is((await app.patch(vmPath(vm.id), { disk: null })).disk, 30, 'null takes the total');
  assert.is((await app.patch(vmPath(bare.id), { disk: 99 })).disk, 99, 'a VM without virtual disks takes any size');
  expectStatus(await app.api('POST', DISKS, { virtual_machine: vm.id, name: 'root', size: 1 }), 400, 'names are unique per VM');
  expectStatus(await app.api('POST', DISKS, { virtual_machine: vm.id, name: 'swap', size: -1 }), 400, 'sizes are not negative');
});

test.run();
