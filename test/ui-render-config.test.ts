/**
 * The render-config tab in a real Chromium: a device whose role names a config template, and a
 * virtual machine whose platform does, show the template (linked), its output (the same text the
 * API's /render-config/ answers) and the config context; the Download link serves the bare text.
 * An object without a template, and a template that fails, show the reason instead of the output.
 * axe-core on the tab.
 */
import * as assert from 'uvu/assert';
import { browserSuite, expectAccessible, login } from './browser.js';

const f: Record<string, any> = {};
const { test, s } = browserSuite('web interface: render-config tab', async ({ app, browser, base }) => {
  f.site = await app.post('/api/dcim/sites/', { name: 'Utrecht', slug: 'utr' });
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'Arista', slug: 'arista' });
  f.type = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: '7050SX', slug: '7050sx' });
  f.template = await app.post('/api/extras/config-templates/', { name: 'leaf base', template_code: 'hostname {{ device.name }}\nntp server {{ ntp }}\n' });
  f.role = await app.post('/api/dcim/device-roles/', { name: 'Leaf', slug: 'leaf', config_template: f.template.id });
  f.plainRole = await app.post('/api/dcim/device-roles/', { name: 'Spare', slug: 'spare' });
  f.device = await app.post('/api/dcim/devices/', { name: 'utr-leaf1', site: f.site.id, device_type: f.type.id, role: f.role.id });
  f.bare = await app.post('/api/dcim/devices/', { name: 'utr-spare1', site: f.site.id, device_type: f.type.id, role: f.plainRole.id });
  await app.post('/api/extras/config-contexts/', { name: 'utr-ntp', weight: 100, sites: [f.site.id], data: { ntp: '10.9.0.1' } });
  f.vmTemplate = await app.post('/api/extras/config-templates/', { name: 'vm base', template_code: 'vm {{ virtualmachine.name }} at {{ virtualmachine.site.slug }}' });
  f.platform = await app.post('/api/dcim/platforms/', { name: 'Linux', slug: 'linux', config_template: f.vmTemplate.id });
  f.vm = await app.post('/api/virtualization/virtual-machines/', { name: 'utr-vm1', site: f.site.id, platform: f.platform.id });
  await login(browser.page, base);
});

test('a device\'s tab shows its role\'s template, the output the API renders, and the context', async () => {
  const { page } = s.browser;
  await page.goto(`${s.base}/dcim/devices/${f.device.id}/`);
  await Promise.all([page.waitForURL(/\/render-config\/$/), page.click('.nl-tabs a:has-text("Render config")')]);
  const api = await s.app.api('POST', `/api/dcim/devices/${f.device.id}/render-config/`, {});
  assert.match(api.body.content, /^hostname utr-leaf1\nntp server 10\.9\.0\.1\n?$/);
  assert.is(await page.locator('#rendered-config').textContent(), api.body.content);
  assert.is(await page.locator(`#render-template a[href="/extras/config-templates/${f.template.id}/"]`).innerText(), 'leaf base');
  assert.equal(JSON.parse((await page.locator('#render-context').textContent())!), { ntp: '10.9.0.1' });
  await expectAccessible(page, 'the render-config tab');
  const download = await page.request.get(`${s.base}/dcim/devices/${f.device.id}/render-config/?export=1`);
  assert.is(download.status(), 200);
  assert.match(download.headers()['content-type'], /^text\/plain/);
  assert.match(download.headers()['content-disposition'], /attachment; filename="utr-leaf1\.txt"/);
  assert.is(await download.text(), api.body.content);
});

test('a virtual machine\'s tab renders its platform\'s template', async () => {
  const { page } = s.browser;
  await page.goto(`${s.base}/virtualization/virtual-machines/${f.vm.id}/`);
  await Promise.all([page.waitForURL(/\/render-config\/$/), page.click('.nl-tabs a:has-text("Render config")')]);
  assert.is(await page.locator('#rendered-config').textContent(), 'vm utr-vm1 at utr');
  assert.is(await page.locator(`#render-template a[href="/extras/config-templates/${f.vmTemplate.id}/"]`).innerText(), 'vm base');
});

test('no template, or a failing template, is a readable message on a 200 page', async () => {
  const { page } = s.browser;
  const none = await page.goto(`${s.base}/dcim/devices/${f.bare.id}/render-config/`);
  assert.is(none!.status(), 200);
  assert.match(await page.locator('#render-error').innerText(), /No config template found for this device\./);
  assert.is(await page.locator('#rendered-config').count(), 0);
  await s.app.patch(`/api/extras/config-templates/${f.template.id}/`, { template_code: 'hostname {{ device.name | no_such_filter }}' });
  const failing = await page.goto(`${s.base}/dcim/devices/${f.device.id}/render-config/`);
  assert.is(failing!.status(), 200);
  const api = await s.app.api('POST', `/api/dcim/devices/${f.device.id}/render-config/`, {});
  assert.is(api.status, 400);
  const text = await page.locator('#render-error').innerText();
  assert.match(text, /no_such_filter/);
  assert.ok(text.includes(api.body.detail ?? Object.values(api.body).flat().join(' ')), 'the API\'s own message');
  await expectAccessible(page, 'a render-config tab with an error');
  assert.is((await page.goto(`${s.base}/dcim/sites/${f.site.id}/render-config/`))!.status(), 404, 'a model without the action has no such tab');
});

test.run();
