/**
 * IPAM tabs the schema declares, in a real Chromium: a VLAN's Device interfaces and VM interfaces
 * (the interfaces that carry it, untagged or tagged, each linked with its device or virtual machine),
 * a VRF's Import targets and Export targets, and a route target's Importing VRFs and Exporting VRFs;
 * each tab's rows are the API's answer to the same filter. axe-core on the tabs.
 */
import * as assert from 'uvu/assert';
import type { TestApp } from './helpers.js';
import { browserSuite, expectAccessible, login, type Browser } from './browser.js';

let app: TestApp;
let browser: Browser;
let base: string;
const f: Record<string, any> = {};
const { test } = browserSuite('web interface: VLAN and VRF tabs', async (s) => {
  ({ app, browser, base } = s);
  const site = await app.post('/api/dcim/sites/', { name: 'Amsterdam', slug: 'ams' });
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'Maker', slug: 'maker' });
  const type = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Switch', slug: 'switch' });
  const role = await app.post('/api/dcim/device-roles/', { name: 'Access', slug: 'access' });
  f.device = await app.post('/api/dcim/devices/', { name: 'sw1', device_type: type.id, role: role.id, site: site.id });
  f.vlans = await app.post('/api/ipam/vlans/', [{ vid: 10, name: 'users' }, { vid: 20, name: 'voice' }]);
  f.ifaces = await app.post('/api/dcim/interfaces/', [
    { device: f.device.id, name: 'ge-0/0/1', type: '1000base-t', mode: 'access', untagged_vlan: f.vlans[0].id },
    { device: f.device.id, name: 'ge-0/0/2', type: '1000base-t', mode: 'tagged', untagged_vlan: f.vlans[1].id, tagged_vlans: [f.vlans[0].id] },
    { device: f.device.id, name: 'ge-0/0/3', type: '1000base-t' },
  ]);
  const clusterType = await app.post('/api/virtualization/cluster-types/', { name: 'KVM', slug: 'kvm' });
  const cluster = await app.post('/api/virtualization/clusters/', { name: 'c1', type: clusterType.id });
  f.vm = await app.post('/api/virtualization/virtual-machines/', { name: 'vm1', cluster: cluster.id });
  f.vmIface = await app.post('/api/virtualization/interfaces/', { virtual_machine: f.vm.id, name: 'eth0', mode: 'access', untagged_vlan: f.vlans[0].id });
  f.targets = await app.post('/api/ipam/route-targets/', [{ name: '65000:1' }, { name: '65000:2' }]);
  f.vrf = await app.post('/api/ipam/vrfs/', { name: 'prod', rd: '65000:100', import_targets: [f.targets[0].id, f.targets[1].id], export_targets: [f.targets[0].id] });
  await login(browser.page, base);
});

const rowTexts = async () => (await browser.page.locator('main table tbody tr').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());

test("a VLAN's device and VM interfaces, untagged and tagged", async () => {
  const { page } = browser;
  const vlan = f.vlans[0];
  await page.goto(`${base}/ipam/vlans/${vlan.id}/`);
  const tab = page.locator(`.nl-tabs a[href="/ipam/vlans/${vlan.id}/interfaces/"]`);
  assert.match(await tab.innerText(), /Device interfaces\s*2/);
  await Promise.all([page.waitForURL(/\/interfaces\/$/), tab.click()]);
  const rows = await rowTexts();
  assert.is(rows.length, 2, rows.join(' / '));
  for (const i of f.ifaces.slice(0, 2)) assert.is(await page.locator(`main table a[href="/dcim/interfaces/${i.id}/"]`).count(), 1);
  assert.ok(await page.locator(`main table a[href="/dcim/devices/${f.device.id}/"]`).count() >= 1, 'the device is linked');
  const api = await app.get(`/api/dcim/interfaces/?vlan_id=${vlan.id}&limit=1`);
  assert.is(rows.length, api.count);
  await expectAccessible(page, "a VLAN's device interfaces");
  await page.goto(`${base}/ipam/vlans/${vlan.id}/vm-interfaces/`);
  assert.is((await rowTexts()).length, 1);
  assert.is(await page.locator(`main table a[href="/virtualization/interfaces/${f.vmIface.id}/"]`).count(), 1);
  assert.is(await page.locator(`main table a[href="/virtualization/virtual-machines/${f.vm.id}/"]`).count(), 1);
  // the voice VLAN: one interface (untagged), no VM interface, so no VM tab
  await page.goto(`${base}/ipam/vlans/${f.vlans[1].id}/`);
  assert.match(await page.locator(`.nl-tabs a[href="/ipam/vlans/${f.vlans[1].id}/interfaces/"]`).innerText(), /Device interfaces\s*1/);
  assert.is(await page.locator(`.nl-tabs a[href="/ipam/vlans/${f.vlans[1].id}/vm-interfaces/"]`).count(), 0);
});

test("a VRF's import and export targets; a route target's importing and exporting VRFs", async () => {
  const { page } = browser;
  await page.goto(`${base}/ipam/vrfs/${f.vrf.id}/`);
  assert.match(await page.locator(`.nl-tabs a[href="/ipam/vrfs/${f.vrf.id}/import-targets/"]`).innerText(), /Import targets\s*2/);
  await Promise.all([page.waitForURL(/\/export-targets\/$/), page.locator(`.nl-tabs a[href="/ipam/vrfs/${f.vrf.id}/export-targets/"]`).click()]);
  const rows = await rowTexts();
  assert.is(rows.length, 1, rows.join(' / '));
  assert.match(rows[0], /^65000:1\b/);
  assert.is(await page.locator(`main table a[href="/ipam/route-targets/${f.targets[0].id}/"]`).count(), 1);
  await expectAccessible(page, "a VRF's export targets");
  await page.goto(`${base}/ipam/route-targets/${f.targets[1].id}/importing-vrfs/`);
  assert.is((await rowTexts()).length, 1);
  assert.is(await page.locator(`main table a[href="/ipam/vrfs/${f.vrf.id}/"]`).count(), 1);
  assert.is(await page.locator(`.nl-tabs a[href="/ipam/route-targets/${f.targets[1].id}/exporting-vrfs/"]`).count(), 0, 'it exports to no VRF');
  await page.goto(`${base}/ipam/route-targets/${f.targets[0].id}/exporting-vrfs/`);
  assert.match((await rowTexts()).join(' '), /prod/);
});

test.run();
