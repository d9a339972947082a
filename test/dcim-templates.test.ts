/**
 * Device-type and module-type templates: creating a device instantiates every template of its type
 * (relations between templates become relations between components) in a number of statements that
 * does not depend on how many templates there are; installing a module does the same with its
 * module type, `{module}` becoming the bay's position. Also the counts on both sides.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp, expectStatus, type TestApp } from './helpers.js';
import { createObject } from './factory.js';
import { model } from '../runtime/data/registry.js';
import { countQueries } from '../runtime/data/db.js';

const test = suite('dcim templates');
let app: TestApp;
let base: any;

test.before(async () => {
  // no job poller and no statistics refresh: the statement counts below must see only the request's own
  app = await startApp({ RUN_WORKER: '0', STATISTICS_REFRESH_ROWS: '1000000000000' });
  base = await createObject(app, model('Device'));
});
test.after(async () => { await app.stop(); });

async function deviceType(extra: Record<string, unknown> = {}): Promise<any> {
  return createObject(app, model('DeviceType'), { manufacturer: base.device_type.manufacturer.id, ...extra });
}

async function device(type: number, name: string): Promise<any> {
  return app.post('/api/dcim/devices/', { name, device_type: type, role: base.role.id, site: base.site.id });
}

test('a device gets every template of its type, relations included', async () => {
  const dt = await deviceType({ subdevice_role: 'parent' });
  await app.post('/api/dcim/console-port-templates/', { device_type: dt.id, name: 'con0', type: 'rj-45' });
  await app.post('/api/dcim/console-server-port-templates/', { device_type: dt.id, name: 'ttyS0' });
  const psu = await app.post('/api/dcim/power-port-templates/', { device_type: dt.id, name: 'PSU1', type: 'iec-60320-c14', maximum_draw: 400 });
  await app.post('/api/dcim/power-outlet-templates/', { device_type: dt.id, name: 'O1', power_port: psu.id, feed_leg: 'B' });
  const rear = await app.post('/api/dcim/rear-port-templates/', { device_type: dt.id, name: 'R1', type: 'mpo', positions: 2 });
  await app.post('/api/dcim/front-port-templates/', [
    { device_type: dt.id, name: 'F1', type: 'lc', rear_port: rear.id, rear_port_position: 1 },
    { device_type: dt.id, name: 'F2', type: 'lc', rear_port: rear.id, rear_port_position: 2 },
  ]);
  const br = await app.post('/api/dcim/interface-templates/', { device_type: dt.id, name: 'br0', type: 'bridge' });
  const eth = await app.post('/api/dcim/interface-templates/', { device_type: dt.id, name: 'eth0', type: '1000base-t', mgmt_only: true, bridge: br.id, poe_mode: 'pse' });
  assert.is(eth.bridge.id, br.id);
  await app.post('/api/dcim/device-bay-templates/', { device_type: dt.id, name: 'bay1' });
  await app.post('/api/dcim/module-bay-templates/', { device_type: dt.id, name: 'slot1', position: '1' });
  const role = await app.post('/api/dcim/inventory-item-roles/', { name: 'Optic', slug: 'optic' });
  const chassis = await app.post('/api/dcim/inventory-item-templates/', { device_type: dt.id, name: 'chassis', role: role.id });
  await app.post('/api/dcim/inventory-item-templates/', { device_type: dt.id, name: 'sfp', parent: chassis.id, component_type: 'dcim.interfacetemplate', component_id: eth.id });

  const type = await app.get(`/api/dcim/device-types/${dt.id}/`);
  assert.equal([type.console_port_template_count, type.power_outlet_template_count, type.front_port_template_count, type.interface_template_count, type.inventory_item_template_count], [1, 1, 2, 2, 2]);

  const d = await device(dt.id, 'tmpl-dev1');
  assert.equal([d.console_port_count, d.console_server_port_count, d.power_port_count, d.power_outlet_count, d.interface_count, d.front_port_count, d.rear_port_count, d.device_bay_count, d.module_bay_count, d.inventory_item_count], [1, 1, 1, 1, 2, 2, 1, 1, 1, 2]);
  const outlet = (await app.get(`/api/dcim/power-outlets/?device_id=${d.id}`)).results[0];
  assert.is(outlet.power_port.name, 'PSU1');
  assert.equal(outlet.feed_leg.value, 'B');
  const fronts = (await app.get(`/api/dcim/front-ports/?device_id=${d.id}`)).results;
  assert.equal(fronts.map((f: any) => [f.name, f.rear_port.name, f.rear_port_position]), [['F1', 'R1', 1], ['F2', 'R1', 2]]);
  const interfaces = (await app.get(`/api/dcim/interfaces/?device_id=${d.id}`)).results;
  const eth0 = interfaces.find((i: any) => i.name === 'eth0');
  assert.is(eth0.bridge.id, interfaces.find((i: any) => i.name === 'br0').id);
  assert.is(eth0.mgmt_only, true);
  assert.is(eth0.poe_mode.value, 'pse');
  const items = (await app.get(`/api/dcim/inventory-items/?device_id=${d.id}`)).results;
  const sfp = items.find((i: any) => i.name === 'sfp');
  assert.is(sfp.parent.name, 'chassis');
  assert.is(sfp._depth, 1);
  assert.is(sfp.component_type, 'dcim.interface');
  assert.is(sfp.component.id, eth0.id);
  assert.is(items.find((i: any) => i.name === 'chassis').role.id, role.id);
  // Every instantiated component is in the change log.
  const changes = await app.get(`/api/extras/object-changes/?changed_object_type=dcim.interface&changed_object_id=${eth0.id}`);
  assert.is(changes.count, 1);
});

test('instantiation costs the same statements for 2 or 48 interface templates', async () => {
  const measure = async (n: number) => {
    const dt = await deviceType();
    await app.post('/api/dcim/interface-templates/', Array.from({ length: n }, (_, i) => ({ device_type: dt.id, name: `et${i + 1}`, type: '10gbase-x-sfpp' })));
    const counter = countQueries(app.running.db);
    try {
      const reply = await app.api('POST', '/api/dcim/devices/', [1, 2, 3].map((k) => ({ name: `qc-${n}-${k}`, device_type: dt.id, role: base.role.id, site: base.site.id })));
      expectStatus(reply, 201);
      assert.equal(reply.body.map((d: any) => d.interface_count), [n, n, n]);
    } finally {
      counter.stop();
    }
    return counter.count;
  };
  assert.is(await measure(48), await measure(2));
});

test('a module instantiates its module type, {module} becoming the bay position', async () => {
  const dt = await deviceType();
  await app.post('/api/dcim/module-bay-templates/', [{ device_type: dt.id, name: 'slot3', position: '3' }, { device_type: dt.id, name: 'slot-x' }]);
  const d = await device(dt.id, 'mod-host');
  const bays = (await app.get(`/api/dcim/module-bays/?device_id=${d.id}`)).results;
  const slot3 = bays.find((b: any) => b.name === 'slot3');
  const slotX = bays.find((b: any) => b.name === 'slot-x');
  const mt = await app.post('/api/dcim/module-types/', { manufacturer: base.device_type.manufacturer.id, model: 'LC-8' });
  await app.post('/api/dcim/interface-templates/', [{ module_type: mt.id, name: 'eth{module}/1', type: '1000base-t' }, { module_type: mt.id, name: 'eth{module}/2', type: '1000base-t' }]);
  const module = await app.post('/api/dcim/modules/', { device: d.id, module_bay: slot3.id, module_type: mt.id, serial: 'S1' });
  const names = (await app.get(`/api/dcim/interfaces/?device_id=${d.id}`)).results.map((i: any) => [i.name, i.module?.id]);
  assert.equal(names, [['eth3/1', module.id], ['eth3/2', module.id]]);
  assert.is((await app.get(`/api/dcim/module-bays/${slot3.id}/`)).installed_module.id, module.id);
  // A bay without a position cannot take a module whose names need one.
  const blank = await app.api('POST', '/api/dcim/modules/', { device: d.id, module_bay: slotX.id, module_type: mt.id });
  expectStatus(blank, 400);
  assert.ok(blank.body.module_bay, JSON.stringify(blank.body));
  // The same bay takes only one module.
  const twice = await app.api('POST', '/api/dcim/modules/', { device: d.id, module_bay: slot3.id, module_type: mt.id, replicate_components: false });
  expectStatus(twice, 400);
  assert.ok(twice.body.module_bay);
  // Removing the module removes its components.
  expectStatus(await app.api('DELETE', `/api/dcim/modules/${module.id}/`), 204);
  assert.is((await app.get(`/api/dcim/interfaces/?device_id=${d.id}`)).count, 0);
});

test('replicate_components=false installs nothing; adopt_components takes existing ones over', async () => {
  const dt = await deviceType();
  await app.post('/api/dcim/module-bay-templates/', [{ device_type: dt.id, name: 'A', position: 'a' }, { device_type: dt.id, name: 'B', position: 'b' }]);
  const d = await device(dt.id, 'adopt-host');
  const bays = (await app.get(`/api/dcim/module-bays/?device_id=${d.id}`)).results;
  const mt = await app.post('/api/dcim/module-types/', { manufacturer: base.device_type.manufacturer.id, model: 'PSU-M' });
  await app.post('/api/dcim/power-port-templates/', { module_type: mt.id, name: 'PSU-{module}' });
  await app.post('/api/dcim/modules/', { device: d.id, module_bay: bays[0].id, module_type: mt.id, replicate_components: false });
  assert.is((await app.get(`/api/dcim/power-ports/?device_id=${d.id}`)).count, 0);
  const loose = await app.post('/api/dcim/power-ports/', { device: d.id, name: 'PSU-b' });
  const clash = await app.api('POST', '/api/dcim/modules/', { device: d.id, module_bay: bays[1].id, module_type: mt.id });
  expectStatus(clash, 400);
  assert.ok(clash.body.module_type, JSON.stringify(clash.body));
  const adopted = await app.post('/api/dcim/modules/', { device: d.id, module_bay: bays[1].id, module_type: mt.id, adopt_components: true });
  const port = await app.get(`/api/dcim/power-ports/${loose.id}/`);
  assert.is(port.module.id, adopted.id);
});

test('templates belong to exactly one device type or module type', async () => {
  const dt = await deviceType();
  const mt = await app.post('/api/dcim/module-types/', { manufacturer: base.device_type.manufacturer.id, model: 'Both' });
  const both = await app.api('POST', '/api/dcim/console-port-templates/', { device_type: dt.id, module_type: mt.id, name: 'c' });
  expectStatus(both, 400);
  assert.match(both.body.non_field_errors[0], /device_type.*module_type/);
  const neither = await app.api('POST', '/api/dcim/console-port-templates/', [{ name: 'c' }]);
  expectStatus(neither, 400);
  assert.ok(neither.body[0].non_field_errors);
  const other = await deviceType();
  const rear = await app.post('/api/dcim/rear-port-templates/', { device_type: other.id, name: 'R', type: 'lc' });
  const foreign = await app.api('POST', '/api/dcim/front-port-templates/', { device_type: dt.id, name: 'F', type: 'lc', rear_port: rear.id });
  expectStatus(foreign, 400);
  assert.match(foreign.body.rear_port[0], /same device type/);
});

test('device bays hold child devices, which know their parent', async () => {
  const parentType = await deviceType({ subdevice_role: 'parent' });
  const childType = await deviceType({ subdevice_role: 'child', u_height: 0 });
  const plainType = await deviceType();
  const chassis = await device(parentType.id, 'blade-chassis');
  const blade = await device(childType.id, 'blade1');
  const bay = await app.post('/api/dcim/device-bays/', { device: chassis.id, name: 'Bay 1', installed_device: blade.id });
  assert.is(bay.installed_device.id, blade.id);
  const child = await app.get(`/api/dcim/devices/${blade.id}/`);
  assert.is(child.parent_device.id, chassis.id);
  assert.is(child.parent_device.device_bay.id, bay.id);
  assert.equal((await app.get(`/api/dcim/devices/?parent_device_id=${chassis.id}`)).results.map((r: any) => r.id), [blade.id]);
  const self = await app.api('PATCH', `/api/dcim/device-bays/${bay.id}/`, { installed_device: chassis.id });
  expectStatus(self, 400);
  assert.ok(self.body.installed_device);
  const plain = await device(plainType.id, 'no-bays');
  const refused = await app.api('POST', '/api/dcim/device-bays/', { device: plain.id, name: 'Bay 1' });
  expectStatus(refused, 400);
  assert.match(refused.body.device[0], /does not support device bays/);
  const again = await app.api('POST', '/api/dcim/device-bays/', { device: chassis.id, name: 'Bay 2', installed_device: blade.id });
  expectStatus(again, 400);
  assert.ok(again.body.installed_device);
});

test('a virtual chassis takes its master in; the master must be a member', async () => {
  const a = await device((await deviceType()).id, 'stack-1');
  const b = await device((await deviceType()).id, 'stack-2');
  const vc = await app.post('/api/dcim/virtual-chassis/', { name: 'stack', domain: 'd1', master: a.id });
  const master = await app.get(`/api/dcim/devices/${a.id}/`);
  assert.is(master.virtual_chassis.id, vc.id);
  assert.is(master.vc_position, 1);
  assert.is((await app.get(`/api/dcim/virtual-chassis/${vc.id}/`)).member_count, 1);
  const outsider = await app.api('PATCH', `/api/dcim/virtual-chassis/${vc.id}/`, { master: b.id });
  expectStatus(outsider, 400);
  assert.match(outsider.body.master[0], /not assigned to this virtual chassis/);
  await app.patch(`/api/dcim/devices/${b.id}/`, { virtual_chassis: vc.id, vc_position: 2, vc_priority: 10 });
  const moved = await app.patch(`/api/dcim/virtual-chassis/${vc.id}/`, { master: b.id });
  assert.is(moved.master.id, b.id);
  assert.is(moved.member_count, 2);
});

test.run();
