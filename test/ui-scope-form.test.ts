/**
 * The web forms of NetBox 4's generic scope (prefixes, clusters, VLAN groups): the scope's type is a
 * select of the kinds of object the relation takes (region, site group, site, location), the object
 * its id; what the form saves is what the API reads, and editing keeps the scope.
 */
import * as assert from 'uvu/assert';
import { browserSuite, login } from './browser.js';

let region: any;
let group: any;
const { test, s } = browserSuite('ui-scope-form', async ({ app, browser, base }) => {
  region = await app.post('/api/dcim/regions/', { name: 'Form Region', slug: 'form-region' });
  group = await app.post('/api/dcim/site-groups/', { name: 'Form Group', slug: 'form-group' });
  await login(browser.page, base);
});

test('a prefix scoped to a region through the add form, kept by an edit, moved to a site group', async () => {
  const { page } = s.browser;
  await page.goto(`${s.base}/ipam/prefixes/add/`);
  const options = await page.$$eval('select#field-scope_type option', (els) => els.map((e) => (e as HTMLOptionElement).value));
  assert.equal(options, ['', 'dcim.region', 'dcim.sitegroup', 'dcim.site', 'dcim.location']);
  await page.fill('#field-prefix', '10.55.0.0/24');
  await page.selectOption('#field-scope_type', 'dcim.region');
  await page.fill('#field-scope_id', String(region.id));
  await Promise.all([page.waitForURL(/\/ipam\/prefixes\/\d+\/$/), page.click('button:has-text("Save")')]);
  const made = (await s.app.get('/v4.6/api/ipam/prefixes/?prefix=10.55.0.0/24')).results[0];
  assert.equal([made.scope_type, made.scope_id, made.scope.name], ['dcim.region', region.id, 'Form Region']);
  // the prefix's page shows its scope, linked, though the default version (3.7) has none
  const scopeRow = page.locator('tr', { has: page.locator('th', { hasText: /^Scope$/ }) });
  assert.is((await scopeRow.locator('a').innerText()).trim(), 'Form Region');
  assert.match(String(await scopeRow.locator('a').getAttribute('href')), new RegExp(`/dcim/regions/${region.id}/$`));
  // the edit form shows the scope and saving it keeps it
  await page.goto(`${s.base}/ipam/prefixes/${made.id}/edit/`);
  assert.is(await page.$eval('select#field-scope_type', (e) => (e as HTMLSelectElement).value), 'dcim.region');
  assert.is(await page.$eval('#field-scope_id', (e) => (e as HTMLInputElement).value), String(region.id));
  await page.fill('#field-description', 'edited');
  await Promise.all([page.waitForURL(new RegExp(`/ipam/prefixes/${made.id}/$`)), page.click('button:has-text("Save")')]);
  const edited = await s.app.get(`/v4.6/api/ipam/prefixes/${made.id}/`);
  assert.equal([edited.description, edited.scope_type, edited.scope_id], ['edited', 'dcim.region', region.id]);
  // another kind of scope
  await page.goto(`${s.base}/ipam/prefixes/${made.id}/edit/`);
  await page.selectOption('#field-scope_type', 'dcim.sitegroup');
  await page.fill('#field-scope_id', String(group.id));
  await Promise.all([page.waitForURL(new RegExp(`/ipam/prefixes/${made.id}/$`)), page.click('button:has-text("Save")')]);
  const moved = await s.app.get(`/v4.6/api/ipam/prefixes/${made.id}/`);
  assert.equal([moved.scope_type, moved.scope_id], ['dcim.sitegroup', group.id]);
  // 3.7 shows no site for a site group's prefix
  assert.is((await s.app.get(`/v3.7/api/ipam/prefixes/${made.id}/`)).site, null);
});

test('a VLAN group and a cluster take a scope the same way', async () => {
  const { page } = s.browser;
  await page.goto(`${s.base}/ipam/vlan-groups/add/`);
  await page.fill('#field-name', 'Form VLANs');
  await page.fill('#field-slug', 'form-vlans');
  await page.selectOption('#field-scope_type', 'dcim.region');
  await page.fill('#field-scope_id', String(region.id));
  await Promise.all([page.waitForURL(/\/ipam\/vlan-groups\/\d+\/$/), page.click('button:has-text("Save")')]);
  const vlans = (await s.app.get('/v4.6/api/ipam/vlan-groups/?slug=form-vlans')).results[0];
  assert.equal([vlans.scope_type, vlans.scope_id], ['dcim.region', region.id]);
  const type = await s.app.post('/api/virtualization/cluster-types/', { name: 'Form CT', slug: 'form-ct' });
  await page.goto(`${s.base}/virtualization/clusters/add/?type=${type.id}`);
  await page.fill('#field-name', 'form-cluster');
  await page.selectOption('#field-scope_type', 'dcim.sitegroup');
  await page.fill('#field-scope_id', String(group.id));
  await Promise.all([page.waitForURL(/\/virtualization\/clusters\/\d+\/$/), page.click('button:has-text("Save")')]);
  const cluster = (await s.app.get('/v4.6/api/virtualization/clusters/?name=form-cluster')).results[0];
  assert.equal([cluster.scope_type, cluster.scope_id], ['dcim.sitegroup', group.id]);
});

test.run();
