/**
 * Virtual device contexts (/api/dcim/virtual-device-contexts/): NetBox 3.7's create data and brief
 * shape, names and identifiers unique per device, the primary address rules, the filters, and
 * interfaces' `vdcs` with the vdc, vdc_id and vdc_identifier filters.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectFieldError, expectStatus, startApp, type TestApp } from './helpers.js';
import { createObject } from './factory.js';
import { model } from '../runtime/data/registry.js';

const test = suite('virtual device contexts');
let app: TestApp;
const VDCS = '/api/dcim/virtual-device-contexts/';

test.before(async () => { app = await startApp({ RUN_WORKER: '0' }); });
test.after(() => app.stop());

test('NetBox\'s create data; brief shape; unique name and identifier per device', async () => {
  const [d1, d2] = [await createObject(app, model('Device')), await createObject(app, model('Device'))];
  const created = await app.post(VDCS, [
    { device: d1.id, status: 'active', name: 'VDC 1', identifier: 1 },
    { device: d1.id, status: 'active', name: 'VDC 2', identifier: 2 },
    { device: d2.id, status: 'active', name: 'VDC 1', identifier: 1 },
  ]);
  assert.is(created.length, 3);
  assert.is(created[0].display, 'VDC 1');
  assert.equal(created[0].status, { value: 'active', label: 'Active' });
  assert.is(created[0].interface_count, 0);
  assert.is(created[0].primary_ip, null);
  const brief = await app.get(`${VDCS}${created[0].id}/?brief=1`);
  assert.equal(Object.keys(brief).sort(), ['device', 'display', 'id', 'identifier', 'name', 'url']);
  assert.is(brief.device.id, d1.id);
  await expectFieldError(app, 'POST', VDCS, { device: d1.id, status: 'active', name: 'VDC 1' }, 'non_field_errors');
  await expectFieldError(app, 'POST', VDCS, { device: d1.id, status: 'active', name: 'VDC 9', identifier: 2 }, 'non_field_errors');
  await expectFieldError(app, 'POST', VDCS, { device: d1.id, name: 'VDC 9' }, 'status');
  await expectFieldError(app, 'POST', VDCS, { device: d1.id, status: 'active', name: 'VDC 9', identifier: 40000 }, 'identifier');
  const patched = await app.api('PATCH', VDCS, [{ id: created[1].id, status: 'planned' }, { id: created[2].id, status: 'planned' }]);
  expectStatus(patched, 200);
  assert.equal(patched.body.map((v: any) => v.status.value), ['planned', 'planned']);
  const blocked = await app.api('DELETE', `/api/dcim/devices/${d2.id}/`);
  assert.ok(blocked.status >= 400 && blocked.status < 500, 'a device with a VDC is protected');
});

test('primary addresses: the right family, on an interface of the device', async () => {
  const device = await createObject(app, model('Device'));
  const iface = await app.post('/api/dcim/interfaces/', { device: device.id, name: 'eth0', type: '1000base-t' });
  const elsewhere = await createObject(app, model('Interface'));
  const v4 = await app.post('/api/ipam/ip-addresses/', { address: '198.51.100.7/24', assigned_object_type: 'dcim.interface', assigned_object_id: iface.id });
  const v6 = await app.post('/api/ipam/ip-addresses/', { address: '2001:db8::7/64', assigned_object_type: 'dcim.interface', assigned_object_id: iface.id });
  const away = await app.post('/api/ipam/ip-addresses/', { address: '198.51.100.8/24', assigned_object_type: 'dcim.interface', assigned_object_id: elsewhere.id });
  const vdc = await app.post(VDCS, { device: device.id, status: 'active', name: 'ctx', primary_ip4: v4.id, primary_ip6: v6.id });
  assert.is(vdc.primary_ip4.id, v4.id);
  assert.is(vdc.primary_ip.id, v6.id);
  assert.is(await expectFieldError(app, 'PATCH', `${VDCS}${vdc.id}/`, { primary_ip4: v6.id }, 'primary_ip4'), '2001:db8::7/64 is not an IPv4 address.');
  assert.is(await expectFieldError(app, 'PATCH', `${VDCS}${vdc.id}/`, { primary_ip4: away.id }, 'primary_ip4'), 'Primary IP address must belong to an interface on the assigned device.');
  const other = await app.post(VDCS, { device: device.id, status: 'offline', name: 'plain' });
  const ids = async (query: string) => (await app.get(`${VDCS}?device_id=${device.id}&${query}`)).results.map((v: any) => v.id);
  assert.equal(await ids('has_primary_ip=true'), [vdc.id]);
  assert.equal(await ids('has_primary_ip=false'), [other.id]);
  assert.equal(await ids(`device=${device.id}&status=offline`), [other.id]);
  assert.equal(await ids(`primary_ip4_id=${v4.id}`), [vdc.id]);
  assert.equal(await ids('q=ctx'), [vdc.id]);
  expectStatus(await app.api('DELETE', `/api/ipam/ip-addresses/${v4.id}/`), 204);
  assert.is((await app.get(`${VDCS}${vdc.id}/`)).primary_ip4, null, 'the address removed, the field clears');
});

test('interfaces carry vdcs; the vdc filters find them; interface_count counts them', async () => {
  const device = await createObject(app, model('Device'));
  const tenant = await createObject(app, model('Tenant'));
  const [a, b] = await app.post(VDCS, [
    { device: device.id, status: 'active', name: 'left', identifier: 11, tenant: tenant.id },
    { device: device.id, status: 'active', name: 'right', identifier: 12 },
  ]);
  const i1 = await app.post('/api/dcim/interfaces/', { device: device.id, name: 'et1', type: '10gbase-x-sfpp', vdcs: [a.id, b.id] });
  const i2 = await app.post('/api/dcim/interfaces/', { device: device.id, name: 'et2', type: '10gbase-x-sfpp', vdcs: [b.id] });
  assert.equal(i1.vdcs.map((v: any) => v.id), [a.id, b.id]);
  assert.equal(Object.keys(i1.vdcs[0]).sort(), ['device', 'display', 'id', 'identifier', 'name', 'url']);
  const names = async (query: string) => (await app.get(`/api/dcim/interfaces/?device_id=${device.id}&${query}`)).results.map((i: any) => i.name);
  assert.equal(await names(`vdc_id=${a.id}`), ['et1']);
  assert.equal(await names('vdc=right'), ['et1', 'et2']);
  assert.equal(await names('vdc_identifier=11'), ['et1']);
  assert.equal(await names(`vdc_id__n=${a.id}`), ['et2']);
  assert.is((await app.get(`${VDCS}${b.id}/`)).interface_count, 2);
  assert.equal((await app.get(`${VDCS}?tenant_id=${tenant.id}`)).results.map((v: any) => v.id), [a.id]);
  assert.equal((await app.get(`${VDCS}?tenant=${tenant.slug}`)).results.map((v: any) => v.id), [a.id]);
  const cleared = await app.patch(`/api/dcim/interfaces/${i2.id}/`, { vdcs: [] });
  assert.equal(cleared.vdcs, []);
  assert.is((await app.get(`${VDCS}${b.id}/`)).interface_count, 1);
});

test.run();
