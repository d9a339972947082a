import type { Knex } from 'knex';
import { suspendCounters, resumeCounters } from '../../runtime/data/counter-columns.js';

/** Brings the tables in line with a change of schema/. */
export async function up(knex: Knex): Promise<void> {
  await suspendCounters(knex, [
    {"parent":"tenancy_tenant","column":"site_count","table":"dcim_site","fk":"tenant_id"},
    {"parent":"dcim_site","column":"circuit_count","table":"circuits_circuittermination","fk":"site_id"},
    {"parent":"dcim_site","column":"device_count","table":"dcim_device","fk":"site_id"},
    {"parent":"dcim_site","column":"prefix_count","table":"ipam_prefix","fk":"site_id"},
    {"parent":"dcim_site","column":"rack_count","table":"dcim_rack","fk":"site_id"},
    {"parent":"dcim_site","column":"vlan_count","table":"ipam_vlan","fk":"site_id"},
  ]);
  await knex.schema.alterTable('dcim_site', (t) => {
    t.dropColumn('shipping_address');
    t.string('facility', 80).nullable().alter();
    t.string('asset_code', 30).nullable();
  });
  await knex.schema.createTable('extras_label', (t) => {
    t.increments('id').primary();
    t.string('name', 100).notNullable();
    t.string('slug', 100).notNullable();
    t.string('color', 255).nullable();
    t.string('description', 200).nullable();
    t.text('object_types').nullable();
    t.string('created', 32).nullable();
    t.string('last_updated', 32).nullable();
    t.unique(['name'], { indexName: 'extras_label_name_key' });
    t.unique(['slug'], { indexName: 'extras_label_slug_key' });
  });
  await knex.raw("CREATE INDEX extras_label_ordering_idx ON extras_label ((case when name is null then 0 else 1 end), name, id)");
  await resumeCounters(knex, [
    {"parent":"tenancy_tenant","column":"site_count","table":"dcim_site","fk":"tenant_id"},
    {"parent":"dcim_site","column":"circuit_count","table":"circuits_circuittermination","fk":"site_id"},
    {"parent":"dcim_site","column":"device_count","table":"dcim_device","fk":"site_id"},
    {"parent":"dcim_site","column":"prefix_count","table":"ipam_prefix","fk":"site_id"},
    {"parent":"dcim_site","column":"rack_count","table":"dcim_rack","fk":"site_id"},
    {"parent":"dcim_site","column":"vlan_count","table":"ipam_vlan","fk":"site_id"},
  ]);
}

export async function down(knex: Knex): Promise<void> {
  await suspendCounters(knex, [
    {"parent":"tenancy_tenant","column":"site_count","table":"dcim_site","fk":"tenant_id"},
    {"parent":"dcim_site","column":"circuit_count","table":"circuits_circuittermination","fk":"site_id"},
    {"parent":"dcim_site","column":"device_count","table":"dcim_device","fk":"site_id"},
    {"parent":"dcim_site","column":"prefix_count","table":"ipam_prefix","fk":"site_id"},
    {"parent":"dcim_site","column":"rack_count","table":"dcim_rack","fk":"site_id"},
    {"parent":"dcim_site","column":"vlan_count","table":"ipam_vlan","fk":"site_id"},
  ]);
  await knex.schema.dropTableIfExists('extras_label');
  await knex.schema.alterTable('dcim_site', (t) => {
    t.dropColumn('asset_code');
    t.string('facility', 50).nullable().alter();
    t.string('shipping_address', 200).nullable();
  });
  await resumeCounters(knex, [
    {"parent":"tenancy_tenant","column":"site_count","table":"dcim_site","fk":"tenant_id"},
    {"parent":"dcim_site","column":"circuit_count","table":"circuits_circuittermination","fk":"site_id"},
    {"parent":"dcim_site","column":"device_count","table":"dcim_device","fk":"site_id"},
    {"parent":"dcim_site","column":"prefix_count","table":"ipam_prefix","fk":"site_id"},
    {"parent":"dcim_site","column":"rack_count","table":"dcim_rack","fk":"site_id"},
    {"parent":"dcim_site","column":"vlan_count","table":"ipam_vlan","fk":"site_id"},
  ]);
}
