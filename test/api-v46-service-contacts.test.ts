/**
 * Services take contacts in NetBox 4 (not in 3.7): through 4.6 a contact assignment may name a
 * service, services filter by contact, contact_role and contact_group, and deleting a service
 * deletes its assignments; through 3.7 a service is not a choice, those filters do not exist and
 * the assignments to services are not listed.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectFieldError, expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite<{ app: TestApp; service: any; other: any; contact: any; role: any; group: any }>('api-v46-service-contacts');
const ASSIGNMENTS = '/api/tenancy/contact-assignments/';

test.before(async (ctx) => {
  ctx.app = await startApp({ RUN_WORKER: '0' });
  const { app } = ctx;
  const site = await app.post('/api/dcim/sites/', { name: 'SC Site', slug: 'sc-site' });
  const manufacturer = await app.post('/api/dcim/manufacturers/', { name: 'SC Maker', slug: 'sc-maker' });
  const type = await app.post('/api/dcim/device-types/', { manufacturer: manufacturer.id, model: 'SC Type', slug: 'sc-type' });
  const role = await app.post('/api/dcim/device-roles/', { name: 'SC Role', slug: 'sc-role' });
  const device = await app.post('/api/dcim/devices/', { name: 'sc-device', site: site.id, device_type: type.id, role: role.id });
  ctx.service = await app.post('/v4.6/api/ipam/services/', { parent_object_type: 'dcim.device', parent_object_id: device.id, name: 'ssh', protocol: 'tcp', ports: [22] });
  ctx.other = await app.post('/v4.6/api/ipam/services/', { parent_object_type: 'dcim.device', parent_object_id: device.id, name: 'http', protocol: 'tcp', ports: [80] });
  ctx.group = await app.post('/api/tenancy/contact-groups/', { name: 'SC Group', slug: 'sc-group' });
  ctx.contact = await app.post('/v4.6/api/tenancy/contacts/', { name: 'SC Contact', groups: [ctx.group.id] });
  ctx.role = await app.post('/api/tenancy/contact-roles/', { name: 'SC Contact Role', slug: 'sc-contact-role' });
});

test.after(async ({ app }) => { await app.stop(); });

test('4.6: a contact assignment names a service; services filter by contact, contact_role, contact_group', async ({ app, service, other, contact, role, group }) => {
  const made = await app.post(`/v4.6${ASSIGNMENTS}`, { object_type: 'ipam.service', object_id: service.id, contact: contact.id, role: role.id });
  assert.equal([made.object_type, made.object_id], ['ipam.service', service.id]);
  assert.equal([made.object.id, made.object.url, made.object.name], [service.id, `${app.url}/v4.6/api/ipam/services/${service.id}/`, 'ssh']);
  assert.is(made.display, `SC Contact -> ${service.display}`);
  const names = async (query: string) => (await app.get(`/v4.6/api/ipam/services/?${query}`)).results.map((s: any) => s.name).sort();
  assert.equal(await names(`contact=${contact.id}`), ['ssh']);
  assert.equal(await names(`contact_role=${role.id}`), ['ssh']);
  assert.equal(await names(`contact_group=${group.id}`), ['ssh']);
  assert.equal(await names(''), ['http', 'ssh']);
  assert.equal((await app.get(`/v4.6${ASSIGNMENTS}?object_type=ipam.service&object_id=${service.id}`)).results.map((a: any) => a.id), [made.id]);
  // the same contact and role twice on one service is refused
  const twice = await app.api('POST', `/v4.6${ASSIGNMENTS}`, { object_type: 'ipam.service', object_id: service.id, contact: contact.id, role: role.id });
  expectStatus(twice, 400);
  // deleting the service deletes its assignments
  const onOther = await app.post(`/v4.6${ASSIGNMENTS}`, { object_type: 'ipam.service', object_id: other.id, contact: contact.id, role: role.id });
  expectStatus(await app.api('DELETE', `/v4.6/api/ipam/services/${other.id}/`), 204);
  expectStatus(await app.api('GET', `/v4.6${ASSIGNMENTS}${onOther.id}/`), 404);
  // OPTIONS and the OpenAPI document offer the type
  const doc = await app.get('/v4.6/api/schema/?format=json');
  const request = doc.components.schemas.WritableContactAssignment;
  assert.ok(request.properties.object_type.enum.includes('ipam.service'), JSON.stringify(request.properties.object_type));
});

test('3.7 is unchanged: a service is not a choice, the filters do not exist, assignments to services are not listed', async ({ app, service, contact, role }) => {
  assert.match(await expectFieldError(app, 'POST', `/v3.7${ASSIGNMENTS}`, { content_type: 'ipam.service', object_id: service.id, contact: contact.id, role: role.id }, 'content_type'), /not a valid choice/);
  assert.match(await expectFieldError(app, 'POST', `/api${ASSIGNMENTS.slice(4)}`, { content_type: 'ipam.service', object_id: service.id, contact: contact.id, role: role.id }, 'content_type'), /not a valid choice/);
  const all46 = await app.get(`/v4.6${ASSIGNMENTS}`);
  const all37 = await app.get(`/v3.7${ASSIGNMENTS}`);
  assert.is(all46.count, 1);
  assert.is(all37.count, 0);
  const onService = all46.results[0];
  expectStatus(await app.api('GET', `/v3.7${ASSIGNMENTS}${onService.id}/`), 404);
  const unknown = await app.api('GET', `/v3.7/api/ipam/services/?contact=${contact.id}`);
  expectStatus(unknown, 400);
  assert.ok('contact' in unknown.body, JSON.stringify(unknown.body));
  const service37 = await app.get(`/v3.7/api/ipam/services/${service.id}/`);
  assert.not.ok('contacts' in service37);
  const doc = await app.get('/v3.7/api/schema/?format=json');
  const request = doc.components.schemas.WritableContactAssignment;
  assert.not.ok(request.properties.content_type.enum.includes('ipam.service'));
  assert.ok(request.properties.content_type.enum.includes('dcim.site'));
  const options = await app.api('OPTIONS', `/v3.7${ASSIGNMENTS}`);
  assert.not.ok(JSON.stringify(options.body.actions.POST.content_type.choices).includes('ipam.service'));
});

test.run();
