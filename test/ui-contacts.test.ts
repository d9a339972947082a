/**
 * The Contacts tab in a real Chromium: every model that takes contacts has
 * `/<app>/<endpoint>/<id>/contacts/` (the contact assignment's `reverse_tab`), listing the contacts
 * assigned to that object with their role and priority, linked (the contact once: no display column
 * repeating it); the tab bar shows it with its count, and while the user may add contacts also when
 * there are none; its "Add a contact" opens the assignment form with the object's type and id filled
 * in (a device's, saved and checked through the API); an object of another type with the same id
 * shows none of them. axe-core on the tab.
 */
import * as assert from 'uvu/assert';
import type { TestApp } from './helpers.js';
import { browserSuite, expectAccessible, login, type Browser } from './browser.js';

let app: TestApp;
let browser: Browser;
let base: string;
const f: Record<string, any> = {};
const { test } = browserSuite('web interface: contacts tab', async (s) => {
  ({ app, browser, base } = s);
  f.site = await app.post('/api/dcim/sites/', { name: 'Amsterdam', slug: 'ams' });
  f.bare = await app.post('/api/dcim/sites/', { name: 'Berlin', slug: 'ber' });
  // a tenant with the site's id: a contact of the site must not show on it
  f.tenant = await app.post('/api/tenancy/tenants/', { name: 'Acme', slug: 'acme' });
  f.roles = await app.post('/api/tenancy/contact-roles/', [{ name: 'NOC', slug: 'noc' }, { name: 'Facilities', slug: 'facilities' }]);
  f.contacts = await app.post('/api/tenancy/contacts/', [{ name: 'Ada Lovelace', email: 'ada@example.com' }, { name: 'Alan Turing' }]);
  f.assignments = await app.post('/api/tenancy/contact-assignments/', [
    { content_type: 'dcim.site', object_id: f.site.id, contact: f.contacts[0].id, role: f.roles[0].id, priority: 'primary' },
    { content_type: 'dcim.site', object_id: f.site.id, contact: f.contacts[1].id, role: f.roles[1].id },
    { content_type: 'tenancy.tenant', object_id: f.tenant.id, contact: f.contacts[1].id, role: f.roles[0].id },
  ]);
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'Maker', slug: 'maker' });
  const type = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Switch', slug: 'switch' });
  const role = await app.post('/api/dcim/device-roles/', { name: 'Access', slug: 'access' });
  f.device = await app.post('/api/dcim/devices/', { name: 'sw1', device_type: type.id, role: role.id, site: f.site.id });
  await login(browser.page, base);
});

/** The object's page, then its Contacts tab, whose count the tab bar shows. */
async function openContactsTab(objectUrl: string, count: number): Promise<void> {
  const { page } = browser;
  await page.goto(`${base}${objectUrl}`);
  const tab = page.locator(`.nl-tabs a[href="${objectUrl}contacts/"]`);
  assert.match(await tab.innerText(), new RegExp(`Contacts\\s*${count}`));
  await Promise.all([page.waitForURL(/\/contacts\/$/), tab.click()]);
}

test("a site's contacts: the tab with its count, the table with contact, role and priority linked", async () => {
  const { page } = browser;
  await openContactsTab(`/dcim/sites/${f.site.id}/`, 2);
  const headers = (await page.locator('main table thead th').allTextContents()).map((t) => t.trim());
  assert.ok(headers.includes('Contact') && headers.includes('Role'), headers.join(', '));
  assert.not.ok(headers.includes('Contact assignment'), `the contact once, no display column: ${headers.join(', ')}`);
  const text = await page.locator('main table tbody').innerText();
  assert.match(text, /Ada Lovelace/);
  assert.match(text, /Alan Turing/);
  assert.match(text, /Facilities/);
  assert.is(await page.locator(`main table a[href="/tenancy/contacts/${f.contacts[0].id}/"]`).count(), 1, 'the contact is linked');
  const api = await app.get(`/api/tenancy/contact-assignments/?content_type=dcim.site&object_id=${f.site.id}&limit=1`);
  assert.is(await page.locator('main table tbody tr').count(), api.count);
  await expectAccessible(page, 'contacts tab');
});

test("a device without contacts: the tab, and Add a contact fills in the device", async () => {
  const { page } = browser;
  await openContactsTab(`/dcim/devices/${f.device.id}/`, 0);
  const add = page.getByRole('link', { name: 'Add a contact' });
  const href = new URL(await add.getAttribute('href') ?? '', base);
  assert.is(href.pathname, '/tenancy/contact-assignments/add/');
  assert.is(href.searchParams.get('object_type'), 'dcim.device');
  assert.is(href.searchParams.get('object_id'), String(f.device.id));
  await Promise.all([page.waitForURL(/\/add\//), add.click()]);
  assert.is(await page.locator('#field-object_type').inputValue(), 'dcim.device');
  assert.is(await page.locator('#field-object_id').inputValue(), String(f.device.id));
  const option = (name: string) => page.locator('[role=listbox]:visible [role=option]', { hasText: name });
  await page.locator('#field-contact-combobox').fill('Ada');
  await option('Ada Lovelace').click();
  await page.locator('#field-role-combobox').fill('Facil');
  await option('Facilities').click();
  await Promise.all([page.waitForURL(new RegExp(`/dcim/devices/${f.device.id}/contacts/$`)), page.click('button:has-text("Save")')]);
  const saved = await app.get(`/api/tenancy/contact-assignments/?content_type=dcim.device&object_id=${f.device.id}`);
  assert.is(saved.count, 1);
  assert.is(saved.results[0].contact.id, f.contacts[0].id);
  assert.is(saved.results[0].role.id, f.roles[1].id);
  assert.match(await page.locator('main table tbody').innerText(), /Ada Lovelace/);
  await expectAccessible(page, 'a device\'s contacts tab');
});

test("another model's object with the same id keeps its own", async () => {
  const { page } = browser;
  await page.goto(`${base}/tenancy/tenants/${f.tenant.id}/contacts/`);
  const rows = await page.locator('main table tbody tr').allInnerTexts();
  assert.is(rows.length, 1, rows.join(' / '));
  assert.match(rows[0], /Alan Turing/);
  assert.match(rows[0], /NOC/);
});

test.run();
