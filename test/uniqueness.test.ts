/**
 * NetBox's scoped uniqueness: unique within the parent (group, tenant…), and among the rows that
 * have none — enforced by validation (400 naming the rule) and by the database's indexes.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite('scoped uniqueness');
let app: TestApp;

test.before(async () => { app = await startApp({ RUN_WORKER: '0' }); });
test.after(() => app.stop());

test('tenants: a slug is unique within its group and among tenants with no group', async () => {
  const g1 = await app.post('/api/tenancy/tenant-groups/', { name: 'g1', slug: 'g1' });
  const g2 = await app.post('/api/tenancy/tenant-groups/', { name: 'g2', slug: 'g2' });
  await app.post('/api/tenancy/tenants/', { name: 'Acme', slug: 'acme' });
  const again = await app.api('POST', '/api/tenancy/tenants/', { name: 'Acme 2', slug: 'acme' });
  expectStatus(again, 400, 'a second top-level tenant with the same slug');
  assert.ok(again.body.non_field_errors?.[0]);
  await app.post('/api/tenancy/tenants/', { name: 'Acme', slug: 'acme', group: g1.id });
  await app.post('/api/tenancy/tenants/', { name: 'Acme', slug: 'acme', group: g2.id });
  expectStatus(await app.api('POST', '/api/tenancy/tenants/', { name: 'Acme', slug: 'acme-x', group: g1.id }), 400, 'same name in the same group');
  const bulk = await app.api('POST', '/api/tenancy/tenants/', [{ name: 'Twin', slug: 'twin' }, { name: 'Twin', slug: 'twin-2' }]);
  expectStatus(bulk, 400, 'duplicates inside one request');
  assert.equal(bulk.body[0], {});
  assert.ok(bulk.body[1].non_field_errors);
});

test('regions: names repeat under different parents, not among top-level regions', async () => {
  const eu = await app.post('/api/dcim/regions/', { name: 'Europe', slug: 'europe' });
  const us = await app.post('/api/dcim/regions/', { name: 'Americas', slug: 'americas' });
  await app.post('/api/dcim/regions/', { name: 'North', slug: 'north', parent: eu.id });
  await app.post('/api/dcim/regions/', { name: 'North', slug: 'north', parent: us.id });
  expectStatus(await app.api('POST', '/api/dcim/regions/', { name: 'Europe', slug: 'europe-2' }), 400);
  const moved = await app.api('PATCH', `/api/dcim/regions/${us.id}/`, { name: 'Europe' });
  expectStatus(moved, 400, 'renaming into a clash');
});

test('devices: a name is unique per site and tenant, and per site among devices with no tenant; unnamed devices repeat', async () => {
  const site = await app.post('/api/dcim/sites/', { name: 'U1', slug: 'u1' });
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'M', slug: 'm' });
  const type = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'T', slug: 't' });
  const role = await app.post('/api/dcim/device-roles/', { name: 'R', slug: 'r' });
  const tenant = await app.post('/api/tenancy/tenants/', { name: 'Owner', slug: 'owner' });
  const base = { site: site.id, device_type: type.id, role: role.id };
  await app.post('/api/dcim/devices/', { ...base, name: 'sw1' });
  expectStatus(await app.api('POST', '/api/dcim/devices/', { ...base, name: 'sw1' }), 400);
  await app.post('/api/dcim/devices/', { ...base, name: 'sw1', tenant: tenant.id });
  expectStatus(await app.api('POST', '/api/dcim/devices/', { ...base, name: 'sw1', tenant: tenant.id }), 400);
  await app.post('/api/dcim/devices/', base);
  await app.post('/api/dcim/devices/', base);
  // The database holds the rule too, whatever the application checks.
  let refused = false;
  try {
    await app.running.db('dcim_device').insert({ name: 'sw1', site_id: site.id, device_type_id: type.id, role_id: role.id, status: 'active', custom_field_data: '{}' });
  } catch {
    refused = true;
  }
  assert.ok(refused, 'the unique index refuses a duplicate top-level name');
});

test.run();
