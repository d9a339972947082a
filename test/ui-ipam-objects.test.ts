/**
 * IPAM object pages in a real Chromium. An IP address's page: its assignment (device and interface,
 * or virtual machine and VM interface, linked), NAT inside and outside, the other IP addresses with
 * the same address in its VRF (and not those of another VRF), its parent prefixes (its VRF's only)
 * with their utilization, the other addresses of its VRF in its network, its VRF and role. An aggregate's utilization (the share its prefixes of
 * every VRF cover) and its prefixes tab with the free space as rows that open the prefix form; an IP
 * range's utilization (the share of its addresses assigned); the lists of all three with a utilization
 * bar per row. Results checked through the API;
 * axe-core on each page.
 */
import * as assert from 'uvu/assert';
import type { TestApp } from './helpers.js';
import { browserSuite, expectAccessible, login, screenshot, type Browser } from './browser.js';

let app: TestApp;
let browser: Browser;
let base: string;
const f: Record<string, any> = {};
const { test } = browserSuite('web interface: IP address, aggregate and IP range pages', async (s) => {
  ({ app, browser, base } = s);
  f.site = await app.post('/api/dcim/sites/', { name: 'Amsterdam', slug: 'ams' });
  const manufacturer = await app.post('/api/dcim/manufacturers/', { name: 'Juniper', slug: 'juniper' });
  const type = await app.post('/api/dcim/device-types/', { manufacturer: manufacturer.id, model: 'EX4300-48T', slug: 'ex4300-48t' });
  const role = await app.post('/api/dcim/device-roles/', { name: 'Access switch', slug: 'access-switch' });
  f.device = await app.post('/api/dcim/devices/', { name: 'ams-sw1', device_type: type.id, role: role.id, site: f.site.id });
  f.iface = await app.post('/api/dcim/interfaces/', { device: f.device.id, name: 'ge-0/0/1', type: '1000base-t' });
  const clusterType = await app.post('/api/virtualization/cluster-types/', { name: 'KVM', slug: 'kvm' });
  const cluster = await app.post('/api/virtualization/clusters/', { name: 'ams-kvm', type: clusterType.id });
  f.vm = await app.post('/api/virtualization/virtual-machines/', { name: 'web1', cluster: cluster.id });
  f.vmif = await app.post('/api/virtualization/interfaces/', { virtual_machine: f.vm.id, name: 'eth0' });
  f.vrf = await app.post('/api/ipam/vrfs/', { name: 'prod', enforce_unique: false });
  f.other = await app.post('/api/ipam/vrfs/', { name: 'lab' });
  f.rir = await app.post('/api/ipam/rirs/', { name: 'RFC 1918', slug: 'rfc-1918', is_private: true });
  f.aggregate = await app.post('/api/ipam/aggregates/', { prefix: '10.0.0.0/22', rir: f.rir.id });
  f.lan = await app.post('/api/ipam/prefixes/', { prefix: '10.0.0.0/24', vrf: f.vrf.id, site: f.site.id });
  f.mgmt = await app.post('/api/ipam/prefixes/', { prefix: '10.0.0.0/26', vrf: f.vrf.id });
  f.global = await app.post('/api/ipam/prefixes/', { prefix: '10.0.2.0/24' });
  f.lab = await app.post('/api/ipam/prefixes/', { prefix: '10.0.0.0/25', vrf: f.other.id });
  const ip = (address: string, extra: Record<string, unknown> = {}) => app.post('/api/ipam/ip-addresses/', { address, vrf: f.vrf.id, ...extra });
  f.ip = await ip('10.0.0.10/24', { role: 'loopback', assigned_object_type: 'dcim.interface', assigned_object_id: f.iface.id });
  f.dup = await ip('10.0.0.10/26', { status: 'reserved', assigned_object_type: 'virtualization.vminterface', assigned_object_id: f.vmif.id });
  f.labIp = await app.post('/api/ipam/ip-addresses/', { address: '10.0.0.10/24', vrf: f.other.id });
  f.outside = await app.post('/api/ipam/ip-addresses/', { address: '192.0.2.10/32', nat_inside: f.ip.id });
  f.range = await app.post('/api/ipam/ip-ranges/', { start_address: '10.0.0.100/24', end_address: '10.0.0.109/24', vrf: f.vrf.id });
  await ip('10.0.0.100/24');
  await ip('10.0.0.105/24');
  await ip('10.0.0.105/26');
  // of another VRF: not in the range's count
  await app.post('/api/ipam/ip-addresses/', { address: '10.0.0.106/24' });
  await login(browser.page, base);
});

const fieldRow = (label: string) => `table[aria-label="Fields"] tr:has(th:text-is("${label}")) td`;

test('IP address: assignment, NAT, duplicates of its VRF, parent prefixes, related addresses, VRF and role', async () => {
  const { page } = browser;
  await page.goto(`${base}/ipam/ip-addresses/${f.ip.id}/`);
  const assigned = page.locator(fieldRow('Assigned object'));
  assert.is(await assigned.locator(`a[href="/dcim/devices/${f.device.id}/"]`).innerText(), 'ams-sw1');
  assert.is(await assigned.locator(`a[href="/dcim/interfaces/${f.iface.id}/"]`).innerText(), 'ge-0/0/1');
  assert.is(await page.locator(fieldRow('Assigned object type')).count(), 0, 'the relation shows as its object, not its type and id');
  assert.is(await page.locator(`${fieldRow('VRF')} a[href="/ipam/vrfs/${f.vrf.id}/"]`).innerText(), 'prod');
  assert.match(await page.locator(fieldRow('Role')).innerText(), /Loopback/);
  assert.is(await page.locator(`${fieldRow('NAT (outside)')} a[href="/ipam/ip-addresses/${f.outside.id}/"]`).innerText(), '192.0.2.10/32');

  const dups = page.locator('table[aria-label="Duplicate IP addresses"]');
  assert.is(await dups.locator('tbody tr').count(), 1, 'one duplicate: the lab VRF\'s address is not one');
  const dup = dups.locator('tbody tr').first();
  assert.is(await dup.locator(`a[href="/ipam/ip-addresses/${f.dup.id}/"]`).innerText(), '10.0.0.10/26');
  assert.is(await dup.locator(`a[href="/virtualization/virtual-machines/${f.vm.id}/"]`).innerText(), 'web1');
  assert.is(await dup.locator(`a[href="/virtualization/interfaces/${f.vmif.id}/"]`).innerText(), 'eth0');
  assert.match(await dup.innerText(), /Reserved/);
  assert.match(await page.locator('.card:has(table[aria-label="Duplicate IP addresses"]) .card-title').innerText(), /Duplicate IP addresses \(1\)/);

  const parents = page.locator('table[aria-label="Parent prefixes"]');
  const headers = (await parents.locator('thead th').allTextContents()).map((h) => h.trim());
  assert.equal(headers.slice(0, 2), ['Prefix', 'Status']);
  assert.ok(headers.includes('Utilization'), headers.join(','));
  const texts = (await parents.locator('tbody tr').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
  assert.is(texts.length, 2, texts.join(' | '));
  assert.ok(texts[0].startsWith('10.0.0.0/24') && texts[1].startsWith('10.0.0.0/26'), texts.join(' | '));
  assert.is(await parents.locator(`a[href="/dcim/sites/${f.site.id}/"]`).count(), 1, 'objects in cells are links');
  // the /24's prod addresses: 10.0.0.10 and the range's ten (.100 and .105 inside it), 11 of 254 usable
  assert.match(texts[0], /4\.3%/);
  // its VRF's other addresses in 10.0.0.0/24: not itself, not its duplicate, not another VRF's
  const related = page.locator('table[aria-label="Related IP addresses"] tbody tr');
  assert.equal((await related.locator('td:first-child a').allInnerTexts()).sort(), ['10.0.0.100/24', '10.0.0.105/24', '10.0.0.105/26']);
  await expectAccessible(page, 'an IP address');
  await screenshot(page, 'ip-address');

  // the NAT outside address points back at its inside one; the lab address has no duplicate
  await page.goto(`${base}/ipam/ip-addresses/${f.outside.id}/`);
  assert.is(await page.locator(`${fieldRow('NAT (inside)')} a[href="/ipam/ip-addresses/${f.ip.id}/"]`).innerText(), '10.0.0.10/24');
  assert.match(await page.locator('table[aria-label="Parent prefixes"] tbody').innerText(), /No prefix of its VRF contains this address/);
  assert.match(await page.locator('table[aria-label="Related IP addresses"] tbody').innerText(), /No other address of its VRF in 192\.0\.2\.10\/32/);
  await page.goto(`${base}/ipam/ip-addresses/${f.labIp.id}/`);
  assert.is(await page.locator('table[aria-label="Duplicate IP addresses"]').count(), 0);
  assert.equal((await page.locator('table[aria-label="Parent prefixes"] tbody tr a').allInnerTexts()), ['10.0.0.0/25']);
});

test('aggregate: utilization by its prefixes of every VRF, its prefixes with the free space as rows', async () => {
  const { page } = browser;
  await page.goto(`${base}/ipam/aggregates/${f.aggregate.id}/`);
  // 10.0.0.0/24 (prod), 10.0.0.0/25 (lab) and 10.0.2.0/24 (global) cover 512 of 1024 addresses
  assert.is(await page.locator('[data-utilization]').getAttribute('data-utilization'), '50');
  assert.match(await page.locator('[data-utilization]').innerText(), /50%/);
  await expectAccessible(page, 'an aggregate');
  await page.goto(`${base}/ipam/aggregates/${f.aggregate.id}/prefixes/`);
  const table = page.locator('table[aria-label="Prefixes"]');
  const headers = (await table.locator('thead th').allTextContents()).map((h) => h.trim());
  assert.ok(headers.includes('Prefix') && headers.includes('Utilization'), headers.join(','));
  const texts = (await table.locator('tbody tr').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
  const expected = ['10.0.0.0/24', '10.0.0.0/25', '10.0.0.0/26', '10.0.1.0/24 available', '10.0.2.0/24', '10.0.3.0/24 available'];
  assert.equal(texts.map((t) => expected.find((e) => t.startsWith(e) && (e.endsWith('available') || !t.includes('available'))) ?? t), expected);
  const row = (prefix: string) => table.locator('tbody tr', { has: page.locator(`a:text-is("${prefix}")`) });
  assert.is(await row('10.0.0.0/26').locator('.nl-indent').count(), 1, 'the /26 sits below its /24');
  assert.is(await row('10.0.2.0/24').locator('.nl-indent').count(), 0);
  assert.is(await row('10.0.0.0/24').locator(`a[href="/ipam/vrfs/${f.vrf.id}/"]`).count(), 1, 'objects in cells are links');
  await expectAccessible(page, 'an aggregate\'s prefixes');
  await Promise.all([page.waitForURL(/\/ipam\/prefixes\/add\//), page.click('a:text-is("10.0.1.0/24 available")')]);
  assert.is(await page.locator('#field-prefix').inputValue(), '10.0.1.0/24');
  await page.fill('#field-description', 'Amsterdam voice');
  await Promise.all([page.waitForURL(new RegExp(`/ipam/aggregates/${f.aggregate.id}/prefixes/$`)), page.click('button:has-text("Save")')]);
  const [made] = (await app.get('/api/ipam/prefixes/?prefix=10.0.1.0/24')).results;
  assert.is(made.description, 'Amsterdam voice');
  assert.is(await page.locator('a:text-is("10.0.1.0/24 available")').count(), 0, 'no longer free');
  await page.goto(`${base}/ipam/aggregates/${f.aggregate.id}/`);
  assert.is(await page.locator('[data-utilization]').getAttribute('data-utilization'), '75');
});

test('IP range: utilization by the addresses of its VRF assigned in it', async () => {
  const { page } = browser;
  await page.goto(`${base}/ipam/ip-ranges/${f.range.id}/`);
  // .100 and .105 (twice, counted once) of ten; the global .106 is another VRF's
  assert.is(await page.locator('[data-utilization]').getAttribute('data-utilization'), '20');
  assert.match((await page.locator('[data-utilization]').innerText()).replace(/\s+/g, ' '), /20% of its addresses are assigned/);
  await expectAccessible(page, 'an IP range');
  await app.patch(`/api/ipam/ip-ranges/${f.range.id}/`, { mark_utilized: true });
  await page.reload();
  assert.is(await page.locator('[data-utilization]').getAttribute('data-utilization'), '100');
});

test('lists of prefixes, aggregates and IP ranges, and a prefix\'s IP ranges tab: a utilization bar with its percentage per row', async () => {
  const { page } = browser;
  const second = await app.post('/api/ipam/ip-ranges/', { start_address: '10.0.0.110/24', end_address: '10.0.0.119/24', vrf: f.vrf.id });
  await app.post('/api/ipam/ip-addresses/', { address: '10.0.0.110/24', vrf: f.vrf.id });
  /** The Utilization cell of the row whose first cell links to `href`: the bar's value and the text beside it. */
  const bar = async (listPath: string, href: string) => {
    await page.goto(`${base}${listPath}`);
    const table = page.locator('table.nl-table');
    const headers = (await table.locator('thead th').allTextContents()).map((h) => h.trim());
    const column = headers.indexOf('Utilization');
    assert.ok(column > 0, `${listPath}: ${headers.join(',')}`);
    const cell = table.locator('tbody tr', { has: page.locator(`a[href="${href}"]`) }).locator('td').nth(column);
    return { value: await cell.locator('progress').getAttribute('value'), text: (await cell.innerText()).trim() };
  };
  // 10.0.0.0/24 (prod): .10, the ranges .100-.119 (each address once, .105 twice and .110 inside a range): 21 of 254 usable
  assert.equal(await bar(`/ipam/prefixes/?vrf_id=${f.vrf.id}`, `/ipam/prefixes/${f.lan.id}/`), { value: '8.26', text: '8.3%' });
  // 10.0.0.0/26 (prod): .10 of 62
  assert.equal(await bar(`/ipam/prefixes/?vrf_id=${f.vrf.id}`, `/ipam/prefixes/${f.mgmt.id}/`), { value: '1.61', text: '1.6%' });
  await expectAccessible(page, 'the prefix list');
  // the aggregate: 10.0.0.0/24, 10.0.1.0/24 and 10.0.2.0/24 of its /22
  assert.equal(await bar('/ipam/aggregates/', `/ipam/aggregates/${f.aggregate.id}/`), { value: '75', text: '75%' });
  await expectAccessible(page, 'the aggregate list');
  // the first range is marked utilized; the second holds .110 of ten
  assert.equal(await bar('/ipam/ip-ranges/', `/ipam/ip-ranges/${f.range.id}/`), { value: '100', text: '100%' });
  assert.equal(await bar('/ipam/ip-ranges/', `/ipam/ip-ranges/${second.id}/`), { value: '10', text: '10%' });
  await expectAccessible(page, 'the IP range list');
  // a prefix's IP ranges tab has the same column
  assert.equal(await bar(`/ipam/prefixes/${f.lan.id}/ip-ranges/`, `/ipam/ip-ranges/${second.id}/`), { value: '10', text: '10%' });
  assert.equal(await bar(`/ipam/prefixes/${f.lan.id}/ip-ranges/`, `/ipam/ip-ranges/${f.range.id}/`), { value: '100', text: '100%' });
});

test('bulk add: an address range pattern creates one IP address per value, in one step', async () => {
  const { page } = browser;
  await page.goto(`${base}/ipam/ip-addresses/bulk-add/?vrf=${f.other.id}`);
  assert.match(await page.locator('main').innerText(), /192\.0\.2\.\[1-254\]\/24/, 'the help shows an address pattern');
  await page.fill('#field-address', '10.0.3.[1-5]/24');
  await Promise.all([page.waitForURL((url) => !url.pathname.endsWith('/bulk-add/')), page.click('button:has-text("Save")')]);
  const made = await app.get(`/api/ipam/ip-addresses/?parent=10.0.3.0/24&vrf_id=${f.other.id}&limit=50`);
  assert.equal(made.results.map((i: any) => i.address).sort(), ['10.0.3.1/24', '10.0.3.2/24', '10.0.3.3/24', '10.0.3.4/24', '10.0.3.5/24']);
  await page.goto(`${base}/ipam/ip-addresses/bulk-add/`);
  await page.fill('#field-address', '10.0.4.[9-2]/24');
  await page.click('button:has-text("Save")');
  assert.match(await page.locator('#field-address-error').innerText(), /runs backwards/);
  assert.is((await app.get('/api/ipam/ip-addresses/?parent=10.0.4.0/24&limit=1')).count, 0, 'nothing created');
  assert.is((await page.goto(`${base}/dcim/sites/bulk-add/`))?.status(), 404, 'only models whose fields take patterns');
});

test.run();
