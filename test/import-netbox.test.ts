/**
 * `npm run cli -- import-netbox <url>` (runtime/data/netbox-import.ts) from a small NetBox-shaped
 * database the test builds (a PostgreSQL schema: django_migrations of 4.2, content types, a tenant,
 * a site with a tag and custom field data, an address on it, a user with a Django password hash, a
 * virtual machine and disk, a contact in a group, image attachments and a device type with images),
 * into the engine under test: the same ids, the tag, the custom field data, a login with the old
 * password, no first-start superuser; a row NetLedger refuses fails the import whole and names the row;
 * an occupied target is refused without --replace; --dry-run writes nothing; the change log is left
 * behind (and counted) unless --with-changelog carries it; --media carries the files of image
 * attachments and device types' images from MEDIA_ROOT, naming those that are not there. (A PostgreSQL server is
 * needed on both engines: the source is one.)
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pbkdf2Sync } from 'node:crypto';
import knex from 'knex';
import { engine, startApp, testDatabase, testSchemaName } from './helpers.js';
import { runCli } from './run-cli.js';

const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const test = suite(`import-netbox (${engine})`);

/** A PNG of 2x1 pixels: an image attachment's file under the source's MEDIA_ROOT. */
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAADUlEQVR4nGP4zwAE/wEHAAH/4iOeWQAAAABJRU5ErkJggg==', 'base64');

const django = (password: string) => `pbkdf2_sha256$1000$salty$${pbkdf2Sync(password, 'salty', 1000, 32, 'sha256').toString('base64')}`;

/** The NetBox-shaped source, in a schema of its own. */
async function buildSource(schema: string, badAddress = false, sizesInMb = true): Promise<void> {
  const db = knex({ client: 'pg', connection: PG_URL });
  try {
    await db.raw(`create schema ${schema}`);
    const t = (sql: string) => db.raw(sql.replaceAll('%s', schema));
    await t(`create table %s.django_migrations (id serial primary key, app text, name text)`);
    await t(`insert into %s.django_migrations (app, name) values ('dcim', '0199_macaddress'), ('dcim', '0200_populate_mac_addresses')`);
    // NetBox 4.1 counts disk sizes in MB; before that migration they are GB
    if (sizesInMb) await t(`insert into %s.django_migrations (app, name) values ('virtualization', '0040_convert_disk_size')`);
    await t(`create table %s.django_content_type (id integer primary key, app_label text, model text)`);
    await t(`insert into %s.django_content_type values (3, 'dcim', 'site'), (4, 'tenancy', 'tenant'), (9, 'dcim', 'interface')`);
    // A child group whose parent has the higher id: its parent is set after both rows are in.
    await t(`create table %s.tenancy_tenantgroup (id bigint primary key, name text, slug text, description text, parent_id bigint, custom_field_data jsonb, created timestamptz, last_updated timestamptz)`);
    await t(`insert into %s.tenancy_tenantgroup values (3, 'Customers', 'customers', '', 7, '{}', now(), now()), (7, 'External', 'external', '', null, '{}', now(), now())`);
    await t(`create table %s.tenancy_tenant (id bigint primary key, name text, slug text, description text, comments text, group_id bigint, custom_field_data jsonb, created timestamptz, last_updated timestamptz)`);
    await t(`insert into %s.tenancy_tenant values (41, 'Acme', 'acme', '', '', 3, '{}', '2024-01-02T03:04:05Z', '2024-01-02T03:04:05Z')`);
    await t(`create table %s.dcim_site (id bigint primary key, name text, slug text, status text, tenant_id bigint, facility text, description text, comments text, custom_field_data jsonb, created timestamptz, last_updated timestamptz)`);
    await t(`insert into %s.dcim_site values (17, 'Alpha', 'alpha', 'active', 41, 'F1', '', '', '{"owner": "ops"}', '2024-01-02T03:04:05Z', '2024-01-02T03:04:05Z')`);
    await t(`create table %s.ipam_ipaddress (id bigint primary key, address inet, status text, role text, dns_name text, description text, comments text, tenant_id bigint, vrf_id bigint, nat_inside_id bigint, assigned_object_type_id integer, assigned_object_id bigint, custom_field_data jsonb, created timestamptz, last_updated timestamptz)`);
    await db.raw(`insert into ${schema}.ipam_ipaddress values (250, ?, 'active', '', 'gateway.example.net', '', '', 41, null, null, null, null, '{}', now(), now())`, [badAddress ? '0.0.0.0/0' : '192.0.2.7/24']);
    await t(`create table %s.virtualization_clustertype (id bigint primary key, name text, slug text, description text, custom_field_data jsonb, created timestamptz, last_updated timestamptz)`);
    await t(`insert into %s.virtualization_clustertype values (2, 'Hyper', 'hyper', '', '{}', now(), now())`);
    await t(`create table %s.virtualization_cluster (id bigint primary key, name text, type_id bigint, status text, description text, comments text, custom_field_data jsonb, created timestamptz, last_updated timestamptz)`);
    await t(`insert into %s.virtualization_cluster values (4, 'C1', 2, 'active', '', '', '{}', now(), now())`);
    await t(`create table %s.virtualization_virtualmachine (id bigint primary key, name text, status text, cluster_id bigint, disk integer, description text, comments text, custom_field_data jsonb, created timestamptz, last_updated timestamptz)`);
    await t(`insert into %s.virtualization_virtualmachine values (30, 'vm-a', 'active', 4, 2500, '', '', '{}', now(), now())`);
    await t(`create table %s.virtualization_virtualdisk (id bigint primary key, name text, size integer, virtual_machine_id bigint, description text, custom_field_data jsonb, created timestamptz, last_updated timestamptz)`);
    await t(`insert into %s.virtualization_virtualdisk values (31, 'root', 2500, 30, '', '{}', now(), now())`);
    await t(`create table %s.tenancy_contactgroup (id bigint primary key, name text, slug text, description text, parent_id bigint, custom_field_data jsonb, created timestamptz, last_updated timestamptz)`);
    await t(`insert into %s.tenancy_contactgroup values (60, 'Ops', 'ops', '', null, '{}', now(), now()), (61, 'Net', 'net', '', 60, '{}', now(), now())`);
    if (sizesInMb) {
      // before NetBox 4.3 a contact has one group
      await t(`create table %s.tenancy_contact (id bigint primary key, name text, group_id bigint, title text, phone text, email text, address text, link text, description text, comments text, custom_field_data jsonb, created timestamptz, last_updated timestamptz)`);
      await t(`insert into %s.tenancy_contact values (70, 'Ann', 61, '', '', '', '', '', '', '', '{}', now(), now())`);
    } else {
      // NetBox 4.3 and later: any number of them
      await t(`create table %s.tenancy_contact (id bigint primary key, name text, title text, phone text, email text, address text, link text, description text, comments text, custom_field_data jsonb, created timestamptz, last_updated timestamptz)`);
      await t(`insert into %s.tenancy_contact values (70, 'Ann', '', '', '', '', '', '', '', '{}', now(), now())`);
      await t(`create table %s.tenancy_contact_groups (id bigint primary key, contact_id bigint, contactgroup_id bigint)`);
      await t(`insert into %s.tenancy_contact_groups values (1, 70, 60), (2, 70, 61)`);
    }
    await t(`create table %s.extras_tag (id bigint primary key, name text, slug text, color text, description text, created timestamptz, last_updated timestamptz)`);
    await t(`insert into %s.extras_tag values (5, 'Core', 'core', 'ff0000', '', now(), now())`);
    // image attachments: 300's file is under the test's MEDIA_ROOT, 301's is not
    await t(`create table %s.extras_imageattachment (id bigint primary key, object_id bigint, image text, image_height smallint, image_width smallint, name text, created timestamptz, object_type_id integer, last_updated timestamptz)`);
    await t(`insert into %s.extras_imageattachment values (300, 17, 'image-attachments/site_17_front.png', 1, 2, 'Front', now(), 3, now()), (301, 17, 'image-attachments/site_17_gone.png', 1, 2, 'Gone', now(), 3, now())`);
    // a device type with a front image under the test's MEDIA_ROOT and a rear one that is not
    await t(`create table %s.dcim_manufacturer (id bigint primary key, name text, slug text, description text, custom_field_data jsonb, created timestamptz, last_updated timestamptz)`);
    await t(`insert into %s.dcim_manufacturer values (12, 'Juniper', 'juniper', '', '{}', now(), now())`);
    await t(`create table %s.dcim_devicetype (id bigint primary key, manufacturer_id bigint, model text, slug text, part_number text, u_height numeric, is_full_depth boolean, front_image text, rear_image text, description text, comments text, custom_field_data jsonb, created timestamptz, last_updated timestamptz)`);
    await t(`insert into %s.dcim_devicetype values (14, 12, 'MX204', 'mx204', '', 1, true, 'devicetype-images/mx204_front.png', 'devicetype-images/mx204_rear.png', '', '', '{}', now(), now()), (15, 12, 'EX2300', 'ex2300', '', 1, true, '', '', '', '', '{}', now(), now())`);
    await t(`create table %s.extras_taggeditem (id bigint primary key, object_id integer, content_type_id integer, tag_id bigint)`);
    await t(`insert into %s.extras_taggeditem values (1, 17, 3, 5)`);
    await t(`create table %s.users_user (id integer primary key, username text, password text, first_name text, last_name text, email text, is_staff boolean, is_active boolean, is_superuser boolean, date_joined timestamptz, last_login timestamptz)`);
    await db.raw(`insert into ${schema}.users_user values (8, 'olduser', ?, '', '', '', true, true, true, now(), null)`, [django('netbox-password')]);
    // the change log, under core in NetBox 4.x: the site created, then changed
    await t(`create table %s.core_objectchange (id bigint primary key, time timestamptz, user_name text, request_id uuid, action text, changed_object_id bigint, related_object_id bigint, object_repr text, prechange_data jsonb, postchange_data jsonb, changed_object_type_id integer, related_object_type_id integer, user_id integer)`);
    await t(`insert into %s.core_objectchange values
      (90, '2024-01-02T03:04:05Z', 'olduser', 'c0a8e7b2-0000-4000-8000-000000000001', 'create', 17, null, 'Alpha', null, '{"name": "Alpha", "slug": "alpha"}', 3, null, 8),
      (91, '2024-02-03T04:05:06Z', 'olduser', 'c0a8e7b2-0000-4000-8000-000000000002', 'update', 17, null, 'Alpha', '{"facility": ""}', '{"facility": "F1"}', 3, null, 8)`);
  } finally {
    await db.destroy();
  }
}

async function dropSource(schema: string): Promise<void> {
  const db = knex({ client: 'pg', connection: PG_URL });
  try { await db.raw(`drop schema if exists ${schema} cascade`); } finally { await db.destroy(); }
}

const sourceUrl = (schema: string) => `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;

test('a NetBox database imports whole, with its ids, tags, custom field data and passwords; refusals leave the target as it was', async () => {
  const good = testSchemaName('nbsrc');
  const bad = testSchemaName('nbbad');
  const gb = testSchemaName('nbgb');
  const target = testDatabase();
  const env = { ...target.env, PORT: '0' };
  const media = mkdtempSync(join(tmpdir(), 'netbox-media-'));
  mkdirSync(join(media, 'image-attachments'));
  writeFileSync(join(media, 'image-attachments/site_17_front.png'), PIXEL);
  mkdirSync(join(media, 'devicetype-images'));
  writeFileSync(join(media, 'devicetype-images/mx204_front.png'), PIXEL);
  await buildSource(good);
  await buildSource(bad, true);
  await buildSource(gb, false, false);
  try {
    // A row NetLedger refuses: the whole import fails, naming the row, and nothing is written.
    const refused = await runCli(['import-netbox', sourceUrl(bad)], env);
    assert.is(refused.code, 1, refused.stdout + refused.stderr);
    assert.match(refused.stderr, /ipam_ipaddress row 250/);
    const dry = await runCli(['import-netbox', '--dry-run', sourceUrl(good)], env);
    assert.is(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /dry run/);
    const run = await runCli(['import-netbox', sourceUrl(good)], env);
    assert.is(run.code, 0, run.stderr);
    assert.match(run.stdout, /Site\s+1\s+1\s+0/);
    assert.match(run.stdout, /ObjectChange\s+2\s+0\s+2\s+the change log is carried with --with-changelog/);
    const again = await runCli(['import-netbox', sourceUrl(good)], env);
    assert.is(again.code, 1);
    assert.match(again.stderr, /already holds inventory data/);
    assert.match(run.stdout, /ImageAttachment files\s+2\s+0\s+2\s+files not carried: pass --media/, 'without --media the summary says the files stayed behind');
    assert.match(run.stdout, /DeviceType files\s+2\s+0\s+2\s+files not carried: pass --media/, "device types' images too");
    const withChangelog = await runCli(['import-netbox', '--replace', '--with-changelog', '--media', media, sourceUrl(good)], env);
    assert.is(withChangelog.code, 0, withChangelog.stderr);
    assert.match(withChangelog.stdout, /ObjectChange\s+2\s+2\s+0/);
    assert.match(withChangelog.stdout, /ImageAttachment\s+2\s+2\s+0/, 'an attachment whose file is missing is imported all the same');
    assert.match(withChangelog.stdout, /ImageAttachment files\s+2\s+1\s+1\s+row 301: image-attachments\/site_17_gone\.png is not in /, 'the missing file is named');
    assert.match(withChangelog.stdout, /DeviceType files\s+2\s+1\s+1\s+row 14: devicetype-images\/mx204_rear\.png is not in /, "a device type's missing image is named");

    const app = await startApp({ DATA_DIR: target.dataDir, ...(engine === 'postgres' ? { DATABASE_SCHEMA: target.schema } : {}) }, { takesOverDatabase: true });
    try {
      assert.is(app.running.admin, null, 'no first-start superuser beside the imported users');
      const provision = await app.api('POST', '/api/users/tokens/provision/', { username: 'olduser', password: 'netbox-password' }, { token: null });
      assert.is(provision.status, 201, provision.text);
      const token = provision.body.key as string;
      const get = async (path: string) => (await app.api('GET', path, undefined, { token })).body;
      const site = await get('/api/dcim/sites/17/');
      assert.is(site.name, 'Alpha');
      assert.is(site.tenant.id, 41);
      const child = await get('/api/tenancy/tenant-groups/3/');
      assert.is(child.parent?.id, 7, 'a reference to a row with a higher id is set');
      assert.equal((await get('/api/tenancy/tenants/?group_id=7')).results.map((r: { id: number }) => r.id), [41], 'the tree holds: the parent group contains the tenant');
      assert.equal(site.tags.map((t: { name: string }) => t.name), ['Core']);
      const stored = await app.running.db('dcim_site').where('id', 17).first('custom_field_data');
      assert.equal(typeof stored.custom_field_data === 'string' ? JSON.parse(stored.custom_field_data) : stored.custom_field_data, { owner: 'ops' }, 'custom field data carried (shown once its field is defined)');
      // the file carried from MEDIA_ROOT is served as an upload is
      const attachment = await get('/api/extras/image-attachments/300/');
      assert.equal([attachment.name, attachment.image_width, attachment.image_height], ['Front', 2, 1]);
      const image = await fetch(attachment.image, { headers: { Authorization: `Token ${token}` } });
      assert.is(image.status, 200);
      assert.is(image.headers.get('content-type'), 'image/png');
      assert.ok(Buffer.from(await image.arrayBuffer()).equals(PIXEL), 'the bytes of the file under MEDIA_ROOT');
      assert.is((await app.api('GET', '/api/extras/image-attachments/301/image/', undefined, { token })).status, 404, 'a file that was missing is not there');
      assert.is((await get('/v4.6/api/extras/image-attachments/300/')).image_size, PIXEL.length, "the file's size, as an upload records it");
      // a device type's images: the one carried is served at its URL, the missing one reads as none
      for (const base of ['/api', '/v4.6/api']) {
        const type = await get(`${base}/dcim/device-types/14/`);
        assert.match(type.front_image, new RegExp(`${base.replace('.', '\\.')}/dcim/device-types/14/front_image/$`));
        assert.is(type.rear_image, null, 'the rear image was not under MEDIA_ROOT');
        const front = await fetch(type.front_image, { headers: { Authorization: `Token ${token}` } });
        assert.is(front.headers.get('content-type'), 'image/png');
        assert.ok(Buffer.from(await front.arrayBuffer()).equals(PIXEL), "the device type's front image from MEDIA_ROOT");
        assert.equal((await get(`${base}/dcim/device-types/?has_front_image=true`)).results.map((r: any) => r.id), [14]);
        assert.equal((await get(`${base}/dcim/device-types/?has_front_image=false`)).results.map((r: any) => r.id), [15]);
        assert.equal((await get(`${base}/dcim/device-types/?has_rear_image=true`)).results.map((r: any) => r.id), []);
      }
      const ip = await get('/api/ipam/ip-addresses/250/');
      assert.is(ip.address, '192.0.2.7/24');
      assert.is((await get('/api/ipam/ip-addresses/?parent=192.0.2.0/24')).count, 1);
      assert.equal((await get('/api/ipam/ip-addresses/?q=way.examp')).results.map((r: any) => r.id), [250], 'q finds an imported DNS name');
      // The change log, with its users, objects and data.
      const changes = await get('/api/extras/object-changes/?changed_object_type=dcim.site&changed_object_id=17&ordering=time');
      assert.equal(changes.results.map((c: { id: number; action: { value: string } }) => [c.id, c.action.value]), [[90, 'create'], [91, 'update']]);
      assert.is(changes.results[1].user.id, 8);
      assert.is(changes.results[1].user_name, 'olduser');
      assert.equal(changes.results[1].postchange_data, { facility: 'F1' });
      assert.is(changes.results[0].request_id, 'c0a8e7b2-0000-4000-8000-000000000001');
      // Ids go on past the imported ones.
      const next = await app.api('POST', '/api/dcim/sites/', { name: 'Beta', slug: 'beta' }, { token });
      assert.is(next.status, 201, next.text);
      assert.ok(next.body.id > 17);
      const logged = await get(`/api/extras/object-changes/?changed_object_type=dcim.site&changed_object_id=${next.body.id}`);
      assert.ok(logged.results[0].id > 91, 'a new change goes on past the imported change log');
      // The imported hash was replaced by this service's own after the login.
      const user = await app.running.db('users_user').where('id', 8).first('password');
      assert.match(user.password, /^scrypt\$/);
      const again2 = await app.api('POST', '/api/users/tokens/provision/', { username: 'olduser', password: 'netbox-password' }, { token: null });
      assert.is(again2.status, 201);
      // a source past NetBox 4.1's disk size migration holds MB: taken as they are
      assert.is((await get('/v4.6/api/virtualization/virtual-disks/31/')).size, 2500);
      assert.is((await get('/v4.6/api/virtualization/virtual-machines/30/')).disk, 2500);
      assert.is((await get('/api/virtualization/virtual-disks/31/')).size, 3, '2,500 MB as 3.7 reads it');
      // a contact's one group (before NetBox 4.3) becomes its one link
      assert.equal((await get('/v4.6/api/tenancy/contacts/70/')).groups.map((g: { id: number }) => g.id), [61]);
      assert.is((await get('/api/tenancy/contacts/70/')).group.id, 61);
    } finally {
      await app.stop();
    }
    // a source before it (3.7, 4.0) holds GB: stored a thousand times larger
    const replaced = await runCli(['import-netbox', '--replace', sourceUrl(gb)], env);
    assert.is(replaced.code, 0, replaced.stderr);
    const after = await startApp({ DATA_DIR: target.dataDir, ...(engine === 'postgres' ? { DATABASE_SCHEMA: target.schema } : {}) }, { takesOverDatabase: true });
    try {
      const provision = await after.api('POST', '/api/users/tokens/provision/', { username: 'olduser', password: 'netbox-password' }, { token: null });
      const token = provision.body.key as string;
      const get = async (path: string) => (await after.api('GET', path, undefined, { token })).body;
      assert.is((await get('/v4.6/api/virtualization/virtual-disks/31/')).size, 2500000);
      assert.is((await get('/v4.6/api/virtualization/virtual-machines/30/')).disk, 2500000);
      assert.is((await get('/api/virtualization/virtual-disks/31/')).size, 2500, 'the 3.7 API reads the GB the source held');
      assert.is((await get('/api/virtualization/virtual-machines/30/')).disk, 2500);
      // NetBox 4.3's link table of contacts' groups, taken as it is
      assert.equal((await get('/v4.6/api/tenancy/contacts/70/')).groups.map((g: { id: number }) => g.id).sort(), [60, 61]);
      assert.is((await get('/api/tenancy/contacts/70/')).group.id, 61, 'the first by name: Net before Ops');
    } finally {
      await after.stop();
    }
  } finally {
    await dropSource(good);
    await dropSource(bad);
    await dropSource(gb);
    rmSync(target.dataDir, { recursive: true, force: true });
    rmSync(media, { recursive: true, force: true });
  }
});

test.run();
