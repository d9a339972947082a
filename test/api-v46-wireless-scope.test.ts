/**
 * NetBox 4.2's scope on wireless LANs: a region, site group, site or location, written and read
 * through 4.6 (3.7 has no scope and keeps its shape), the filters through the scope's cached site,
 * region, site group and location, validation naming the field, a site move followed by the LANs
 * scoped below it, and the LAN deleted with its scope.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite<{ app: TestApp }>('api-v46-wireless-scope');

test.before(async (ctx) => { ctx.app = await startApp({ RUN_WORKER: '0', STRICT_FILTERS: '1' }); });
test.after(async ({ app }) => { await app.stop(); });

const ids = (page: any) => page.results.map((r: any) => r.id).sort((a: number, b: number) => a - b);
const LANS = '/wireless/wireless-lans/';

test('4.6 writes and reads the scope; 3.7 shows none; the filters go through the scope', async ({ app }) => {
  const region = await app.post('/api/dcim/regions/', { name: 'WLAN Region', slug: 'wlan-region' });
  const child = await app.post('/api/dcim/regions/', { name: 'WLAN Child', slug: 'wlan-child', parent: region.id });
  const group = await app.post('/api/dcim/site-groups/', { name: 'WLAN Group', slug: 'wlan-group' });
  const site = await app.post('/api/dcim/sites/', { name: 'WLAN Site', slug: 'wlan-site', region: child.id, group: group.id });
  const room = await app.post('/api/dcim/locations/', { name: 'WLAN Room', slug: 'wlan-room', site: site.id });

  const bySite = await app.post(`/v4.6/api${LANS}`, { ssid: 'by-site', scope_type: 'dcim.site', scope_id: site.id });
  assert.equal([bySite.scope_type, bySite.scope_id, bySite.scope.id], ['dcim.site', site.id, site.id]);
  assert.is(bySite.scope.url, `${app.url}/v4.6/api/dcim/sites/${site.id}/`);
  assert.is(bySite.scope.slug, 'wlan-site');
  const byRoom = await app.post(`/v4.6/api${LANS}`, { ssid: 'by-room', scope_type: 'dcim.location', scope_id: room.id });
  const byRegion = await app.post(`/v4.6/api${LANS}`, { ssid: 'by-region', scope_type: 'dcim.region', scope_id: child.id });
  const byGroup = await app.post(`/v4.6/api${LANS}`, { ssid: 'by-group', scope_type: 'dcim.sitegroup', scope_id: group.id });
  const none = await app.post(`/v4.6/api${LANS}`, { ssid: 'no-scope' });
  assert.equal([none.scope_type, none.scope_id, none.scope], [null, null, null]);

  const read37 = await app.get(`/v3.7/api${LANS}${bySite.id}/`);
  for (const key of ['scope', 'scope_type', 'scope_id', '_site', 'site']) assert.not.ok(key in read37, `3.7 has no ${key}`);
  const written37 = await app.post(`/v3.7/api${LANS}`, { ssid: 'from-3.7', scope_type: 'dcim.site', scope_id: site.id });
  assert.is((await app.get(`/v4.6/api${LANS}${written37.id}/`)).scope_type, null, '3.7 ignores scope_type');

  const only = `&id=${[bySite, byRoom, byRegion, byGroup, none].map((l) => l.id).join('&id=')}`;
  const get = async (q: string) => ids(await app.get(`/v4.6/api${LANS}?${q}${only}`));
  assert.equal(await get(`site_id=${site.id}`), [bySite.id, byRoom.id]);
  assert.equal(await get('site=wlan-site'), [bySite.id, byRoom.id]);
  assert.equal(await get(`region_id=${region.id}`), [bySite.id, byRoom.id, byRegion.id], 'region_id takes descendants');
  assert.equal(await get('region=wlan-child'), [bySite.id, byRoom.id, byRegion.id]);
  assert.equal(await get(`site_group_id=${group.id}`), [bySite.id, byRoom.id, byGroup.id]);
  assert.equal(await get('site_group=wlan-group'), [bySite.id, byRoom.id, byGroup.id]);
  assert.equal(await get(`location_id=${room.id}`), [byRoom.id]);
  assert.equal(await get('location=wlan-room'), [byRoom.id]);
  assert.equal(await get('scope_type=dcim.region'), [byRegion.id]);
  assert.equal(await get(`scope_type=dcim.site&scope_id=${site.id}`), [bySite.id]);
  expectStatus(await app.api('GET', `/v3.7/api${LANS}?site_id=${site.id}`), 400, 'site_id is a 4.6 filter of wireless LANs');

  // a site that moves to another region takes the LANs scoped in it along
  const elsewhere = await app.post('/api/dcim/regions/', { name: 'WLAN Elsewhere', slug: 'wlan-elsewhere' });
  await app.patch(`/api/dcim/sites/${site.id}/`, { region: elsewhere.id });
  assert.equal(await get(`region_id=${elsewhere.id}`), [bySite.id, byRoom.id]);
  assert.equal(await get(`region_id=${region.id}`), [byRegion.id]);

  // clearing the scope clears its caches
  const cleared = await app.patch(`/v4.6/api${LANS}${byRoom.id}/`, { scope_type: null, scope_id: null });
  assert.equal([cleared.scope_type, cleared.scope], [null, null]);
  assert.equal(await get(`site_id=${site.id}`), [bySite.id]);
});

test('4.6 validation of the scope names the field', async ({ app }) => {
  const site = await app.post('/api/dcim/sites/', { name: 'WLAN Bad', slug: 'wlan-bad' });
  const cases: [Record<string, unknown>, string][] = [
    [{ scope_type: 'dcim.site' }, 'scope_id'],
    [{ scope_id: site.id }, 'scope_type'],
    [{ scope_type: 'dcim.rack', scope_id: 1 }, 'scope_type'],
    [{ scope_type: 'dcim.site', scope_id: 999999 }, 'scope_id'],
  ];
  for (const [extra, field] of cases) {
    const reply = await app.api('POST', `/v4.6/api${LANS}`, { ssid: 'bad', ...extra });
    expectStatus(reply, 400, JSON.stringify(extra));
    assert.ok(field in reply.body, `${JSON.stringify(extra)} names ${field}: ${JSON.stringify(reply.body)}`);
  }
});

test('through 4.6 a LAN goes with the site it is scoped to, logged; through 3.7 its scope is cleared', async ({ app }) => {
  const site = await app.post('/api/dcim/sites/', { name: 'WLAN Gone', slug: 'wlan-gone' });
  const lan = await app.post(`/v4.6/api${LANS}`, { ssid: 'going', scope_type: 'dcim.site', scope_id: site.id });
  const kept = await app.post(`/v4.6/api${LANS}`, { ssid: 'staying' });
  expectStatus(await app.api('DELETE', `/v4.6/api/dcim/sites/${site.id}/`), 204);
  expectStatus(await app.api('GET', `/v4.6/api${LANS}${lan.id}/`), 404);
  assert.is((await app.get(`/v4.6/api${LANS}${kept.id}/`)).ssid, 'staying');
  const log = await app.get(`/v4.6/api/core/object-changes/?changed_object_type=wireless.wirelesslan&changed_object_id=${lan.id}&action=delete`);
  assert.is(log.count, 1, 'the cascade is logged');

  const site37 = await app.post('/api/dcim/sites/', { name: 'WLAN Gone 3.7', slug: 'wlan-gone-37' });
  const lan37 = await app.post(`/v4.6/api${LANS}`, { ssid: 'cleared', scope_type: 'dcim.site', scope_id: site37.id });
  expectStatus(await app.api('DELETE', `/v3.7/api/dcim/sites/${site37.id}/`), 204);
  const left = await app.get(`/v4.6/api${LANS}${lan37.id}/`);
  assert.equal([left.scope_type, left.scope_id, left.scope], [null, null, null]);
  assert.equal(ids(await app.get(`/v4.6/api${LANS}?site_id=${site37.id}&id=${lan37.id}`)), [], 'no cached site left');
});

test.run();
