/**
 * The Clone button in a real Chromium: an object page of a model with `clone` fields (NetBox's
 * clone_fields) links to the add form with those fields filled in from the object (relations,
 * choices, booleans), and the name left empty; saving creates a copy, checked through the API.
 * A model without clone fields has no button.
 */
import * as assert from 'uvu/assert';
import type { TestApp } from './helpers.js';
import { browserSuite, login, type Browser } from './browser.js';

let app: TestApp;
let browser: Browser;
let base: string;
const f: Record<string, any> = {};
const { test } = browserSuite('web interface: clone', async (s) => {
  ({ app, browser, base } = s);
  f.site = await app.post('/api/dcim/sites/', { name: 'Amsterdam', slug: 'ams' });
  f.rack = await app.post('/api/dcim/racks/', { name: 'R1', site: f.site.id });
  f.tenant = await app.post('/api/tenancy/tenants/', { name: 'Acme', slug: 'acme' });
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'Juniper', slug: 'juniper' });
  f.type = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'EX4300', slug: 'ex4300' });
  f.role = await app.post('/api/dcim/device-roles/', { name: 'Access switch', slug: 'access' });
  f.device = await app.post('/api/dcim/devices/', { name: 'ams-sw1', device_type: f.type.id, role: f.role.id, site: f.site.id, rack: f.rack.id, tenant: f.tenant.id, status: 'planned', face: 'front', position: 10 });
  f.iface = await app.post('/api/dcim/interfaces/', { device: f.device.id, name: 'ge-0/0/0', type: '1000base-t', mgmt_only: true });
  await login(browser.page, base);
});

test('a device clones its type, role, site, rack, tenant, face and status; the copy is saved', async () => {
  const { page } = browser;
  await page.goto(`${base}/dcim/devices/${f.device.id}/`);
  await Promise.all([page.waitForURL(/\/dcim\/devices\/add\/\?/), page.click('a:text-is("Clone")')]);
  assert.is(await page.locator('#field-name').inputValue(), '', 'the name is not copied');
  assert.is(await page.locator('#field-status').inputValue(), 'planned');
  assert.is(await page.locator('#field-face').inputValue(), 'front');
  for (const [field, id] of [['device_type', f.type.id], ['role', f.role.id], ['site', f.site.id], ['rack', f.rack.id], ['tenant', f.tenant.id]]) {
    assert.is(await page.locator(`#field-${field}`).inputValue(), String(id), field);
  }
  await page.fill('#field-name', 'ams-sw2');
  await Promise.all([page.waitForURL(/\/dcim\/devices\/\d+\/$/), page.click('button:has-text("Save")')]);
  const copy = (await app.get('/api/dcim/devices/?name=ams-sw2')).results[0];
  assert.equal([copy.device_type.id, copy.role.id, copy.site.id, copy.rack.id, copy.tenant.id, copy.status.value, copy.position], [f.type.id, f.role.id, f.site.id, f.rack.id, f.tenant.id, 'planned', null]);
});

test('an interface clones its device, type and the mgmt-only flag', async () => {
  const { page } = browser;
  await page.goto(`${base}/dcim/interfaces/${f.iface.id}/`);
  const href = await page.locator('a:text-is("Clone")').getAttribute('href');
  const query = new URLSearchParams(href!.split('?')[1]);
  assert.is(query.get('device'), String(f.device.id));
  assert.is(query.get('type'), '1000base-t');
  assert.is(query.get('mgmt_only'), 'true');
  assert.is(query.get('name'), null);
});

test('no clone fields, no button', async () => {
  const { page } = browser;
  await page.goto(`${base}/dcim/device-roles/${f.role.id}/`);
  assert.is(await page.locator('a:text-is("Clone")').count(), 0);
});

test.run();
