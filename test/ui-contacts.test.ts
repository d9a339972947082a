/**
 * The Contacts tab in a real Chromium: every model that takes contacts has
 * `/<app>/<endpoint>/<id>/contacts/` (the contact assignment's `reverse_tab`), listing the contacts
 * assigned to that object with their role and priority, linked; the tab bar shows it with its count
 * only when the object has contacts; an object of another type with the same id shows none of them.
 * axe-core on the tab.
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
  await login(browser.page, base);
});

test("a site's contacts: the tab with its count, the table with contact, role and priority linked", async () => {
  const { page } = browser;
  await page.goto(`${base}/dcim/sites/${f.site.id}/`);
  const tab = page.locator(`.nl-tabs a[href="/dcim/sites/${f.site.id}/contacts/"]`);
  assert.match(await tab.innerText(), /Contacts\s*2/);
  await Promise.all([page.waitForURL(/\/contacts\/$/), tab.click()]);
  const headers = (await page.locator('main table thead th').allTextContents()).map((t) => t.trim());
  assert.ok(headers.includes('Contact') && headers.includes('Role'), headers.join(', '));
  const text = await page.locator('main table tbody').innerText();
  assert.match(text, /Ada Lovelace/);
  assert.match(text, /Alan Turing/);
  assert.match(text, /Facilities/);
  assert.is(await page.locator(`main table a[href="/tenancy/contacts/${f.contacts[0].id}/"]`).count(), 1, 'the contact is linked');
  const api = await app.get(`/api/tenancy/contact-assignments/?content_type=dcim.site&object_id=${f.site.id}&limit=1`);
  assert.is(await page.locator('main table tbody tr').count(), api.count);
  await expectAccessible(page, 'contacts tab');
});

test("no contacts, no tab; another model's object with the same id keeps its own", async () => {
  const { page } = browser;
  await page.goto(`${base}/dcim/sites/${f.bare.id}/`);
  assert.is(await page.locator(`.nl-tabs a[href="/dcim/sites/${f.bare.id}/contacts/"]`).count(), 0);
  await page.goto(`${base}/tenancy/tenants/${f.tenant.id}/contacts/`);
  const rows = await page.locator('main table tbody tr').allInnerTexts();
  assert.is(rows.length, 1, rows.join(' / '));
  assert.match(rows[0], /Alan Turing/);
  assert.match(rows[0], /NOC/);
});

test.run();
