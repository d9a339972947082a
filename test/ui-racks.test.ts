/**
 * In a real Chromium: a device type from the device-type library's YAML (manufacturer by name,
 * component lists) imported through /dcim/device-types/import/ with all its templates, a faulty one
 * refused whole with the line named; a rack's page with its front and rear elevations as inline SVG,
 * devices as linked boxes. Checked through the API; axe-core on both pages.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp, type TestApp } from './helpers.js';
import { expectAccessible, login, openBrowser, screenshot, type Browser } from './browser.js';

const test = suite('web interface: device types and racks');
let app: TestApp;
let browser: Browser;
let base: string;

const LIBRARY_YAML = `---
manufacturer: Juniper
model: EX4300-48T
slug: juniper-ex4300-48t
part_number: EX4300-48T
u_height: 1
is_full_depth: true
airflow: front-to-rear
comments: '[Juniper EX4300 datasheet](https://www.juniper.net/)'
console-ports:
  - name: Console
    type: rj-45
power-ports:
  - name: PSU0
    type: iec-60320-c14
    maximum_draw: 350
  - name: PSU1
    type: iec-60320-c14
    maximum_draw: 350
interfaces:
${Array.from({ length: 48 }, (_, i) => `  - name: ge-0/0/${i}\n    type: 1000base-t`).join('\n')}
  - name: em0
    type: 1000base-t
    mgmt_only: true
rear-ports:
  - name: Rear 1
    type: 8p8c
front-ports:
  - name: Front 1
    type: 8p8c
    rear_port: Rear 1
`;

test.before(async () => {
  app = await startApp({ RUN_WORKER: '0' });
  base = app.url;
  browser = await openBrowser();
  await app.post('/api/dcim/manufacturers/', { name: 'Juniper', slug: 'juniper' });
  await login(browser.page, base);
});

test.after(async () => {
  await browser?.close();
  await app?.stop();
});

test('a faulty library file imports nothing and names the line; the right one imports with every template', async () => {
  const { page } = browser;
  await page.goto(`${base}/dcim/device-types/import/`);
  const bad = LIBRARY_YAML.replace('  - name: ge-0/0/7\n    type: 1000base-t', '  - name: ge-0/0/7\n    type: warp-drive');
  await page.fill('textarea[name=data]', bad);
  await page.click('button:has-text("Import")');
  const errors = await page.locator('table[aria-label="Row errors"] tbody').innerText();
  const line = bad.split('\n').findIndex((l) => l.includes('warp-drive')) + 1;
  assert.match(errors, /interfaces 8: type/);
  assert.ok(errors.includes(`(line ${line})`), errors);
  assert.is((await app.get('/api/dcim/device-types/?slug=juniper-ex4300-48t')).count, 0, 'all or nothing');
  await page.fill('textarea[name=data]', LIBRARY_YAML);
  await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Import")')]);
  await page.waitForSelector('h1');
  assert.match(page.url(), /\/dcim\/device-types\/\?id=/, await page.locator('main').innerText());
  const [type] = (await app.get('/api/dcim/device-types/?slug=juniper-ex4300-48t')).results;
  assert.is(type.manufacturer.name, 'Juniper');
  const count = async (path: string) => (await app.get(`/api/dcim/${path}/?device_type_id=${type.id}&limit=1`)).count;
  assert.is(await count('interface-templates'), 49);
  assert.is(await count('console-port-templates'), 1);
  assert.is(await count('power-port-templates'), 2);
  const [front] = (await app.get(`/api/dcim/front-port-templates/?device_type_id=${type.id}`)).results;
  assert.is(front.rear_port.name, 'Rear 1', 'the front port names its rear port, found within the new type');
  await page.goto(`${base}/dcim/device-types/${type.id}/interfaces/`);
  assert.is(await page.locator('table[aria-label="Interface templates"] tbody tr').count(), 49);
  await expectAccessible(page, 'a device type\'s interface templates');
});

test('a rack page draws its front and rear elevations, devices linked', async () => {
  const { page } = browser;
  const site = await app.post('/api/dcim/sites/', { name: 'Rack site', slug: 'rack-site' });
  const rack = await app.post('/api/dcim/racks/', { name: 'R42', site: site.id, u_height: 42 });
  const [type] = (await app.get('/api/dcim/device-types/?slug=juniper-ex4300-48t')).results;
  const role = await app.post('/api/dcim/device-roles/', { name: 'Switch', slug: 'switch' });
  const devices = await app.post('/api/dcim/devices/', [40, 38, 1].map((u, i) => ({ name: `r42-sw${i + 1}`, site: site.id, rack: rack.id, position: u, face: 'front', device_type: type.id, role: role.id })));
  await page.goto(`${base}/dcim/racks/${rack.id}/`);
  const figures = page.locator('.nl-elevation');
  assert.is(await figures.count(), 2);
  assert.equal(await page.locator('.nl-elevation figcaption').allInnerTexts(), ['Front', 'Rear']);
  const front = figures.first().locator('svg');
  for (const d of devices) assert.is(await front.locator(`a[href="/dcim/devices/${d.id}/"]`).count(), 1, d.name);
  assert.match(await front.locator(`a[href="/dcim/devices/${devices[0].id}/"]`).textContent() ?? '', /r42-sw1/);
  await Promise.all([page.waitForURL(new RegExp(`/dcim/devices/${devices[1].id}/$`)), front.locator(`a[href="/dcim/devices/${devices[1].id}/"] rect`).click()]);
  await page.goto(`${base}/dcim/racks/${rack.id}/`);
  await expectAccessible(page, 'a rack page');
  await screenshot(page, 'rack');
});

test.run();
