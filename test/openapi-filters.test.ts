/**
 * Every query parameter NetBox 3.7.7's OpenAPI document lists for a list endpoint is a filter here too
 * (test/fixtures/netbox-3.7.json, made from NetBox's openapi.yaml by scripts/netbox-fixture.mjs). For
 * each list this service serves: all of its parameters at once, each with a value of its documented type,
 * must not be refused as unknown (strict filters, the default, name every unknown one in a 400); then
 * the accepted ones must answer 200 together once those a 400 names for their value are left out,
 * never a 500. The parameters still
 * refused are listed below; the list may only get shorter (a new refusal fails, a parameter that
 * becomes accepted is reported so that it leaves the list).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { startApp, type TestApp } from './helpers.js';

const fixture = JSON.parse(readFileSync(new URL('./fixtures/netbox-3.7.json', import.meta.url), 'utf8')) as {
  lists: Record<string, Record<string, string>>;
};

/** Parameters still refused, by list path (space-separated). */
const KNOWN_REFUSED: Record<string, string> = {
  '/api/dcim/cable-terminations/': 'cable cable__n',
  '/api/dcim/cables/': 'circuittermination_id consoleport_id consoleserverport_id frontport_id interface_id location location_id powerfeed_id poweroutlet_id powerport_id rack rack_id rearport_id termination_a_type__n termination_b_type__n unterminated',
  '/api/dcim/device-roles/': 'config_template_id config_template_id__n',
  '/api/dcim/device-types/': 'has_front_image has_rear_image',
  '/api/dcim/devices/': 'config_template_id config_template_id__n local_context_data mac_address__ic mac_address__ie mac_address__iew mac_address__isw mac_address__nic mac_address__nie mac_address__niew mac_address__nisw parent_device_id__n',
  '/api/dcim/interfaces/': 'vdc vdc__n vdc_id vdc_id__n vdc_identifier vdc_identifier__n vlan',
  '/api/dcim/module-types/': 'console_ports console_server_ports interfaces pass_through_ports power_outlets power_ports',
  '/api/dcim/platforms/': 'available_for_device_type config_template_id config_template_id__n',
  '/api/dcim/power-panels/': 'contact contact__n contact_group contact_group__n contact_role contact_role__n',
  '/api/extras/config-contexts/': 'cluster_group cluster_group__n cluster_group_id cluster_group_id__n cluster_id cluster_id__n cluster_type cluster_type__n cluster_type_id cluster_type_id__n data_file_id data_file_id__n data_source_id data_source_id__n data_synced data_synced__empty data_synced__gt data_synced__gte data_synced__lt data_synced__lte data_synced__n device_type_id device_type_id__n location location__n location_id location_id__n platform platform__n platform_id platform_id__n region region__n region_id region_id__n role role__n role_id role_id__n site site__n site_group site_group__n site_group_id site_group_id__n site_id site_id__n tenant tenant__n tenant_group tenant_group__n tenant_group_id tenant_group_id__n tenant_id tenant_id__n',
  '/api/extras/custom-field-choice-sets/': 'base_choices base_choices__n choice',
  '/api/extras/custom-fields/': 'content_type_id content_type_id__empty content_type_id__gt content_type_id__gte content_type_id__lt content_type_id__lte content_type_id__n content_types content_types__ic content_types__ie content_types__iew content_types__isw content_types__n content_types__nic content_types__nie content_types__niew content_types__nisw',
  '/api/extras/custom-links/': 'content_type_id content_type_id__empty content_type_id__gt content_type_id__gte content_type_id__lt content_type_id__lte content_type_id__n content_types__ic content_types__ie content_types__iew content_types__isw content_types__n content_types__nic content_types__nie content_types__niew content_types__nisw',
  '/api/extras/event-rules/': 'content_type_id content_type_id__empty content_type_id__gt content_type_id__gte content_type_id__lt content_type_id__lte content_type_id__n content_types__ic content_types__ie content_types__iew content_types__isw content_types__n content_types__nic content_types__nie content_types__niew content_types__nisw',
  '/api/extras/export-templates/': 'content_type_id content_type_id__empty content_type_id__gt content_type_id__gte content_type_id__lt content_type_id__lte content_type_id__n content_types__ic content_types__ie content_types__iew content_types__isw content_types__n content_types__nic content_types__nie content_types__niew content_types__nisw data_file_id data_file_id__n data_source_id data_source_id__n data_synced data_synced__empty data_synced__gt data_synced__gte data_synced__lt data_synced__lte data_synced__n',
  '/api/extras/journal-entries/': 'assigned_object_type_id__n',
  '/api/extras/object-changes/': 'changed_object_type_id changed_object_type_id__n',
  '/api/extras/saved-filters/': 'content_type_id content_type_id__empty content_type_id__gt content_type_id__gte content_type_id__lt content_type_id__lte content_type_id__n content_types__ic content_types__ie content_types__iew content_types__isw content_types__n content_types__nic content_types__nie content_types__niew content_types__nisw usable',
  '/api/extras/tags/': 'content_type content_type_id for_object_type_id object_types object_types__n',
  '/api/ipam/prefixes/': 'children children__empty children__gt children__gte children__lt children__lte children__n depth depth__empty depth__gt depth__gte depth__lt depth__lte depth__n',
  '/api/tenancy/contact-assignments/': 'content_type_id__n',
  '/api/users/permissions/': 'can_add can_change can_delete can_view group group__n group_id group_id__n object_types object_types__n user user__n user_id user_id__n',
  '/api/users/tokens/': 'key key__empty key__ic key__ie key__iew key__isw key__n key__nic key__nie key__niew key__nisw',
  '/api/users/users/': 'group group__n group_id group_id__n',
  '/api/virtualization/interfaces/': 'vlan vlan_id',
  '/api/virtualization/virtual-machines/': 'config_template_id config_template_id__n local_context_data mac_address__ic mac_address__ie mac_address__iew mac_address__isw mac_address__nic mac_address__nie mac_address__niew mac_address__nisw',
  '/api/vpn/l2vpn-terminations/': 'assigned_object_type_id__n vlan_vid__empty vlan_vid__gt vlan_vid__gte vlan_vid__lt vlan_vid__lte',
};

/** A value of the parameter's documented type (the fixture's type letters). */
function sample(type: string): string {
  switch (type) {
    case 'i': return '1';
    case 'n': return '1.5';
    case 'b': return 'true';
    case 't': return '2024-01-02T03:04:05Z';
    case 'd': return '2024-01-02';
    case 'u': return '0b4c1e28-36d5-4a2c-9a5e-27d8d8a3f6b1';
    default: return 'x';
  }
}

const CONTROL = new Set(['limit', 'offset', 'ordering', 'format', 'brief']);
const test = suite('NetBox 3.7 list filters');
let app: TestApp;
const served: string[] = [];

test.before(async () => {
  app = await startApp();
  for (const path of Object.keys(fixture.lists)) {
    if ((await app.api('GET', `${path}?limit=1`)).status === 200) served.push(path);
  }
});
test.after(async () => { await app?.stop(); });

test('no listed parameter is refused as unknown, on any served list', async () => {
  const refused: string[] = [];
  let sent = 0;
  for (const path of served) {
    const query = new URLSearchParams();
    for (const [name, type] of Object.entries(fixture.lists[path])) if (!CONTROL.has(name)) query.append(name, sample(type));
    sent += query.size;
    const reply = await app.api('GET', `${path}?${query}`);
    assert.ok(reply.status < 500, `${path}: ${reply.status} ${reply.text.slice(0, 300)}`);
    if (reply.status !== 400 || !reply.body || typeof reply.body !== 'object') continue;
    for (const [name, messages] of Object.entries(reply.body as Record<string, string[]>)) {
      if (/Unknown filter|is not a lookup of/.test(String(messages))) refused.push(`${path}?${name}`);
    }
  }
  const known = new Set(Object.entries(KNOWN_REFUSED).flatMap(([path, names]) => names.split(' ').map((n) => `${path}?${n}`)));
  const accepted = [...known].filter((k) => served.includes(k.split('?')[0]) && !refused.includes(k));
  console.log(`  ${served.length} lists served, ${sent} parameters sent, ${sent - refused.length} accepted, ${refused.length} refused${accepted.length ? `; now accepted, remove from KNOWN_REFUSED: ${accepted.join(' ')}` : ''}`);
  assert.equal(refused.filter((r) => !known.has(r)), [], 'parameters refused that are not known to be');
});

test('the accepted parameters together answer 200, leaving out those a 400 names for their value', async () => {
  const failures: string[] = [];
  let rounds = 0;
  for (const path of served) {
    const known = new Set((KNOWN_REFUSED[path] ?? '').split(' '));
    const params = new Map(Object.entries(fixture.lists[path]).filter(([name]) => !CONTROL.has(name) && !known.has(name)));
    // Send them all; a 400 names the parameters whose value it refuses: leave those out and send again.
    for (;;) {
      rounds++;
      const query = new URLSearchParams([...params].map(([name, type]) => [name, sample(type)]));
      const reply = await app.api('GET', `${path}?${query}&limit=1`);
      if (reply.status === 200) break;
      const named = reply.status === 400 && reply.body && typeof reply.body === 'object' ? Object.keys(reply.body).filter((n) => params.has(n)) : [];
      if (!named.length) { failures.push(`${path}: ${reply.status} ${reply.text.slice(0, 300)}`); break; }
      for (const name of named) params.delete(name);
    }
  }
  console.log(`  ${rounds} requests`);
  assert.equal(failures, []);
});

test.run();
