/**
 * IPAM pages in a real Chromium, on a VRF's address plan as an operator keeps it: a /16 container
 * with /24s, a nested container, point-to-point /30s and /28s inside a /24, IP addresses and an IP
 * range in a /24, a VLAN group with some VIDs used. A prefix's child prefixes as a hierarchy with
 * utilization and its free blocks as rows that open the prefix form filled in; its IP addresses with
 * the free addresses between them and the first available IP; its IP ranges; a VLAN group's VLANs
 * with its free VIDs. Each object is created through the form and checked through the API; axe-core
 * on each page. The README's screenshots of the prefix and VLAN group pages are taken here
 * (UPDATE_SCREENSHOTS=1 rewrites them).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp, type TestApp } from './helpers.js';
import { expectAccessible, login, openBrowser, screenshot, type Browser } from './browser.js';

const test = suite('web interface: IPAM');
let app: TestApp;
let browser: Browser;
let base: string;
const f: Record<string, any> = {};

test.before(async () => {
  try { await setUp(); } catch (e) { console.error('SETUP', e); throw e; }
});

async function setUp() {
  app = await startApp({ RUN_WORKER: '0' });
  base = app.url;
  browser = await openBrowser();
  f.site = await app.post('/api/dcim/sites/', { name: 'Amsterdam', slug: 'ams' });
  f.tenant = await app.post('/api/tenancy/tenants/', { name: 'Customer A', slug: 'customer-a' });
  f.vrf = await app.post('/api/ipam/vrfs/', { name: 'prod', rd: '65000:1' });
  const prefix = (p: string, extra: Record<string, unknown> = {}) => app.post('/api/ipam/prefixes/', { prefix: p, vrf: f.vrf.id, site: f.site.id, tenant: f.tenant.id, ...extra });
  f.plan = await prefix('10.0.0.0/16', { status: 'container', description: 'Amsterdam plan' });
  f.lan = await prefix('10.0.0.0/24');
  f.p2p = await Promise.all(['10.0.0.0/30', '10.0.0.4/30'].map((p) => prefix(p)));
  f.mgmt = await prefix('10.0.0.32/28');
  f.servers = await prefix('10.0.2.0/24');
  f.nested = await prefix('10.0.4.0/22', { status: 'container' });
  f.nestedChild = await prefix('10.0.4.0/24');
  // A prefix of another VRF at the same place is not a child.
  await app.post('/api/ipam/prefixes/', { prefix: '10.0.1.0/24' });
  f.ips = await app.post('/api/ipam/ip-addresses/', ['10.0.2.1/24', '10.0.2.2/24', '10.0.2.10/24'].map((address) => ({ address, vrf: f.vrf.id, tenant: f.tenant.id })));
  f.range = await app.post('/api/ipam/ip-ranges/', { start_address: '10.0.2.100/24', end_address: '10.0.2.149/24', vrf: f.vrf.id });
  f.group = await app.post('/api/ipam/vlan-groups/', { name: 'Amsterdam access', slug: 'ams-access', min_vid: 100, max_vid: 199 });
  f.vlans = await app.post('/api/ipam/vlans/', [100, 101, 110].map((vid) => ({ vid, name: `vlan${vid}`, group: f.group.id })));
  await login(browser.page, base);
}

test.after(async () => {
  await browser?.close();
  await app?.stop();
});

test('child prefixes: a hierarchy with utilization, free blocks as rows that open the prefix form', async () => {
  const { page } = browser;
  await page.goto(`${base}/ipam/prefixes/${f.plan.id}/prefixes/`);
  const table = page.locator('table[aria-label="Child prefixes"]');
  const headers = (await table.locator('thead th').allTextContents()).map((h) => h.trim());
  assert.ok(headers.includes('Prefix'), headers.join(','));
  assert.ok(headers.includes('Utilization'), headers.join(','));
  const tabs = await page.locator('.nl-tabs a').allInnerTexts();
  assert.ok(tabs.some((t) => /Child prefixes\s*7/.test(t)), tabs.join('|'));
  assert.ok(tabs.some((t) => /IP addresses\s*3/.test(t)), tabs.join('|'));
  const texts = (await table.locator('tbody tr').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
  const at = (s: string) => texts.findIndex((t) => t.startsWith(s));
  // address order, children and free space interleaved
  const order = ['10.0.0.0/24', '10.0.0.0/30', '10.0.0.4/30', '10.0.0.32/28', '10.0.1.0/24 available', '10.0.2.0/24', '10.0.3.0/24 available', '10.0.4.0/22', '10.0.4.0/24', '10.0.8.0/21 available', '10.0.128.0/17 available'];
  for (const s of order) assert.ok(at(s) >= 0, `${s} in ${texts.join(' | ')}`);
  for (let i = 1; i < order.length; i++) assert.ok(at(order[i - 1]) < at(order[i]), `${order[i - 1]} before ${order[i]}`);
  // depth: the /30s sit one level below the /24 that holds them
  const row = (prefix: string) => table.locator('tbody tr', { has: page.locator(`a:text-is("${prefix}")`) });
  assert.is(await row('10.0.0.0/24').locator('.nl-indent').count(), 0);
  assert.is(await row('10.0.0.4/30').locator('.nl-indent').count(), 1);
  assert.is(await row('10.0.4.0/24').locator('.nl-indent').count(), 1);
  // utilization: the /24 with the address range and three addresses, the nested container by its /24
  assert.match(await row('10.0.2.0/24').innerText(), /20\.9%/);
  assert.match(await row('10.0.4.0/22').innerText(), /25%/);
  assert.is(await row('10.0.0.4/30').locator(`a[href="/dcim/sites/${f.site.id}/"]`).count(), 1, 'objects in cells are links');
  await expectAccessible(page, 'a prefix\'s child prefixes');
  const png = await page.screenshot({ fullPage: true });
  assert.ok(png.length > 10_000, 'a rendered page, not a blank one');
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    mkdirSync(join(import.meta.dirname, '../docs/screenshots'), { recursive: true });
    writeFileSync(join(import.meta.dirname, '../docs/screenshots/prefix.png'), png);
  }
  // one level down, the /24's own free blocks
  await page.goto(`${base}/ipam/prefixes/${f.lan.id}/prefixes/`);
  const inner = (await page.locator('table[aria-label="Child prefixes"] tbody tr').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim().split(' ')[0] + (t.includes('available') ? ' available' : ''));
  assert.equal(inner, ['10.0.0.0/30', '10.0.0.4/30', '10.0.0.8/29 available', '10.0.0.16/28 available', '10.0.0.32/28', '10.0.0.48/28 available', '10.0.0.64/26 available', '10.0.0.128/25 available']);
  await page.goto(`${base}/ipam/prefixes/${f.plan.id}/prefixes/`);
  await Promise.all([page.waitForURL(/\/ipam\/prefixes\/add\//), page.click('a:text-is("10.0.1.0/24 available")')]);
  assert.is(await page.locator('#field-prefix').inputValue(), '10.0.1.0/24');
  assert.is(await page.locator('#field-vrf').inputValue(), String(f.vrf.id));
  await page.fill('#field-description', 'Amsterdam voice');
  await Promise.all([page.waitForURL(new RegExp(`/ipam/prefixes/${f.plan.id}/prefixes/$`)), page.click('button:has-text("Save")')]);
  const [made] = (await app.get(`/api/ipam/prefixes/?prefix=10.0.1.0/24&vrf_id=${f.vrf.id}`)).results;
  assert.is(made.description, 'Amsterdam voice');
  assert.is(made.site.id, f.site.id);
  assert.is(made.tenant.id, f.tenant.id);
  assert.is(await page.locator('a:text-is("10.0.1.0/24 available")').count(), 0, 'no longer free');
  assert.is(await page.locator('table[aria-label="Child prefixes"] a:text-is("10.0.1.0/24")').count(), 1);
});

test('IP addresses: free addresses between them and the first available IP, created through the form', async () => {
  const { page } = browser;
  await page.goto(`${base}/ipam/prefixes/${f.servers.id}/ip-addresses/`);
  const table = page.locator('table[aria-label="IP addresses"]');
  assert.ok((await table.locator('thead th').allTextContents()).map((h) => h.trim()).includes('Address'));
  const texts = (await table.locator('tbody tr').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
  const expected = ['10.0.2.1/24', '10.0.2.2/24', '10.0.2.3/24 - 10.0.2.9/24 available (7 addresses)', '10.0.2.10/24', '10.0.2.11/24 - 10.0.2.254/24 available (244 addresses)'];
  assert.equal(texts.map((t) => expected.find((e) => t.startsWith(e)) ?? t), expected);
  for (const ip of f.ips) assert.is(await table.locator(`a[href="/ipam/ip-addresses/${ip.id}/"]`).count(), 1);
  await expectAccessible(page, 'a prefix\'s IP addresses');
  await Promise.all([page.waitForURL(/\/ipam\/ip-addresses\/add\//), page.click('a:has-text("10.0.2.3/24 - 10.0.2.9/24 available")')]);
  assert.is(await page.locator('#field-address').inputValue(), '10.0.2.3/24');
  await page.fill('#field-dns_name', 'web3.ams.example.net');
  await Promise.all([page.waitForURL(new RegExp(`/ipam/prefixes/${f.servers.id}/ip-addresses/$`)), page.click('button:has-text("Save")')]);
  const [web3] = (await app.get(`/api/ipam/ip-addresses/?address=10.0.2.3/24&vrf_id=${f.vrf.id}`)).results;
  assert.is(web3.dns_name, 'web3.ams.example.net');
  assert.is(web3.tenant.id, f.tenant.id);
  // the first available IP is the API's: 10.0.2.4 now
  await Promise.all([page.waitForURL(/\/ipam\/ip-addresses\/add\//), page.click('a:has-text("first available IP")')]);
  assert.is(await page.locator('#field-address').inputValue(), '10.0.2.4/24');
  await Promise.all([page.waitForURL(new RegExp(`/ipam/prefixes/${f.servers.id}/ip-addresses/$`)), page.click('button:has-text("Save")')]);
  assert.is((await app.get(`/api/ipam/ip-addresses/?address=10.0.2.4/24&vrf_id=${f.vrf.id}`)).count, 1);
  assert.ok(await page.locator('a:has-text("10.0.2.5/24 - 10.0.2.9/24 available (5 addresses)")').count());
});

test('IP ranges of a prefix', async () => {
  const { page } = browser;
  await page.goto(`${base}/ipam/prefixes/${f.servers.id}/ip-ranges/`);
  const table = page.locator('table[aria-label="IP ranges"]');
  assert.is(await table.locator(`a[href="/ipam/ip-ranges/${f.range.id}/"]`).count(), 1);
  await expectAccessible(page, 'a prefix\'s IP ranges');
});

test('a VLAN group\'s VLANs with its free VIDs, a VLAN created from one', async () => {
  const { page } = browser;
  await page.goto(`${base}/ipam/vlan-groups/${f.group.id}/vlans/`);
  const table = page.locator('table[aria-label="VLANs"]');
  const texts = (await table.locator('tbody tr').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
  const expected = ['100', '101', 'VIDs 102-109 available', '110', 'VIDs 111-199 available'];
  assert.equal(texts.map((t) => expected.find((e) => t.startsWith(e)) ?? t), expected);
  for (const v of f.vlans) assert.is(await table.locator(`a[href="/ipam/vlans/${v.id}/"]`).count(), 1);
  await expectAccessible(page, 'a VLAN group\'s VLANs');
  await Promise.all([page.waitForURL(/\/ipam\/vlans\/add\//), page.click('a:text-is("VIDs 102-109 available")')]);
  assert.is(await page.locator('#field-vid').inputValue(), '102');
  assert.is(await page.locator('#field-group').inputValue(), String(f.group.id));
  await page.fill('#field-name', 'voice');
  await Promise.all([page.waitForURL(new RegExp(`/ipam/vlan-groups/${f.group.id}/vlans/$`)), page.click('button:has-text("Save")')]);
  const [voice] = (await app.get(`/api/ipam/vlans/?group_id=${f.group.id}&vid=102`)).results;
  assert.is(voice.name, 'voice');
  assert.ok(await page.locator('a:text-is("VIDs 103-109 available")').count());
  await screenshot(page, 'vlan-group');
});

test.run();
