/**
 * Contacts: assignments to any model that takes contacts (content_type / object_id / object), the
 * contact, contact_role and contact_group filters those models get from the schema, and the rules
 * (only models with contacts; one assignment per object, contact and role).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';
import { modelList } from '../runtime/data/registry.js';

const test = suite('contacts');
let app: TestApp;
let n = 0;
const slug = (base: string) => `${base}-${++n}`;
const ASSIGN = '/api/tenancy/contact-assignments/';

test.before(async () => { app = await startApp({ RUN_WORKER: '0' }); });
test.after(() => app.stop());

test('every model with contacts gets the three filters; the others do not', () => {
  const withContacts = modelList.filter((m) => m.filters.contact_group).map((m) => m.definition.contentType).sort();
  for (const ct of ['dcim.site', 'dcim.region', 'dcim.device', 'tenancy.tenant', 'circuits.circuit', 'circuits.provider', 'virtualization.virtualmachine', 'vpn.l2vpn']) {
    assert.ok(withContacts.includes(ct), `${ct} has contact filters`);
  }
  assert.not.ok(withContacts.includes('ipam.prefix'));
  const assignable = Object.keys(modelList.find((m) => m.definition.name === 'ContactAssignment')!.definition.fields.object.types!).sort();
  assert.equal(assignable, withContacts, 'contacts can be assigned exactly where the filters are');
});

test('a contact assigned to a site: nested forms, filters by contact, role and group (descendants)', async () => {
  const parent = await app.post('/api/tenancy/contact-groups/', { name: slug('NOC'), slug: slug('noc') });
  const child = await app.post('/api/tenancy/contact-groups/', { name: slug('NOC Paris'), slug: slug('noc-paris'), parent: parent.id });
  assert.is(child._depth, 1);
  const role = await app.post('/api/tenancy/contact-roles/', { name: slug('Operations'), slug: slug('ops') });
  const contact = await app.post('/api/tenancy/contacts/', { name: slug('Ada'), group: child.id, email: 'ada@example.net', phone: '+33 1 23' });
  const site = await app.post('/api/dcim/sites/', { name: slug('Lyon'), slug: slug('lyon') });
  const other = await app.post('/api/dcim/sites/', { name: slug('Nice'), slug: slug('nice') });
  const assignment = await app.post(ASSIGN, { content_type: 'dcim.site', object_id: site.id, contact: contact.id, role: role.id, priority: 'primary' });
  assert.is(assignment.content_type, 'dcim.site');
  assert.is(assignment.object_id, site.id);
  assert.is(assignment.object.id, site.id);
  assert.is(assignment.contact.name, contact.name);
  assert.equal(assignment.priority, { value: 'primary', label: 'Primary' });
  assert.is(assignment.display, `${contact.name} (Primary)`, 'the contact and the priority\'s label, as NetBox 3.7');
  const unranked = await app.post(ASSIGN, { content_type: 'dcim.site', object_id: other.id, contact: contact.id, role: role.id });
  assert.is(unranked.display, contact.name, 'no priority: the contact alone');
  // q: the contact's name or the role's name (NetBox 3.7)
  const found = async (q: string) => (await app.get(`${ASSIGN}?q=${encodeURIComponent(q)}&id=${assignment.id}&id=${unranked.id}`)).results.map((a: any) => a.id).sort((a: number, b: number) => a - b);
  assert.equal(await found(contact.name.toUpperCase()), [assignment.id, unranked.id].sort((a, b) => a - b));
  assert.equal(await found(role.name), [assignment.id, unranked.id].sort((a, b) => a - b));
  assert.equal(await found('nobody-at-all'), []);
  expectStatus(await app.api('DELETE', `${ASSIGN}${unranked.id}/`), 204);
  const sites = async (query: string) => (await app.get(`/api/dcim/sites/?id=${site.id}&id=${other.id}&${query}`)).results.map((s: any) => s.id);
  assert.equal(await sites(`contact=${contact.id}`), [site.id]);
  assert.equal(await sites(`contact_role=${role.id}`), [site.id]);
  assert.equal(await sites(`contact_group=${child.id}`), [site.id]);
  assert.equal(await sites(`contact_group=${parent.id}`), [site.id], 'a group includes its descendants');
  assert.equal(await sites(`contact__n=${contact.id}`), [other.id]);
  assert.is((await app.get(`${ASSIGN}?content_type=dcim.site&object_id=${site.id}`)).count, 1);
  assert.is((await app.get(`${ASSIGN}?group_id=${parent.id}`)).count, 1);
  const siteType = (await app.get('/api/extras/content-types/?app_label=dcim&model=site')).results[0];
  assert.equal((await app.get(`${ASSIGN}?content_type_id=${siteType.id}&contact_id=${contact.id}`)).results.map((a: any) => a.id), [assignment.id]);
  assert.is((await app.get(`${ASSIGN}?content_type_id=${siteType.id + 100000}&contact_id=${contact.id}`)).count, 0);
  assert.is((await app.get(`/api/tenancy/contact-groups/${parent.id}/`)).contact_count, 1, 'cumulative');
  // deleting the site removes its assignments; the contact stays
  expectStatus(await app.api('DELETE', `/api/dcim/sites/${site.id}/`), 204);
  expectStatus(await app.api('GET', `${ASSIGN}${assignment.id}/`), 404);
  await app.get(`/api/tenancy/contacts/${contact.id}/`);
});

test('rule: contacts only on models that take them; one assignment per object, contact and role (single and bulk)', async () => {
  const role = await app.post('/api/tenancy/contact-roles/', { name: slug('Billing'), slug: slug('billing') });
  const contact = await app.post('/api/tenancy/contacts/', { name: slug('Bob') });
  const prefix = await app.post('/api/ipam/prefixes/', { prefix: `10.${++n}.0.0/16` });
  const tenant = await app.post('/api/tenancy/tenants/', { name: slug('T'), slug: slug('t') });
  const bad = await app.api('POST', ASSIGN, { content_type: 'ipam.prefix', object_id: prefix.id, contact: contact.id, role: role.id });
  expectStatus(bad, 400);
  assert.equal(bad.body, { content_type: ['"ipam.prefix" is not a valid choice.'] });
  const bulk = await app.api('POST', ASSIGN, [{ content_type: 'tenancy.tenant', object_id: tenant.id, contact: contact.id, role: role.id }, { content_type: 'ipam.prefix', object_id: prefix.id, contact: contact.id, role: role.id }]);
  expectStatus(bulk, 400);
  assert.equal(bulk.body, [{}, bad.body]);
  const missing = await app.api('POST', ASSIGN, { content_type: 'tenancy.tenant', object_id: 999999, contact: contact.id, role: role.id });
  expectStatus(missing, 400);
  assert.ok(missing.body.object_id, JSON.stringify(missing.body));
  const ok = await app.post(ASSIGN, { content_type: 'tenancy.tenant', object_id: tenant.id, contact: contact.id, role: role.id });
  assert.is(ok.priority, null, 'no priority reads as null');
  const twice = await app.api('POST', ASSIGN, { content_type: 'tenancy.tenant', object_id: tenant.id, contact: contact.id, role: role.id });
  expectStatus(twice, 400, 'the same contact in the same role on the same object');
  const other = await app.post('/api/tenancy/contact-roles/', { name: slug('Tech'), slug: slug('tech') });
  await app.post(ASSIGN, { content_type: 'tenancy.tenant', object_id: tenant.id, contact: contact.id, role: other.id });
  expectStatus(await app.api('POST', ASSIGN, { content_type: 'tenancy.tenant', object_id: tenant.id, contact: contact.id }), 400, 'a role is required');
  expectStatus(await app.api('DELETE', `/api/tenancy/contacts/${contact.id}/`), 409, 'assigned contacts are protected');
});

test('rule: contact names are unique within a group; a contact group is not its own ancestor', async () => {
  const group = await app.post('/api/tenancy/contact-groups/', { name: slug('G'), slug: slug('g') });
  const child = await app.post('/api/tenancy/contact-groups/', { name: slug('G2'), slug: slug('g2'), parent: group.id });
  await app.post('/api/tenancy/contacts/', { name: 'Carol', group: group.id });
  expectStatus(await app.api('POST', '/api/tenancy/contacts/', { name: 'Carol', group: group.id }), 400);
  await app.post('/api/tenancy/contacts/', { name: 'Carol', group: child.id });
  expectStatus(await app.api('PATCH', `/api/tenancy/contact-groups/${group.id}/`, { parent: child.id }), 400);
  const email = await app.api('POST', '/api/tenancy/contacts/', { name: slug('Dan'), email: 'not-an-address' });
  expectStatus(email, 400);
  assert.ok(email.body.email);
});

test.run();
