/**
 * Details of NetBox 3.7's dcim API: the virtual_chassis_member filters on interfaces, a deleted
 * virtual chassis clearing its members' positions, rack reservations requiring their user, `{module}`
 * filled only in names and labels, the front-port filters Ansible sends, and the blank values of
 * cable_end and a cable's type.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp, expectStatus, type TestApp } from './helpers.js';
import { createObject } from './factory.js';
import { model } from '../runtime/data/registry.js';

const test = suite('dcim NetBox 3.7 details');
let app: TestApp;
let base: any;

test.before(async () => {
  app = await startApp();
  base = await createObject(app, model('Device'));
});
test.after(async () => { await app.stop(); });

async function device(name: string, extra: Record<string, unknown> = {}): Promise<any> {
  return app.post('/api/dcim/devices/', { name, device_type: base.device_type.id, role: base.role.id, site: base.site.id, ...extra });
}

const ids = (list: any) => list.results.map((r: any) => r.name).sort();

test('virtual_chassis_member(_id): the device\'s interfaces and its chassis peers\' (not management-only)', async () => {
  const master = await device('vcm-1');
  const member = await device('vcm-2');
  const alone = await device('vcm-3');
  const vc = await app.post('/api/dcim/virtual-chassis/', { name: 'VCM', master: master.id });
  await app.patch(`/api/dcim/devices/${member.id}/`, { virtual_chassis: vc.id, vc_position: 2 });
  await app.post('/api/dcim/interfaces/', [
    { device: master.id, name: 'm-eth0', type: '1000base-t' },
    { device: master.id, name: 'm-mgmt', type: '1000base-t', mgmt_only: true },
    { device: member.id, name: 's-eth0', type: '1000base-t' },
    { device: member.id, name: 's-mgmt', type: '1000base-t', mgmt_only: true },
    { device: alone.id, name: 'a-eth0', type: '1000base-t' },
  ]);
  // from the master: its own interfaces (management included) and the member's non-management ones
  assert.equal(ids(await app.get(`/api/dcim/interfaces/?virtual_chassis_member_id=${master.id}`)), ['m-eth0', 'm-mgmt', 's-eth0']);
  assert.equal(ids(await app.get('/api/dcim/interfaces/?virtual_chassis_member=vcm-1')), ['m-eth0', 'm-mgmt', 's-eth0']);
  // from a member that is not the master: the same chassis-wide view (NetBox does not require the master)
  assert.equal(ids(await app.get(`/api/dcim/interfaces/?virtual_chassis_member_id=${member.id}`)), ['m-eth0', 's-eth0', 's-mgmt']);
  // a device outside any chassis: its own interfaces only; several values combine
  assert.equal(ids(await app.get(`/api/dcim/interfaces/?virtual_chassis_member_id=${alone.id}`)), ['a-eth0']);
  assert.equal(ids(await app.get('/api/dcim/interfaces/?virtual_chassis_member=vcm-3&virtual_chassis_member=vcm-2')), ['a-eth0', 'm-eth0', 's-eth0', 's-mgmt']);
  // with other filters, as Ansible's lookups combine them
  assert.equal(ids(await app.get(`/api/dcim/interfaces/?virtual_chassis_member_id=${master.id}&name=s-eth0`)), ['s-eth0']);
  // device_id stays the device's own (NetBox 3.6 moved the chassis view to these filters)
  assert.equal(ids(await app.get(`/api/dcim/interfaces/?device_id=${master.id}`)), ['m-eth0', 'm-mgmt']);
  assert.equal((await app.get('/api/dcim/interfaces/?virtual_chassis_member=no-such-device')).count, 0);
});

test('deleting a virtual chassis clears its members\' chassis, position and priority', async () => {
  const a = await device('vcd-1');
  const b = await device('vcd-2');
  const vc = await app.post('/api/dcim/virtual-chassis/', { name: 'VCD', master: a.id });
  await app.patch(`/api/dcim/devices/${b.id}/`, { virtual_chassis: vc.id, vc_position: 2, vc_priority: 50 });
  const before = await app.get(`/api/dcim/devices/${b.id}/`);
  assert.equal([before.virtual_chassis.id, before.vc_position, before.vc_priority], [vc.id, 2, 50]);
  expectStatus(await app.api('DELETE', `/api/dcim/virtual-chassis/${vc.id}/`), 204);
  for (const d of [a, b]) {
    const after = await app.get(`/api/dcim/devices/${d.id}/`);
    assert.equal([after.virtual_chassis, after.vc_position, after.vc_priority], [null, null, null], d.name);
  }
  // both can join a new chassis at the positions they held
  const again = await app.post('/api/dcim/virtual-chassis/', { name: 'VCD2', master: b.id });
  const joined = await app.patch(`/api/dcim/devices/${a.id}/`, { virtual_chassis: again.id, vc_position: 2 });
  assert.is(joined.vc_position, 2);
});

test('a rack reservation needs its user, as NetBox 3.7\'s serializer does', async () => {
  const rack = await app.post('/api/dcim/racks/', { name: 'R-res', site: base.site.id, u_height: 4 });
  const missing = await app.api('POST', '/api/dcim/rack-reservations/', { rack: rack.id, units: [1], description: 'no user' });
  expectStatus(missing, 400);
  assert.equal(missing.body, { user: ['This field is required.'] });
  const bulk = await app.api('POST', '/api/dcim/rack-reservations/', [{ rack: rack.id, units: [2], description: 'no user' }]);
  expectStatus(bulk, 400);
  assert.equal(bulk.body, [{ user: ['This field is required.'] }]);
  const me = (await app.get('/api/users/users/?username=admin')).results[0];
  const made = await app.post('/api/dcim/rack-reservations/', { rack: rack.id, units: [1], user: me.id, description: 'mine' });
  assert.is(made.user.id, me.id);
});

test('installing a module fills {module} in component names and labels only', async () => {
  const dt = await createObject(app, model('DeviceType'), { manufacturer: base.device_type.manufacturer.id });
  await app.post('/api/dcim/module-bay-templates/', { device_type: dt.id, name: 'slot7', position: '7' });
  const host = await app.post('/api/dcim/devices/', { name: 'mod-fill', device_type: dt.id, role: base.role.id, site: base.site.id });
  const bay = (await app.get(`/api/dcim/module-bays/?device_id=${host.id}`)).results[0];
  const mt = await app.post('/api/dcim/module-types/', { manufacturer: base.device_type.manufacturer.id, model: 'LC-fill' });
  await app.post('/api/dcim/interface-templates/', { module_type: mt.id, name: 'et{module}/1', label: 'slot {module}', type: '1000base-t', description: 'uplink of {module}' });
  await app.post('/api/dcim/console-port-templates/', { module_type: mt.id, name: 'con{module}', description: 'console {module}' });
  await app.post('/api/dcim/modules/', { device: host.id, module_bay: bay.id, module_type: mt.id });
  const iface = (await app.get(`/api/dcim/interfaces/?device_id=${host.id}`)).results[0];
  assert.equal([iface.name, iface.label, iface.description], ['et7/1', 'slot 7', 'uplink of {module}']);
  const con = (await app.get(`/api/dcim/console-ports/?device_id=${host.id}`)).results[0];
  assert.equal([con.name, con.description], ['con7', 'console {module}']);
});

test('front ports: rear_port_id filters; rear_port (what Ansible sends) is ignored, as NetBox 3.7 does', async () => {
  const d = await device('fp-host');
  const [r1, r2] = await app.post('/api/dcim/rear-ports/', [{ device: d.id, name: 'R1', type: 'lc' }, { device: d.id, name: 'R2', type: 'lc' }]);
  const front = await app.post('/api/dcim/front-ports/', { device: d.id, name: 'F1', type: 'lc', rear_port: r1.id });
  assert.equal((await app.get(`/api/dcim/front-ports/?rear_port_id=${r1.id}`)).results.map((p: any) => p.id), [front.id]);
  assert.is((await app.get(`/api/dcim/front-ports/?rear_port_id=${r2.id}`)).count, 0);
  // Ansible's lookup when a playbook moves the port to R2: it must find the port to update it
  const lookup = await app.get(`/api/dcim/front-ports/?name=F1&device_id=${d.id}&rear_port=${r2.id}`);
  assert.equal(lookup.results.map((p: any) => p.id), [front.id]);
  const moved = await app.patch(`/api/dcim/front-ports/${front.id}/`, { rear_port: r2.id });
  assert.is(moved.rear_port.id, r2.id);

  const dt = await createObject(app, model('DeviceType'), { manufacturer: base.device_type.manufacturer.id });
  const [t1, t2] = await app.post('/api/dcim/rear-port-templates/', [{ device_type: dt.id, name: 'TR1', type: 'lc' }, { device_type: dt.id, name: 'TR2', type: 'lc' }]);
  const tf = await app.post('/api/dcim/front-port-templates/', { device_type: dt.id, name: 'TF1', type: 'lc', rear_port: t1.id });
  assert.equal((await app.get(`/api/dcim/front-port-templates/?rear_port_id=${t1.id}`)).results.map((p: any) => p.id), [tf.id]);
  assert.is((await app.get(`/api/dcim/front-port-templates/?rear_port_id=${t2.id}`)).count, 0);
  const tlookup = await app.get(`/api/dcim/front-port-templates/?name=TF1&devicetype_id=${dt.id}&device_type=${dt.id}&rear_port=${t2.id}`);
  assert.equal(tlookup.results.map((p: any) => p.id), [tf.id]);
});

test('blank values: cable_end "" while uncabled, a cable\'s blank type "", nested cable {id, url, display, label}', async () => {
  const d = await device('blank-host');
  const [a, b] = await app.post('/api/dcim/interfaces/', [{ device: d.id, name: 'b0', type: '1000base-t' }, { device: d.id, name: 'b1', type: '1000base-t' }]);
  assert.is(a.cable_end, '');
  assert.is(a.cable, null);
  const port = await app.post('/api/dcim/console-ports/', { device: d.id, name: 'c0' });
  assert.is(port.cable_end, '');
  const cable = await app.post('/api/dcim/cables/', { a_terminations: [{ object_type: 'dcim.interface', object_id: a.id }], b_terminations: [{ object_type: 'dcim.interface', object_id: b.id }] });
  assert.is(cable.type, '');
  assert.is(cable.length_unit, null);
  const typed = await app.patch(`/api/dcim/cables/${cable.id}/`, { type: 'cat6', label: 'L1' });
  assert.is(typed.type, 'cat6');
  const full = await app.get(`/api/dcim/interfaces/${a.id}/`);
  assert.is(full.cable_end, 'A');
  assert.equal(Object.keys(full.cable).sort(), ['display', 'id', 'label', 'url']);
  assert.equal([full.cable.id, full.cable.display, full.cable.label], [cable.id, 'L1', 'L1']);
  assert.is('connection_status' in full, false);
  const brief = (await app.get(`/api/dcim/interfaces/?brief=1&id=${a.id}`)).results[0];
  assert.equal(Object.keys(brief).sort(), ['_occupied', 'cable', 'device', 'display', 'id', 'name', 'url']);
  assert.equal(brief.cable, full.cable);
  assert.is((await app.get(`/api/dcim/interfaces/?cable_end=A&device_id=${d.id}`)).count, 1);
  expectStatus(await app.api('DELETE', `/api/dcim/cables/${cable.id}/`), 204);
  const freed = await app.get(`/api/dcim/interfaces/${b.id}/`);
  assert.equal([freed.cable, freed.cable_end], [null, '']);
});

test('choice sets are NetBox 3.7.8\'s: later types refused, 3.7 ones taken', async () => {
  const d = await device('choice-host');
  for (const [path, body, field] of [
    ['/api/dcim/power-ports/', { device: d.id, name: 'P-molex', type: 'molex-micro-fit-1x2' }, 'type'],
    ['/api/dcim/power-outlets/', { device: d.id, name: 'O-molex', type: 'molex-micro-fit-2x4' }, 'type'],
    ['/api/dcim/interfaces/', { device: d.id, name: 'kx', type: '2.5gbase-kx' }, 'type'],
  ] as [string, Record<string, unknown>, string][]) {
    const refused = await app.api('POST', path, body);
    expectStatus(refused, 400, path);
    assert.equal(refused.body, { [field]: [`${body.type} is not a valid choice.`] });
  }
  const taken = await app.post('/api/dcim/interfaces/', [
    { device: d.id, name: 'fc0', type: '64gfc-sfpp' },
    { device: d.id, name: 'q0', type: '400gbase-x-qsfp112' },
    { device: d.id, name: 'x0', type: 'infiniband-xdr' },
  ]);
  assert.equal(taken.map((i: any) => i.type.label), ['SFP+ (64GFC)', 'QSFP112 (400GE)', 'XDR (250 Gbps)']);
  const psu = await app.post('/api/dcim/power-ports/', { device: d.id, name: 'PSU-c22', type: 'iec-60320-c22' });
  assert.equal(psu.type, { value: 'iec-60320-c22', label: 'C22' });
});

test.run();
