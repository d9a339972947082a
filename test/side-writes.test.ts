/**
 * Writes made on other objects than the one a request names (a cable's terminations, a webhook's
 * companion event rule, the objects a delete takes with it, a chassis's members) are change-logged
 * under the request's id and fire the event rules of their own type, as NetBox logs every save and
 * delete of a change-logged model; component updates caused by cabling are not (NetBox updates the
 * component's cable fields without saving it).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';
import { createObject } from './factory.js';
import { model } from '../runtime/data/registry.js';

const test = suite('side writes');
let app: TestApp;
let n = 0;
const unique = (s: string) => `${s}-sw${++n}`;
const term = (id: number) => ({ object_type: 'dcim.interface', object_id: id });

/** The change-log rows of a request, as [type, action, id] sorted, and the rows themselves. */
async function logOf(requestId: string) {
  const rows = (await app.get(`/api/extras/object-changes/?limit=1000&request_id=${requestId}`)).results as any[];
  return { rows, kinds: rows.map((c) => [c.changed_object_type, c.action.value, c.changed_object_id]).sort((a, b) => `${a}`.localeCompare(`${b}`)) };
}

async function send(method: string, path: string, body?: unknown, status = method === 'DELETE' ? 204 : method === 'POST' ? 201 : 200) {
  const reply = await app.api(method, path, body);
  expectStatus(reply, status, `${method} ${path}:`);
  return { body: reply.body, requestId: reply.headers.get('x-request-id')! };
}

async function interfaces(count: number) {
  const device = await createObject(app, model('Device'));
  const made = await app.post('/api/dcim/interfaces/', Array.from({ length: count }, (_, i) => ({ device: device.id, name: `eth${i}`, type: '1000base-t' })));
  return { device, ifaces: made as any[] };
}

test.before(async () => { app = await startApp({ RUN_WORKER: '0' }); });
test.after(() => app.stop());

test('a cable logs each termination it creates, moves and deletes, under its request id; the interfaces are not logged', async () => {
  const { ifaces: [a, b, c] } = await interfaces(3);
  const made = await send('POST', '/api/dcim/cables/', { a_terminations: [term(a.id)], b_terminations: [term(b.id)] });
  const created = await logOf(made.requestId);
  assert.equal(created.kinds.map(([t, act]) => `${t} ${act}`), ['dcim.cable create', 'dcim.cabletermination create', 'dcim.cabletermination create']);
  const ends = created.rows.filter((r) => r.changed_object_type === 'dcim.cabletermination');
  for (const r of ends) {
    assert.is(r.postchange_data.cable, made.body.id);
    assert.is(r.prechange_data, null);
    // NetBox records a termination against the terminated object
    assert.is(r.related_object_type, 'dcim.interface');
  }
  assert.equal(ends.map((r) => [r.postchange_data.cable_end, r.postchange_data.termination_type, r.postchange_data.termination_id, r.related_object_id]).sort(),
    [['A', 'dcim.interface', a.id, a.id], ['B', 'dcim.interface', b.id, b.id]]);
  const termIds = ends.map((r) => r.changed_object_id).sort();
  assert.equal((await app.get(`/api/dcim/cable-terminations/?cable_id=${made.body.id}`)).results.map((t: any) => t.id).sort(), termIds);

  const moved = await send('PATCH', `/api/dcim/cables/${made.body.id}/`, { b_terminations: [term(c.id)] });
  const movedLog = await logOf(moved.requestId);
  const gone = movedLog.rows.find((r) => r.changed_object_type === 'dcim.cabletermination' && r.action.value === 'delete');
  const added = movedLog.rows.find((r) => r.changed_object_type === 'dcim.cabletermination' && r.action.value === 'create');
  assert.is(gone.prechange_data.termination_id, b.id);
  assert.is(gone.postchange_data, null);
  assert.is(added.postchange_data.termination_id, c.id);
  assert.not.ok(movedLog.rows.some((r) => r.changed_object_type === 'dcim.interface'), 'cabling does not log the interfaces');

  const deleted = await send('DELETE', `/api/dcim/cables/${made.body.id}/`);
  const deletedLog = await logOf(deleted.requestId);
  assert.equal(deletedLog.kinds.map(([t, act]) => `${t} ${act}`), ['dcim.cable delete', 'dcim.cabletermination delete', 'dcim.cabletermination delete']);
  assert.equal(deletedLog.rows.filter((r) => r.changed_object_type === 'dcim.cabletermination').map((r) => r.prechange_data.termination_id).sort(), [a.id, c.id].sort());
});

test('a webhook written with the NetBox 3.6 fields logs its companion event rule, created and updated', async () => {
  const name = unique('legacy');
  const made = await send('POST', '/api/extras/webhooks/', { name, payload_url: 'http://127.0.0.1:9/', content_types: ['dcim.site'], type_create: true });
  const log = await logOf(made.requestId);
  assert.equal(log.kinds.map(([t, act]) => `${t} ${act}`), ['extras.eventrule create', 'extras.webhook create']);
  const rule = (await app.get(`/api/extras/event-rules/?name=${name}`)).results[0];
  const ruleChange = log.rows.find((r) => r.changed_object_type === 'extras.eventrule');
  assert.is(ruleChange.changed_object_id, rule.id);
  assert.is(ruleChange.postchange_data.name, name);
  assert.equal(ruleChange.postchange_data.content_types, ['dcim.site']);

  const changed = await send('PATCH', `/api/extras/webhooks/${made.body.id}/`, { type_delete: true });
  const update = (await logOf(changed.requestId)).rows.find((r) => r.changed_object_type === 'extras.eventrule');
  assert.is(update.action.value, 'update');
  assert.is(update.prechange_data.type_delete, false);
  assert.is(update.postchange_data.type_delete, true);

  // and the other way: a rule's write updates its webhook's 3.6 fields, logged as a webhook update
  const back = await send('PATCH', `/api/extras/event-rules/${rule.id}/`, { type_update: true });
  const hookChange = (await logOf(back.requestId)).rows.find((r) => r.changed_object_type === 'extras.webhook');
  assert.is(hookChange.action.value, 'update');
  assert.is(hookChange.postchange_data.type_update, true);
  // a write that mirrors nothing new logs nothing on the other side
  const same = await send('PATCH', `/api/extras/event-rules/${rule.id}/`, { description: 'only mine' });
  assert.equal((await logOf(same.requestId)).kinds.map(([t]) => t), ['extras.eventrule']);
  // the rule goes with its webhook, logged
  const gone = await send('DELETE', `/api/extras/webhooks/${made.body.id}/`);
  assert.equal((await logOf(gone.requestId)).kinds, [['extras.eventrule', 'delete', rule.id], ['extras.webhook', 'delete', made.body.id]]);
});

test('deleting a site logs the delete of its contact assignments and journal entries', async () => {
  const site = await app.post('/api/dcim/sites/', { name: unique('site'), slug: unique('site') });
  const role = await app.post('/api/tenancy/contact-roles/', { name: unique('role'), slug: unique('role') });
  const contact = await app.post('/api/tenancy/contacts/', { name: unique('Ada') });
  const assignment = await app.post('/api/tenancy/contact-assignments/', { content_type: 'dcim.site', object_id: site.id, contact: contact.id, role: role.id });
  const journal = await app.post('/api/extras/journal-entries/', { assigned_object_type: 'dcim.site', assigned_object_id: site.id, comments: 'gone soon' });
  const deleted = await send('DELETE', `/api/dcim/sites/${site.id}/`);
  const log = await logOf(deleted.requestId);
  assert.equal(log.kinds, [['dcim.site', 'delete', site.id], ['extras.journalentry', 'delete', journal.id], ['tenancy.contactassignment', 'delete', assignment.id]]);
  const gone = log.rows.find((r) => r.changed_object_type === 'tenancy.contactassignment');
  assert.is(gone.prechange_data.contact, contact.id);
  assert.is(gone.postchange_data, null);
  expectStatus(await app.api('GET', `/api/tenancy/contact-assignments/${assignment.id}/`), 404);
  // the contact itself stays, unlogged
  assert.is((await app.get(`/api/tenancy/contacts/${contact.id}/`)).id, contact.id);
});

test('deleting a device logs each interface, and the cable termination of a cabled one', async () => {
  const { device, ifaces } = await interfaces(3);
  const { ifaces: [far] } = await interfaces(1);
  const cable = await app.post('/api/dcim/cables/', { a_terminations: [term(ifaces[0].id)], b_terminations: [term(far.id)] });
  const deleted = await send('DELETE', `/api/dcim/devices/${device.id}/`);
  const log = await logOf(deleted.requestId);
  assert.equal(log.kinds.filter(([t]) => t === 'dcim.interface').map(([, act, id]) => [act, id]), ifaces.map((i) => ['delete', i.id]).sort((x, y) => `${x}`.localeCompare(`${y}`)));
  assert.ok(log.kinds.some(([t, act, id]) => t === 'dcim.device' && act === 'delete' && id === device.id));
  const ends = log.rows.filter((r) => r.changed_object_type === 'dcim.cabletermination');
  assert.equal(ends.map((r) => [r.action.value, r.prechange_data.termination_id]), [['delete', ifaces[0].id]]);
  // the cable keeps its other end
  assert.equal((await app.get(`/api/dcim/cables/${cable.id}/`)).b_terminations.map((t: any) => t.object_id), [far.id]);
});

test('deleting an interface logs its L2VPN termination and FHRP group assignment; deleting a module logs its components', async () => {
  const { device, ifaces: [iface] } = await interfaces(1);
  const l2vpn = await app.post('/api/vpn/l2vpns/', { name: unique('l2'), slug: unique('l2'), type: 'vxlan' });
  const termination = await app.post('/api/vpn/l2vpn-terminations/', { l2vpn: l2vpn.id, assigned_object_type: 'dcim.interface', assigned_object_id: iface.id });
  const group = await app.post('/api/ipam/fhrp-groups/', { protocol: 'vrrp2', group_id: ++n % 250 });
  const assignment = await app.post('/api/ipam/fhrp-group-assignments/', { group: group.id, interface_type: 'dcim.interface', interface_id: iface.id, priority: 100 });
  const ip = await app.post('/api/ipam/ip-addresses/', { address: `192.0.2.${++n % 250}/24`, assigned_object_type: 'dcim.interface', assigned_object_id: iface.id });
  const item = await app.post('/api/dcim/inventory-items/', { device: device.id, name: unique('sfp'), component_type: 'dcim.interface', component_id: iface.id });
  const deleted = await send('DELETE', `/api/dcim/interfaces/${iface.id}/`);
  const log = await logOf(deleted.requestId);
  assert.equal(log.kinds, [['dcim.interface', 'delete', iface.id], ['dcim.inventoryitem', 'update', item.id], ['ipam.fhrpgroupassignment', 'delete', assignment.id], ['ipam.ipaddress', 'delete', ip.id], ['vpn.l2vpntermination', 'delete', termination.id]]);
  // the address goes with its interface (NetBox 3.7); the inventory item stays, its cleared component logged as an update
  expectStatus(await app.api('GET', `/api/ipam/ip-addresses/${ip.id}/`), 404);
  const unlinked = log.rows.find((r) => r.changed_object_type === 'dcim.inventoryitem');
  assert.equal([unlinked.prechange_data.component_type, unlinked.prechange_data.component_id], ['dcim.interface', iface.id]);
  assert.equal([unlinked.postchange_data.component_type, unlinked.postchange_data.component_id], [null, null]);
  assert.is((await app.get(`/api/dcim/inventory-items/${item.id}/`)).component, null);

  const bay = await app.post('/api/dcim/module-bays/', { device: device.id, name: unique('slot') });
  const type = await app.post('/api/dcim/module-types/', { manufacturer: device.device_type.manufacturer.id, model: unique('LC') });
  const module = await app.post('/api/dcim/modules/', { device: device.id, module_bay: bay.id, module_type: type.id });
  const ports = await app.post('/api/dcim/interfaces/', [1, 2].map((i) => ({ device: device.id, module: module.id, name: unique(`m${i}`), type: '1000base-t' })));
  const removed = await send('DELETE', `/api/dcim/modules/${module.id}/`);
  assert.equal((await logOf(removed.requestId)).kinds.map(([t, act, id]) => `${t} ${act} ${id}`),
    [...ports.map((p: any) => `dcim.interface delete ${p.id}`).sort(), `dcim.module delete ${module.id}`]);
});

test('deleting a virtual chassis logs its members losing their position', async () => {
  const member = await createObject(app, model('Device'));
  const made = await send('POST', '/api/dcim/virtual-chassis/', { name: unique('vc'), master: member.id });
  const vc = made.body;
  // the master joining is a logged update of the device, in the chassis's request
  const joined = (await logOf(made.requestId)).rows.find((r) => r.changed_object_type === 'dcim.device');
  assert.equal([joined.changed_object_id, joined.prechange_data.virtual_chassis, joined.postchange_data.virtual_chassis, joined.postchange_data.vc_position], [member.id, null, vc.id, 1]);
  const deleted = await send('DELETE', `/api/dcim/virtual-chassis/${vc.id}/`);
  const update = (await logOf(deleted.requestId)).rows.find((r) => r.changed_object_type === 'dcim.device');
  assert.is(update.action.value, 'update');
  assert.equal([update.prechange_data.virtual_chassis, update.prechange_data.vc_position], [vc.id, 1]);
  assert.equal([update.postchange_data.virtual_chassis, update.postchange_data.vc_position], [null, null]);
  const after = await app.get(`/api/dcim/devices/${member.id}/`);
  assert.equal([after.virtual_chassis, after.vc_position], [null, null]);
});

test('moving a device moves the devices in its bays, each change-logged', async () => {
  const maker = await app.post('/api/dcim/manufacturers/', { name: unique('mk'), slug: unique('mk') });
  const type = (extra: object) => app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: unique('dt'), slug: unique('dt'), ...extra });
  const [parentType, childType] = [await type({ subdevice_role: 'parent' }), await type({ subdevice_role: 'child', u_height: 0 })];
  const role = await app.post('/api/dcim/device-roles/', { name: unique('role'), slug: unique('role') });
  const [here, there] = [await app.post('/api/dcim/sites/', { name: unique('here'), slug: unique('here') }), await app.post('/api/dcim/sites/', { name: unique('there'), slug: unique('there') })];
  const chassis = await app.post('/api/dcim/devices/', { name: unique('chassis'), device_type: parentType.id, role: role.id, site: here.id });
  const blade = await app.post('/api/dcim/devices/', { name: unique('blade'), device_type: childType.id, role: role.id, site: here.id });
  await app.post('/api/dcim/device-bays/', { device: chassis.id, name: 'Bay 1', installed_device: blade.id });
  const moved = await send('PATCH', `/api/dcim/devices/${chassis.id}/`, { site: there.id });
  const log = await logOf(moved.requestId);
  assert.equal(log.kinds, [['dcim.device', 'update', chassis.id], ['dcim.device', 'update', blade.id]].sort((a, b) => `${a}`.localeCompare(`${b}`)));
  const child = log.rows.find((r) => r.changed_object_id === blade.id);
  assert.equal([child.prechange_data.site, child.postchange_data.site], [here.id, there.id]);
  assert.is((await app.get(`/api/dcim/devices/${blade.id}/`)).site.id, there.id);
});

test('event rules for the types written on the side fire: cable terminations, contact assignments, interfaces, event rules', async () => {
  const hook = await app.post('/api/extras/webhooks/', { name: unique('observer'), payload_url: 'http://127.0.0.1:9/' });
  await app.post('/api/extras/event-rules/', {
    name: unique('side'), type_create: true, type_update: true, type_delete: true,
    content_types: ['dcim.cabletermination', 'tenancy.contactassignment', 'dcim.interface', 'extras.eventrule'],
    action_type: 'webhook', action_object_type: 'extras.webhook', action_object_id: hook.id,
  });
  const queued = async (requestId: string) => ((await app.get(`/api/extras/webhook-deliveries/?limit=1000&webhook_id=${hook.id}&request_id=${requestId}`)).results as any[])
    .map((d) => `${d.object_type} ${d.event.value}`).sort();

  const { device, ifaces: [a] } = await interfaces(1);
  const { ifaces: [b] } = await interfaces(1);
  const cable = await send('POST', '/api/dcim/cables/', { a_terminations: [term(a.id)], b_terminations: [term(b.id)] });
  assert.equal(await queued(cable.requestId), ['dcim.cabletermination created', 'dcim.cabletermination created']);
  const site = await app.post('/api/dcim/sites/', { name: unique('site'), slug: unique('site') });
  const role = await app.post('/api/tenancy/contact-roles/', { name: unique('role'), slug: unique('role') });
  const contact = await app.post('/api/tenancy/contacts/', { name: unique('Bob') });
  await app.post('/api/tenancy/contact-assignments/', { content_type: 'dcim.site', object_id: site.id, contact: contact.id, role: role.id });
  assert.equal(await queued((await send('DELETE', `/api/dcim/sites/${site.id}/`)).requestId), ['tenancy.contactassignment deleted']);
  assert.equal(await queued((await send('DELETE', `/api/dcim/devices/${device.id}/`)).requestId), ['dcim.cabletermination deleted', 'dcim.interface deleted']);
  const legacy = await send('POST', '/api/extras/webhooks/', { name: unique('legacy'), payload_url: 'http://127.0.0.1:9/', content_types: ['dcim.site'], type_create: true });
  assert.equal(await queued(legacy.requestId), ['extras.eventrule created']);
  const payload = (await app.get(`/api/extras/webhook-deliveries/?webhook_id=${hook.id}&request_id=${legacy.requestId}`)).results[0];
  assert.is(payload.object_repr, legacy.body.name);
});

test.run();
