/**
 * Relation comboboxes in a real Chromium: a device is created by typing into its site, role and
 * device type (the site among 10,000, which the page does not list: the combobox asks the API as one
 * types), choosing with the keyboard (arrows, Enter) and the mouse, two tags picked into a multiple
 * relation and one removed again; Escape closes the list; required relations start empty; the device
 * is checked through the API; axe finds nothing serious with the list open. Without the script the
 * same form posts a plain select's value. A list filtered by a site beyond the first 100 shows that
 * site as chosen in its filter form.
 */
import * as assert from 'uvu/assert';
import { browserSuite, expectAccessible, login } from './browser.js';

const SITES = 10_000;
const f: Record<string, any> = {};
const { test, s } = browserSuite('web interface: relation comboboxes', async ({ app, browser, base }) => {
  for (let i = 0; i < SITES; i += 2000) {
    await app.post('/api/dcim/sites/', Array.from({ length: 2000 }, (_, j) => ({ name: `Site ${String(i + j).padStart(5, '0')}`, slug: `site-${i + j}` })));
  }
  f.maker = await app.post('/api/dcim/manufacturers/', { name: 'Juniper', slug: 'juniper' });
  f.types = await app.post('/api/dcim/device-types/', [
    { manufacturer: f.maker.id, model: 'EX4300-48T', slug: 'ex4300-48t' },
    { manufacturer: f.maker.id, model: 'QFX5120-48Y', slug: 'qfx5120-48y' },
  ]);
  f.roles = await app.post('/api/dcim/device-roles/', [{ name: 'Access switch', slug: 'access-switch' }, { name: 'Core router', slug: 'core-router' }]);
  f.tags = await app.post('/api/extras/tags/', [{ name: 'Gold', slug: 'gold' }, { name: 'Silver', slug: 'silver' }, { name: 'Bronze', slug: 'bronze' }]);
  f.far = (await app.get('/api/dcim/sites/?name=Site%2007342')).results[0];
  await login(browser.page, base);
});

const option = (text: string) => s.browser.page.locator(`[role=listbox] [role=option]:text-is("${text}")`);

test('a device created by typing into its relations, checked through the API', async () => {
  const { page } = s.browser;
  await page.goto(`${s.base}/dcim/devices/add/`);
  // The page does not hold the 10,000 sites; the first of them only, for a browser without the script.
  assert.ok(await page.locator('#field-site option').count() <= 101, 'the sites are not all in the page');
  assert.is(await page.locator(`#field-site option[value="${f.far.id}"]`).count(), 0);
  const site = page.locator('#field-site-combobox');
  assert.is(await site.getAttribute('role'), 'combobox');
  assert.is(await page.locator('label[for="field-site-combobox"]').count(), 1, 'the label names the combobox');
  for (const name of ['site', 'role', 'device_type']) {
    assert.is(await page.locator(`#field-${name}`).inputValue(), '', `${name} starts empty`);
    assert.is(await page.locator(`#field-${name}-combobox`).inputValue(), '');
  }

  // site: typed, then chosen with the keyboard
  await site.fill('07342');
  await option('Site 07342').waitFor();
  assert.is(await site.getAttribute('aria-expanded'), 'true');
  await expectAccessible(page, 'a device form with a combobox open');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowUp');
  assert.is(await page.locator(`#${await site.getAttribute('aria-activedescendant')}`).textContent(), 'Site 07342');
  await page.keyboard.press('Enter');
  assert.is(await site.getAttribute('aria-expanded'), 'false');
  assert.is(await site.inputValue(), 'Site 07342');
  assert.is(await page.locator('#field-site').inputValue(), String(f.far.id));

  // role: Escape closes the list and keeps the choice as it was (none)
  const role = page.locator('#field-role-combobox');
  await role.fill('rout');
  await option('Core router').waitFor();
  assert.is(await page.locator('[role=listbox]:visible [role=option]').count(), 1, 'only the matching role is listed');
  await page.keyboard.press('Escape');
  assert.is(await role.getAttribute('aria-expanded'), 'false');
  assert.is(await role.inputValue(), '');
  await role.fill('access');
  await option('Access switch').waitFor();
  await page.keyboard.press('Enter');
  assert.is(await page.locator('#field-role').inputValue(), String(f.roles[0].id));

  // device type: picked with the mouse
  await page.locator('#field-device_type-combobox').fill('QFX');
  await option('Juniper QFX5120-48Y').or(option('QFX5120-48Y')).click();
  assert.is(await page.locator('#field-device_type').inputValue(), String(f.types[1].id));

  // tags: a multiple relation picks several; a chip removes one
  const tags = page.locator('#field-tags-combobox');
  for (const name of ['Gold', 'Bronze', 'Silver']) {
    await tags.fill(name.slice(0, 3).toLowerCase());
    await option(name).waitFor();
    await page.keyboard.press('Enter');
  }
  await page.locator('button[aria-label="Remove Bronze"]').click();
  assert.equal((await page.locator('.nl-chip').allTextContents()).map((t) => t.replace(' ×', '')), ['Gold', 'Silver']);

  await page.fill('#field-name', 'edge-sw-1');
  await Promise.all([page.waitForURL(/\/dcim\/devices\/\d+\/$/), page.click('button:has-text("Save")')]);
  const id = /\/dcim\/devices\/(\d+)\/$/.exec(page.url())![1];
  const device = await s.app.get(`/api/dcim/devices/${id}/`);
  assert.is(device.name, 'edge-sw-1');
  assert.is(device.site.id, f.far.id);
  assert.is(device.role.id, f.roles[0].id);
  assert.is(device.device_type.id, f.types[1].id);
  assert.equal(device.tags.map((t: { name: string }) => t.name).sort(), ['Gold', 'Silver']);

  // the edit form shows the chosen values in its comboboxes
  await page.goto(`${s.base}/dcim/devices/${id}/edit/`);
  assert.is(await page.locator('#field-site-combobox').inputValue(), 'Site 07342');
  assert.equal((await page.locator('.nl-chip').allTextContents()).map((t) => t.replace(' ×', '')).sort(), ['Gold', 'Silver']);
  await expectAccessible(page, 'a device edit form');
});

test('without the script the form posts a plain select: the same field names', async () => {
  const { page } = s.browser;
  const form = await (await page.request.get(`${s.base}/dcim/devices/add/`)).text();
  assert.match(form, /<select class="form-select" id="field-site" name="site" data-combobox="\/api\/dcim\/sites\/"/);
  const csrf = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(form)![1];
  const first = /id="field-site"[^>]*>(?:<option value=""[^>]*>[^<]*<\/option>)?<option value="(\d+)"/.exec(form)![1];
  const posted = await page.request.post(`${s.base}/dcim/devices/add/`, {
    form: { csrfmiddlewaretoken: csrf, name: 'plain-1', site: first, role: String(f.roles[1].id), device_type: String(f.types[0].id), status: 'active', tags: String(f.tags[2].id) },
    maxRedirects: 0,
  });
  assert.is(posted.status(), 303);
  const device = (await s.app.get('/api/dcim/devices/?name=plain-1')).results[0];
  assert.is(device.site.id, Number(first));
  assert.equal(device.tags.map((t: { name: string }) => t.name), ['Bronze']);
});

test('a list filtered by a site beyond the first 100 shows it chosen in the filter form', async () => {
  const { page } = s.browser;
  const near = (await s.app.get('/api/dcim/sites/?name=Site%2000003')).results[0];
  await s.app.post('/api/dcim/devices/', [
    { name: 'far-1', site: f.far.id, role: f.roles[0].id, device_type: f.types[0].id },
    { name: 'near-1', site: near.id, role: f.roles[0].id, device_type: f.types[0].id },
  ]);
  await page.goto(`${s.base}/dcim/devices/?site_id=${f.far.id}&site_id=${near.id}`);
  await page.click('#filters summary');
  const select = page.locator('#filter-site');
  await select.locator(`option[value="${f.far.id}"]`).waitFor({ state: 'attached' });
  // the far site is not among the select's first 100 options: it was read as chosen
  assert.is(await select.locator(`option[value="${f.far.id}"]`).textContent(), 'Site 07342');
  assert.equal((await select.evaluate((e: HTMLSelectElement) => [...e.selectedOptions].map((o) => o.value))).sort(), [String(f.far.id), String(near.id)].sort());
  assert.equal((await page.locator('#filters .nl-chip').allTextContents()).map((t) => t.replace(' ×', '')).sort(), ['Site 00003', 'Site 07342']);
  await expectAccessible(page, 'a filter form with chosen relations');
  // applying the form again keeps both filters: the list is the API's answer to them
  await Promise.all([page.waitForURL(/site_id=.*site_id=/), page.click('button:has-text("Apply filters")')]);
  const api = await s.app.get(`/api/dcim/devices/?site_id=${f.far.id}&site_id=${near.id}`);
  const listed = await page.locator('#results tbody tr td:nth-child(2)').allInnerTexts();
  assert.equal(listed.sort(), api.results.map((d: { name: string }) => d.name).sort());
  assert.ok(listed.includes('far-1') && listed.includes('near-1'), listed.join());
});

test.run();
