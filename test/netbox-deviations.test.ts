/**
 * Behaviour NetBox 3.7.8's own API tests expect, each checked through HTTP: event rules' default
 * action, tokens under object permissions (users.view_token, change_token, grant_token) beside
 * self-service, brief shapes, date-times without invented fractions, the rack elevation's `q`
 * and the shape of the available-prefixes 400.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { engine, expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite(`NetBox 3.7 behaviour (${engine})`);
let app: TestApp;
let n = 0;
const unique = (prefix: string) => `${prefix}-${++n}`;

test.before(async () => { app = await startApp({ RUN_WORKER: '0' }); });
test.after(async () => { await app?.stop(); });

/** A user with a token of their own (made by the admin) and the given object permissions. */
async function account(perms: { object_types: string[]; actions: string[]; constraints?: unknown }[] = []): Promise<{ id: number; key: string; tokenId: number }> {
  const name = unique('user');
  const user = await app.post('/api/users/users/', { username: name, password: `${name}-Password-1` });
  const token = await app.post('/api/users/tokens/', { user: user.id });
  for (const p of perms) await app.post('/api/users/permissions/', { name: unique('perm'), users: [user.id], ...p });
  return { id: user.id, key: token.key, tokenId: token.id };
}

test('extras.EventRuleTest: action_type defaults to webhook', async () => {
  const hook = await app.post('/api/extras/webhooks/', { name: unique('hook'), payload_url: 'http://127.0.0.1:9/' });
  const rule = await app.post('/api/extras/event-rules/', {
    name: unique('rule'), content_types: ['dcim.site'], type_create: true, action_object_type: 'extras.webhook', action_object_id: hook.id,
  });
  assert.is(rule.action_type.value, 'webhook');
  assert.is((await app.get(`/api/extras/event-rules/${rule.id}/`)).action_type.value, 'webhook');
});

test('users.TokenTest: without a permission a user manages only their own tokens, and cannot list', async () => {
  const alice = await account();
  const bob = await account();
  const as = { token: alice.key };
  const list = await app.api('GET', '/api/users/tokens/', undefined, as);
  expectStatus(list, 403, 'listing tokens needs users.view_token');
  expectStatus(await app.api('GET', `/api/users/tokens/${alice.tokenId}/`, undefined, as), 200, 'her own token');
  const patched = await app.api('PATCH', `/api/users/tokens/${alice.tokenId}/`, { description: 'mine' }, as);
  expectStatus(patched, 200, 'she edits her own token');
  assert.is(patched.body.description, 'mine');
  expectStatus(await app.api('POST', '/api/users/tokens/', { user: alice.id }, as), 201, 'she creates her own tokens');
  expectStatus(await app.api('GET', `/api/users/tokens/${bob.tokenId}/`, undefined, as), 404, 'not bob\'s');
  expectStatus(await app.api('PATCH', `/api/users/tokens/${bob.tokenId}/`, { description: 'hers?' }, as), 404, 'nor edits it');
  const forBob = await app.api('POST', '/api/users/tokens/', { user: bob.id }, as);
  expectStatus(forBob, 403, 'nor creates his');
  assert.equal(forBob.body, { detail: 'This user does not have permission to create tokens for other users.' });
});

test('users.TokenTest: view_token and change_token reach other users\' tokens, within their constraints', async () => {
  const bob = await account();
  const dave = await account();
  const carol = await account([
    { object_types: ['users.token'], actions: ['view', 'change'], constraints: { user_id: bob.id } },
  ]);
  const as = { token: carol.key };
  const list = await app.api('GET', '/api/users/tokens/?limit=1000', undefined, as);
  expectStatus(list, 200);
  assert.equal(list.body.results.map((t: any) => t.user.id).sort(), [bob.id, carol.id].sort(), 'bob\'s tokens and her own');
  const patched = await app.api('PATCH', `/api/users/tokens/${bob.tokenId}/`, { description: 'rotated by carol' }, as);
  expectStatus(patched, 200, 'test_update_object');
  assert.is(patched.body.description, 'rotated by carol');
  expectStatus(await app.api('PATCH', `/api/users/tokens/${dave.tokenId}/`, { description: 'x' }, as), 404, 'outside the constraint');
  expectStatus(await app.api('DELETE', `/api/users/tokens/${bob.tokenId}/`, undefined, as), 403, 'no delete permission');

  const erin = await account([{ object_types: ['users.token'], actions: ['view', 'change'] }]);
  const all = await app.api('GET', '/api/users/tokens/?limit=1000', undefined, { token: erin.key });
  assert.ok([bob.id, dave.id, erin.id, 1].every((id) => all.body.results.some((t: any) => t.user.id === id)), 'an unconstrained view_token sees everyone\'s');
  expectStatus(await app.api('PATCH', `/api/users/tokens/${dave.tokenId}/`, { description: 'by erin' }, { token: erin.key }), 200);
});

test('users.TokenTest.test_provision_token_other_user: users.grant_token lets a user create tokens for others', async () => {
  const bob = await account();
  const frank = await account([{ object_types: ['users.token'], actions: ['add'] }]);
  const as = { token: frank.key };
  expectStatus(await app.api('POST', '/api/users/tokens/', { user: bob.id }, as), 403, 'add_token alone');
  await app.post('/api/users/permissions/', { name: unique('grant'), users: [frank.id], object_types: ['users.token'], actions: ['grant'] });
  const made = await app.api('POST', '/api/users/tokens/', { user: bob.id }, as);
  expectStatus(made, 201, 'with grant_token');
  assert.is(made.body.user.id, bob.id);

  const grantOnly = await account([{ object_types: ['users.token'], actions: ['grant'] }]);
  expectStatus(await app.api('POST', '/api/users/tokens/', { user: bob.id }, { token: grantOnly.key }), 403, 'grant_token without add_token');
});

test('brief shapes: virtualmachine_count, installed_module, users and groups; no description where NetBox 3.7 has none', async () => {
  const site = await app.post('/api/dcim/sites/', { name: unique('site'), slug: unique('site') });
  const role = await app.post('/api/dcim/device-roles/', { name: unique('role'), slug: unique('role') });
  const platform = await app.post('/api/dcim/platforms/', { name: unique('platform'), slug: unique('platform') });
  await app.post('/api/virtualization/virtual-machines/', { name: unique('vm'), site: site.id, role: role.id, platform: platform.id });
  for (const path of [`/api/dcim/device-roles/${role.id}/`, `/api/dcim/platforms/${platform.id}/`]) {
    const brief = await app.get(`${path}?brief=1`);
    assert.equal(Object.keys(brief).sort(), ['device_count', 'display', 'id', 'name', 'slug', 'url', 'virtualmachine_count'], path);
    assert.is(brief.virtualmachine_count, 1, path);
    assert.is((await app.get(path)).virtualmachine_count, 1, `${path} full`);
  }

  const cf = await app.post('/api/extras/custom-fields/', { name: unique('cf').replace('-', '_'), type: 'text', content_types: ['dcim.site'], description: 'd' });
  assert.equal(Object.keys(await app.get(`/api/extras/custom-fields/${cf.id}/?brief=1`)).sort(), ['display', 'id', 'name', 'url']);
  const sf = await app.post('/api/extras/saved-filters/', { name: unique('sf'), slug: unique('sf'), content_types: ['dcim.site'], parameters: { status: ['active'] }, description: 'd' });
  assert.equal(Object.keys(await app.get(`/api/extras/saved-filters/${sf.id}/?brief=1`)).sort(), ['display', 'id', 'name', 'slug', 'url']);
  const et = await app.post('/api/extras/export-templates/', { name: unique('et'), content_types: ['dcim.site'], template_code: 'x', description: 'd' });
  assert.equal(Object.keys(await app.get(`/api/extras/export-templates/${et.id}/?brief=1`)).sort(), ['display', 'id', 'name', 'url']);

  const maker = await app.post('/api/dcim/manufacturers/', { name: unique('maker'), slug: unique('maker') });
  const type = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: unique('model'), slug: unique('model') });
  const device = await app.post('/api/dcim/devices/', { name: unique('dev'), device_type: type.id, role: role.id, site: site.id });
  const bay = await app.post('/api/dcim/module-bays/', { device: device.id, name: 'bay 1' });
  const moduleType = await app.post('/api/dcim/module-types/', { manufacturer: maker.id, model: unique('mt') });
  const module = await app.post('/api/dcim/modules/', { device: device.id, module_bay: bay.id, module_type: moduleType.id });
  const bayBrief = await app.get(`/api/dcim/module-bays/${bay.id}/?brief=1`);
  assert.equal(Object.keys(bayBrief).sort(), ['display', 'id', 'installed_module', 'name', 'url']);
  assert.is(bayBrief.installed_module.id, module.id);

  const user = await app.post('/api/users/users/', { username: unique('u'), password: 'A-password-for-u-1' });
  const group = await app.post('/api/users/groups/', { name: unique('g') });
  const perm = await app.post('/api/users/permissions/', { name: unique('p'), object_types: ['dcim.site'], actions: ['view'], users: [user.id], groups: [group.id] });
  const permBrief = await app.get(`/api/users/permissions/${perm.id}/?brief=1`);
  assert.equal(Object.keys(permBrief).sort(), ['actions', 'display', 'enabled', 'groups', 'id', 'name', 'object_types', 'url', 'users']);
  assert.equal([permBrief.users.map((u: any) => u.id), permBrief.groups.map((g: any) => g.id)], [[user.id], [group.id]]);
});

test('date-times: fractional seconds only when there are some; last_updated always has them', async () => {
  const whole = await app.post('/api/users/tokens/', { user: 1, expires: '2099-12-31T23:59:59Z' });
  assert.is(whole.expires, '2099-12-31T23:59:59Z');
  assert.is((await app.get(`/api/users/tokens/${whole.id}/`)).expires, '2099-12-31T23:59:59Z');
  const offset = await app.post('/api/users/tokens/', { user: 1, expires: '2099-12-31T23:59:59+02:00' });
  assert.is(offset.expires, '2099-12-31T21:59:59Z');
  const fraction = await app.post('/api/users/tokens/', { user: 1, expires: '2099-12-31T23:59:59.25Z' });
  assert.is(fraction.expires, '2099-12-31T23:59:59.250Z');
  assert.ok((await app.get(`/api/users/tokens/?expires=2099-12-31T23:59:59Z`)).results.some((t: any) => t.id === whole.id), 'the filter still finds it');
  const site = await app.post('/api/dcim/sites/', { name: unique('site'), slug: unique('site') });
  assert.match(site.last_updated, /T\d\d:\d\d:\d\d\.\d+Z$/);
});

test('dcim.RackTest.test_get_rack_elevation: q matches units by name and by number', async () => {
  const site = await app.post('/api/dcim/sites/', { name: unique('site'), slug: unique('site') });
  const rack = await app.post('/api/dcim/racks/', { name: unique('rack'), site: site.id });
  const count = async (q: string) => (await app.get(`/api/dcim/racks/${rack.id}/elevation/${q}`)).count;
  assert.is(await count(''), 84);
  assert.is(await count('?q=3'), 26);
  assert.is(await count('?q=U3'), 22);
  assert.is(await count('?q=U10'), 2);
});

test('ipam.PrefixTest.test_create_single_available_prefix: a bad prefix_length is a list of errors', async () => {
  const vrf = await app.post('/api/ipam/vrfs/', { name: unique('vrf') });
  const parent = await app.post('/api/ipam/prefixes/', { prefix: '192.0.2.0/28', vrf: vrf.id, is_pool: true });
  const url = `/api/ipam/prefixes/${parent.id}/available-prefixes/`;
  const tooLong = await app.api('POST', url, { prefix_length: 30, description: 'x'.repeat(300) });
  expectStatus(tooLong, 400, 'a single object the prefix serializer refuses');
  assert.ok(!Array.isArray(tooLong.body) && tooLong.body.description, `NetBox's shape for one object: ${tooLong.text}`);
  for (let i = 0; i < 4; i++) {
    const made = await app.api('POST', url, { prefix_length: 30, description: `Test Prefix ${i + 1}` });
    expectStatus(made, 201);
    assert.is(made.body.prefix, `192.0.2.${i * 4}/30`);
    assert.is(made.body.vrf.id, vrf.id);
  }
  expectStatus(await app.api('POST', url, { prefix_length: 30 }), 409);
  const single = await app.api('POST', url, { prefix_length: '30' });
  expectStatus(single, 400);
  assert.ok(Array.isArray(single.body) && single.body[0].prefix_length, `response.data[0] names prefix_length: ${single.text}`);
  const many = await app.api('POST', url, [{ prefix_length: 30 }, { prefix_length: '30' }]);
  expectStatus(many, 400);
  assert.ok(Array.isArray(many.body) && many.body[1].prefix_length && !many.body[0].prefix_length, many.text);
});

test.run();
