/**
 * NetBox 4.6 details of models both versions serve, each through HTTP in both shapes: contact
 * assignments' and image attachments' type half (`object_type` in 4.6, `content_type` in 3.7, with
 * their filters), image attachments' `description` and `image_size`, services' `ip_address`
 * filters (3.7: `ipaddress`), interfaces' `rf_channel`, a choice of NetBox's wireless channels in
 * both versions, users' and groups' `permissions` (4.6), the permissions' own users and groups, and
 * event rules whose action is a notification group's notifications, end to end.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectFieldError, expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite<{ app: TestApp; site: any; tenant: any; contact: any; role: any }>('api-v46-gaps');

const PIXEL = 'data:image/png;name=pixel.png;base64,iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAADUlEQVR4nGP4zwAE/wEHAAH/4iOeWQAAAABJRU5ErkJggg==';

test.before(async (ctx) => {
  ctx.app = await startApp();
  ctx.site = await ctx.app.post('/api/dcim/sites/', { name: 'Gap Site', slug: 'gap-site' });
  ctx.tenant = await ctx.app.post('/api/tenancy/tenants/', { name: 'Gap Tenant', slug: 'gap-tenant' });
  ctx.contact = await ctx.app.post('/api/tenancy/contacts/', { name: 'Gap Contact' });
  ctx.role = await ctx.app.post('/api/tenancy/contact-roles/', { name: 'Gap Role', slug: 'gap-role' });
});

test.after(async ({ app }) => { await app.stop(); });

const ids = (list: { results: { id: number }[] }) => list.results.map((r) => r.id).sort((a, b) => a - b);

async function contentTypeId(app: TestApp, label: string): Promise<number> {
  const [app_label, model] = label.split('.');
  return (await app.get(`/api/extras/content-types/?app_label=${app_label}&model=${model}`)).results[0].id;
}

test('contact assignments: 4.6 writes and reads object_type, 3.7 content_type; each version filters by its own name', async ({ app, site, tenant, contact, role }) => {
  const list = '/api/tenancy/contact-assignments/';
  const onSite = await app.post(`/v4.6${list}`, { object_type: 'dcim.site', object_id: site.id, contact: contact.id, role: role.id });
  assert.equal([onSite.object_type, onSite.object_id, onSite.object.id], ['dcim.site', site.id, site.id]);
  assert.not.ok('content_type' in onSite, '4.6 has no content_type');
  assert.equal(Object.keys(onSite).slice(0, 8), ['id', 'url', 'display', 'display_url', 'object_type', 'object_id', 'object', 'contact']);
  const read37 = await app.get(`/v3.7${list}${onSite.id}/`);
  assert.equal([read37.content_type, read37.object_id], ['dcim.site', site.id]);
  assert.not.ok('object_type' in read37, '3.7 has no object_type');
  const onTenant = await app.post(`/v3.7${list}`, { content_type: 'tenancy.tenant', object_id: tenant.id, contact: contact.id, role: role.id });
  assert.is((await app.get(`/v4.6${list}${onTenant.id}/`)).object_type, 'tenancy.tenant');
  // a 4.6 PATCH moves it by object_type; a content_type key is not 4.6's and is ignored
  await app.patch(`/v4.6${list}${onTenant.id}/`, { content_type: 'dcim.site', object_id: site.id, priority: 'primary' });
  assert.equal([(await app.get(`/v4.6${list}${onTenant.id}/`)).object_type, (await app.get(`/v4.6${list}${onTenant.id}/`)).object_id], ['tenancy.tenant', tenant.id]);
  // errors name the version's key
  assert.match(await expectFieldError(app, 'POST', `/v4.6${list}`, { object_type: 'dcim.nothing', object_id: 1, contact: contact.id, role: role.id }, 'object_type'), /not a valid choice/);
  const missing = await app.api('POST', `/v4.6${list}`, { contact: contact.id, role: role.id });
  expectStatus(missing, 400);
  assert.ok('object_type' in missing.body && !('content_type' in missing.body), JSON.stringify(missing.body));
  await expectFieldError(app, 'POST', `/v3.7${list}`, { content_type: 'dcim.nothing', object_id: 1, contact: contact.id, role: role.id }, 'content_type');
  // field selection knows the key
  assert.equal((await app.get(`/v4.6${list}${onSite.id}/?fields=id,object_type`)), { id: onSite.id, object_type: 'dcim.site' });
  // filters: 4.6 object_type, object_type_id; 3.7 content_type, content_type_id
  const siteType = await contentTypeId(app, 'dcim.site');
  const tenantType = await contentTypeId(app, 'tenancy.tenant');
  assert.equal(ids(await app.get(`/v4.6${list}?object_type=dcim.site`)), [onSite.id]);
  assert.equal(ids(await app.get(`/v4.6${list}?object_type=dcim.site&object_type=tenancy.tenant`)), [onSite.id, onTenant.id]);
  assert.equal(ids(await app.get(`/v4.6${list}?object_type_id=${tenantType}`)), [onTenant.id]);
  assert.equal(ids(await app.get(`/v4.6${list}?object_type__n=dcim.site`)), [onTenant.id]);
  assert.equal(ids(await app.get(`/v3.7${list}?content_type=dcim.site`)), [onSite.id]);
  assert.equal(ids(await app.get(`/v3.7${list}?content_type_id=${siteType}`)), [onSite.id]);
  // NetBox has no contact filter here (contact_id): a contact given so is ignored, as NetBox ignores it
  assert.equal(ids(await app.get(`/v4.6${list}?object_type=tenancy.tenant&object_id=${tenant.id}&contact=${contact.id}&role=gap-role`)), [onTenant.id]);
  assert.equal(ids(await app.get(`/v4.6${list}?contact_id=${contact.id}`)), [onSite.id, onTenant.id]);
  for (const q of ['content_type=dcim.site', `content_type_id=${siteType}`]) expectStatus(await app.api('GET', `/v4.6${list}?${q}`), 400, `${q} is 3.7's`);
  for (const q of ['object_type=dcim.site', `object_type_id=${siteType}`]) expectStatus(await app.api('GET', `/v3.7${list}?${q}`), 400, `${q} is 4.6's`);
});

test('image attachments: 4.6 object_type, description and image_size; 3.7 content_type without them', async ({ app, site }) => {
  const list = '/api/extras/image-attachments/';
  const made = await app.post(`/v4.6${list}`, { object_type: 'dcim.site', object_id: site.id, name: 'Front', description: 'the front', image: PIXEL });
  assert.equal(Object.keys(made), ['id', 'url', 'display', 'display_url', 'object_type', 'object_id', 'parent', 'name', 'image', 'description', 'image_height', 'image_width', 'image_size', 'created', 'last_updated']);
  assert.equal([made.object_type, made.parent.id, made.description, made.image_size, made.image_width], ['dcim.site', site.id, 'the front', 70, 2]);
  const read37 = await app.get(`/v3.7${list}${made.id}/`);
  assert.equal(Object.keys(read37), ['id', 'url', 'display', 'content_type', 'object_id', 'parent', 'name', 'image', 'image_height', 'image_width', 'created', 'last_updated']);
  const other = await app.post(`/v3.7${list}`, { content_type: 'dcim.site', object_id: site.id, name: 'Back', image: PIXEL });
  const other46 = await app.get(`/v4.6${list}${other.id}/`);
  assert.equal([other46.object_type, other46.description, other46.image_size], ['dcim.site', '', 70]);
  await app.patch(`/v4.6${list}${other.id}/`, { description: 'the back', image_size: 5 });
  assert.equal([(await app.get(`/v4.6${list}${other.id}/`)).description, (await app.get(`/v4.6${list}${other.id}/`)).image_size], ['the back', 70], 'image_size is read-only');
  const siteType = await contentTypeId(app, 'dcim.site');
  assert.equal(ids(await app.get(`/v4.6${list}?object_type=dcim.site`)), [made.id, other.id]);
  assert.equal(ids(await app.get(`/v4.6${list}?object_type_id=${siteType}&description=the%20back`)), [other.id]);
  assert.equal(ids(await app.get(`/v3.7${list}?content_type_id=${siteType}&name=Front`)), [made.id]);
  expectStatus(await app.api('GET', `/v4.6${list}?content_type=dcim.site`), 400, 'content_type is 3.7\'s');
  expectStatus(await app.api('GET', `/v3.7${list}?object_type_id=${siteType}`), 400, 'object_type_id is 4.6\'s');
  expectStatus(await app.api('GET', `/v3.7${list}?description=x`), 400, 'description is 4.6\'s');
});

test('services: 4.6 filters by ip_address and ip_address_id, 3.7 by ipaddress and ipaddress_id', async ({ app, site }) => {
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'Gap Maker', slug: 'gap-maker' });
  const dtype = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Gap Box', slug: 'gap-box' });
  const role = await app.post('/api/dcim/device-roles/', { name: 'Gap Role', slug: 'gap-role' });
  const device = await app.post('/api/dcim/devices/', { name: 'gap-dev', site: site.id, device_type: dtype.id, role: role.id });
  const ip = await app.post('/api/ipam/ip-addresses/', { address: '198.51.100.7/24' });
  const other = await app.post('/api/ipam/ip-addresses/', { address: '198.51.100.8/24' });
  const list = '/api/ipam/services/';
  const ssh = await app.post(`/v4.6${list}`, { parent_object_type: 'dcim.device', parent_object_id: device.id, name: 'ssh', protocol: 'tcp', ports: [22], ipaddresses: [ip.id] });
  const web = await app.post(`/v4.6${list}`, { parent_object_type: 'dcim.device', parent_object_id: device.id, name: 'web', protocol: 'tcp', ports: [443], ipaddresses: [other.id] });
  assert.equal(ids(await app.get(`/v4.6${list}?ip_address_id=${ip.id}`)), [ssh.id]);
  assert.equal(ids(await app.get(`/v4.6${list}?ip_address_id=${ip.id}&ip_address_id=${other.id}`)), [ssh.id, web.id]);
  assert.equal(ids(await app.get(`/v4.6${list}?ip_address=198.51.100.8/24`)), [web.id]);
  assert.equal(ids(await app.get(`/v3.7${list}?ipaddress_id=${ip.id}`)), [ssh.id]);
  assert.equal(ids(await app.get(`/v3.7${list}?ipaddress=198.51.100.8/24`)), [web.id]);
  for (const q of [`ipaddress_id=${ip.id}`, 'ipaddress=198.51.100.8/24']) expectStatus(await app.api('GET', `/v4.6${list}?${q}`), 400, `${q} is 3.7's`);
  for (const q of [`ip_address_id=${ip.id}`, 'ip_address=198.51.100.8/24']) expectStatus(await app.api('GET', `/v3.7${list}?${q}`), 400, `${q} is 4.6's`);
});

test('interfaces: rf_channel is a choice of NetBox\'s wireless channels in both versions; another value is a 400 naming it', async ({ app, site }) => {
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'Radio Maker', slug: 'radio-maker' });
  const dtype = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Radio Box', slug: 'radio-box' });
  const role = await app.post('/api/dcim/device-roles/', { name: 'Radio Role', slug: 'radio-role' });
  const device = await app.post('/api/dcim/devices/', { name: 'radio-dev', site: site.id, device_type: dtype.id, role: role.id });
  const list = '/api/dcim/interfaces/';
  for (const base of ['/v3.7', '/v4.6']) {
    const radio = await app.post(`${base}${list}`, { device: device.id, name: `wlan${base.slice(-1)}`, type: 'ieee802.11ax', rf_channel: '6g-37-6135-20' });
    assert.equal(radio.rf_channel, { value: '6g-37-6135-20', label: '37 (6135/20 MHz)' }, base);
    assert.equal([radio.rf_channel_frequency, radio.rf_channel_width], [6135, 20], `${base}: frequency and width from the channel`);
    const plain = await app.post(`${base}${list}`, { device: device.id, name: `eth${base.slice(-1)}`, type: '1000base-t' });
    assert.is(plain.rf_channel, null, `${base}: unset reads null, as NetBox's choice field`);
    assert.match(await expectFieldError(app, 'POST', `${base}${list}`, { device: device.id, name: 'bad', type: 'ieee802.11ax', rf_channel: '6g-999-1-1' }, 'rf_channel'), /not a valid choice/);
    assert.match(await expectFieldError(app, 'PATCH', `${base}${list}${radio.id}/`, { rf_channel: 'channel 6' }, 'rf_channel'), /not a valid choice/);
    await app.patch(`${base}${list}${radio.id}/`, { rf_channel: '2.4g-6-2437-22' });
    const moved = await app.get(`${base}${list}${radio.id}/`);
    assert.equal([moved.rf_channel.label, moved.rf_channel_frequency, moved.rf_channel_width], ['6 (2437 MHz)', 2437, 22], base);
    assert.equal(ids(await app.get(`${base}${list}?device_id=${device.id}&rf_channel=2.4g-6-2437-22`)).includes(radio.id), true, base);
    await app.patch(`${base}${list}${radio.id}/`, { rf_channel: '' });
    assert.is((await app.get(`${base}${list}${radio.id}/`)).rf_channel, null, `${base}: blank clears it`);
  }
  // the choices, as OPTIONS and the OpenAPI document list them
  const options = await app.api('OPTIONS', `/v4.6${list}`);
  const choices = options.body.actions.POST.rf_channel.choices;
  assert.is(choices.length, 197);
  assert.equal(choices[0], { value: '2.4g-1-2412-22', display_name: '1 (2412 MHz)' });
  const doc = await app.get('/v4.6/api/schema/');
  assert.ok(JSON.stringify(doc.components.schemas.Interface.properties.rf_channel).includes('5g-36-5180-20'));
});

test('users and groups: 4.6 reads and writes their permissions, which grant what they say; 3.7 has no such field', async ({ app }) => {
  const sites = await app.post('/api/users/permissions/', { name: 'view sites', object_types: ['dcim.site'], actions: ['view'] });
  const tenants = await app.post('/api/users/permissions/', { name: 'view tenants', object_types: ['tenancy.tenant'], actions: ['view'] });
  const group = await app.post('/v4.6/api/users/groups/', { name: 'Gap Group', permissions: [tenants.id] });
  assert.equal(Object.keys(group), ['id', 'url', 'display', 'display_url', 'name', 'description', 'permissions', 'user_count']);
  assert.equal(group.permissions.map((p: any) => [p.id, p.name, p.url]), [[tenants.id, 'view tenants', `${app.url}/v4.6/api/users/permissions/${tenants.id}/`]]);
  assert.equal(Object.keys(group.permissions[0]), ['id', 'url', 'display', 'name', 'description', 'enabled', 'object_types', 'actions'], 'the permission\'s 4.6 brief form');
  const user = await app.post('/v4.6/api/users/users/', { username: 'gap-user', password: 'gap-user-password-123', permissions: [sites.id], groups: [group.id] });
  assert.equal(user.permissions.map((p: any) => p.id), [sites.id]);
  assert.equal(Object.keys(user).slice(-2), ['groups', 'permissions']);
  // the permissions read the same links from their side, in both versions
  const sites37 = await app.get(`/v3.7/api/users/permissions/${sites.id}/`);
  assert.equal(sites37.users.map((u: any) => u.id), [user.id]);
  assert.equal((await app.get(`/v3.7/api/users/permissions/${tenants.id}/`)).groups.map((g: any) => g.id), [group.id]);
  const user37 = await app.get(`/v3.7/api/users/users/${user.id}/`);
  assert.not.ok('permissions' in user37, '3.7 users have no permissions');
  assert.not.ok('permissions' in (await app.get(`/v3.7/api/users/groups/${group.id}/`)));
  // they grant: sites directly, tenants through the group
  const token = await app.post('/api/users/tokens/', { user: user.id });
  const as = (path: string) => app.api('GET', path, undefined, { token: token.key });
  expectStatus(await as('/api/dcim/sites/'), 200, 'granted directly');
  expectStatus(await as('/api/tenancy/tenants/'), 200, 'granted through the group');
  expectStatus(await as('/api/tenancy/contacts/'), 403, 'not granted');
  // a write replaces the whole set; an empty list clears it
  await app.patch(`/v4.6/api/users/users/${user.id}/`, { permissions: [] });
  assert.equal((await app.get(`/v4.6/api/users/users/${user.id}/`)).permissions, []);
  expectStatus(await as('/api/dcim/sites/'), 403, 'revoked');
  await app.patch(`/v4.6/api/users/groups/${group.id}/`, { permissions: [sites.id, tenants.id] });
  expectStatus(await as('/api/dcim/sites/'), 200, 'granted through the group now');
  assert.equal((await app.get(`/v4.6/api/users/groups/${group.id}/`)).permissions.map((p: any) => p.id).sort(), [sites.id, tenants.id].sort());
  assert.is((await app.get(`/v4.6/api/users/groups/${group.id}/`)).user_count, 1);
  // a PUT without permissions keeps them; a 3.7 write of permissions is ignored (not a 3.7 field)
  expectStatus(await app.api('PUT', `/v4.6/api/users/groups/${group.id}/`, { name: 'Gap Group' }), 200);
  assert.is((await app.get(`/v4.6/api/users/groups/${group.id}/`)).permissions.length, 2);
  expectStatus(await app.api('PATCH', `/v3.7/api/users/groups/${group.id}/`, { permissions: [] }), 200);
  assert.is((await app.get(`/v4.6/api/users/groups/${group.id}/`)).permissions.length, 2);
  // errors name the field
  assert.match(await expectFieldError(app, 'PATCH', `/v4.6/api/users/users/${user.id}/`, { permissions: [987654] }, 'permissions'), /not found/);
  await expectFieldError(app, 'PATCH', `/v4.6/api/users/groups/${group.id}/`, { permissions: sites.id }, 'permissions');
  // a permission deleted leaves the lists
  expectStatus(await app.api('DELETE', `/api/users/permissions/${tenants.id}/`), 204);
  assert.equal((await app.get(`/v4.6/api/users/groups/${group.id}/`)).permissions.map((p: any) => p.id), [sites.id]);
});

test('event rules: a notification action notifies each user of its group (directly or through a group) of the changes it matches', async ({ app }) => {
  const watcher = await app.post('/v4.6/api/users/users/', { username: 'watcher', password: 'watcher-password-123' });
  const member = await app.post('/v4.6/api/users/users/', { username: 'member', password: 'member-password-123' });
  const team = await app.post('/v4.6/api/users/groups/', { name: 'Watch Team' });
  await app.patch(`/v4.6/api/users/users/${member.id}/`, { groups: [team.id] });
  await app.patch(`/v4.6/api/users/users/${watcher.id}/`, { groups: [team.id] });
  const group = await app.post('/v4.6/api/extras/notification-groups/', { name: 'Site watchers', users: [watcher.id], groups: [team.id] });
  const rule = await app.post('/v4.6/api/extras/event-rules/', {
    name: 'notify on sites', object_types: ['dcim.site'], event_types: ['object_created', 'object_updated', 'object_deleted'],
    conditions: { and: [{ attr: 'status.value', value: 'active' }] },
    action_type: 'notification', action_object_type: 'extras.notificationgroup', action_object_id: group.id,
  });
  assert.equal([rule.action_type, rule.action_object_type, rule.action_object.id, rule.action_object.url], [{ value: 'notification', label: 'Notification' }, 'extras.notificationgroup', group.id, `${app.url}/v4.6/api/extras/notification-groups/${group.id}/`]);
  const mine = async () => (await app.get(`/v4.6/api/extras/notifications/?object_type=dcim.site&ordering=id`)).results.map((n: any) => [n.user.id, n.object_id, n.event_type]);
  // a change the rule matches: one notification per member, each once (the watcher is in the team too)
  const site = await app.post('/api/dcim/sites/', { name: 'Watched', slug: 'watched' });
  assert.equal(await mine(), [[watcher.id, site.id, 'object_created'], [member.id, site.id, 'object_created']]);
  // the conditions hold it back; an object type the rule does not name is not notified
  const planned = await app.post('/api/dcim/sites/', { name: 'Planned', slug: 'planned', status: 'planned' });
  await app.post('/api/tenancy/tenants/', { name: 'Unwatched', slug: 'unwatched' });
  assert.is((await mine()).length, 2);
  // a later event updates the user's notification of the object; its read mark stays
  const first = (await app.get(`/v4.6/api/extras/notifications/?user_id=${member.id}&object_id=${site.id}`)).results[0];
  await app.patch(`/v4.6/api/extras/notifications/${first.id}/`, { read: '2026-01-02T03:04:05Z' });
  await app.patch(`/api/dcim/sites/${site.id}/`, { description: 'changed' });
  assert.equal(await mine(), [[watcher.id, site.id, 'object_updated'], [member.id, site.id, 'object_updated']]);
  const after = await app.get(`/v4.6/api/extras/notifications/${first.id}/`);
  assert.equal([after.event_type, after.read !== null, after.created], ['object_updated', true, first.created]);
  // deleting notifies too (the notification outlives the object)
  expectStatus(await app.api('DELETE', `/api/dcim/sites/${site.id}/`), 204);
  assert.equal((await mine()).map((n: unknown[]) => n[2]), ['object_deleted', 'object_deleted']);
  // a rolled-back write notifies no one
  const refused = await app.api('POST', '/api/dcim/sites/', [{ name: 'Rolled', slug: 'rolled' }, { name: 'Rolled', slug: 'rolled' }]);
  expectStatus(refused, 400);
  assert.is((await mine()).length, 2);
  // a disabled rule notifies no one
  await app.patch(`/v4.6/api/extras/event-rules/${rule.id}/`, { enabled: false });
  await app.patch(`/api/dcim/sites/${planned.id}/`, { status: 'active' });
  assert.is((await mine()).length, 2);
  // the action's object must be of its kind
  const hook = await app.post('/api/extras/webhooks/', { name: 'gap-hook', payload_url: 'http://127.0.0.1:9/' });
  await expectFieldError(app, 'POST', '/v4.6/api/extras/event-rules/', { name: 'mismatch', object_types: ['dcim.site'], event_types: ['object_created'], action_type: 'notification', action_object_type: 'extras.webhook', action_object_id: hook.id }, 'action_object_type');
  await expectFieldError(app, 'POST', '/v4.6/api/extras/event-rules/', { name: 'mismatch2', object_types: ['dcim.site'], event_types: ['object_created'], action_type: 'webhook', action_object_type: 'extras.notificationgroup', action_object_id: group.id }, 'action_object_type');
  // filters by action type
  assert.equal(ids(await app.get('/v4.6/api/extras/event-rules/?action_type=notification')), [rule.id]);
});

test('the 4.6 OpenAPI document names object_type and the 4.6 filters, the 3.7 one content_type', async ({ app }) => {
  const doc46 = { ...(await app.get('/v4.6/api/schema/')), base: '/v4.6' };
  const doc37 = { ...(await app.get('/v3.7/api/schema/')), base: '/v3.7' };
  const params = (doc: any, path: string) => doc.paths[doc.base + path].get.parameters.map((p: { name: string }) => p.name);
  assert.ok(doc46.components.schemas.ContactAssignment.properties.object_type);
  assert.not.ok(doc46.components.schemas.ContactAssignment.properties.content_type);
  assert.ok(doc37.components.schemas.ContactAssignment.properties.content_type);
  for (const name of ['object_type', 'object_type_id']) {
    assert.ok(params(doc46, '/api/tenancy/contact-assignments/').includes(name), name);
    assert.ok(params(doc46, '/api/extras/image-attachments/').includes(name), name);
    assert.not.ok(params(doc37, '/api/tenancy/contact-assignments/').includes(name), name);
  }
  assert.ok(params(doc46, '/api/ipam/services/').includes('ip_address_id'));
  assert.not.ok(params(doc46, '/api/ipam/services/').includes('ipaddress_id'));
  assert.ok(params(doc37, '/api/ipam/services/').includes('ipaddress_id'));
  assert.ok(doc46.components.schemas.ImageAttachment.properties.image_size);
  assert.ok(JSON.stringify(doc46.components.schemas.EventRule.properties.action_object_type).includes('extras.notificationgroup'));
  assert.not.ok(JSON.stringify(doc37.components.schemas.EventRule.properties.action_object_type).includes('extras.notificationgroup'));
  for (const model of ['User', 'Group']) {
    assert.is(doc46.components.schemas[model].properties.permissions.type, 'array', model);
    assert.not.ok(doc37.components.schemas[model].properties.permissions, model);
  }
});

test.run();
