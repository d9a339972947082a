/**
 * The web interface in a real Chromium: the anonymous redirect, login and logout, a list with a
 * filter, sorting and pages, a form refused then accepted, editing, a delete blocked by dependents
 * then allowed, bulk delete, an import with a bad row, the home page (counts grouped by the menu, the
 * user's bookmarks), and axe-core on the main pages.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startApp, type TestApp } from './helpers.js';
import { expectAccessible, login, openBrowser, type Browser } from './browser.js';

const test = suite('web interface: pages');
let app: TestApp;
let browser: Browser;
let base: string;
const tag = `t${Date.now().toString(36)}`;
let bookmarked: { id: number; name: string };

test.before(async () => {
  app = await startApp({ RUN_WORKER: '0' });
  base = app.url;
  browser = await openBrowser();
  const maker = await app.post('/api/dcim/manufacturers/', { name: `Acme ${tag}`, slug: `acme-${tag}` });
  const type = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: `Box ${tag}`, slug: `box-${tag}` });
  const role = await app.post('/api/dcim/device-roles/', { name: `Server ${tag}`, slug: `server-${tag}` });
  const sites = await app.post('/api/dcim/sites/', Array.from({ length: 30 }, (_, i) => ({
    name: `${tag}-site-${String(i + 1).padStart(2, '0')}`, slug: `${tag}-site-${i + 1}`, status: i % 3 === 0 ? 'planned' : 'active',
  })));
  await app.post('/api/dcim/devices/', Array.from({ length: 12 }, (_, i) => ({ name: `${tag}-dev-${i + 1}`, site: sites[0].id, device_type: type.id, role: role.id })));
  // the admin's bookmark, for the home page
  bookmarked = sites[1];
  await app.post('/api/extras/bookmarks/', { object_type: 'dcim.site', object_id: bookmarked.id });
});

test.after(async () => {
  await browser?.close();
  await app?.stop();
});

test('an anonymous visitor is sent to /login/?next=…; after login, back there; logout ends the session', async () => {
  const { page } = browser;
  await page.goto(`${base}/dcim/sites/?status=active`);
  assert.is(new URL(page.url()).pathname, '/login/');
  assert.is(new URL(page.url()).searchParams.get('next'), '/dcim/sites/?status=active');
  await page.fill('#username', 'admin');
  await page.fill('#password', 'wrong password');
  await page.click('button[type=submit]');
  assert.match(await page.locator('[role=alert]').innerText(), /Invalid username\/password/);
  await page.fill('#password', 'admin-password-for-tests');
  await Promise.all([page.waitForURL(/\/dcim\/sites\//), page.click('button[type=submit]')]);
  assert.is(new URL(page.url()).search, '?status=active');
  assert.match(await page.locator('h1').innerText(), /Sites/);
  await Promise.all([page.waitForURL(/\/login\//), page.click('button:has-text("Log out")')]);
  await page.goto(`${base}/`);
  assert.is(new URL(page.url()).pathname, '/login/', 'logged out: the home page wants a login again');
  await login(page, base);
  assert.is(new URL(page.url()).pathname, '/');
  assert.ok(await page.locator('a[href="/dcim/sites/"]').count() > 0, 'the home page links to the lists');
  const organization = page.locator('main .card:has(h2:text-is("Organization"))');
  assert.match(await organization.locator('li:has(a[href="/dcim/sites/"])').innerText(), /Sites\s+30/, 'counts grouped by the menu');
  const bookmarks = page.locator('main .card:has(h2:text-is("Bookmarks"))');
  assert.is(await bookmarks.locator(`a[href="/dcim/sites/${bookmarked.id}/"]`).innerText(), bookmarked.name, 'the user\'s bookmark, a link to its object');
  await expectAccessible(page, 'the home page');
});

test('a list pages, sorts by a column and filters through the filter form', async () => {
  const { page } = browser;
  await page.goto(`${base}/dcim/sites/?q=${tag}-site&per_page=25`);
  const names = () => page.locator('#results tbody tr td:nth-child(2)').allInnerTexts();
  assert.is((await names()).length, 25);
  assert.match(await page.locator('#results .card-footer').innerText(), /30 objects · page 1 of 2/);
  await Promise.all([page.waitForURL(/page=2/), page.click('a[rel=next]')]);
  assert.equal(await names(), [26, 27, 28, 29, 30].map((n) => `${tag}-site-${n}`));
  await page.click('th a:has-text("Name")');
  await page.waitForURL(/sort=name/);
  await Promise.all([page.waitForURL(/sort=-name/), page.click('th a:has-text("Name")')]);
  assert.is((await names())[0], `${tag}-site-30`, 'descending after the second click');
  assert.is(await page.locator('th[aria-sort=descending]').count(), 1);
  await page.click('#filters summary');
  await page.locator('#filter-status').selectOption('planned');
  await Promise.all([page.waitForURL(/status=planned/), page.click('button:has-text("Apply filters")')]);
  const planned = await names();
  assert.is(planned.length, 10);
  assert.ok(planned.every((n) => [1, 4, 7, 10, 13, 16, 19, 22, 25, 28].map((i) => `${tag}-site-${String(i).padStart(2, '0')}`).includes(n)), planned.join());
  await expectAccessible(page, 'a list page');
  const csv = await (await page.request.get(`${base}/dcim/sites/?q=${tag}-site&status=planned&export=csv`)).text();
  assert.is(csv.trim().split('\r\n').length, 11, 'the export holds the header and the 10 filtered rows');
  const json = await (await page.request.get(`${base}/dcim/sites/?q=${tag}-site&status=planned&export=json`)).json();
  assert.is(json.length, 10);
  // An export template shows up as another export of the same filter, rendered by the API.
  const template = await app.post('/api/extras/export-templates/', { name: `${tag}-names`, content_types: ['dcim.site'], template_code: '{% for s in queryset %}{{ s.name }};{% endfor %}' });
  await page.reload();
  const href = await page.locator(`a:text-is("Export: ${tag}-names")`).getAttribute('href');
  const rendered = await (await page.request.get(`${base}/dcim/sites/${href}`, { headers: { Accept: 'text/plain' } })).text();
  assert.is(rendered.split(';').filter(Boolean).length, 10, rendered);
  await app.api('DELETE', `/api/extras/export-templates/${template.id}/`);
});

test('a device list, screenshot for the README', async () => {
  const { page } = browser;
  await page.goto(`${base}/dcim/devices/?q=${tag}-dev`);
  assert.is(await page.locator('#results tbody tr').count(), 12);
  assert.match(await page.locator('#filters summary').innerText(), /^Filters$/, 'the quick search is no filter, and nothing else is either');
  // The README's screenshot: rewritten only on request (UPDATE_SCREENSHOTS=1), so test runs leave the tree clean.
  const png = await page.screenshot();
  assert.ok(png.length > 10_000, 'a rendered page, not a blank one');
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    mkdirSync(join(import.meta.dirname, '../docs/screenshots'), { recursive: true });
    writeFileSync(join(import.meta.dirname, '../docs/screenshots/device-list.png'), png);
  }
});

test('a form refused with the error next to its field, then accepted; edit; detail', async () => {
  const { page } = browser;
  await page.goto(`${base}/dcim/sites/add/`);
  await expectAccessible(page, 'an add form');
  await page.fill('#field-name', `${tag} new site`);
  await page.click('button:has-text("Save")');
  assert.match(await page.locator('#field-slug-error').innerText(), /required/i);
  assert.is(await page.locator('#field-name').inputValue(), `${tag} new site`, 'what was typed is kept');
  await page.fill('#field-slug', `${tag}-new-site`);
  await page.locator('#field-status').selectOption('staging');
  await Promise.all([page.waitForURL(/\/dcim\/sites\/\d+\/$/), page.click('button:has-text("Save")')]);
  assert.match(await page.locator('h1').innerText(), new RegExp(`${tag} new site`));
  assert.match(await page.locator('main').innerText(), /Staging/);
  await expectAccessible(page, 'a detail page');
  await page.click('a:has-text("Edit")');
  await expectAccessible(page, 'an edit form');
  await page.fill('#field-description', 'Edited in the browser');
  await Promise.all([page.waitForURL(/\/dcim\/sites\/\d+\/$/), page.click('button:has-text("Save")')]);
  assert.match(await page.locator('main').innerText(), /Edited in the browser/);
  const id = Number(/\/(\d+)\/$/.exec(page.url())![1]);
  const api = await app.get(`/api/dcim/sites/${id}/`);
  assert.is(api.description, 'Edited in the browser');
  assert.is(api.status.value, 'staging');
});

test('delete is refused while devices depend on the site (the 409 text), then allowed', async () => {
  const { page } = browser;
  const site = (await app.get(`/api/dcim/sites/?slug=${tag}-site-1`)).results[0];
  await page.goto(`${base}/dcim/sites/${site.id}/`);
  assert.match(await page.locator('main').innerText(), /Devices \(site\)\s*12/);
  await page.click('a:has-text("Delete")');
  await page.click('button:has-text("Delete")');
  assert.match(await page.locator('[role=alert]').innerText(), /Unable to delete object\. 12 dependent objects were found/);
  const devices = (await app.get(`/api/dcim/devices/?site_id=${site.id}&limit=100`)).results;
  // Bulk delete of the devices from their list.
  await page.goto(`${base}/dcim/devices/?site_id=${site.id}`);
  await page.locator('[data-select-all]').check();
  await page.click('button:has-text("Delete selected")');
  assert.match(await page.locator('h1').innerText(), /Delete 12 devices/);
  await Promise.all([page.waitForURL(/\/dcim\/devices\/$/), page.click('button:has-text("Delete all")')]);
  for (const d of devices) assert.is((await app.api('GET', `/api/dcim/devices/${d.id}/`)).status, 404);
  await page.goto(`${base}/dcim/sites/${site.id}/delete/`);
  await Promise.all([page.waitForURL(/\/dcim\/sites\/$/), page.click('button:has-text("Delete")')]);
  assert.is((await app.api('GET', `/api/dcim/sites/${site.id}/`)).status, 404);
});

test('an import with a bad row imports nothing and names the row; corrected, it imports every row', async () => {
  const { page } = browser;
  await page.goto(`${base}/dcim/sites/import/`);
  const good = `name,slug,status\n${tag}-imp-a,${tag}-imp-a,active\n${tag}-imp-b,${tag}-imp-b,planned\n`;
  await page.fill('#import-data', `${good}${tag}-imp-c,,active\n`);
  await page.click('button:has-text("Import")');
  assert.match(await page.locator('[role=alert]').innerText(), /Nothing was imported: 1 of 3 rows/);
  const rows = await page.locator('table[aria-label="Row errors"] tbody tr').allInnerTexts();
  assert.is(rows.length, 1);
  assert.match(rows[0], /^3\s+slug:/);
  assert.is((await app.get(`/api/dcim/sites/?q=${tag}-imp`)).count, 0, 'all or nothing');
  await page.fill('#import-data', `${good}${tag}-imp-c,${tag}-imp-c,active\n`);
  await Promise.all([page.waitForURL(/\/dcim\/sites\/\?id=/), page.click('button:has-text("Import")')]);
  assert.is(await page.locator('#results tbody tr').count(), 3);
  // YAML works as well.
  await page.goto(`${base}/dcim/sites/import/`);
  await page.fill('#import-data', `- name: ${tag}-imp-y\n  slug: ${tag}-imp-y\n`);
  await Promise.all([page.waitForURL(/\/dcim\/sites\/\?id=/), page.click('button:has-text("Import")')]);
  assert.is((await app.get(`/api/dcim/sites/?q=${tag}-imp`)).count, 4);
});

test('bulk edit changes only the fields given', async () => {
  const { page } = browser;
  const tenant = await app.post('/api/tenancy/tenants/', { name: `${tag} tenant`, slug: `${tag}-tenant` });
  await page.goto(`${base}/dcim/sites/?q=${tag}-imp`);
  await page.locator('[data-select-all]').check();
  await page.click('button:has-text("Edit selected")');
  await page.locator('#field-status').selectOption('retired');
  await page.locator('#field-tenant').selectOption(String(tenant.id));
  await Promise.all([page.waitForURL(/\/dcim\/sites\/$/), page.click('button:has-text("Apply")')]);
  const after = (await app.get(`/api/dcim/sites/?q=${tag}-imp`)).results;
  assert.equal(after.map((s: any) => s.status.value), ['retired', 'retired', 'retired', 'retired']);
  assert.equal(after.map((s: any) => s.tenant?.id), [tenant.id, tenant.id, tenant.id, tenant.id]);
  assert.ok(after.every((s: any) => s.name.startsWith(`${tag}-imp-`)), 'names untouched');
});

test('custom links render on the pages of their object type; a javascript: URL is dropped', async () => {
  const { page } = browser;
  const good = await app.post('/api/extras/custom-links/', { name: `${tag} wiki`, content_types: ['dcim.site'], link_text: 'Wiki for {{ object.name }}', link_url: 'https://wiki.example/{{ object.slug }}', new_window: true });
  const bad = await app.post('/api/extras/custom-links/', { name: `${tag} evil`, content_types: ['dcim.site'], link_text: 'Evil', link_url: 'javascript:alert(1)' });
  const site = (await app.get(`/api/dcim/sites/?slug=${tag}-site-3`)).results[0];
  await page.goto(`${base}/dcim/sites/${site.id}/`);
  const link = page.locator(`a:text-is("Wiki for ${site.name}")`);
  assert.is(await link.getAttribute('href'), `https://wiki.example/${site.slug}`);
  assert.is(await link.getAttribute('target'), '_blank');
  assert.is(await page.locator('a:text-is("Evil")').count(), 0);
  await app.api('DELETE', `/api/extras/custom-links/${good.id}/`);
  await app.api('DELETE', `/api/extras/custom-links/${bad.id}/`);
});

test('custom fields and tags in a form: a bad custom value is reported next to it, then saved', async () => {
  const { page } = browser;
  await app.post('/api/extras/custom-fields/', { name: `budget_${tag}`, type: 'integer', content_types: ['dcim.region'] });
  const label = await app.post('/api/extras/tags/', { name: `${tag} gold`, slug: `${tag}-gold` });
  await page.goto(`${base}/dcim/regions/add/`);
  await page.fill('#field-name', `${tag} region`);
  await page.fill('#field-slug', `${tag}-region`);
  await page.fill(`#field-cf_budget_${tag}`, '12.5');
  await page.locator('#field-tags').selectOption(String(label.id));
  await page.click('button:has-text("Save")');
  assert.ok((await page.locator(`#field-cf_budget_${tag}-error`).innerText()).length > 0, 'the custom field error is next to it');
  assert.equal(await page.locator('#field-tags').evaluate((s: HTMLSelectElement) => [...s.selectedOptions].map((o) => o.value)), [String(label.id)], 'the chosen tag is kept');
  await page.fill(`#field-cf_budget_${tag}`, '12');
  await Promise.all([page.waitForURL(/\/dcim\/regions\/\d+\/$/), page.click('button:has-text("Save")')]);
  assert.match(await page.locator('table[aria-label="Custom fields"]').innerText(), /12/);
  assert.match(await page.locator('main').innerText(), new RegExp(`${tag} gold`));
  const id = Number(/\/(\d+)\/$/.exec(page.url())![1]);
  const region = await app.get(`/api/dcim/regions/${id}/`);
  assert.is(region.custom_fields[`budget_${tag}`], 12);
  assert.equal(region.tags.map((t: any) => t.id), [label.id]);
});

test('the theme button switches to dark and the choice sticks', async () => {
  const { page } = browser;
  await page.goto(`${base}/dcim/sites/`);
  assert.is(await page.locator('html').getAttribute('data-bs-theme'), 'light');
  await page.click('[data-theme-toggle]');
  assert.is(await page.locator('html').getAttribute('data-bs-theme'), 'dark');
  await page.reload();
  assert.is(await page.locator('html').getAttribute('data-bs-theme'), 'dark', 'the server renders the chosen theme');
  await page.click('[data-theme-toggle]');
});

test('a user who may only view sees no write buttons, and the server refuses the write pages', async () => {
  const { page } = browser;
  const password = `bob-${tag}-password-1`;
  const bob = await app.post('/api/users/users/', { username: `bob-${tag}`, password });
  await app.post('/api/users/permissions/', { name: `bob views sites ${tag}`, object_types: ['dcim.site'], actions: ['view'], users: [bob.id] });
  const site = (await app.get(`/api/dcim/sites/?slug=${tag}-site-2`)).results[0];
  await Promise.all([page.waitForURL(/\/login\//), page.click('button:has-text("Log out")')]);
  await login(page, base, { username: `bob-${tag}`, password }, '/dcim/sites/');
  assert.match(await page.locator('h1').innerText(), /Sites/);
  for (const name of ['Add', 'Import', 'Edit selected', 'Delete selected']) assert.is(await page.locator(`main :is(a, button):text-is("${name}")`).count(), 0, `no ${name} button`);
  assert.is(await page.locator('input[name=pk]').count(), 0, 'no row checkboxes');
  await page.goto(`${base}/dcim/sites/${site.id}/`);
  assert.is(await page.locator('main a:text-is("Edit")').count(), 0);
  assert.is(await page.locator('main a:text-is("Delete")').count(), 0);
  for (const path of [`/dcim/sites/add/`, `/dcim/sites/${site.id}/edit/`, `/dcim/sites/${site.id}/delete/`, '/dcim/sites/import/']) {
    const reply = await page.goto(`${base}${path}`);
    assert.is(reply!.status(), 403, path);
  }
  assert.is((await page.goto(`${base}/dcim/devices/`))!.status(), 403, 'no permission on devices');
  assert.ok(!(await page.locator('nav a[href="/dcim/devices/"]').count()), 'the navigation lists only what bob may see');
  // A forged form post (with bob's valid CSRF token) is refused too, and changes nothing.
  const csrf = (await browser.context.cookies()).find((c) => c.name === 'csrftoken')!.value;
  const forged = await page.request.post(`${base}/dcim/sites/${site.id}/edit/`, { form: { csrfmiddlewaretoken: csrf, name: 'hijacked', slug: site.slug, status: 'active' } });
  assert.is(forged.status(), 403);
  assert.is((await app.get(`/api/dcim/sites/${site.id}/`)).name, site.name);
  const noCsrf = await page.request.post(`${base}/dcim/sites/${site.id}/delete/`, { form: { confirm: 'true' } });
  assert.is(noCsrf.status(), 403);
  await Promise.all([page.waitForURL(/\/login\//), page.click('button:has-text("Log out")')]);
  await login(page, base);
});

test('EXEMPT_VIEW_PERMISSIONS lets anonymous visitors read those lists; RESTRICT_TOKEN_CREATION hides token creation', async () => {
  const open = await startApp({ RUN_WORKER: '0', EXEMPT_VIEW_PERMISSIONS: 'dcim.site', RESTRICT_TOKEN_CREATION: '1' });
  try {
    await open.post('/api/dcim/sites/', { name: `${tag} open`, slug: `${tag}-open` });
    const list = await fetch(`${open.url}/dcim/sites/`, { redirect: 'manual' });
    assert.is(list.status, 200);
    const html = await list.text();
    assert.ok(html.includes(`${tag} open`));
    assert.not.ok(html.includes('>Add<'), 'no Add button for anonymous visitors');
    const devices = await fetch(`${open.url}/dcim/devices/`, { redirect: 'manual' });
    assert.is(devices.status, 302);
    assert.is(devices.headers.get('location'), '/login/?next=%2Fdcim%2Fdevices%2F');
    const add = await fetch(`${open.url}/dcim/sites/add/`, { redirect: 'manual' });
    assert.is(add.status, 403);
    // A user who is not a superuser may not create tokens: no button, and the form is refused.
    const password = `carol-${tag}-password-1`;
    await open.post('/api/users/users/', { username: `carol-${tag}`, password });
    const login = await fetch(`${open.url}/login/`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: `carol-${tag}`, password }) });
    const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const tokens = await fetch(`${open.url}/user/api-tokens/`, { headers: { Cookie: cookie } });
    assert.is(tokens.status, 200);
    const text = await tokens.text();
    assert.not.ok(text.includes('href="/user/api-tokens/add/"'));
    assert.match(text, /RESTRICT_TOKEN_CREATION/);
    assert.is((await fetch(`${open.url}/user/api-tokens/add/`, { headers: { Cookie: cookie } })).status, 403);
  } finally {
    await open.stop();
  }
});

test.run();
