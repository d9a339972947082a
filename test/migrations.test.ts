/**
 * Schema changes reach existing databases: after the first migration, the generator writes one
 * migration per change (new tables, added, changed and removed columns), and applying it to a
 * database that already holds data keeps that data.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildMigrations, tableSpecs } from '../generator/migration.js';
import { modelList } from '../runtime/data/registry.js';
import type { ModelDefinition } from '../runtime/core/types.js';
import { choiceSets } from '../generated/choices.js';
import { engine, expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite('migrations follow the schema');
let app: TestApp;
const integerSets = new Set(Object.values(choiceSets).filter((s) => s.integer).map((s) => s.name));
const current = () => modelList.map((m) => structuredClone(m.definition));

/** The current schema with a field added to sites, one widened, one removed, and a new model. */
function changed(): ModelDefinition[] {
  const defs = current();
  const site = defs.find((d) => d.name === 'Site')!;
  site.fields.asset_code = { name: 'asset_code', type: 'string', label: 'Asset code', required: true, nullable: false, readOnly: false, writeOnly: false, unique: false, uniqueCi: false, maxLength: 30, columns: ['asset_code'] };
  site.fields.facility = { ...site.fields.facility, maxLength: 80 };
  delete site.fields.shipping_address;
  const tag = defs.find((d) => d.name === 'Tag')!;
  defs.push({ ...structuredClone(tag), name: 'Label', table: 'extras_label', contentType: 'extras.label', endpoint: 'labels' });
  return defs;
}

test.before(async () => { app = await startApp({ RUN_WORKER: '0' }); });
test.after(() => app.stop());

test('no change, no migration; a change gives one migration after the initial one', () => {
  const first = buildMigrations(tableSpecs(current(), integerSets), null, []);
  assert.equal([...first.files.keys()], ['0001_initial']);
  const again = buildMigrations(tableSpecs(current(), integerSets), first.snapshot, ['0001_initial']);
  assert.is(again.files.size, 0);
  const next = buildMigrations(tableSpecs(changed(), integerSets), first.snapshot, ['0001_initial']);
  assert.equal([...next.files.keys()], ['1001_schema']);
  const text = next.files.get('1001_schema')!;
  assert.match(text, /alterTable\('dcim_site'/);
  assert.match(text, /t\.string\('asset_code', 30\)\.nullable\(\);/, 'a column added to an existing table is nullable');
  assert.match(text, /t\.string\('facility', 80\)\.nullable\(\)\.alter\(\);/, 'a changed column is altered in place');
  assert.match(text, /t\.dropColumn\('shipping_address'\);/);
  assert.match(text, /createTable\('extras_label'/);
  // SQLite rebuilds dcim_site to alter a column: the counters on it and on its rows step aside meanwhile.
  assert.match(text, /suspendCounters\(knex, \[[^\]]*"parent":"dcim_site","column":"device_count"/);
  assert.match(text, /resumeCounters\(knex, \[[^\]]*"parent":"tenancy_tenant","column":"site_count"/);
  const later = buildMigrations(tableSpecs(changed(), integerSets), next.snapshot, ['0001_initial', '1001_schema']);
  assert.is(later.files.size, 0, 'the snapshot remembers what was applied');
});

test('a relation has no index of its own where a full unique index starts with its column', async () => {
  const specs = new Map(tableSpecs(current(), integerSets).map((s) => [s.table, s.lines]));
  const interfaces = specs.get('dcim_interface')!;
  assert.ok(interfaces.some((l) => l.includes("t.unique(['device_id', 'name']")), 'interfaces are unique by device and name');
  assert.not.ok(interfaces.some((l) => l.includes("'dcim_interface_device_id_idx'")), 'so device_id has no index of its own');
  assert.ok(interfaces.some((l) => l.includes("'dcim_interface_lag_id_idx'")), 'a relation no unique index starts with keeps its own');
  // A unique index led by COALESCE(group_id, 0) answers no lookup of group_id.
  assert.ok(specs.get('tenancy_tenant')!.some((l) => l.includes("'tenancy_tenant_group_id_idx'")));
  // On the running database: the index is gone, and a device's interfaces are found through the unique one.
  const db = app.running.db;
  const names = engine === 'postgres'
    ? (await db.raw("select indexname as name from pg_indexes where schemaname = current_schema() and tablename = 'dcim_interface'")).rows
    : await db.raw("select name from sqlite_master where type = 'index' and tbl_name = 'dcim_interface'");
  const indexes = names.map((r: { name: string }) => r.name);
  assert.ok(indexes.includes('dcim_interface_device_name_key'), indexes.join(', '));
  assert.not.ok(indexes.includes('dcim_interface_device_id_idx'), indexes.join(', '));
});

test('the migration upgrades a database that holds data, and rolls back', async () => {
  const site = await app.api('POST', '/api/dcim/sites/', { name: 'kept', slug: 'kept', facility: 'F1', shipping_address: 'Dock 4' });
  expectStatus(site, 201);
  const first = buildMigrations(tableSpecs(current(), integerSets), null, []);
  const text = buildMigrations(tableSpecs(changed(), integerSets), first.snapshot, ['0001_initial']).files.get('1001_schema')!;
  // Beside generated/, so its import of runtime/data/counter-columns.js resolves as the real ones' do.
  const dir = mkdtempSync(join(fileURLToPath(new URL('.', import.meta.url)), '.migration-'));
  const file = join(dir, '1001_schema.ts');
  writeFileSync(file, text);
  const migration = await import(pathToFileURL(file).href);
  const db = app.running.db;
  await db.transaction(async (trx) => migration.up(trx));
  assert.ok(await db.schema.hasColumn('dcim_site', 'asset_code'));
  assert.not.ok(await db.schema.hasColumn('dcim_site', 'shipping_address'));
  assert.ok(await db.schema.hasTable('extras_label'));
  const tally = async () => (engine === 'postgres' ? (await db.raw("select count(*)::int as parts, coalesce(sum(delta), 0)::int as n from row_tally where table_name = 'extras_label'")).rows[0] : null);
  if (engine === 'postgres') assert.equal(await tally(), { parts: 1, n: 0 }, 'the new table is tallied from its start');
  const row = await db('dcim_site').where('id', site.body.id).first();
  assert.is(row.name, 'kept', 'existing rows survive');
  assert.is(row.facility, 'F1', 'an altered column keeps its data');
  assert.is(row.asset_code, null);
  const tenant = await app.post('/api/tenancy/tenants/', { name: 'migrated', slug: 'migrated' });
  await db('dcim_site').where('id', site.body.id).update({ tenant_id: tenant.id });
  assert.is((await app.get(`/api/tenancy/tenants/${tenant.id}/`)).site_count, 1, 'counters work on the rebuilt table');
  await db.transaction(async (trx) => migration.down(trx));
  assert.not.ok(await db.schema.hasColumn('dcim_site', 'asset_code'));
  assert.ok(await db.schema.hasColumn('dcim_site', 'shipping_address'));
  assert.not.ok(await db.schema.hasTable('extras_label'));
  if (engine === 'postgres') assert.equal(await tally(), { parts: 0, n: 0 }, 'its tally goes before it');
  rmSync(dir, { recursive: true, force: true });
});

test.run();
