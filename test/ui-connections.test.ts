/**
 * NetBox's connection lists in a real Chromium: `/dcim/interface-connections/`,
 * `/dcim/console-connections/` and `/dcim/power-connections/` list the connected ports only, each
 * beside its path's far device and port (linked) and whether the path is reachable; the menu links
 * them; the search box filters; the counts agree with the API's `connected=True`; axe-core on a page.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp, type TestApp } from './helpers.js';
import { expectAccessible, login, openBrowser, type Browser } from './browser.js';

const test = suite('web interface: connection lists');
let app: TestApp;
let browser: Browser;
let base: string;
const f: Record<string, any> = {};

const cable = (a: [string, number], b: [string, number]) => ({ a_terminations: [{ object_type: a[0], object_id: a[1] }], b_terminations: [{ object_type: b[0], object_id: b[1] }] });

test.before(async () => {
  try { await setUp(); } catch (e) { console.error('SETUP', e); throw e; }
});

async function setUp() {
  app = await startApp({ RUN_WORKER: '0' });
  base = app.url;
  browser = await openBrowser();
  const site = await app.post('/api/dcim/sites/', { name: 'Amsterdam', slug: 'ams' });
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'Acme', slug: 'acme' });
  const type = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Box', slug: 'box' });
  const role = await app.post('/api/dcim/device-roles/', { name: 'Switch', slug: 'switch' });
  const [sw1, sw2, cons, pdu] = await app.post('/api/dcim/devices/', ['ams-sw1', 'ams-sw2', 'ams-cons1', 'ams-pdu1'].map((name) => ({ name, site: site.id, device_type: type.id, role: role.id })));
  f.sw1 = sw1; f.sw2 = sw2; f.cons = cons; f.pdu = pdu;
  f.ifaces = await app.post('/api/dcim/interfaces/', [
    { device: sw1.id, name: 'xe-0/0/0', type: '10gbase-x-sfpp' },
    { device: sw2.id, name: 'xe-0/0/1', type: '10gbase-x-sfpp' },
    { device: sw1.id, name: 'xe-0/0/9', type: '10gbase-x-sfpp' },
  ]);
  f.consolePort = await app.post('/api/dcim/console-ports/', { device: sw1.id, name: 'console' });
  f.serverPort = await app.post('/api/dcim/console-server-ports/', { device: cons.id, name: 'port 7' });
  f.powerPorts = await app.post('/api/dcim/power-ports/', [{ device: sw1.id, name: 'PSU0' }, { device: pdu.id, name: 'inlet' }]);
  f.outlet = await app.post('/api/dcim/power-outlets/', { device: pdu.id, name: 'outlet 3' });
  const panel = await app.post('/api/dcim/power-panels/', { site: site.id, name: 'Panel A' });
  f.feed = await app.post('/api/dcim/power-feeds/', { power_panel: panel.id, name: 'Feed A1' });
  await app.post('/api/dcim/cables/', [
    cable(['dcim.interface', f.ifaces[0].id], ['dcim.interface', f.ifaces[1].id]),
    cable(['dcim.consoleport', f.consolePort.id], ['dcim.consoleserverport', f.serverPort.id]),
    cable(['dcim.powerport', f.powerPorts[0].id], ['dcim.poweroutlet', f.outlet.id]),
    cable(['dcim.powerport', f.powerPorts[1].id], ['dcim.powerfeed', f.feed.id]),
  ]);
  await login(browser.page, base);
}

test.after(async () => {
  await browser?.close();
  await app?.stop();
});

/** The table's rows as cell texts, and the header cells' labels. */
async function table(path: string) {
  const { page } = browser;
  const response = await page.goto(`${base}${path}`);
  assert.is(response?.status(), 200, path);
  const headers = (await page.locator('table thead th').allTextContents()).map((t) => t.trim());
  const rows = await page.locator('table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').replace(/\s+/g, ' ').trim())));
  return { headers, rows: rows.filter((r) => r.length > 1) };
}

test('interface connections: both ends of each connected interface, the unconnected left out', async () => {
  const { headers, rows } = await table('/dcim/interface-connections/');
  assert.equal(headers, ['Device', 'Interface', 'Device B', 'Interface B', 'Reachable']);
  assert.equal(rows.map((r) => r.join(' | ')).sort(), ['ams-sw1 | xe-0/0/0 | ams-sw2 | xe-0/0/1 | Yes', 'ams-sw2 | xe-0/0/1 | ams-sw1 | xe-0/0/0 | Yes']);
  const api = await app.get('/api/dcim/interfaces/?connected=True&limit=1');
  assert.is(api.count, rows.length, 'as many rows as the API counts connected');
  const { page } = browser;
  await page.goto(`${base}/dcim/interface-connections/?q=xe-0/0/0`);
  const row = page.locator('table tbody tr').filter({ hasText: 'ams-sw2' });
  assert.is(await row.locator(`a[href="/dcim/devices/${f.sw2.id}/"]`).count(), 1, 'the far device is linked');
  assert.is(await page.locator(`table a[href="/dcim/interfaces/${f.ifaces[1].id}/"]`).count(), 1, 'the far interface is linked');
  await expectAccessible(page, 'interface connections');
  await Promise.all([page.waitForURL(new RegExp(`/dcim/interfaces/${f.ifaces[0].id}/$`)), page.locator(`table tbody a[href="/dcim/interfaces/${f.ifaces[0].id}/"]`).first().click()]);
});

test('console connections: the console server and its port', async () => {
  const { headers, rows } = await table('/dcim/console-connections/');
  assert.equal(headers, ['Device', 'Console port', 'Console server', 'Port', 'Reachable']);
  assert.equal(rows, [['ams-sw1', 'console', 'ams-cons1', 'port 7', 'Yes']]);
});

test('power connections: a PDU outlet, and a power feed with no device', async () => {
  const { headers, rows } = await table('/dcim/power-connections/');
  assert.equal(headers, ['Device', 'Power port', 'PDU', 'Outlet', 'Reachable']);
  assert.equal(rows.map((r) => r.join(' | ')).sort(), ['ams-pdu1 | inlet | — | Feed A1 | Yes', 'ams-sw1 | PSU0 | ams-pdu1 | outlet 3 | Yes']);
  assert.is(await browser.page.locator(`table a[href="/dcim/power-feeds/${f.feed.id}/"]`).count(), 1);
});

test('the menu links the three lists', async () => {
  const { page } = browser;
  await page.goto(`${base}/`);
  for (const path of ['/dcim/interface-connections/', '/dcim/console-connections/', '/dcim/power-connections/']) {
    assert.ok(await page.locator(`nav a[href="${path}"]`).count() >= 1, path);
  }
});

test.run();
