/**
 * Custom fields: definitions, every object showing every field, validation on write, defaults,
 * PATCH merging, cf_<name> filters with their filter logic, and the expression index.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, engine, type TestApp } from './helpers.js';

const test = suite('custom fields');
let app: TestApp;
const ids: Record<string, number> = {};

async function field(body: Record<string, unknown>): Promise<any> {
  const reply = await app.api('POST', '/api/extras/custom-fields/', { content_types: ['dcim.site'], ...body });
  expectStatus(reply, 201, `custom field ${JSON.stringify(body)}:`);
  return reply.body;
}

async function site(name: string, custom_fields?: Record<string, unknown>): Promise<any> {
  const reply = await app.api('POST', '/api/dcim/sites/', { name, slug: name, ...(custom_fields ? { custom_fields } : {}) });
  expectStatus(reply, 201, `site ${name}:`);
  return reply.body;
}

const names = (reply: any) => reply.body.results.map((r: any) => r.name).sort();

test.before(async () => {
  app = await startApp();
});
test.after(() => app.stop());

test('a new field shows on every object of its type as null, without rewriting rows', async () => {
  const before = await site('before-fields');
  assert.equal(before.custom_fields, {});
  await field({ name: 'circuit_ref', type: 'text' });
  const again = await app.api('GET', `/api/dcim/sites/${before.id}/`);
  assert.equal(again.body.custom_fields, { circuit_ref: null });
  const stored = await app.running.db('dcim_site').where('id', before.id).first();
  assert.is(stored.custom_field_data, '{}', 'the stored row was not rewritten');
  const device = await app.api('GET', '/api/dcim/devices/?limit=1');
  expectStatus(device, 200);
});

test('values are validated by type; unknown keys and bad values are 400 naming the field', async () => {
  await field({ name: 'rack_count_cf', type: 'integer', validation_minimum: 1, validation_maximum: 10 });
  const set = await app.api('POST', '/api/extras/custom-field-choice-sets/', { name: 'tiers', extra_choices: [['gold', 'Gold'], ['silver', 'Silver']] });
  expectStatus(set, 201);
  assert.is(set.body.choices_count, 2);
  await field({ name: 'tier', type: 'select', choice_set: set.body.id });
  await field({ name: 'features', type: 'multiselect', choice_set: set.body.id });
  await field({ name: 'opened', type: 'date' });
  await field({ name: 'managed', type: 'boolean' });
  const unknown = await app.api('POST', '/api/dcim/sites/', { name: 'x1', slug: 'x1', custom_fields: { nope: 1 } });
  expectStatus(unknown, 400);
  assert.ok(unknown.body.custom_fields[0].includes("'nope'"));
  for (const [cf, value] of [['rack_count_cf', 'many'], ['rack_count_cf', 11], ['rack_count_cf', 0], ['tier', 'bronze'], ['features', ['gold', 'tin']], ['opened', '21/11/2026'], ['managed', 'maybe']] as const) {
    const reply = await app.api('POST', '/api/dcim/sites/', { name: `bad-${cf}`, slug: `bad-${cf}`, custom_fields: { [cf]: value } });
    expectStatus(reply, 400, `${cf}=${JSON.stringify(value)}:`);
    assert.ok(reply.body.custom_fields.some((m: string) => m.includes(`'${cf}'`)), JSON.stringify(reply.body));
  }
  const good = await site('good-values', { rack_count_cf: 5, tier: 'gold', features: ['gold', 'silver'], opened: '2024-02-29', managed: true, circuit_ref: 'CR-100' });
  assert.equal(good.custom_fields, { circuit_ref: 'CR-100', rack_count_cf: 5, tier: 'gold', features: ['gold', 'silver'], opened: '2024-02-29', managed: true });
  ids.good = good.id;
});

test('PATCH merges the given keys; null clears one', async () => {
  const reply = await app.api('PATCH', `/api/dcim/sites/${ids.good}/`, { custom_fields: { tier: 'silver', circuit_ref: null } });
  expectStatus(reply, 200);
  assert.is(reply.body.custom_fields.tier, 'silver');
  assert.is(reply.body.custom_fields.circuit_ref, null);
  assert.is(reply.body.custom_fields.rack_count_cf, 5, 'untouched keys stay');
});

test('defaults fill in on create; required fields must be given', async () => {
  await field({ name: 'owner', type: 'text', default: 'netops' });
  const s = await site('with-default');
  assert.is(s.custom_fields.owner, 'netops');
  const given = await site('override-default', { owner: 'dcops' });
  assert.is(given.custom_fields.owner, 'dcops');
  await field({ name: 'cost_center', type: 'text', required: true, content_types: ['ipam.vrf'] });
  const missing = await app.api('POST', '/api/ipam/vrfs/', { name: 'v1' });
  expectStatus(missing, 400);
  assert.ok(missing.body.custom_fields[0].includes('cost_center'));
  expectStatus(await app.api('POST', '/api/ipam/vrfs/', { name: 'v1', custom_fields: { cost_center: 'cc1' } }), 201);
});

test('object fields take an id or attributes and read back nested', async () => {
  await field({ name: 'owner_tenant', type: 'object', object_type: 'tenancy.tenant' });
  const tenant = (await app.api('POST', '/api/tenancy/tenants/', { name: 'Acme', slug: 'acme' })).body;
  const byId = await site('obj-by-id', { owner_tenant: tenant.id });
  assert.is(byId.custom_fields.owner_tenant.id, tenant.id);
  assert.is(byId.custom_fields.owner_tenant.url, `${app.url}/api/tenancy/tenants/${tenant.id}/`);
  const byAttrs = await site('obj-by-attrs', { owner_tenant: { slug: 'acme' } });
  assert.is(byAttrs.custom_fields.owner_tenant.id, tenant.id);
  const missing = await app.api('POST', '/api/dcim/sites/', { name: 'obj-missing', slug: 'obj-missing', custom_fields: { owner_tenant: 99999 } });
  expectStatus(missing, 400);
  ids.tenant = tenant.id;
});

test('definition rules: select needs a choice set, object needs an object type, type is fixed', async () => {
  expectStatus(await app.api('POST', '/api/extras/custom-fields/', { name: 'sel', type: 'select', content_types: ['dcim.site'] }), 400);
  expectStatus(await app.api('POST', '/api/extras/custom-fields/', { name: 'obj', type: 'object', content_types: ['dcim.site'] }), 400);
  expectStatus(await app.api('POST', '/api/extras/custom-fields/', { name: 'bad__name', type: 'text', content_types: ['dcim.site'] }), 400);
  expectStatus(await app.api('POST', '/api/extras/custom-fields/', { name: 'nowhere', type: 'text', content_types: ['dcim.nothing'] }), 400);
  const f = await field({ name: 'fixed_type', type: 'text' });
  const change = await app.api('PATCH', `/api/extras/custom-fields/${f.id}/`, { type: 'integer' });
  expectStatus(change, 400);
  assert.ok(change.body.type);
});

test('cf_ filters follow the filter logic and the field type', async () => {
  await site('f-a', { circuit_ref: 'ALPHA-1', rack_count_cf: 2, tier: 'gold', features: ['gold'], opened: '2023-01-01', managed: true, owner_tenant: ids.tenant });
  await site('f-b', { circuit_ref: 'beta-2', rack_count_cf: 7, tier: 'silver', features: ['silver', 'gold'], opened: '2025-06-01', managed: false });
  const q = (params: string) => app.api('GET', `/api/dcim/sites/?limit=1000&name__isw=f-&${params}`);
  assert.equal(names(await q('cf_circuit_ref=alpha')), ['f-a'], 'loose text: case-insensitive contains');
  assert.equal(names(await q('cf_rack_count_cf=7')), ['f-b']);
  assert.equal(names(await q('cf_rack_count_cf__gte=2&cf_rack_count_cf__lt=7')), ['f-a']);
  assert.equal(names(await q('cf_rack_count_cf=2&cf_rack_count_cf=7')), ['f-a', 'f-b'], 'repeats OR');
  assert.equal(names(await q('cf_tier=gold')), ['f-a']);
  assert.equal(names(await q('cf_tier__n=gold')), ['f-b']);
  assert.equal(names(await q('cf_features=gold')), ['f-a', 'f-b'], 'multiselect contains');
  assert.equal(names(await q('cf_features=silver')), ['f-b']);
  assert.equal(names(await q('cf_opened__gte=2024-01-01')), ['f-b']);
  assert.equal(names(await q('cf_managed=true')), ['f-a']);
  assert.equal(names(await q('cf_managed=false')), ['f-b']);
  assert.equal(names(await q(`cf_owner_tenant=${ids.tenant}`)), ['f-a']);
  expectStatus(await q('cf_rack_count_cf=abc'), 400, 'a malformed number');
  await field({ name: 'exact_ref', type: 'text', filter_logic: 'exact' });
  await site('f-c', { exact_ref: 'Core-Router' });
  assert.equal(names(await q('cf_exact_ref=core')), [], 'exact logic: no partial match');
  assert.equal(names(await q('cf_exact_ref=Core-Router')), ['f-c']);
  assert.equal(names(await q('cf_exact_ref__ic=ROUTER')), ['f-c'], 'exact logic keeps string lookups');
  await field({ name: 'hidden_ref', type: 'text', filter_logic: 'disabled' });
  await site('f-d', { hidden_ref: 'x' });
  // Disabled: no such filter, so (strict filters) a 400 naming it rather than every site.
  const disabled = await q('cf_hidden_ref=nothing-matches');
  expectStatus(disabled, 400, 'disabled: the filter is refused');
  assert.equal(disabled.body, { cf_hidden_ref: ["Custom field 'hidden_ref' cannot be filtered on."] });
});

test('an expression index is created for filterable fields', async () => {
  const db = app.running.db;
  const indexes: string[] = engine === 'postgres'
    ? (await db.raw(`select indexname as name from pg_indexes where tablename = 'dcim_site' and schemaname = current_schema()`)).rows.map((r: any) => r.name)
    : (await db.raw(`select name from sqlite_master where type = 'index' and tbl_name = 'dcim_site'`)).map((r: any) => r.name);
  assert.ok(indexes.includes('cf_dcim_site_rack_count_cf'), indexes.join(', '));
  assert.ok(indexes.includes('cf_dcim_site_circuit_ref'));
});

test.run();
