/**
 * The object pages' tabs in a real Chromium: a 48-port switch's interfaces tab (counts, the columns
 * by their labels, link peers and far ends as links), components added with a range pattern from the
 * tab's Add button, bulk rename and bulk disconnect; the config-context tab; a prefix's children and
 * a VLAN group's VLANs.
 * Results are checked through the API; axe-core on each page family. The README's device
 * screenshot is the interfaces tab (docs/screenshots/device.png, rewritten with UPDATE_SCREENSHOTS=1).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp, type TestApp } from './helpers.js';
import { expectAccessible, login, openBrowser, screenshot, type Browser } from './browser.js';

const test = suite('web interface: device tabs');
let app: TestApp;
let browser: Browser;
let base: string;
let sw: any;
let server: any;
let cable: any;
let prefix: any;
let group: any;

test.before(async () => {
  app = await startApp({ RUN_WORKER: '0' });
  base = app.url;
  browser = await openBrowser();
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'Juniper', slug: 'juniper' });
  const type = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'EX4300-48T', slug: 'ex4300-48t', u_height: 1 });
  const role = await app.post('/api/dcim/device-roles/', { name: 'Access switch', slug: 'access-switch' });
  const site = await app.post('/api/dcim/sites/', { name: 'Amsterdam', slug: 'ams' });
  sw = await app.post('/api/dcim/devices/', { name: 'ams-sw1', site: site.id, device_type: type.id, role: role.id });
  server = await app.post('/api/dcim/devices/', { name: 'ams-srv1', site: site.id, device_type: type.id, role: role.id });
  const ports = await app.post('/api/dcim/interfaces/', Array.from({ length: 48 }, (_, i) => ({ device: sw.id, name: `ge-0/0/${i}`, type: '1000base-t' })));
  const nic = await app.post('/api/dcim/interfaces/', { device: server.id, name: 'eth0', type: '1000base-t', mac_address: '00:11:22:33:44:55' });
  await app.post('/api/dcim/rear-ports/', { device: sw.id, name: 'rear1', type: '8p8c', positions: 1 });
  cable = await app.post('/api/dcim/cables/', { a_terminations: [{ object_type: 'dcim.interface', object_id: ports[0].id }], b_terminations: [{ object_type: 'dcim.interface', object_id: nic.id }], status: 'connected' });
  prefix = await app.post('/api/ipam/prefixes/', { prefix: '10.20.0.0/16' });
  await app.post('/api/ipam/prefixes/', [{ prefix: '10.20.1.0/24' }, { prefix: '10.20.2.0/24' }, { prefix: '10.30.0.0/24' }]);
  await app.post('/api/ipam/ip-addresses/', [{ address: '10.20.1.1/24' }, { address: '10.20.1.2/24' }, { address: '10.30.0.1/24' }]);
  group = await app.post('/api/ipam/vlan-groups/', { name: 'Campus', slug: 'campus' });
  await app.post('/api/ipam/vlans/', [{ vid: 10, name: 'users', group: group.id }, { vid: 20, name: 'voice', group: group.id }, { vid: 30, name: 'other' }]);
  await login(browser.page, base);
});

test.after(async () => {
  await browser?.close();
  await app?.stop();
});

test('a device shows a tab per component kind with its count; the interface table links peers and far ends', async () => {
  const { page } = browser;
  await page.goto(`${base}/dcim/devices/${sw.id}/`);
  const tabs = await page.locator('.nl-tabs a').allInnerTexts();
  assert.ok(tabs.some((t) => /Interfaces\s*48/.test(t)), tabs.join('|'));
  assert.ok(tabs.some((t) => /Rear ports\s*1/.test(t)), tabs.join('|'));
  assert.not.ok(tabs.some((t) => /Front ports/.test(t)), 'a kind the device has none of gets no tab');
  await Promise.all([page.waitForURL(/\/interfaces\/$/), page.click('.nl-tabs a:has-text("Interfaces")')]);
  const headers = (await page.locator('table[aria-label="Interfaces"] thead th').allTextContents()).map((h) => h.trim());
  for (const h of ['Name', 'Type', 'Enabled', 'Parent LAG', '802.1Q Mode', 'Untagged VLAN', 'Tagged VLANs', 'MAC address', 'Cable', 'Link peers', 'Connected endpoints', 'Description']) {
    assert.ok(headers.includes(h), `column ${h} in ${headers.join('|')}`);
  }
  assert.not.ok(headers.includes('Device'), 'the device column is left out of its own tab');
  assert.is(await page.locator('table[aria-label="Interfaces"] tbody tr').count(), 48);
  const first = page.locator('table[aria-label="Interfaces"] tbody tr').first();
  const peer = first.locator('td:nth-child(13) a').last();
  assert.match(await first.locator('td:nth-child(13)').innerText(), /ams-srv1.*eth0/);
  assert.is(await first.locator('td:nth-child(13) a').first().getAttribute('href'), `/dcim/devices/${server.id}/`, 'the peer\'s device is a link too');
  assert.is(await peer.innerText(), 'eth0');
  const href = await peer.getAttribute('href');
  assert.match(href!, /^\/dcim\/interfaces\/\d+\/$/);
  assert.match(await first.locator(`a[href="/dcim/cables/${cable.id}/"]`).innerText(), /\S/);
  await expectAccessible(page, 'the interfaces tab');
  await screenshot(page, 'device');
  await page.goto(`${base}/dcim/devices/${sw.id}/power-ports/`);
  assert.is(await page.locator('table[aria-label="Power ports"] tbody tr td').first().innerText(), 'None.');
  assert.is((await page.goto(`${base}/dcim/devices/${sw.id}/no-such-tab/`))!.status(), 404);
});

test('a device\'s config-context tab shows its rendered context and its local context', async () => {
  const { page } = browser;
  await app.post('/api/extras/config-contexts/', { name: 'ams-ntp', weight: 100, sites: [sw.site.id], data: { ntp: ['10.0.0.1'], syslog: 'ams' } });
  await app.api('PATCH', `/api/dcim/devices/${sw.id}/`, { local_context_data: { syslog: 'local', snmp: { community: 'ro' } } });
  await page.goto(`${base}/dcim/devices/${sw.id}/`);
  await Promise.all([page.waitForURL(/\/config-context\/$/), page.click('.nl-tabs a:has-text("Config context")')]);
  const rendered = JSON.parse(await page.locator('#rendered-context').innerText());
  const device = await app.get(`/api/dcim/devices/${sw.id}/`);
  assert.equal(rendered, device.config_context);
  assert.equal(rendered, { ntp: ['10.0.0.1'], syslog: 'local', snmp: { community: 'ro' } }, 'the local context wins over the site\'s');
  assert.equal(JSON.parse(await page.locator('#local-context').innerText()), { syslog: 'local', snmp: { community: 'ro' } });
  await expectAccessible(page, 'the config-context tab');
  assert.is((await page.goto(`${base}/dcim/sites/${sw.site.id}/config-context/`))!.status(), 404, 'a model without a config context has no such tab');
});

test('interfaces added with range patterns from the tab, the device filled in and the type chosen', async () => {
  const { page } = browser;
  await page.goto(`${base}/dcim/devices/${sw.id}/interfaces/`);
  await Promise.all([page.waitForURL(/\/dcim\/interfaces\/add\//), page.click('a:has-text("Add Interfaces")')]);
  assert.is(await page.locator('#field-device').inputValue(), String(sw.id), 'the device is filled in');
  assert.is(await page.locator('#field-type').inputValue(), '', 'the required type starts empty');
  await page.fill('#field-name', '[ge,xe]-1/0/[0-3]');
  await page.locator('#field-type').selectOption('10gbase-x-sfpp');
  await Promise.all([page.waitForURL(new RegExp(`/dcim/devices/${sw.id}/interfaces/$`)), page.click('button:has-text("Save")')]);
  const made = await app.get(`/api/dcim/interfaces/?device_id=${sw.id}&name__ic=${encodeURIComponent("e-1/0/")}&limit=50`);
  assert.equal(made.results.map((i: any) => i.name).sort(), ['ge-1/0/0', 'ge-1/0/1', 'ge-1/0/2', 'ge-1/0/3', 'xe-1/0/0', 'xe-1/0/1', 'xe-1/0/2', 'xe-1/0/3']);
  assert.ok(made.results.every((i: any) => i.type.value === '10gbase-x-sfpp'));
  // A bad pattern is refused next to its field, and nothing is created.
  await page.goto(`${base}/dcim/interfaces/add/?device=${sw.id}`);
  await page.fill('#field-name', 'et-[3-1]');
  await page.locator('#field-type').selectOption('virtual');
  await page.click('button:has-text("Save")');
  assert.match(await page.locator('#field-name-error').innerText(), /runs backwards/);
  assert.is((await app.get(`/api/dcim/interfaces/?device_id=${sw.id}&limit=1`)).count, 56);
});

test('bulk rename and bulk disconnect from the interfaces tab', async () => {
  const { page } = browser;
  await page.goto(`${base}/dcim/devices/${sw.id}/interfaces/`);
  for (const name of ['xe-1/0/0', 'xe-1/0/1']) await page.locator(`input[aria-label="Select ${name}"]`).check();
  await page.click('button:has-text("Rename selected")');
  await page.fill('#rename-find', 'xe-');
  await page.fill('#rename-replace', 'et-');
  await page.click('button:has-text("Preview")');
  assert.match(await page.locator('table[aria-label="New names"]').innerText(), /et-1\/0\/0/);
  await Promise.all([page.waitForURL(/\/interfaces\/$/), page.click('button:has-text("Rename")')]);
  const renamed = await app.get(`/api/dcim/interfaces/?device_id=${sw.id}&name__isw=et-&limit=10`);
  assert.equal(renamed.results.map((i: any) => i.name), ['et-1/0/0', 'et-1/0/1']);
  await page.locator('input[aria-label="Select ge-0/0/0"]').check();
  await page.click('button:has-text("Disconnect selected")');
  assert.match(await page.locator('main').innerText(), /ge-0\/0\/0/);
  await Promise.all([page.waitForURL(/\/interfaces\/$/), page.click('button:has-text("Disconnect")')]);
  assert.is((await app.api('GET', `/api/dcim/cables/${cable.id}/`)).status, 404, 'the cable is gone');
});

test('a prefix lists its child prefixes and addresses; a VLAN group its VLANs', async () => {
  const { page } = browser;
  await page.goto(`${base}/ipam/prefixes/${prefix.id}/`);
  const tabs = await page.locator('.nl-tabs a').allInnerTexts();
  assert.ok(tabs.some((t) => /Child prefixes\s*2/.test(t)), tabs.join('|'));
  assert.ok(tabs.some((t) => /IP addresses\s*2/.test(t)), tabs.join('|'));
  await page.goto(`${base}/ipam/prefixes/${prefix.id}/prefixes/`);
  assert.equal(await page.locator('table[aria-label="Child prefixes"] tbody tr:not(.nl-free) td:nth-child(2)').allInnerTexts(), ['10.20.1.0/24', '10.20.2.0/24']);
  await page.goto(`${base}/ipam/prefixes/${prefix.id}/ip-addresses/`);
  assert.equal(await page.locator('table[aria-label="IP addresses"] tbody tr:not(.nl-free) td:nth-child(2)').allInnerTexts(), ['10.20.1.1/24', '10.20.1.2/24']);
  await page.goto(`${base}/ipam/vlan-groups/${group.id}/vlans/`);
  const vlans = await page.locator('table[aria-label="VLANs"] tbody tr:not(.nl-free) td:nth-child(2) a').allInnerTexts();
  assert.is(vlans.length, 2, vlans.join('|'));
  await expectAccessible(page, 'a VLAN group\'s VLANs');
});

test.run();
