/**
 * `/dcim/rack-elevations/` in a real Chromium: racks of two sites side by side, each drawn as inline
 * SVG with its devices linked, the rear face on a toggle, filtered by site, location and role through
 * the page's form (NetBox's site_id, location_id, role_id), paged; axe-core on the page.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp, type TestApp } from './helpers.js';
import { expectAccessible, login, openBrowser, type Browser } from './browser.js';

const test = suite('web interface: rack elevations');
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
  f.ams = await app.post('/api/dcim/sites/', { name: 'Amsterdam', slug: 'ams' });
  f.fra = await app.post('/api/dcim/sites/', { name: 'Frankfurt', slug: 'fra' });
  f.hall = await app.post('/api/dcim/locations/', { name: 'Hall 1', slug: 'hall-1', site: f.ams.id });
  f.network = await app.post('/api/dcim/rack-roles/', { name: 'Network', slug: 'network' });
  f.amsRacks = await app.post('/api/dcim/racks/', [
    { name: 'AMS-01', site: f.ams.id, location: f.hall.id, role: f.network.id, u_height: 42 },
    { name: 'AMS-02', site: f.ams.id, location: f.hall.id, u_height: 42 },
    { name: 'AMS-03', site: f.ams.id, u_height: 48 },
  ]);
  f.fraRacks = await app.post('/api/dcim/racks/', Array.from({ length: 26 }, (_, i) => ({ name: `FRA-${String(i + 1).padStart(2, '0')}`, site: f.fra.id, u_height: 42 })));
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'Juniper', slug: 'juniper' });
  const type = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'MX204', slug: 'mx204', u_height: 1 });
  const role = await app.post('/api/dcim/device-roles/', { name: 'Router', slug: 'router' });
  f.router = await app.post('/api/dcim/devices/', { name: 'ams-rtr1', site: f.ams.id, location: f.hall.id, rack: f.amsRacks[0].id, position: 40, face: 'front', device_type: type.id, role: role.id });
  await login(browser.page, base);
}

test.after(async () => {
  await browser?.close();
  await app?.stop();
});

// in the rack list's order (site, location, name); compared as sets
const names = async () => (await browser.page.locator('.nl-elevation figcaption').allTextContents()).map((t) => t.trim()).sort();

test('racks side by side, filtered by site, location and role through the form', async () => {
  const { page } = browser;
  await page.goto(`${base}/dcim/rack-elevations/`);
  assert.is(await page.locator('.nl-elevation svg').count(), 29, 'a page of racks (50 by default), each drawn');
  assert.match(await page.locator('nav[aria-label=Pages]').innerText(), /29 racks/);
  await page.selectOption('#filter-site_id', String(f.ams.id));
  await Promise.all([page.waitForURL(/site_id=/), page.click('button:has-text("Apply")')]);
  assert.equal(await names(), ['AMS-01', 'AMS-02', 'AMS-03']);
  const first = page.locator('.nl-elevation[aria-label="AMS-01"]');
  assert.is(await first.locator(`svg a[href="/dcim/devices/${f.router.id}/"]`).count(), 1, 'the device drawn and linked');
  assert.is(await first.locator(`figcaption a[href="/dcim/racks/${f.amsRacks[0].id}/"]`).count(), 1);
  await expectAccessible(page, 'rack elevations');
  await page.goto(`${base}/dcim/rack-elevations/?location_id=${f.hall.id}`);
  assert.equal(await names(), ['AMS-01', 'AMS-02']);
  await page.goto(`${base}/dcim/rack-elevations/?role_id=${f.network.id}`);
  assert.equal(await names(), ['AMS-01']);
  await Promise.all([page.waitForURL(/face=rear/), page.click('a:text-is("Rear")')]);
  assert.match(page.url(), new RegExp(`role_id=${f.network.id}`), 'the filter stays');
  assert.is(await page.locator('.nl-elevation svg').count(), 1);
  await Promise.all([page.waitForURL(/\/dcim\/devices\//), page.locator(`.nl-elevation svg a[href="/dcim/devices/${f.router.id}/"] rect`).first().click()]);
});

test('paged: the next page holds the rest', async () => {
  const { page } = browser;
  await page.goto(`${base}/dcim/rack-elevations/?site_id=${f.fra.id}&per_page=25`);
  assert.is(await page.locator('.nl-elevation').count(), 25);
  await Promise.all([page.waitForURL(/page=2/), page.click('a[rel=next]')]);
  await page.waitForSelector('nav[aria-label=Pages]');
  assert.match(await page.locator('nav[aria-label=Pages]').innerText(), /page 2 of 2/);
  assert.is(await page.locator('.nl-elevation svg').count(), 1, await page.locator('main').innerText());
});

test.run();
