/**
 * NetBox 4.6's enabled device bays and module bays: `enabled` (also on their templates, copied to the
 * bays a device gets), `_occupied` (a device or module in it, or the bay disabled), the 4.6 brief
 * forms, and a disabled bay taking no new device or module. 3.7 shows the bays as before.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';

interface World { site: any; role: any; parentType: any; childType: any; moduleType: any }
const test = suite<{ app: TestApp; w: World }>('api-v46-bays');

test.before(async (ctx) => {
  ctx.app = await startApp({ RUN_WORKER: '0' });
  const { app } = ctx;
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'Bay Maker', slug: 'bay-maker' });
  const site = await app.post('/api/dcim/sites/', { name: 'Bay Site', slug: 'bay-site' });
  const role = await app.post('/api/dcim/device-roles/', { name: 'Bay Role', slug: 'bay-role' });
  const parentType = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Chassis', slug: 'chassis', subdevice_role: 'parent' });
  const childType = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Blade', slug: 'blade', subdevice_role: 'child', u_height: 0 });
  const moduleType = await app.post('/api/dcim/module-types/', { manufacturer: maker.id, model: 'Line card' });
  ctx.w = { site, role, parentType, childType, moduleType };
});
test.after(async ({ app }) => { await app.stop(); });

let n = 0;
const device = (app: TestApp, w: World, type: any, extra: Record<string, unknown> = {}) => { n++; return app.post('/api/dcim/devices/', { name: `bay-dev-${n}`, device_type: type.id, role: w.role.id, site: w.site.id, ...extra }); };

test('templates carry enabled to the bays a device gets; 4.6 shows enabled and _occupied, 3.7 neither', async ({ app, w }) => {
  const on = await app.post('/v4.6/api/dcim/device-bay-templates/', { device_type: w.parentType.id, name: 'Slot 1' });
  const off = await app.post('/v4.6/api/dcim/device-bay-templates/', { device_type: w.parentType.id, name: 'Slot 2', enabled: false });
  assert.equal([on.enabled, off.enabled], [true, false]);
  const brief = await app.get(`/v4.6/api/dcim/device-bay-templates/${off.id}/?brief=1`);
  assert.equal(Object.keys(brief), ['id', 'url', 'display', 'name', 'enabled', 'description']);
  assert.not.ok('enabled' in await app.get(`/v3.7/api/dcim/device-bay-templates/${off.id}/`), '3.7 template has no enabled');
  const mbt = await app.post('/v4.6/api/dcim/module-bay-templates/', { device_type: w.parentType.id, name: 'Card 1', enabled: false });
  assert.equal(Object.keys(await app.get(`/v4.6/api/dcim/module-bay-templates/${mbt.id}/?brief=1`)), ['id', 'url', 'display', 'name', 'enabled', 'description']);

  const chassis = await device(app, w, w.parentType);
  const bays = (await app.get(`/v4.6/api/dcim/device-bays/?device_id=${chassis.id}&ordering=name`)).results;
  assert.equal(bays.map((b: any) => [b.name, b.enabled, b._occupied]), [['Slot 1', true, false], ['Slot 2', false, true]], 'a disabled bay counts as occupied');
  const cards = (await app.get(`/v4.6/api/dcim/module-bays/?device_id=${chassis.id}`)).results;
  assert.equal(cards.map((b: any) => [b.name, b.enabled, b._occupied]), [['Card 1', false, true]]);
  assert.equal(Object.keys(await app.get(`/v4.6/api/dcim/device-bays/${bays[0].id}/?brief=1`)), ['id', 'url', 'display', 'device', 'name', 'enabled', 'description', '_occupied']);
  assert.equal(Object.keys(await app.get(`/v4.6/api/dcim/module-bays/${cards[0].id}/?brief=1`)), ['id', 'url', 'display', 'installed_module', 'name', 'enabled', 'description', '_occupied']);
  const old = await app.get(`/v3.7/api/dcim/device-bays/${bays[1].id}/`);
  assert.not.ok('enabled' in old || '_occupied' in old, '3.7 device bay as before');
  assert.equal((await app.get(`/v4.6/api/dcim/device-bays/?device_id=${chassis.id}&enabled=false`)).results.map((b: any) => b.name), ['Slot 2']);
});

test('a disabled device bay takes no new device; one already in it stays', async ({ app, w }) => {
  const chassis = await device(app, w, w.parentType);
  const [slot1, slot2] = (await app.get(`/v4.6/api/dcim/device-bays/?device_id=${chassis.id}&ordering=name`)).results;
  const blade = await device(app, w, w.childType);
  const refused = await app.api('PATCH', `/v4.6/api/dcim/device-bays/${slot2.id}/`, { installed_device: blade.id });
  expectStatus(refused, 400);
  assert.match(String(refused.body.installed_device), /disabled device bay/);
  const installed = await app.patch(`/v4.6/api/dcim/device-bays/${slot1.id}/`, { installed_device: blade.id });
  assert.equal([installed.installed_device.id, installed._occupied], [blade.id, true]);
  // disabling a bay with a device in it keeps the device; saving it again is fine
  const disabled = await app.patch(`/v4.6/api/dcim/device-bays/${slot1.id}/`, { enabled: false });
  assert.equal([disabled.enabled, disabled.installed_device.id], [false, blade.id]);
  expectStatus(await app.api('PATCH', `/v4.6/api/dcim/device-bays/${slot1.id}/`, { description: 'kept' }), 200);
  // through 3.7 too, a disabled bay refuses a new device
  const other = await device(app, w, w.childType);
  expectStatus(await app.api('PATCH', `/v3.7/api/dcim/device-bays/${slot2.id}/`, { installed_device: other.id }), 400);
});

test('a disabled module bay takes no module; ?fields=_occupied sees an installed module', async ({ app, w }) => {
  const host = await device(app, w, w.parentType);
  const card = (await app.get(`/v4.6/api/dcim/module-bays/?device_id=${host.id}`)).results[0];
  const refused = await app.api('POST', '/v4.6/api/dcim/modules/', { device: host.id, module_bay: card.id, module_type: w.moduleType.id });
  expectStatus(refused, 400);
  assert.match(String(refused.body.module_bay), /disabled module bay/);
  await app.patch(`/v4.6/api/dcim/module-bays/${card.id}/`, { enabled: true });
  assert.is((await app.get(`/v4.6/api/dcim/module-bays/${card.id}/`))._occupied, false);
  const module = await app.post('/v4.6/api/dcim/modules/', { device: host.id, module_bay: card.id, module_type: w.moduleType.id });
  const only = await app.get(`/v4.6/api/dcim/module-bays/${card.id}/?fields=_occupied`);
  assert.equal(only, { _occupied: true });
  // a module already in a bay that is then disabled stays, and can be saved
  await app.patch(`/v4.6/api/dcim/module-bays/${card.id}/`, { enabled: false });
  expectStatus(await app.api('PATCH', `/v4.6/api/dcim/modules/${module.id}/`, { serial: 'SN1' }), 200);
});

test.run();
