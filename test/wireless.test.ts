/**
 * Wireless (/api/wireless/): LAN groups as a tree with cumulative counts, wireless LANs with their
 * filters and interfaces' `wireless_lans`, and wireless links between wireless interfaces, shown on
 * both ends as `wireless_link`, as link peer and as occupying the interface; NetBox 3.7's create data
 * and brief shapes.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectFieldError, expectStatus, startApp, type TestApp } from './helpers.js';
import { createObject } from './factory.js';
import { model } from '../runtime/data/registry.js';

const test = suite('wireless');
let app: TestApp;
const GROUPS = '/api/wireless/wireless-lan-groups/';
const LANS = '/api/wireless/wireless-lans/';
const LINKS = '/api/wireless/wireless-links/';

test.before(async () => { app = await startApp({ RUN_WORKER: '0' }); });
test.after(() => app.stop());

test('/api/wireless/ lists the three endpoints', async () => {
  assert.is((await app.get('/api/')).wireless, `${app.url}/api/wireless/`);
  assert.equal(Object.keys(await app.get('/api/wireless/')).sort(), ['wireless-lan-groups', 'wireless-lans', 'wireless-links']);
});

test('LAN groups nest; LANs filter by group (descendants too), status, VLAN, tenant; counts are cumulative', async () => {
  const top = await app.post(GROUPS, { name: 'Wireless LAN Group 4', slug: 'wireless-lan-group-4' });
  const child = await app.post(GROUPS, { name: 'Wireless LAN Group 5', slug: 'wireless-lan-group-5', parent: top.id });
  assert.is(child._depth, 1);
  assert.equal(Object.keys((await app.get(`${GROUPS}${child.id}/?brief=1`))).sort(), ['_depth', 'display', 'id', 'name', 'slug', 'url', 'wirelesslan_count']);
  await expectFieldError(app, 'POST', GROUPS, { name: 'Wireless LAN Group 4', slug: 'other' }, 'name');
  const vlan = await app.post('/api/ipam/vlans/', { vid: 300, name: 'wifi' });
  const tenant = await createObject(app, model('Tenant'));
  const lans = await app.post(LANS, [
    { ssid: 'WLAN4', group: top.id, status: 'active', tenant: tenant.id, auth_type: 'wpa-personal', auth_cipher: 'aes', auth_psk: 'secret' },
    { ssid: 'WLAN5', group: child.id, status: 'disabled', vlan: vlan.id },
    { ssid: 'WLAN6', status: 'reserved' },
  ]);
  assert.is(lans[0].display, 'WLAN4');
  assert.equal(lans[0].auth_type, { value: 'wpa-personal', label: 'WPA Personal (PSK)' });
  assert.equal(lans[2].auth_type, null);
  assert.equal(Object.keys(await app.get(`${LANS}${lans[0].id}/?brief=1`)).sort(), ['display', 'id', 'ssid', 'url']);
  const ssids = async (query: string) => (await app.get(`${LANS}?${query}`)).results.map((l: any) => l.ssid).filter((s: string) => /^WLAN[456]$/.test(s));
  assert.equal(await ssids(`group_id=${top.id}`), ['WLAN4', 'WLAN5']);
  assert.equal(await ssids('group=wireless-lan-group-5'), ['WLAN5']);
  assert.equal(await ssids('status=reserved'), ['WLAN6']);
  assert.equal(await ssids(`vlan_id=${vlan.id}`), ['WLAN5']);
  assert.equal(await ssids(`tenant_id=${tenant.id}`), ['WLAN4']);
  assert.equal(await ssids('auth_type=wpa-personal&auth_cipher=aes&auth_psk=secret'), ['WLAN4']);
  assert.equal(await ssids('q=wlan6'), ['WLAN6']);
  assert.is((await app.get(`${GROUPS}${top.id}/`)).wirelesslan_count, 2, 'the child group\'s LAN counts too');
  assert.is((await app.get(`${GROUPS}${child.id}/`)).wirelesslan_count, 1);
  const bulk = await app.api('PATCH', LANS, [{ id: lans[0].id, status: 'deprecated', group: child.id }, { id: lans[2].id, status: 'deprecated' }]);
  expectStatus(bulk, 200);
  assert.equal(bulk.body.map((l: any) => l.status.value), ['deprecated', 'deprecated']);

  const radio = await createObject(app, model('Interface'), { type: 'ieee802.11ac' });
  const attached = await app.patch(`/api/dcim/interfaces/${radio.id}/`, { wireless_lans: [lans[0].id, lans[1].id] });
  assert.equal(attached.wireless_lans.map((l: any) => l.ssid), ['WLAN4', 'WLAN5']);
  assert.equal(Object.keys(attached.wireless_lans[0]).sort(), ['display', 'id', 'ssid', 'url']);
  assert.equal((await app.get(`/api/dcim/interfaces/${radio.id}/`)).wireless_lans.map((l: any) => l.id), [lans[0].id, lans[1].id]);
  const dropped = await app.patch(`/api/dcim/interfaces/${radio.id}/`, { wireless_lans: [] });
  assert.equal(dropped.wireless_lans, []);
});

test('links join wireless interfaces only; both ends show the link, their peer, and are occupied', async () => {
  const device = await createObject(app, model('Device'));
  const radio = (name: string) => app.post('/api/dcim/interfaces/', { device: device.id, name, type: 'ieee802.11ac', rf_channel: '5g-32-5160-20' });
  const [r0, r1, r2, r3, r4] = [await radio('radio0'), await radio('radio1'), await radio('radio2'), await radio('radio3'), await radio('radio4')];
  assert.is(r0.rf_channel_frequency, 5160);
  const wired = await app.post('/api/dcim/interfaces/', { device: device.id, name: 'eth0', type: '1000base-t' });
  assert.is(await expectFieldError(app, 'POST', LINKS, { interface_a: r0.id, interface_b: wired.id }, 'interface_b'), '1000BASE-T (1GE) is not a wireless interface.');
  assert.is(await expectFieldError(app, 'POST', LINKS, { interface_a: wired.id, interface_b: r0.id }, 'interface_a'), '1000BASE-T (1GE) is not a wireless interface.');
  const tenant = await createObject(app, model('Tenant'));
  const link = await app.post(LINKS, { interface_a: r0.id, interface_b: r1.id, ssid: 'LINK4', tenant: tenant.id });
  assert.equal(link.status, { value: 'connected', label: 'Connected' });
  assert.is(link.display, 'LINK4');
  assert.equal(Object.keys(await app.get(`${LINKS}${link.id}/?brief=1`)).sort(), ['display', 'id', 'ssid', 'url']);
  const unnamed = await app.post(LINKS, { interface_a: r2.id, interface_b: r3.id });
  assert.is(unnamed.display, `#${unnamed.id}`);
  await expectFieldError(app, 'POST', LINKS, { interface_a: r0.id, interface_b: r1.id }, 'non_field_errors');
  const a = await app.get(`/api/dcim/interfaces/${r0.id}/`);
  assert.equal(a.wireless_link, { id: link.id, url: `${app.url}${LINKS}${link.id}/`, display: 'LINK4', ssid: 'LINK4' });
  assert.equal(a.link_peers.map((p: any) => p.id), [r1.id]);
  assert.is(a.link_peers_type, 'dcim.interface');
  assert.is(a._occupied, true);
  assert.is((await app.get(`/api/dcim/interfaces/${r1.id}/`)).link_peers[0].id, r0.id);
  assert.is((await app.get(`/api/dcim/interfaces/${wired.id}/`)).wireless_link, null);
  const ids = async (query: string) => (await app.get(`${LINKS}?${query}`)).results.map((l: any) => l.id);
  assert.equal(await ids(`interface_a_id=${r0.id}`), [link.id]);
  assert.equal(await ids(`interface_b_id=${r3.id}`), [unnamed.id]);
  assert.equal(await ids(`tenant=${tenant.slug}&status=connected`), [link.id]);
  assert.equal(await ids('ssid=LINK4'), [link.id]);

  // moving an end clears the interface it leaves
  const moved = await app.patch(`${LINKS}${link.id}/`, { interface_b: r4.id, status: 'planned' });
  assert.is(moved.status.value, 'planned');
  assert.is((await app.get(`/api/dcim/interfaces/${r1.id}/`)).wireless_link, null);
  assert.equal((await app.get(`/api/dcim/interfaces/${r1.id}/`)).link_peers, []);
  assert.is((await app.get(`/api/dcim/interfaces/${r4.id}/`)).wireless_link.id, link.id);
  expectStatus(await app.api('DELETE', `${LINKS}${link.id}/`), 204);
  const freed = await app.get(`/api/dcim/interfaces/${r0.id}/`);
  assert.is(freed.wireless_link, null);
  assert.is(freed._occupied, false);
  // deleting the device takes its links with it
  expectStatus(await app.api('DELETE', `/api/dcim/devices/${device.id}/`), 204);
  expectStatus(await app.api('GET', `${LINKS}${unnamed.id}/`), 404);
});

test.run();
