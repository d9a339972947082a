/**
 * Displays that differ by API version (`display_since:` in a model's YAML): NetBox 4 shows a contact
 * assignment as `<contact> -> <object>` (with the priority's label when set), NetBox 3.7 as the
 * contact alone. Both versions read the same stored assignment, in full, brief and list answers.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp, type TestApp } from './helpers.js';

const test = suite<{ app: TestApp; site: any; tenant: any; contact: any; role: any }>('api-v46-display');

test.before(async (ctx) => {
  ctx.app = await startApp();
  ctx.site = await ctx.app.post('/api/dcim/sites/', { name: 'Display Site', slug: 'display-site' });
  ctx.tenant = await ctx.app.post('/api/tenancy/tenants/', { name: 'Display Tenant', slug: 'display-tenant' });
  ctx.contact = await ctx.app.post('/api/tenancy/contacts/', { name: 'Display Contact' });
  ctx.role = await ctx.app.post('/api/tenancy/contact-roles/', { name: 'Display Role', slug: 'display-role' });
});

test.after(async ({ app }) => { await app.stop(); });

const LIST = '/api/tenancy/contact-assignments/';

test('a contact assignment shows 4.x\'s "<contact> -> <object>" through 4.6 and the contact alone through 3.7', async ({ app, site, tenant, contact, role }) => {
  const onSite = await app.post(`/v4.6${LIST}`, { object_type: 'dcim.site', object_id: site.id, contact: contact.id, role: role.id });
  assert.is(onSite.display, 'Display Contact -> Display Site');
  const onTenant = await app.post(`/v3.7${LIST}`, { content_type: 'tenancy.tenant', object_id: tenant.id, contact: contact.id, role: role.id, priority: 'primary' });
  assert.is(onTenant.display, 'Display Contact (Primary)', '3.7 keeps its display');
  assert.is((await app.get(`/v4.6${LIST}${onTenant.id}/`)).display, 'Display Contact (Primary) -> Display Tenant');
  assert.is((await app.get(`/v3.7${LIST}${onSite.id}/`)).display, 'Display Contact');
  assert.is((await app.get(`${LIST}${onSite.id}/`)).display, 'Display Contact', 'the default version is 3.7');
  // the brief form does not carry the object, yet its display names it (the object is loaded for it)
  const brief = await app.get(`/v4.6${LIST}?brief=1&ordering=id`);
  assert.equal(brief.results.map((r: any) => r.display), ['Display Contact -> Display Site', 'Display Contact (Primary) -> Display Tenant']);
  const brief37 = await app.get(`/v3.7${LIST}?brief=1&ordering=id`);
  assert.equal(brief37.results.map((r: any) => r.display), ['Display Contact', 'Display Contact (Primary)']);
  // field selection and the Accept header pick the same version's display
  assert.equal(await app.get(`/v4.6${LIST}${onSite.id}/?fields=id,display`), { id: onSite.id, display: 'Display Contact -> Display Site' });
  const accepted = await app.api('GET', `${LIST}${onSite.id}/`, undefined, { headers: { Accept: 'application/json; version=4.6' } });
  assert.is(accepted.body.display, 'Display Contact -> Display Site');
  // a renamed object shows its new name in the 4.6 display
  await app.patch(`/api/dcim/sites/${site.id}/`, { name: 'Display Site Renamed' });
  assert.is((await app.get(`/v4.6${LIST}${onSite.id}/`)).display, 'Display Contact -> Display Site Renamed');
  // a PATCH's answer is rendered in its version's display too
  const patched = await app.patch(`/v4.6${LIST}${onSite.id}/`, { priority: 'secondary' });
  assert.is(patched.display, 'Display Contact (Secondary) -> Display Site Renamed');
  assert.is((await app.patch(`/v3.7${LIST}${onSite.id}/`, { priority: '' })).display, 'Display Contact');
});

test.run();
