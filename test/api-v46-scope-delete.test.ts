/**
 * Deleting a scope object, as each version does: through 4.6 deleting a region, site group, site or
 * location deletes the prefixes, clusters and VLAN groups scoped to it (NetBox 4's scope relations
 * cascade, and a site takes its locations' with them), each logged as deleted; through 3.7 (and the
 * API's default base) a site with prefixes or clusters is still a 409, as in NetBox 3.7.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite<{ app: TestApp }>('api-v46-scope-delete');

test.before(async (ctx) => { ctx.app = await startApp({ RUN_WORKER: '0' }); });
test.after(async ({ app }) => { await app.stop(); });

let n = 0;
async function scoped(app: TestApp, type: string, id: number): Promise<{ prefix: any; cluster: any; group: any }> {
  n++;
  const ct = await app.post('/api/virtualization/cluster-types/', { name: `SD CT ${n}`, slug: `sd-ct-${n}` });
  const scope = { scope_type: type, scope_id: id };
  return {
    prefix: await app.post('/v4.6/api/ipam/prefixes/', { prefix: `10.77.${n}.0/24`, ...scope }),
    cluster: await app.post('/v4.6/api/virtualization/clusters/', { name: `sd-cluster-${n}`, type: ct.id, ...scope }),
    group: await app.post('/v4.6/api/ipam/vlan-groups/', { name: `SD Group ${n}`, slug: `sd-group-${n}`, ...scope }),
  };
}

async function gone(app: TestApp, made: { prefix: any; cluster: any; group: any }): Promise<boolean[]> {
  const status = async (path: string) => (await app.api('GET', path)).status;
  return [
    await status(`/v4.6/api/ipam/prefixes/${made.prefix.id}/`) === 404,
    await status(`/v4.6/api/virtualization/clusters/${made.cluster.id}/`) === 404,
    await status(`/v4.6/api/ipam/vlan-groups/${made.group.id}/`) === 404,
  ];
}

test('3.7 unchanged: a site with a prefix or a cluster is a 409 under /v3.7/ and /api/', async ({ app }) => {
  const site = await app.post('/api/dcim/sites/', { name: 'SD Kept', slug: 'sd-kept' });
  const made = await scoped(app, 'dcim.site', site.id);
  expectStatus(await app.api('DELETE', `/v3.7/api/dcim/sites/${site.id}/`), 409);
  expectStatus(await app.api('DELETE', `/api/dcim/sites/${site.id}/`), 409);
  assert.equal(await gone(app, made), [false, false, false]);
});

for (const [label, type, make] of [
  ['a site', 'dcim.site', (app: TestApp) => app.post('/api/dcim/sites/', { name: `SD Site ${n}`, slug: `sd-site-${n}` })],
  ['a region', 'dcim.region', (app: TestApp) => app.post('/api/dcim/regions/', { name: `SD Region ${n}`, slug: `sd-region-${n}` })],
  ['a site group', 'dcim.sitegroup', (app: TestApp) => app.post('/api/dcim/site-groups/', { name: `SD SG ${n}`, slug: `sd-sg-${n}` })],
] as const) {
  test(`4.6: deleting ${label} deletes the prefixes, clusters and VLAN groups scoped to it, logged`, async ({ app }) => {
    const target = await make(app);
    const made = await scoped(app, type, target.id);
    const bystander = await scoped(app, type, (await make(app)).id);
    const answer = await app.api('DELETE', `/v4.6/api/${type === 'dcim.site' ? 'dcim/sites' : type === 'dcim.region' ? 'dcim/regions' : 'dcim/site-groups'}/${target.id}/`);
    expectStatus(answer, 204);
    assert.equal(await gone(app, made), [true, true, true]);
    assert.equal(await gone(app, bystander), [false, false, false]);
    const changes = await app.get(`/v4.6/api/core/object-changes/?action=delete&changed_object_type=ipam.prefix&changed_object_id=${made.prefix.id}`);
    assert.is(changes.count, 1);
  });
}

test('4.6: deleting a site deletes what is scoped to its locations; a cluster with virtual machines still protects it', async ({ app }) => {
  const site = await app.post('/api/dcim/sites/', { name: 'SD Loc Site', slug: 'sd-loc-site' });
  const location = await app.post('/api/dcim/locations/', { name: 'SD Room', slug: 'sd-room', site: site.id });
  const made = await scoped(app, 'dcim.location', location.id);
  expectStatus(await app.api('DELETE', `/v4.6/api/dcim/sites/${site.id}/`), 204);
  assert.equal(await gone(app, made), [true, true, true]);
  const held = await app.post('/api/dcim/sites/', { name: 'SD Held', slug: 'sd-held' });
  const kept = await scoped(app, 'dcim.site', held.id);
  await app.post('/api/virtualization/virtual-machines/', { name: 'sd-vm', cluster: kept.cluster.id });
  const refused = await app.api('DELETE', `/v4.6/api/dcim/sites/${held.id}/`);
  expectStatus(refused, 409);
  assert.match(JSON.stringify(refused.body), /sd-vm/);
  assert.equal(await gone(app, kept), [false, false, false]);
});

test.run();
