/**
 * NetBox's own demo databases (netbox-demo-data for 3.7 and 4.2, `shared/reference/`) loaded into
 * PostgreSQL with psql and imported with `npm run cli -- import-netbox` into the engine under test.
 * Then, through the API: the row count of every model checked equals the source's; ids are kept;
 * every cabled port's link peers equal the far end of its cable in the source, and every cabled
 * endpoint's connected endpoints equal the far end of NetBox's own stored cable path; tags and
 * custom field data are carried; the demo's admin logs in with NetBox's password (`admin`); Debian's
 * pynetbox lists, reads and saves the imported objects; the summary names the tables left behind.
 * Image attachments (one added to the source with SQL) and contact assignments keep their object
 * types, which NetBox 3.7 keeps under `content_type_id`. The 4.2 demo has no MAC address objects: the
 * test adds some with SQL, one an interface's primary, and checks them whole in 4.6 and the
 * interface's MAC address in both versions. On the imported 3.7 data the NetBox Ansible collection
 * updates a device found by name, takes an address of a prefix and looks the device up
 * (test/imported-ansible.ts).
 * The demo data is reference material: its absence is a failure, not a skip.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import knex, { type Knex } from 'knex';
import { engine, startApp, testDatabase, testSchemaName, type TestApp } from './helpers.js';
import { referencePath } from './reference.js';
import { runCli, runProcess } from './run-cli.js';
import { runImportedPlaybook } from './imported-ansible.js';

const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DEMO = referencePath('netbox-demo-data');

const test = suite(`import-netbox, NetBox demo data (${engine})`);

/** Source table and the API list that shows its rows. */
const COUNTED: [string, string][] = [
  ['dcim_region', 'dcim/regions'], ['dcim_site', 'dcim/sites'], ['dcim_location', 'dcim/locations'], ['dcim_rack', 'dcim/racks'],
  ['dcim_manufacturer', 'dcim/manufacturers'], ['dcim_devicetype', 'dcim/device-types'], ['dcim_device', 'dcim/devices'],
  ['dcim_interface', 'dcim/interfaces'], ['dcim_frontport', 'dcim/front-ports'], ['dcim_rearport', 'dcim/rear-ports'],
  ['dcim_consoleport', 'dcim/console-ports'], ['dcim_powerport', 'dcim/power-ports'], ['dcim_poweroutlet', 'dcim/power-outlets'],
  ['dcim_powerfeed', 'dcim/power-feeds'], ['dcim_cable', 'dcim/cables'], ['dcim_interfacetemplate', 'dcim/interface-templates'],
  ['circuits_circuit', 'circuits/circuits'], ['circuits_circuittermination', 'circuits/circuit-terminations'], ['circuits_provider', 'circuits/providers'],
  ['ipam_prefix', 'ipam/prefixes'], ['ipam_ipaddress', 'ipam/ip-addresses'], ['ipam_vlan', 'ipam/vlans'], ['ipam_vlangroup', 'ipam/vlan-groups'],
  ['ipam_vrf', 'ipam/vrfs'], ['ipam_aggregate', 'ipam/aggregates'], ['ipam_iprange', 'ipam/ip-ranges'], ['ipam_asn', 'ipam/asns'],
  ['tenancy_tenant', 'tenancy/tenants'], ['tenancy_contact', 'tenancy/contacts'], ['extras_tag', 'extras/tags'],
  ['virtualization_cluster', 'virtualization/clusters'], ['virtualization_virtualmachine', 'virtualization/virtual-machines'],
  ['virtualization_vminterface', 'virtualization/interfaces'],
];

/** NetBox 4.x tables and the 4.6 API list that shows their rows, checked where the source has the table. */
const COUNTED_46: [string, string][] = [
  ['dcim_racktype', 'dcim/rack-types'], ['circuits_virtualcircuittype', 'circuits/virtual-circuit-types'],
  ['circuits_virtualcircuit', 'circuits/virtual-circuits'], ['circuits_virtualcircuittermination', 'circuits/virtual-circuit-terminations'],
  ['extras_notificationgroup', 'extras/notification-groups'], ['extras_notification', 'extras/notifications'],
  ['extras_subscription', 'extras/subscriptions'], ['ipam_vlantranslationpolicy', 'ipam/vlan-translation-policies'],
  ['ipam_vlantranslationrule', 'ipam/vlan-translation-rules'], ['dcim_moduletypeprofile', 'dcim/module-type-profiles'],
  ['users_ownergroup', 'users/owner-groups'], ['users_owner', 'users/owners'],
];

/** Cabled models: source table, API list, whether it ends a path (has connected endpoints). */
const CABLED: [string, string, boolean][] = [
  ['dcim_interface', 'dcim/interfaces', true], ['dcim_consoleport', 'dcim/console-ports', true], ['dcim_consoleserverport', 'dcim/console-server-ports', true],
  ['dcim_powerport', 'dcim/power-ports', true], ['dcim_poweroutlet', 'dcim/power-outlets', true], ['dcim_powerfeed', 'dcim/power-feeds', true],
  ['dcim_frontport', 'dcim/front-ports', false], ['dcim_rearport', 'dcim/rear-ports', false], ['circuits_circuittermination', 'circuits/circuit-terminations', false],
];

/** Lists devices, reads an interface's link peer and saves a device's description; prints the three. */
const PYNETBOX_CHECK = `
import sys, pynetbox
nb = pynetbox.api(sys.argv[1], token=sys.argv[2])
devices = list(nb.dcim.devices.all())
print(len(devices))
print(nb.dcim.interfaces.get(int(sys.argv[3])).link_peers[0].id)
device = nb.dcim.devices.get(devices[0].id)
device.description = "moved from NetBox"
device.save()
print(nb.dcim.devices.get(devices[0].id).description)
`;

const runPython = (code: string, args: string[]) => runProcess(process.env.NETLEDGER_PYTHON ?? '/usr/bin/python3', ['-c', code, ...args], process.env);

async function psqlFile(url: string, file: string): Promise<void> {
  const run = await runProcess('psql', ['-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-f', file], process.env, 300_000);
  if (run.code !== 0) throw new Error(`psql -f ${file}: exit ${run.code}: ${run.stderr.slice(0, 500)}`);
}

const databaseUrl = (name: string) => { const u = new URL(PG_URL); u.pathname = `/${name}`; return u.toString(); };

/** A fresh PostgreSQL database holding the demo data of one NetBox version. */
async function loadDemo(version: string): Promise<{ url: string; drop(): Promise<void> }> {
  assert.ok(DEMO, 'shared/reference/netbox-demo-data is missing (NETBOX_REFERENCE names its parent)');
  const name = testSchemaName(`nbdemo${version.replace('.', '')}`);
  const admin = knex({ client: 'pg', connection: PG_URL });
  try {
    await admin.raw(`do $$ begin if not exists (select from pg_roles where rolname = 'netbox') then create role netbox; end if; end $$`);
    await admin.raw(`create database ${name}`);
  } finally {
    await admin.destroy();
  }
  const drop = async () => {
    const db = knex({ client: 'pg', connection: PG_URL });
    try { await db.raw(`drop database if exists ${name} with (force)`); } finally { await db.destroy(); }
  };
  try {
    await psqlFile(databaseUrl(name), join(DEMO!, `netbox-demo-v${version}.sql`));
  } catch (error) {
    await drop();
    throw error;
  }
  return { url: databaseUrl(name), drop };
}

/** Every row of an API list, by id. */
async function listAll(app: TestApp, token: string, path: string, base = '/api'): Promise<Map<number, any>> {
  const out = new Map<number, any>();
  let next: string | null = `${base}/${path}/?limit=1000&ordering=id`;
  while (next) {
    const reply: any = await app.api('GET', next, undefined, { token });
    assert.is(reply.status, 200, `${path}: ${reply.text.slice(0, 300)}`);
    for (const r of reply.body.results) out.set(r.id, r);
    next = reply.body.next ? new URL(reply.body.next).pathname + new URL(reply.body.next).search : null;
  }
  return out;
}

/** The MAC address objects the test adds to a 4.2 source: the first is the interface's primary. */
const MACS = ['00:1b:21:0a:0b:01', '00:1b:21:0a:0b:02', '00:1b:21:0a:0b:03', '00:1b:21:0a:0b:04'];
const ATTACHMENT = 9001;

/**
 * Rows the demo data lacks, added to the source before the import: an image attachment on a site
 * (its type under 3.7's content_type_id, 4.x's object_type_id); on a 4.x source, MAC address objects
 * on an interface (one its primary), on a VM interface and on nothing. Answers the interface's id.
 */
async function addRows(src: Knex): Promise<number | null> {
  const typeId = async (app: string, model: string) => Number((await src('django_content_type').where({ app_label: app, model }).first('id')).id);
  const now = new Date();
  const site = Number((await src('dcim_site').orderBy('id').first('id')).id);
  const typeColumn = await hasColumn(src, 'extras_imageattachment', 'content_type_id') ? 'content_type_id' : 'object_type_id';
  await src('extras_imageattachment').insert({ id: ATTACHMENT, object_id: site, image: 'image-attachments/demo.png', image_height: 1, image_width: 2, name: 'Demo photo', created: now, last_updated: now, [typeColumn]: await typeId('dcim', 'site') });
  if (!(await src('information_schema.tables').where({ table_name: 'dcim_macaddress' }).first())) return null;
  const iface = Number((await src('dcim_interface').whereNull('primary_mac_address_id').orderBy('id').first('id')).id);
  const vmInterface = Number((await src('virtualization_vminterface').orderBy('id').first('id')).id);
  const mac = (id: number, i: number, type: number | null, object: number | null) => ({ id, created: now, last_updated: now, custom_field_data: '{}', description: `MAC ${i}`, comments: '', mac_address: MACS[i], assigned_object_type_id: type, assigned_object_id: object });
  const interfaceType = await typeId('dcim', 'interface');
  await src('dcim_macaddress').insert([mac(9101, 0, interfaceType, iface), mac(9102, 1, interfaceType, iface), mac(9103, 2, await typeId('virtualization', 'vminterface'), vmInterface), mac(9104, 3, null, null)]);
  await src('dcim_interface').where('id', iface).update({ primary_mac_address_id: 9101 });
  return iface;
}

const hasColumn = async (src: Knex, table: string, column: string) => !!(await src('information_schema.columns').where({ table_name: table, column_name: column }).first());

async function checkImport(version: string): Promise<void> {
  const demo = await loadDemo(version);
  const target = testDatabase();
  const src = knex({ client: 'pg', connection: demo.url });
  try {
    const macInterface = await addRows(src);
    const run = await runCli(['import-netbox', demo.url], { ...target.env, PORT: '0' }, 300_000);
    assert.is(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, new RegExp(`NetBox ${version === '3.7' ? '3\\.7' : '4\\.'}`));
    assert.match(run.stdout, /dcim_cablepath\s+\d+\s+0\s+\d+\s+traced anew from the cables/, 'the summary names the source tables left behind, with the reason');

    const app = await startApp({ DATA_DIR: target.dataDir, ...(engine === 'postgres' ? { DATABASE_SCHEMA: target.schema } : {}) }, { takesOverDatabase: true });
    try {
      assert.is(app.running.admin, null, 'no first-start superuser beside the imported users');
      const login = await app.api('POST', '/api/users/tokens/provision/', { username: 'admin', password: 'admin' }, { token: null });
      assert.is(login.status, 201, `the demo admin logs in with NetBox's password: ${login.text}`);
      const token = login.body.key as string;

      for (const [table, path] of COUNTED) {
        const want = (await src(table).select('id').orderBy('id')).map((r) => Number(r.id));
        const have = [...(await listAll(app, token, path)).keys()].sort((a, b) => a - b);
        assert.equal(have, want, `${path}: the same ids as ${table}`);
      }

      for (const [table, path] of COUNTED_46) {
        if (!(await src('information_schema.tables').where({ table_name: table }).first())) continue;
        const want = (await src(table).select('id').orderBy('id')).map((r) => Number(r.id));
        const have = [...(await listAll(app, token, path, '/v4.6/api')).keys()].sort((a, b) => a - b);
        assert.equal(have, want, `${path}: the same ids as ${table}`);
      }
      // what the database keeps beside the rows, rebuilt after the import wrote them: list counts,
      // each device's component counters
      const interfaces = Number((await src('dcim_interface').count('* as n'))[0].n);
      assert.is((await app.api('GET', '/api/dcim/interfaces/?limit=1', undefined, { token })).body.count, interfaces, 'the interface list counts every interface');
      const perDevice = new Map((await src('dcim_interface').select('device_id').count('* as n').groupBy('device_id')).map((r) => [Number(r.device_id), Number(r.n)]));
      const deviceList = await listAll(app, token, 'dcim/devices');
      for (const [id, device] of deviceList) assert.is(device.interface_count, perDevice.get(id) ?? 0, `device ${id}: interface_count`);

      // a rack's form factor: 3.7's \`type\`, 4.1's \`form_factor\`
      const formFactor = await hasColumn(src, 'dcim_rack', 'form_factor') ? 'form_factor' : 'type';
      const racks = await listAll(app, token, 'dcim/racks');
      const shaped = (await src('dcim_rack').select('id', formFactor)).filter((r) => r[formFactor]);
      assert.ok(shaped.length, 'the demo data has racks with a form factor');
      for (const r of shaped) assert.is(racks.get(Number(r.id))?.type?.value, r[formFactor], `rack ${r.id}: type`);

      const contentTypes = new Map((await src('django_content_type').select('id', 'app_label', 'model')).map((r) => [Number(r.id), `${r.app_label}.${r.model}`]));
      const paths = new Map((await src('dcim_cablepath').select('id', 'path', 'is_complete')).map((r) => [Number(r.id), r]));
      const terminations = await src('dcim_cabletermination').select('cable_id', 'cable_end', 'termination_type_id', 'termination_id');
      let peersChecked = 0;
      let endpointsChecked = 0;
      for (const [table, path, endpoint] of CABLED) {
        const withPath = endpoint && await hasColumn(src, table, '_path_id');
        const rows = await src(table).whereNotNull('cable_id').select(['id', 'cable_id', 'cable_end', ...(withPath ? ['_path_id'] : [])]);
        if (!rows.length) continue;
        const listed = await listAll(app, token, path);
        for (const row of rows) {
          const here = listed.get(Number(row.id));
          assert.ok(here, `${path} ${row.id} is served`);
          const peers = terminations.filter((t) => Number(t.cable_id) === Number(row.cable_id) && t.cable_end !== row.cable_end)
            .map((t) => `${contentTypes.get(Number(t.termination_type_id))}:${t.termination_id}`).sort();
          assert.equal(here.link_peers.map((p: any) => `${here.link_peers_type}:${p.id}`).sort(), peers, `${path} ${row.id}: link peers`);
          peersChecked++;
          if (!withPath) continue;
          const stored = row._path_id ? paths.get(Number(row._path_id)) : undefined;
          const nodes: string[] = stored?.is_complete ? (typeof stored.path === 'string' ? JSON.parse(stored.path) : stored.path).at(-1) : [];
          const want = nodes.map((n) => { const [type, id] = n.split(':'); return `${contentTypes.get(Number(type))}:${id}`; }).sort();
          const have = (here.connected_endpoints ?? []).map((e: any) => `${here.connected_endpoints_type}:${e.id}`).sort();
          assert.equal(have, want, `${path} ${row.id}: connected endpoints as NetBox traced them`);
          endpointsChecked++;
        }
      }
      assert.ok(peersChecked > 100 && endpointsChecked > 100, `cabled ports compared: ${peersChecked} link peers, ${endpointsChecked} endpoints`);

      // 4.x's generic relations as the source has them (4.2's scopes and terminations; 3.7's sites,
      // provider networks, devices and virtual machines), read by 4.6 as the relation and by 3.7 as the object
      const GENERIC: [string, string, string, [string, string, string][]][] = [
        ['ipam_prefix', 'ipam/prefixes', 'scope', [['site_id', 'site', 'dcim.site']]],
        ['virtualization_cluster', 'virtualization/clusters', 'scope', [['site_id', 'site', 'dcim.site']]],
        ['circuits_circuittermination', 'circuits/circuit-terminations', 'termination', [['site_id', 'site', 'dcim.site'], ['provider_network_id', 'provider_network', 'circuits.providernetwork']]],
        ['ipam_service', 'ipam/services', 'parent_object', [['device_id', 'device', 'dcim.device'], ['virtual_machine_id', 'virtual_machine', 'virtualization.virtualmachine']]],
      ];
      let related = 0;
      for (const [table, path, kind, legacy] of GENERIC) {
        const generic = await hasColumn(src, table, `${kind}_type_id`);
        const rows = await src(table).select('*').orderBy('id');
        const v46 = await listAll(app, token, path, '/v4.6/api');
        const v37 = await listAll(app, token, path, '/v3.7/api');
        for (const row of rows) {
          const set = legacy.find(([column]) => row[column] !== null && row[column] !== undefined);
          const want = generic
            ? [row[`${kind}_type_id`] === null ? null : contentTypes.get(Number(row[`${kind}_type_id`])), row[`${kind}_id`] === null ? null : Number(row[`${kind}_id`])]
            : [set ? set[2] : null, set ? Number(row[set[0]]) : null];
          const have = v46.get(Number(row.id));
          assert.equal([have[`${kind}_type`], have[`${kind}_id`]], want, `4.6 ${path} ${row.id}`);
          if (want[0] !== null) related++;
          for (const [column, field] of legacy) {
            const cached = generic && `_${column}` in row ? row[`_${column}`] : row[column];
            assert.is(v37.get(Number(row.id))[field]?.id ?? null, cached === null || cached === undefined ? null : Number(cached), `3.7 ${path} ${row.id}: ${field}`);
          }
        }
      }
      assert.ok(related > 10, `objects with a scope, termination or parent compared: ${related}`);

      // a cabled interface's trace runs end to end over the imported cables
      const cabled = await src('dcim_interface').whereNotNull('cable_id').whereNotNull('_path_id').orderBy('id').first('id');
      const trace = await app.api('GET', `/api/dcim/interfaces/${cabled.id}/trace/`, undefined, { token });
      assert.is(trace.status, 200, trace.text);
      assert.ok(trace.body.length >= 1 && trace.body[0][1]?.id, 'the trace crosses a cable');

      // VLAN groups: 3.7's min_vid/max_vid become one range, 4.x's ranges (an integer range array) come as they are
      const groups = await src('ipam_vlangroup').select(src.raw('*')).orderBy('id');
      assert.ok(groups.length, 'the demo data has VLAN groups');
      for (const g of groups) {
        const here = await app.api('GET', `/v4.6/api/ipam/vlan-groups/${g.id}/`, undefined, { token });
        const want = 'min_vid' in g ? [[Number(g.min_vid), Number(g.max_vid)]]
          : [...String(await src.raw('select vid_ranges::text as t from ipam_vlangroup where id = ?', [g.id]).then((r: any) => r.rows[0].t)).matchAll(/\[(\d+),(\d+)\)/g)].map((m) => [Number(m[1]), Number(m[2]) - 1]);
        assert.equal(here.body.vid_ranges, want, `VLAN group ${g.id}`);
      }

      // the demo data tags sites only
      const tagged = await src('extras_taggeditem as ti').join('extras_tag as t', 't.id', 'ti.tag_id').join('django_content_type as ct', 'ct.id', 'ti.content_type_id')
        .where('ct.model', 'site').select('ti.object_id', 't.slug').orderBy('ti.object_id').first();
      assert.ok(tagged, 'the demo data has a tagged site');
      const site = await app.api('GET', `/api/dcim/sites/${tagged.object_id}/`, undefined, { token });
      assert.ok(site.body.tags.some((t: any) => t.slug === tagged.slug), `site ${tagged.object_id} keeps its tag ${tagged.slug}`);
      // pynetbox (Debian's) reads and writes the imported data as it did NetBox's
      const pynetbox = await runPython(PYNETBOX_CHECK, [app.url, token, String(cabled.id)]);
      assert.is(pynetbox.code, 0, pynetbox.stderr);
      const [devices, peer, saved] = pynetbox.stdout.trim().split('\n');
      assert.is(Number(devices), Number((await src('dcim_device').count('* as n'))[0].n), 'pynetbox lists every device');
      const want = await src('dcim_cabletermination as near').join('dcim_cabletermination as far', (j) => j.on('far.cable_id', 'near.cable_id').andOn('far.cable_end', '<>', 'near.cable_end'))
        .join('django_content_type as ct', 'ct.id', 'near.termination_type_id').where({ 'ct.model': 'interface', 'near.termination_id': cabled.id }).first('far.termination_id');
      assert.is(Number(peer), Number(want.termination_id), 'pynetbox sees the link peer');
      assert.is(saved, 'moved from NetBox', 'pynetbox saves a change to an imported device');

      // generic relations whose type NetBox 3.7 keeps under the API's key (content_type_id)
      const typeOf = (row: any) => contentTypes.get(Number(row.content_type_id ?? row.object_type_id));
      const attachment = await src('extras_imageattachment').where('id', ATTACHMENT).first();
      const attached = await app.api('GET', `/api/extras/image-attachments/${ATTACHMENT}/`, undefined, { token });
      assert.equal([attached.body.content_type, attached.body.object_id, attached.body.parent?.id], ['dcim.site', Number(attachment.object_id), Number(attachment.object_id)], 'the image attachment keeps its object');
      assert.is((await app.api('GET', `/v4.6/api/extras/image-attachments/${ATTACHMENT}/`, undefined, { token })).body.object_type, 'dcim.site');
      const assignments = await src('tenancy_contactassignment').select('*');
      assert.ok(assignments.length, 'the demo data has contact assignments');
      const assigned = await listAll(app, token, 'tenancy/contact-assignments');
      for (const a of assignments) {
        const have = assigned.get(Number(a.id));
        assert.equal([have?.content_type, have?.object_id], [typeOf(a), Number(a.object_id)], `contact assignment ${a.id}: its object`);
        assert.ok(have.object?.id === Number(a.object_id), `contact assignment ${a.id}: the object is shown`);
      }

      if (macInterface !== null) {
        // 4.2's MAC address objects whole, and the interface's primary one
        const want = await src('dcim_macaddress').select('*').orderBy('id');
        const have = await listAll(app, token, 'dcim/mac-addresses', '/v4.6/api');
        assert.equal([...have.keys()].sort((a, b) => a - b), want.map((m) => Number(m.id)), 'every MAC address object, with its id');
        for (const m of want) {
          const got = have.get(Number(m.id));
          assert.equal([String(got.mac_address).toLowerCase(), got.assigned_object_type, got.assigned_object_id, got.description],
            [String(m.mac_address).toLowerCase(), m.assigned_object_type_id === null ? null : contentTypes.get(Number(m.assigned_object_type_id)), m.assigned_object_id === null ? null : Number(m.assigned_object_id), m.description], `MAC address ${m.id}`);
        }
        const v46 = (await app.api('GET', `/v4.6/api/dcim/interfaces/${macInterface}/`, undefined, { token })).body;
        assert.is(v46.primary_mac_address?.id, 9101, "the interface's primary MAC address");
        assert.is(String(v46.mac_address).toLowerCase(), MACS[0]);
        assert.equal(v46.mac_addresses.map((m: any) => m.id).sort(), [9101, 9102]);
        const v37 = (await app.api('GET', `/v3.7/api/dcim/interfaces/${macInterface}/`, undefined, { token })).body;
        assert.is(String(v37.mac_address).toLowerCase(), MACS[0], "3.7 reads the primary MAC address as the interface's mac_address");
      }

      if (version === '3.7') {
        // the Ansible collection against the imported data: a device by name, an address of a prefix, a lookup
        const device = (await src.raw(`select min(id) as id, name from dcim_device where name is not null group by name having count(*) = 1 order by name limit 1`)).rows[0];
        const prefix = (await src.raw(`select prefix::text as prefix from ipam_prefix where family(prefix) = 4 and masklen(prefix) between 24 and 29 group by prefix having count(*) = 1 order by prefix limit 1`)).rows[0].prefix;
        const result = await runImportedPlaybook(app.url, token, device.name, prefix);
        assert.ok(result.device.changed, 'Ansible changed the imported device');
        assert.is(result.device.device.id, Number(device.id), 'Ansible found the imported device by its name');
        const changed = (await app.api('GET', `/api/dcim/devices/${device.id}/`, undefined, { token })).body;
        assert.equal([changed.serial, changed.description], ['ANSIBLE-0001', 'changed by Ansible']);
        const taken = (await app.api('GET', `/api/ipam/ip-addresses/?parent=${encodeURIComponent(prefix)}&description=from Ansible`, undefined, { token })).body;
        assert.equal(taken.results.map((r: any) => r.address), [result.address.ip_address.address], 'the address Ansible took is in the imported prefix');
        assert.equal(result.found.map((f) => f.value.id), [Number(device.id)], 'nb_lookup finds the imported device');
      }

      const valued = await src('tenancy_tenant').whereRaw(`custom_field_data::text <> '{}'`).orderBy('id').first('id', 'custom_field_data');
      assert.ok(valued, 'the demo data has a tenant with custom field data');
      const tenant = await app.api('GET', `/api/tenancy/tenants/${valued.id}/`, undefined, { token });
      for (const [name, value] of Object.entries(valued.custom_field_data)) assert.is(tenant.body.custom_fields[name], value, `tenant ${valued.id}: custom field ${name}`);
    } finally {
      await app.stop();
    }
  } finally {
    await src.destroy();
    await demo.drop();
    rmSync(target.dataDir, { recursive: true, force: true });
  }
}

test('the NetBox 3.7 demo database imports whole: counts, ids, link peers, connected endpoints, tags, custom fields, passwords', () => checkImport('3.7'));

test('the NetBox 4.2 demo database imports whole: counts, ids, link peers, connected endpoints, tags, custom fields, passwords', () => checkImport('4.2'));

test.run();
