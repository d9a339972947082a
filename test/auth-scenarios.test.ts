/**
 * Authentication and authorisation scenarios beyond the generated matrix: token provisioning (success,
 * failures, the database-backed throttle, RESTRICT_TOKEN_CREATION), explicit key restore, allowed_ips,
 * the users/config endpoint, and object permissions: through a group, disabled, constraints as a list
 * and with $user, constraints on a relation, all-or-none bulk updates, invalid constraints.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { model } from '../runtime/data/registry.js';
import { start } from '../runtime/server.js';
import { THROTTLE_LIMIT, THROTTLE_WINDOW_MS } from '../runtime/auth/throttle.js';
import { expectStatus, startApp, type TestApp } from './helpers.js';
import { createObject, inputFor } from './factory.js';

const HEX40 = /^[0-9a-f]{40}$/;
const SITES = '/api/dcim/sites/';
const DEVICES = '/api/dcim/devices/';
const TOKENS = '/api/users/tokens/';
const PROVISION = '/api/users/tokens/provision/';
const USERS = '/api/users/users/';
const GROUPS = '/api/users/groups/';
const PERMISSIONS = '/api/users/permissions/';
const CONFIG = '/api/users/config/';
const NO_CREDENTIALS = { detail: 'Authentication credentials were not provided.' };
const NOT_PERMITTED = { detail: 'You do not have permission to perform this action.' };
const INVALID = { detail: 'Invalid username/password' };
const TOKEN_FIELDS = ['id', 'url', 'display', 'user', 'created', 'expires', 'last_used', 'key', 'write_enabled', 'description', 'allowed_ips'];

// TRUST_PROXY=1: each throttling test speaks from its own address (X-Forwarded-For), so they do not
// share a failure count. Without the header the client is 127.0.0.1.
const starting = startApp({ TRUST_PROXY: '1' });
let app: TestApp;
let seq = 0;
const unique = (prefix: string) => `${prefix}-${++seq}-${randomBytes(3).toString('hex')}`;
const from = (ip: string) => ({ token: null, headers: { 'X-Forwarded-For': ip } });

interface Account { id: number; username: string; password: string; key: string; tokenId: number }

/** A user (not a superuser) with a password and a token made by the admin. */
async function account(target: TestApp = app, prefix = 'user'): Promise<Account> {
  const username = unique(prefix).replace(/-/g, '_');
  const password = `${username}-Passphrase-1`;
  const user = await target.api('POST', USERS, { username, password });
  expectStatus(user, 201, 'create user');
  const token = await target.api('POST', TOKENS, { user: user.body.id });
  expectStatus(token, 201, 'create token');
  return { id: user.body.id, username, password, key: token.body.key, tokenId: token.body.id };
}

async function grant(input: Record<string, unknown>): Promise<any> {
  const reply = await app.api('POST', PERMISSIONS, { name: unique('perm'), ...input });
  expectStatus(reply, 201, `create permission ${JSON.stringify(input)}`);
  return reply.body;
}

async function count(path: string): Promise<number> {
  const reply = await app.api('GET', `${path}${path.includes('?') ? '&' : '?'}limit=1`);
  expectStatus(reply, 200);
  return reply.body.count;
}

async function site(): Promise<any> {
  const slug = unique('scn-site');
  const reply = await app.api('POST', SITES, { name: slug, slug });
  expectStatus(reply, 201);
  return reply.body;
}

// ---------------------------------------------------------------------------------------------
// Provisioning

const provisioning = suite('token provisioning');
let carol: Account;
provisioning.before(async () => {
  app = await starting;
  carol = await account(app, 'carol');
  await grant({ object_types: ['dcim.site'], actions: ['view', 'add'], users: [carol.id] });
});

provisioning('username and password give a 201 with the token in full, key shown once and working', async () => {
  const before = await count(TOKENS);
  const reply = await app.api('POST', PROVISION, { username: carol.username, password: carol.password }, from('192.0.2.10'));
  expectStatus(reply, 201);
  assert.equal(Object.keys(reply.body).sort(), [...TOKEN_FIELDS].sort());
  assert.match(reply.body.key, HEX40);
  assert.is(reply.body.write_enabled, true);
  assert.is(reply.body.user.id, carol.id);
  assert.is(reply.body.user.username, carol.username);
  assert.is(reply.body.expires, null);
  assert.equal(reply.body.allowed_ips, []);
  assert.not.ok(reply.body.display.includes(reply.body.key), 'display does not carry the key');
  assert.is(await count(TOKENS), before + 1);
  const key: string = reply.body.key;
  // Later it is masked everywhere: detail, brief, list.
  for (const path of [`${TOKENS}${reply.body.id}/`, `${TOKENS}${reply.body.id}/?brief=1`, `${TOKENS}?limit=1000`]) {
    const later = await app.api('GET', path);
    expectStatus(later, 200, path);
    assert.not.ok(later.text.includes(key), `${path} does not show the key`);
    assert.not.ok(later.text.includes(key.slice(0, 20)), `${path} does not show the start of the key`);
  }
  const mine = await app.api('GET', `${TOKENS}${reply.body.id}/`, undefined, { token: key });
  expectStatus(mine, 200, 'the owner reads the token with it');
  assert.is.not(mine.body.key, key);
  expectStatus(await app.api('GET', SITES, undefined, { token: key }), 200, 'the key works');
  expectStatus(await app.api('POST', SITES, { name: unique('prov'), slug: unique('prov') }, { token: key }), 201, 'and may write');
  // The database has only a digest.
  const rows = await app.running.db('users_token').where('id', reply.body.id);
  assert.not.ok(JSON.stringify(rows).includes(key), 'the key is not stored');
});

provisioning('the optional fields are honoured: write_enabled=false, description, expires, allowed_ips', async () => {
  const expires = '2099-01-01T00:00:00.000Z';
  const reply = await app.api('POST', PROVISION, { username: carol.username, password: carol.password, write_enabled: false, description: 'ci reader', expires, allowed_ips: ['127.0.0.0/8'] }, { token: null });
  expectStatus(reply, 201);
  assert.is(reply.body.write_enabled, false);
  assert.is(reply.body.description, 'ci reader');
  assert.is(Date.parse(reply.body.expires), Date.parse(expires));
  assert.equal(reply.body.allowed_ips, ['127.0.0.0/8']);
  expectStatus(await app.api('GET', SITES, undefined, { token: reply.body.key }), 200);
  const post = await app.api('POST', SITES, { name: unique('ro'), slug: unique('ro') }, { token: reply.body.key });
  expectStatus(post, 403, 'a read-only provisioned token cannot write');
  assert.equal(post.body, NOT_PERMITTED);
  const bad = await app.api('POST', PROVISION, { username: carol.username, password: carol.password, allowed_ips: ['not-a-network'] }, { token: null });
  expectStatus(bad, 400, 'invalid optional fields are a 400');
  assert.ok(bad.body.allowed_ips, JSON.stringify(bad.body));
});

provisioning('wrong password, unknown user, inactive user: 403 "Invalid username/password" and no token', async () => {
  const frank = await account(app, 'frank');
  expectStatus(await app.api('PATCH', `${USERS}${frank.id}/`, { is_active: false }), 200);
  const before = await count(TOKENS);
  const cases = [
    { username: carol.username, password: 'not-the-password' },
    { username: 'nobody_at_all', password: carol.password },
    { username: frank.username, password: frank.password },
    { username: carol.username.toUpperCase(), password: carol.password },
  ];
  for (const [i, body] of cases.entries()) {
    const reply = await app.api('POST', PROVISION, body, from(`192.0.2.${20 + i}`));
    expectStatus(reply, 403, JSON.stringify(body));
    assert.equal(reply.body, INVALID);
  }
  // The inactive user's token is refused too.
  const inactive = await app.api('GET', SITES, undefined, { token: frank.key });
  expectStatus(inactive, 403);
  assert.equal(inactive.body, { detail: 'User inactive' });
  assert.is(await count(TOKENS), before, 'no token was made');
});

provisioning('missing fields are a 400 naming them; a bad Authorization header fails first', async () => {
  const none = await app.api('POST', PROVISION, {}, from('192.0.2.30'));
  expectStatus(none, 400);
  assert.equal(none.body, { username: ['This field is required.'], password: ['This field is required.'] });
  const noPassword = await app.api('POST', PROVISION, { username: carol.username }, from('192.0.2.30'));
  expectStatus(noPassword, 400);
  assert.equal(Object.keys(noPassword.body), ['password']);
  const badHeader = await app.api('POST', PROVISION, { username: carol.username, password: carol.password }, { token: 'e'.repeat(40), headers: { 'X-Forwarded-For': '192.0.2.30' } });
  expectStatus(badHeader, 403);
  assert.equal(badHeader.body, { detail: 'Invalid token' });
});

provisioning(`throttling: the ${THROTTLE_LIMIT + 1}th bad attempt within a minute is 429 with Retry-After, even with the right password`, async () => {
  const ip = '198.51.100.7';
  const before = await count(TOKENS);
  for (let i = 0; i < THROTTLE_LIMIT; i++) {
    const reply = await app.api('POST', PROVISION, { username: carol.username, password: `guess-${i}` }, from(ip));
    expectStatus(reply, 403, `guess ${i + 1}`);
  }
  const right = await app.api('POST', PROVISION, { username: carol.username, password: carol.password }, from(ip));
  expectStatus(right, 429, 'the right password once the limit is reached');
  assert.type(right.body.detail, 'string');
  const retry = Number(right.headers.get('retry-after'));
  assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= THROTTLE_WINDOW_MS / 1000, `Retry-After: ${right.headers.get('retry-after')}`);
  const unknown = await app.api('POST', PROVISION, { username: 'nobody_at_all', password: 'x' }, from(ip));
  expectStatus(unknown, 429, 'an unknown user is throttled the same way');
  assert.is(await count(TOKENS), before, 'no token was made');
  // Another source is not affected.
  expectStatus(await app.api('POST', PROVISION, { username: carol.username, password: carol.password }, from('198.51.100.8')), 201, 'another address');
  // Once the failures are older than the window, the source may try again.
  await app.running.db('users_loginattempt').where('source', ip).update({ at: Date.now() - THROTTLE_WINDOW_MS - 1000 });
  expectStatus(await app.api('POST', PROVISION, { username: carol.username, password: carol.password }, from(ip)), 201, 'after the window');
});

provisioning('throttling: a success does not count', async () => {
  const ip = '198.51.100.9';
  for (let i = 0; i < THROTTLE_LIMIT - 1; i++) expectStatus(await app.api('POST', PROVISION, { username: carol.username, password: `nope-${i}` }, from(ip)), 403);
  expectStatus(await app.api('POST', PROVISION, { username: carol.username, password: carol.password }, from(ip)), 201, 'a success in between');
  expectStatus(await app.api('POST', PROVISION, { username: carol.username, password: 'nope-last' }, from(ip)), 403, `failure ${THROTTLE_LIMIT} is still a 403`);
  expectStatus(await app.api('POST', PROVISION, { username: carol.username, password: carol.password }, from(ip)), 429, 'now the limit is reached');
});

provisioning('throttling: the count is kept in the database, so a second process sharing it refuses too', async () => {
  const ip = '198.51.100.11';
  const second = await start({ ...app.running.config, port: 0 });
  try {
    for (let i = 0; i < THROTTLE_LIMIT; i++) expectStatus(await app.api('POST', PROVISION, { username: carol.username, password: `x-${i}` }, from(ip)), 403);
    const reply = await fetch(`${second.url}${PROVISION}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': ip },
      body: JSON.stringify({ username: carol.username, password: carol.password }),
    });
    assert.is(reply.status, 429, 'the other process answers 429');
    assert.ok(reply.headers.get('retry-after'));
  } finally {
    await second.close();
  }
});

provisioning('concurrent guesses cannot slip past the limit together', async () => {
  const ip = '198.51.100.12';
  const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => app.api('POST', PROVISION, { username: carol.username, password: `burst-${i}` }, from(ip))));
  const statuses = replies.map((r) => r.status);
  assert.ok(statuses.filter((s) => s === 403).length <= THROTTLE_LIMIT, `at most ${THROTTLE_LIMIT} passwords were checked: ${statuses}`);
  assert.ok(statuses.every((s) => s === 403 || s === 429), String(statuses));
  // Guessing on one at a time, the source gets exactly THROTTLE_LIMIT checked passwords in all.
  let checked = statuses.filter((s) => s === 403).length;
  for (let i = 0; i < THROTTLE_LIMIT + 1; i++) {
    const reply = await app.api('POST', PROVISION, { username: carol.username, password: `after-burst-${i}` }, from(ip));
    if (reply.status === 429) break;
    expectStatus(reply, 403);
    checked++;
  }
  assert.is(checked, THROTTLE_LIMIT, 'passwords checked from this source within the window');
  expectStatus(await app.api('POST', PROVISION, { username: carol.username, password: carol.password }, from(ip)), 429);
});

provisioning.after(async () => {
  // Leave no failures behind for the suites below (127.0.0.1).
  await app.running.db('users_loginattempt').delete();
});
provisioning.run();

// ---------------------------------------------------------------------------------------------
// RESTRICT_TOKEN_CREATION, and the throttle without a trusted proxy

const restricted = suite('RESTRICT_TOKEN_CREATION=1');
let strict: TestApp;
let dave: Account;
restricted.before(async () => {
  strict = await startApp({ RESTRICT_TOKEN_CREATION: '1' });
  dave = await account(strict, 'dave');
});
restricted.after(() => strict.stop());

restricted('provisioning is 403 for a non-superuser and makes nothing; a superuser still gets a token', async () => {
  const tokens = async () => (await strict.api('GET', `${TOKENS}?limit=1`)).body.count;
  const before = await tokens();
  const reply = await strict.api('POST', PROVISION, { username: dave.username, password: dave.password }, { token: null });
  expectStatus(reply, 403);
  assert.equal(reply.body, NOT_PERMITTED);
  assert.is(await tokens(), before, 'no token for dave');
  const admin = await strict.api('POST', PROVISION, { username: 'admin', password: 'admin-password-for-tests' }, { token: null });
  expectStatus(admin, 201);
  assert.match(admin.body.key, HEX40);
});

restricted('POST /api/users/tokens/ is 403 for a non-superuser, even for themself', async () => {
  const reply = await strict.api('POST', TOKENS, { user: dave.id }, { token: dave.key });
  expectStatus(reply, 403);
  expectStatus(await strict.api('GET', `${TOKENS}${dave.tokenId}/`, undefined, { token: dave.key }), 200, 'dave still reads his own token');
});

restricted('without TRUST_PROXY, X-Forwarded-For does not change the source that is counted', async () => {
  for (let i = 0; i < THROTTLE_LIMIT; i++) {
    expectStatus(await strict.api('POST', PROVISION, { username: 'admin', password: `wrong-${i}` }, from(`203.0.113.${i + 1}`)), 403);
  }
  const reply = await strict.api('POST', PROVISION, { username: 'admin', password: 'admin-password-for-tests' }, from('203.0.113.99'));
  expectStatus(reply, 429);
});

restricted.run();

// ---------------------------------------------------------------------------------------------
// Keys and allowed_ips

const keys = suite('token keys and allowed_ips');
keys.before(async () => { app = await starting; });

async function adminToken(input: Record<string, unknown>): Promise<any> {
  const reply = await app.api('POST', TOKENS, { user: 1, ...input });
  expectStatus(reply, 201, `create token ${JSON.stringify(input)}`);
  return reply.body;
}

keys('a deleted token can be restored with its explicit key, which then works again', async () => {
  const original = await adminToken({ description: 'to be restored' });
  const key: string = original.key;
  expectStatus(await app.api('GET', SITES, undefined, { token: key }), 200);
  expectStatus(await app.api('DELETE', `${TOKENS}${original.id}/`), 204);
  const gone = await app.api('GET', SITES, undefined, { token: key });
  expectStatus(gone, 403, 'deleted');
  assert.equal(gone.body, { detail: 'Invalid token' });
  const restored = await adminToken({ key, description: 'restored' });
  assert.is(restored.key, key, 'the creating response shows the given key');
  assert.is.not(restored.id, original.id);
  expectStatus(await app.api('GET', SITES, undefined, { token: key }), 200, 'the restored key works');
  const later = await app.api('GET', `${TOKENS}${restored.id}/`);
  assert.is.not(later.body.key, key, 'and is masked afterwards');
  const upper = randomBytes(20).toString('hex').toUpperCase();
  const fromUpper = await adminToken({ key: upper });
  expectStatus(await app.api('GET', SITES, undefined, { token: upper.toLowerCase() }), 200, 'keys are case-insensitive hex');
  assert.ok(fromUpper.id);
});

keys('allowed_ips ["10.99.0.0/16"]: refused from 127.0.0.1 with a 403 naming the address, and nothing is written', async () => {
  const t = await adminToken({ allowed_ips: ['10.99.0.0/16'] });
  assert.equal(t.allowed_ips, ['10.99.0.0/16']);
  const reply = await app.api('GET', SITES, undefined, { token: t.key });
  expectStatus(reply, 403);
  assert.equal(reply.body, { detail: 'Source IP 127.0.0.1 is not permitted to authenticate using this token.' });
  const before = await count(SITES);
  const post = await app.api('POST', SITES, { name: unique('ip'), slug: unique('ip') }, { token: t.key });
  expectStatus(post, 403);
  assert.ok(post.body.detail.includes('127.0.0.1'));
  assert.is(await count(SITES), before);
  // Behind a trusted proxy the forwarded address is the one checked.
  expectStatus(await app.api('GET', SITES, undefined, { token: t.key, headers: { 'X-Forwarded-For': '10.99.4.5' } }), 200, 'from 10.99.4.5');
  const outside = await app.api('GET', SITES, undefined, { token: t.key, headers: { 'X-Forwarded-For': '10.98.0.1' } });
  expectStatus(outside, 403);
  assert.ok(outside.body.detail.includes('10.98.0.1'), outside.body.detail);
});

keys('allowed_ips ["127.0.0.0/8"] works from 127.0.0.1; narrowing it later locks the token out', async () => {
  const t = await adminToken({ allowed_ips: ['127.0.0.0/8'] });
  expectStatus(await app.api('GET', SITES, undefined, { token: t.key }), 200);
  const both = await adminToken({ allowed_ips: ['10.99.0.0/16', '127.0.0.1/32'] });
  expectStatus(await app.api('GET', SITES, undefined, { token: both.key }), 200, 'any one network suffices');
  const v6 = await adminToken({ allowed_ips: ['::1/128'] });
  expectStatus(await app.api('GET', SITES, undefined, { token: v6.key }), 403, 'an IPv6 network does not admit an IPv4 client');
  expectStatus(await app.api('PATCH', `${TOKENS}${t.id}/`, { allowed_ips: ['10.99.0.0/16'] }), 200);
  expectStatus(await app.api('GET', SITES, undefined, { token: t.key }), 403, 'after narrowing');
  expectStatus(await app.api('PATCH', `${TOKENS}${t.id}/`, { allowed_ips: [] }), 200);
  expectStatus(await app.api('GET', SITES, undefined, { token: t.key }), 200, 'an empty list admits everyone');
});

keys('malformed allowed_ips are a 400 on create and on update, and change nothing', async () => {
  const before = await count(TOKENS);
  for (const allowed of [['10.0.0.300/8'], ['not-a-network'], ['10.1.2.3/8'], ['10.0.0.0/33'], [42], '10.0.0.0/8', { net: '10.0.0.0/8' }]) {
    const reply = await app.api('POST', TOKENS, { user: 1, allowed_ips: allowed });
    expectStatus(reply, 400, JSON.stringify(allowed));
    assert.ok(reply.body.allowed_ips, `the error names allowed_ips: ${JSON.stringify(reply.body)}`);
  }
  assert.is(await count(TOKENS), before, 'no token was made');
  const t = await adminToken({ allowed_ips: ['127.0.0.0/8'] });
  const patch = await app.api('PATCH', `${TOKENS}${t.id}/`, { allowed_ips: ['192.168.1.1/24'] });
  expectStatus(patch, 400);
  assert.equal((await app.api('GET', `${TOKENS}${t.id}/`)).body.allowed_ips, ['127.0.0.0/8'], 'unchanged');
});

keys.run();

// ---------------------------------------------------------------------------------------------
// /api/users/config/

const preferences = suite('/api/users/config/');
let erin: Account;
preferences.before(async () => {
  app = await starting;
  erin = await account(app, 'erin');
});

preferences('anonymous requests are 403; the users root lists config', async () => {
  const get = await app.api('GET', CONFIG, undefined, { token: null });
  expectStatus(get, 403);
  assert.equal(get.body, NO_CREDENTIALS);
  const patch = await app.api('PATCH', CONFIG, { a: 1 }, { token: null });
  expectStatus(patch, 403);
  assert.equal(patch.body, NO_CREDENTIALS);
  const bad = await app.api('GET', CONFIG, undefined, { token: 'd'.repeat(40) });
  expectStatus(bad, 403, 'an invalid token');
  const root = await app.api('GET', '/api/users/');
  assert.is(root.body.config, `${app.url}${CONFIG}`);
});

preferences('GET starts empty; PATCH deep-merges and answers the merged data with 200', async () => {
  const empty = await app.api('GET', CONFIG, undefined, { token: erin.key });
  expectStatus(empty, 200);
  assert.equal(empty.body, {});
  const first = await app.api('PATCH', CONFIG, { pagination: { per_page: 100 }, ui: { colormode: 'dark' } }, { token: erin.key });
  expectStatus(first, 200);
  assert.equal(first.body, { pagination: { per_page: 100 }, ui: { colormode: 'dark' } });
  const second = await app.api('PATCH', CONFIG, { pagination: { placement: 'top' }, tables: { DeviceTable: { columns: ['name', 'status'] } } }, { token: erin.key });
  expectStatus(second, 200);
  const merged = { pagination: { per_page: 100, placement: 'top' }, ui: { colormode: 'dark' }, tables: { DeviceTable: { columns: ['name', 'status'] } } };
  assert.equal(second.body, merged);
  assert.equal((await app.api('GET', CONFIG, undefined, { token: erin.key })).body, merged, 'GET shows what was stored');
  // Lists, scalars and empty objects replace; an object replaces a scalar.
  const third = await app.api('PATCH', CONFIG, { tables: { DeviceTable: { columns: ['name'] } }, ui: {}, pagination: { per_page: { n: 5 } } }, { token: erin.key });
  expectStatus(third, 200);
  assert.equal(third.body, { pagination: { per_page: { n: 5 }, placement: 'top' }, ui: {}, tables: { DeviceTable: { columns: ['name'] } } });
});

preferences('each user has their own; a read-only token may read but not change them', async () => {
  const admin = await app.api('GET', CONFIG);
  expectStatus(admin, 200);
  assert.not.ok('pagination' in admin.body, 'the admin does not see erin\'s');
  expectStatus(await app.api('PATCH', CONFIG, { admin_only: true }), 200);
  assert.not.ok('admin_only' in (await app.api('GET', CONFIG, undefined, { token: erin.key })).body);
  const ro = await app.api('POST', TOKENS, { user: erin.id, write_enabled: false });
  expectStatus(ro, 201);
  const before = (await app.api('GET', CONFIG, undefined, { token: erin.key })).body;
  expectStatus(await app.api('GET', CONFIG, undefined, { token: ro.body.key }), 200);
  const patch = await app.api('PATCH', CONFIG, { changed: true }, { token: ro.body.key });
  expectStatus(patch, 403);
  assert.equal(patch.body, NOT_PERMITTED);
  assert.equal((await app.api('GET', CONFIG, undefined, { token: erin.key })).body, before, 'unchanged');
});

preferences('a body that is not an object is a 400; other methods are 405', async () => {
  for (const body of [[1, 2], 'text', 5]) {
    const reply = await app.api('PATCH', CONFIG, body, { token: erin.key });
    expectStatus(reply, 400, JSON.stringify(body));
  }
  expectStatus(await app.api('PATCH', CONFIG, undefined, { token: erin.key }), 400, 'no body');
  expectStatus(await app.api('POST', CONFIG, { a: 1 }, { token: erin.key }), 405);
  expectStatus(await app.api('DELETE', CONFIG, undefined, { token: erin.key }), 405);
});

preferences('deleting a user deletes their preferences', async () => {
  const temp = await account(app, 'temp');
  expectStatus(await app.api('PATCH', CONFIG, { x: 1 }, { token: temp.key }), 200);
  assert.is((await app.running.db('users_userconfig').where('user_id', temp.id)).length, 1);
  expectStatus(await app.api('DELETE', `${USERS}${temp.id}/`), 204);
  assert.is((await app.running.db('users_userconfig').where('user_id', temp.id)).length, 0);
});

preferences.run();

// ---------------------------------------------------------------------------------------------
// Object permissions

const perms = suite('object permissions');
perms.before(async () => { app = await starting; });

perms('a permission granted through a group applies to its members only, while they are members', async () => {
  const u = await account(app, 'grouped');
  const group = await app.api('POST', GROUPS, { name: unique('readers') });
  expectStatus(group, 201);
  await grant({ object_types: ['dcim.site'], actions: ['view'], groups: [group.body.id] });
  const denied = await app.api('GET', SITES, undefined, { token: u.key });
  expectStatus(denied, 403, 'not a member yet');
  assert.equal(denied.body, NOT_PERMITTED);
  expectStatus(await app.api('PATCH', `${USERS}${u.id}/`, { groups: [group.body.id] }), 200);
  const allowed = await app.api('GET', SITES, undefined, { token: u.key });
  expectStatus(allowed, 200, 'a member');
  assert.is(allowed.body.count, await count(SITES));
  expectStatus(await app.api('POST', SITES, { name: unique('g'), slug: unique('g') }, { token: u.key }), 403, 'view only');
  expectStatus(await app.api('PATCH', `${USERS}${u.id}/`, { groups: [] }), 200);
  expectStatus(await app.api('GET', SITES, undefined, { token: u.key }), 403, 'no longer a member');
});

perms('a disabled permission grants nothing', async () => {
  const u = await account(app, 'disabled');
  const p = await grant({ object_types: ['dcim.site'], actions: ['view', 'add'], users: [u.id], enabled: false });
  const before = await count(SITES);
  expectStatus(await app.api('GET', SITES, undefined, { token: u.key }), 403);
  expectStatus(await app.api('POST', SITES, { name: unique('d'), slug: unique('d') }, { token: u.key }), 403);
  assert.is(await count(SITES), before);
  expectStatus(await app.api('PATCH', `${PERMISSIONS}${p.id}/`, { enabled: true }), 200);
  expectStatus(await app.api('GET', SITES, undefined, { token: u.key }), 200, 'enabled');
  expectStatus(await app.api('PATCH', `${PERMISSIONS}${p.id}/`, { enabled: false }), 200);
  expectStatus(await app.api('GET', SITES, undefined, { token: u.key }), 403, 'disabled again');
});

perms('constraints as a list: any one of them admits an object', async () => {
  const [a, b, c] = [await site(), await site(), await site()];
  const u = await account(app, 'listed');
  await grant({ object_types: ['dcim.site'], actions: ['view', 'change'], users: [u.id], constraints: [{ slug: a.slug }, { id: b.id }] });
  const listed = await app.api('GET', `${SITES}?limit=1000`, undefined, { token: u.key });
  expectStatus(listed, 200);
  assert.equal(listed.body.results.map((s: any) => s.id).sort(), [a.id, b.id].sort());
  expectStatus(await app.api('GET', `${SITES}${c.id}/`, undefined, { token: u.key }), 404);
  expectStatus(await app.api('PATCH', `${SITES}${b.id}/`, { description: 'via list' }, { token: u.key }), 200);
  expectStatus(await app.api('PATCH', `${SITES}${c.id}/`, { description: 'via list' }, { token: u.key }), 404);
  assert.is((await app.api('GET', `${SITES}${c.id}/`)).body.description, c.description);
});

perms('constraints with "$user" stand for the requesting user, alone or in a list', async () => {
  const u = await account(app, 'self');
  await grant({ object_types: ['users.user'], actions: ['view'], users: [u.id], constraints: { id: '$user' } });
  const me = await app.api('GET', `${USERS}?limit=1000`, undefined, { token: u.key });
  expectStatus(me, 200);
  assert.equal(me.body.results.map((r: any) => r.username), [u.username]);
  expectStatus(await app.api('GET', `${USERS}1/`, undefined, { token: u.key }), 404, 'not the admin');
  const v = await account(app, 'selfplus');
  await grant({ object_types: ['users.user'], actions: ['view'], users: [v.id], constraints: [{ id: '$user' }, { username: 'admin' }] });
  const two = await app.api('GET', `${USERS}?limit=1000`, undefined, { token: v.key });
  expectStatus(two, 200);
  assert.equal(two.body.results.map((r: any) => r.username).sort(), ['admin', v.username].sort());
});

perms('constraints on a relation ({"site_id": N} on devices): another site is 403 on create and on change, and nothing is written', async () => {
  const [mine, other] = [await site(), await site()];
  const u = await account(app, 'racker');
  await grant({ object_types: ['dcim.device'], actions: ['view', 'add', 'change', 'delete'], users: [u.id], constraints: { site_id: mine.id } });
  const deviceEntry = model('Device');
  const inside = await createObject(app, deviceEntry, { site: mine.id, name: unique('in') });
  const inside2 = await createObject(app, deviceEntry, { site: mine.id, name: unique('in') });
  const outside = await createObject(app, deviceEntry, { site: other.id, name: unique('out') });

  const listed = await app.api('GET', `${DEVICES}?limit=1000`, undefined, { token: u.key });
  expectStatus(listed, 200);
  assert.equal(listed.body.results.map((d: any) => d.id).sort(), [inside.id, inside2.id].sort());

  const before = await count(DEVICES);
  const elsewhere = await app.api('POST', DEVICES, { ...(await inputFor(app, deviceEntry)), site: other.id }, { token: u.key });
  expectStatus(elsewhere, 403, 'create at another site');
  assert.equal(elsewhere.body, NOT_PERMITTED);
  const mixed = await app.api('POST', DEVICES, [{ ...(await inputFor(app, deviceEntry)), site: mine.id }, { ...(await inputFor(app, deviceEntry)), site: other.id }], { token: u.key });
  expectStatus(mixed, 403, 'bulk create with one at another site');
  assert.is(await count(DEVICES), before, 'nothing was created');
  expectStatus(await app.api('POST', DEVICES, { ...(await inputFor(app, deviceEntry)), site: mine.id }, { token: u.key }), 201, 'at the allowed site');

  const moved = await app.api('PATCH', `${DEVICES}${inside.id}/`, { site: other.id }, { token: u.key });
  expectStatus(moved, 403, 'moving a device to another site');
  assert.is((await app.api('GET', `${DEVICES}${inside.id}/`)).body.site.id, mine.id, 'the device stayed');
  const renamed = await app.api('PATCH', `${DEVICES}${inside.id}/`, { name: unique('renamed') }, { token: u.key });
  expectStatus(renamed, 200, 'a change inside the constraint');

  const snapshot = async () => Promise.all([inside, inside2, outside].map(async (d) => (await app.api('GET', `${DEVICES}${d.id}/`)).body));
  const was = await snapshot();
  const bulk = await app.api('PATCH', DEVICES, [{ id: inside.id, serial: 'BULK-1' }, { id: inside2.id, serial: 'BULK-2', site: other.id }], { token: u.key });
  expectStatus(bulk, 403, 'bulk PATCH where one element leaves the constraint');
  assert.equal(await snapshot(), was, 'the bulk PATCH changed nothing');
  const hidden = await app.api('PATCH', DEVICES, [{ id: inside.id, serial: 'BULK-3' }, { id: outside.id, serial: 'BULK-4' }], { token: u.key });
  assert.ok([400, 403, 404].includes(hidden.status), `bulk PATCH touching a device outside the constraint: ${hidden.status}`);
  assert.equal(await snapshot(), was, 'that one changed nothing either');
  expectStatus(await app.api('DELETE', `${DEVICES}${outside.id}/`, undefined, { token: u.key }), 404, 'a device at another site cannot be deleted');
  expectStatus(await app.api('GET', `${DEVICES}${outside.id}/`), 200);
});

perms('invalid constraints are rejected with 400 when the permission is saved', async () => {
  const before = await count(PERMISSIONS);
  const invalid: unknown[] = [
    { no_such_filter: 1 },
    [{ slug: 'x' }, { bogus__ic: 'y' }],
    'slug=x',
    [1, 2],
  ];
  for (const constraints of invalid) {
    const reply = await app.api('POST', PERMISSIONS, { name: unique('bad'), object_types: ['dcim.site'], actions: ['view'], constraints });
    expectStatus(reply, 400, JSON.stringify(constraints));
    assert.ok(reply.body.constraints, `the error names constraints: ${JSON.stringify(reply.body)}`);
  }
  const perDevice = await app.api('POST', PERMISSIONS, { name: unique('bad'), object_types: ['dcim.site', 'dcim.device'], actions: ['view'], constraints: { slug: 'x' } });
  expectStatus(perDevice, 400, 'a key that is a filter of one object type but not the other');
  assert.is(await count(PERMISSIONS), before, 'nothing was saved');
  const ok = await grant({ object_types: ['dcim.site'], actions: ['view'], constraints: { name__ic: 'x', status: 'active' } });
  const patch = await app.api('PATCH', `${PERMISSIONS}${ok.id}/`, { constraints: { nope: 1 } });
  expectStatus(patch, 400, 'on update too');
  assert.equal((await app.api('GET', `${PERMISSIONS}${ok.id}/`)).body.constraints, { name__ic: 'x', status: 'active' }, 'unchanged');
});

perms('a constraint the filters cannot apply (unknown lookup, empty value) never widens a grant', async () => {
  const target = await site();
  for (const constraints of [{ slug__nosuchlookup: 'x' }, { site__slug: 'x' }, { name: '' }, { slug: target.slug, id__bogus: 1 }]) {
    const u = await account(app, 'typo');
    const reply = await app.api('POST', PERMISSIONS, { name: unique('typo'), object_types: ['dcim.site'], actions: ['view'], users: [u.id], constraints });
    if (reply.status === 400) continue; // rejected when saved: fine
    expectStatus(reply, 201, JSON.stringify(constraints));
    const seen = await app.api('GET', `${SITES}?limit=1000`, undefined, { token: u.key });
    assert.ok(seen.status !== 200 || seen.body.count === 0, `${JSON.stringify(constraints)} was accepted and then grants ${seen.body.count} sites`);
  }
});

perms.after(() => app.stop());
perms.run();
