/**
 * Tokens and access: the Authorization header, read-only and expiring tokens, explicit keys, token
 * provisioning, what a non-superuser sees, EXEMPT_VIEW_PERMISSIONS, secrets at rest, and the
 * configuration errors that stop a start.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../runtime/core/config.js';
import { modelList } from '../runtime/data/registry.js';
import { ADMIN_TOKEN, expectStatus, listPath, startApp, type TestApp } from './helpers.js';

const HEX40 = /^[0-9a-f]{40}$/;
const SITES = '/api/dcim/sites/';
const TOKENS = '/api/users/tokens/';
const USERS = '/api/users/users/';
const NO_CREDENTIALS = { detail: 'Authentication credentials were not provided.' };
const NOT_PERMITTED = { detail: 'You do not have permission to perform this action.' };
const ADMIN_PASSWORD = 'admin-password-for-tests';
const ALICE = { username: 'alice', password: 'Alice-secret-passphrase-42' };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// Tokens on the default configuration (no EXEMPT_VIEW_PERMISSIONS).

const starting = startApp();
let app: TestApp;
let adminId: number;
let aliceId: number;
let aliceKey: string;
/** every full key and plain password this file has seen: none may be stored in the clear */
const keys: string[] = [ADMIN_TOKEN];
const passwords: string[] = [ADMIN_PASSWORD];
let seq = 0;

async function site(token: string | null = ADMIN_TOKEN): Promise<any> {
  const n = ++seq;
  const reply = await app.api('POST', SITES, { name: `auth-site-${n}`, slug: `auth-site-${n}` }, { token });
  expectStatus(reply, 201, 'create site');
  return reply.body;
}

async function siteCount(): Promise<number> {
  return (await app.api('GET', `${SITES}?limit=1`)).body.count;
}

/** Creates a token as the admin (or another caller) and remembers its key. */
async function token(input: Record<string, unknown>, caller: string = ADMIN_TOKEN): Promise<any> {
  const reply = await app.api('POST', TOKENS, { user: adminId, ...input }, { token: caller });
  expectStatus(reply, 201, `create token ${JSON.stringify(input)}`);
  assert.match(reply.body.key, HEX40);
  keys.push(reply.body.key);
  return reply.body;
}

const test = suite('tokens');
test.before(async () => {
  app = await starting;
  const admin = await app.api('GET', `${USERS}?username=admin`);
  expectStatus(admin, 200);
  adminId = admin.body.results[0].id;
});
test.after(() => app.stop());

test('no token on a list or on a POST: 403 "Authentication credentials were not provided."', async () => {
  const list = await app.api('GET', SITES, undefined, { token: null });
  expectStatus(list, 403);
  assert.equal(list.body, NO_CREDENTIALS);
  const detail = await app.api('GET', `${USERS}${adminId}/`, undefined, { token: null });
  expectStatus(detail, 403);
  assert.equal(detail.body, NO_CREDENTIALS);
  const before = await siteCount();
  const post = await app.api('POST', SITES, { name: 'anon', slug: 'anon' }, { token: null });
  expectStatus(post, 403);
  assert.equal(post.body, NO_CREDENTIALS);
  assert.is(await siteCount(), before);
});

test('an unknown 40-hex key is 403 "Invalid token"; a bare "Token" is 403 too', async () => {
  const unknown = await app.api('GET', SITES, undefined, { token: randomBytes(20).toString('hex') });
  expectStatus(unknown, 403);
  assert.equal(unknown.body, { detail: 'Invalid token' });
  const bare = await app.api('GET', SITES, undefined, { token: null, headers: { Authorization: 'Token' } });
  expectStatus(bare, 403);
  assert.type(bare.body.detail, 'string');
  assert.is(bare.body.detail, 'Invalid token header. No credentials provided.');
  const before = await siteCount();
  const post = await app.api('POST', SITES, { name: 'bad-key', slug: 'bad-key' }, { token: 'f'.repeat(40) });
  expectStatus(post, 403);
  assert.equal(post.body, { detail: 'Invalid token' });
  assert.is(await siteCount(), before);
});

test('the "Token" keyword is case-insensitive', async () => {
  for (const scheme of ['token', 'TOKEN', 'Token']) {
    const reply = await app.api('GET', SITES, undefined, { token: null, headers: { Authorization: `${scheme} ${ADMIN_TOKEN}` } });
    expectStatus(reply, 200, scheme);
  }
  const write = await app.api('POST', SITES, { name: 'lower-scheme', slug: 'lower-scheme' }, { token: null, headers: { authorization: `token ${ADMIN_TOKEN}` } });
  expectStatus(write, 201);
});

test('the admin token (a superuser) reads and writes', async () => {
  const s = await site();
  const patch = await app.api('PATCH', `${SITES}${s.id}/`, { description: 'by admin' });
  expectStatus(patch, 200);
  assert.is(patch.body.description, 'by admin');
  expectStatus(await app.api('GET', `${SITES}${s.id}/`), 200);
  expectStatus(await app.api('DELETE', `${SITES}${s.id}/`), 204);
  expectStatus(await app.api('GET', USERS), 200);
});

test('a write_enabled=false token: key shown once, masked later; reads work, writes are 403 and change nothing', async () => {
  const created = await token({ write_enabled: false, description: 'read only' });
  assert.is(created.write_enabled, false);
  assert.is(created.user.id, adminId);
  const key: string = created.key;
  const later = await app.api('GET', `${TOKENS}${created.id}/`);
  expectStatus(later, 200);
  assert.type(later.body.key, 'string');
  assert.is.not(later.body.key, key, 'the key is masked after creation');
  assert.not.ok(later.body.key.includes(key.slice(0, 34)), `masked form: ${later.body.key}`);
  const list = await app.api('GET', `${TOKENS}?limit=1000`);
  assert.not.ok(list.text.includes(key), 'no list shows the full key');

  const target = await site();
  expectStatus(await app.api('GET', SITES, undefined, { token: key }), 200, 'read list');
  expectStatus(await app.api('GET', `${SITES}${target.id}/`, undefined, { token: key }), 200, 'read detail');

  const before = await siteCount();
  const post = await app.api('POST', SITES, { name: 'ro-site', slug: 'ro-site' }, { token: key });
  expectStatus(post, 403, 'POST');
  assert.equal(post.body, NOT_PERMITTED);
  assert.is(await siteCount(), before, 'POST created nothing');

  const patch = await app.api('PATCH', `${SITES}${target.id}/`, { description: 'ro change' }, { token: key });
  expectStatus(patch, 403, 'PATCH');
  assert.equal(patch.body, NOT_PERMITTED);
  const bulkPatch = await app.api('PATCH', SITES, [{ id: target.id, description: 'ro bulk' }], { token: key });
  expectStatus(bulkPatch, 403, 'bulk PATCH');
  const put = await app.api('PUT', `${SITES}${target.id}/`, { name: 'ro-put', slug: 'ro-put' }, { token: key });
  expectStatus(put, 403, 'PUT');
  const after = (await app.api('GET', `${SITES}${target.id}/`)).body;
  assert.is(after.description, target.description, 'PATCH changed nothing');
  assert.is(after.name, target.name, 'PUT changed nothing');

  const del = await app.api('DELETE', `${SITES}${target.id}/`, undefined, { token: key });
  expectStatus(del, 403, 'DELETE');
  assert.equal(del.body, NOT_PERMITTED);
  const bulkDel = await app.api('DELETE', SITES, [{ id: target.id }], { token: key });
  expectStatus(bulkDel, 403, 'bulk DELETE');
  expectStatus(await app.api('GET', `${SITES}${target.id}/`), 200, 'still there');

  // Nor can it mint itself a write-enabled token.
  const mint = await app.api('POST', TOKENS, { user: adminId }, { token: key });
  expectStatus(mint, 403, 'POST token');
});

test('a token whose expiry has passed is 403 "Token expired"', async () => {
  const expired = await token({ expires: '2020-01-01T00:00:00Z' });
  const reply = await app.api('GET', SITES, undefined, { token: expired.key });
  expectStatus(reply, 403);
  assert.equal(reply.body, { detail: 'Token expired' });
});

test('a token stops working once its expiry passes while the service runs', async () => {
  const expires = new Date(Date.now() + 2000).toISOString();
  const soon = await token({ expires });
  const now = await app.api('GET', SITES, undefined, { token: soon.key });
  expectStatus(now, 200, 'before expiry');
  await sleep(Math.max(0, Date.parse(expires) - Date.now()) + 500);
  const later = await app.api('GET', SITES, undefined, { token: soon.key });
  expectStatus(later, 403, 'after expiry');
  assert.equal(later.body, { detail: 'Token expired' });
});

test('a token given an explicit key authenticates with it; the same key again is 400', async () => {
  const key = randomBytes(20).toString('hex');
  const created = await token({ key, description: 'restored' });
  assert.is(created.key, key);
  const reply = await app.api('GET', SITES, undefined, { token: key });
  expectStatus(reply, 200);
  const count = (await app.api('GET', `${TOKENS}?limit=1`)).body.count;
  const again = await app.api('POST', TOKENS, { user: adminId, key });
  expectStatus(again, 400);
  assert.ok(Array.isArray(again.body.key) && again.body.key.length > 0, JSON.stringify(again.body));
  assert.is((await app.api('GET', `${TOKENS}?limit=1`)).body.count, count, 'no second token');
  const malformed = await app.api('POST', TOKENS, { user: adminId, key: 'xyz' });
  expectStatus(malformed, 400, 'a key that is not 40 hex');
});

test('a new user gets a token from /provision/ with username and password, without a token', async () => {
  const created = await app.api('POST', USERS, ALICE);
  expectStatus(created, 201);
  passwords.push(ALICE.password);
  aliceId = created.body.id;
  assert.is(created.body.username, ALICE.username);
  // Alice may read sites, and her own user record only (a constraint using $user).
  expectStatus(await app.api('POST', '/api/users/permissions/', { name: 'alice reads sites', object_types: ['dcim.site'], actions: ['view'], users: [aliceId] }), 201);
  expectStatus(await app.api('POST', '/api/users/permissions/', { name: 'alice reads herself', object_types: ['users.user'], actions: ['view'], users: [aliceId], constraints: { id: '$user' } }), 201);
  const reply = await app.api('POST', `${TOKENS}provision/`, ALICE, { token: null });
  expectStatus(reply, 201);
  assert.match(reply.body.key, HEX40);
  assert.is(reply.body.write_enabled, true);
  assert.is(reply.body.user.id, aliceId);
  assert.is(reply.body.user.username, ALICE.username);
  aliceKey = reply.body.key;
  keys.push(aliceKey);
  const me = await app.api('GET', SITES, undefined, { token: aliceKey });
  expectStatus(me, 200, 'the provisioned token works');
});

test('/provision/ with a wrong password or unknown user is 403 "Invalid username/password"', async () => {
  const count = (await app.api('GET', `${TOKENS}?limit=1`)).body.count;
  for (const body of [{ username: ALICE.username, password: 'wrong' }, { username: 'nobody-here', password: 'whatever' }]) {
    const reply = await app.api('POST', `${TOKENS}provision/`, body, { token: null });
    expectStatus(reply, 403, body.username);
    assert.equal(reply.body, { detail: 'Invalid username/password' });
  }
  assert.is((await app.api('GET', `${TOKENS}?limit=1`)).body.count, count, 'no token was made');
});

test('a non-superuser without users.view_token reads their own tokens, not the list nor others\' tokens', async () => {
  const made = await token({ user: aliceId, description: 'made for alice by admin' });
  expectStatus(await app.api('GET', `${TOKENS}?limit=1000`, undefined, { token: aliceKey }), 403, 'listing needs users.view_token, as in NetBox');
  const own = await app.api('GET', `${TOKENS}${made.id}/`, undefined, { token: aliceKey });
  expectStatus(own, 200);
  assert.is(own.body.user.id, aliceId);
  const all = await app.api('GET', `${TOKENS}?limit=1000`);
  assert.ok(all.body.count > 2, 'the admin sees everyone\'s tokens');
  const adminTokens = all.body.results.filter((t: any) => t.user.id === adminId);
  assert.ok(adminTokens.length > 0);
  const theirs = await app.api('GET', `${TOKENS}${adminTokens[0].id}/`, undefined, { token: aliceKey });
  expectStatus(theirs, 404, 'another user\'s token is not found');
});

test('a non-superuser cannot create a token for another user (403)', async () => {
  const adminTokens = async () => (await app.api('GET', `${TOKENS}?user_id=${adminId}&limit=1`)).body.count;
  const before = await adminTokens();
  const reply = await app.api('POST', TOKENS, { user: adminId }, { token: aliceKey });
  assert.is(await adminTokens(), before, 'no token was created for the admin');
  expectStatus(reply, 403);
  assert.equal(reply.body, { detail: 'This user does not have permission to create tokens for other users.' });
});

test('a non-superuser may create a token for themself', async () => {
  const own = await token({ user: aliceId, description: 'alice own' }, aliceKey);
  assert.is(own.user.id, aliceId);
  expectStatus(await app.api('GET', SITES, undefined, { token: own.key }), 200);
});

test('no user endpoint ever returns the password', async () => {
  const bob = { username: 'bob', password: 'Bob-very-secret-pw-77' };
  passwords.push(bob.password);
  const created = await app.api('POST', USERS, bob);
  expectStatus(created, 201);
  const replies = [
    created,
    await app.api('GET', `${USERS}?limit=1000`),
    await app.api('GET', `${USERS}${created.body.id}/`),
    await app.api('GET', `${USERS}${created.body.id}/?brief=1`),
    await app.api('PATCH', `${USERS}${created.body.id}/`, { first_name: 'Bob', password: 'Bob-new-secret-pw-88' }),
    await app.api('GET', `${USERS}${aliceId}/`, undefined, { token: aliceKey }),
  ];
  passwords.push('Bob-new-secret-pw-88');
  for (const reply of replies) {
    assert.ok(reply.status === 200 || reply.status === 201, `${reply.status}: ${reply.text.slice(0, 200)}`);
    const objects = Array.isArray(reply.body.results) ? reply.body.results : [reply.body];
    for (const o of objects) assert.not.ok('password' in o, `no password key in ${JSON.stringify(o)}`);
    for (const p of passwords) assert.not.ok(reply.text.includes(p), 'no plain password');
    assert.not.ok(reply.text.includes('scrypt$'), 'no password hash');
  }
  // The changed password is the one that provisions now.
  expectStatus(await app.api('POST', `${TOKENS}provision/`, { username: 'bob', password: 'Bob-new-secret-pw-88' }, { token: null }), 201);
  expectStatus(await app.api('POST', `${TOKENS}provision/`, bob, { token: null }), 403);
});

test('the database holds no plain password and no plain token key', async () => {
  const db = app.running.db;
  const users: Record<string, unknown>[] = await db('users_user');
  const tokens: Record<string, unknown>[] = await db('users_token');
  assert.ok(users.length >= 3, 'admin, alice, bob');
  assert.ok(tokens.length >= keys.length - 1, 'the tokens are there');
  for (const u of users) assert.match(String(u.password), /^scrypt\$/, `user ${u.username} password is an scrypt hash`);
  const secrets = [...keys, ...keys.map((k) => k.toUpperCase()), ...passwords];
  const leaks: string[] = [];
  for (const [table, rows] of [['users_user', users], ['users_token', tokens]] as const) {
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) {
        const text = Buffer.isBuffer(value) ? value.toString('hex') + value.toString('utf8') : String(value);
        for (const s of secrets) if (text.includes(s)) leaks.push(`${table}.${column} of row ${row.id}`);
      }
    }
  }
  assert.equal(leaks, [], `secrets stored in the clear: ${leaks.join(', ')}`);
  // And the stored form still authenticates every live key.
  expectStatus(await app.api('GET', SITES, undefined, { token: aliceKey }), 200);
  expectStatus(await app.api('GET', SITES), 200);
});

test.run();

// ---------------------------------------------------------------------------------------------
// EXEMPT_VIEW_PERMISSIONS

const exempt = suite('EXEMPT_VIEW_PERMISSIONS');
const anon = { token: null };

exempt('dcim.site: sites are readable without a token; devices and writes are not', async () => {
  const one = await startApp({ EXEMPT_VIEW_PERMISSIONS: 'dcim.site' });
  try {
    const created = await one.api('POST', SITES, { name: 'exempt-site', slug: 'exempt-site' });
    expectStatus(created, 201);
    const list = await one.api('GET', SITES, undefined, anon);
    expectStatus(list, 200, 'site list');
    assert.is(list.body.count, 1);
    expectStatus(await one.api('GET', `${SITES}${created.body.id}/`, undefined, anon), 200, 'site detail');
    const devices = await one.api('GET', '/api/dcim/devices/', undefined, anon);
    expectStatus(devices, 403, 'device list');
    assert.equal(devices.body, NO_CREDENTIALS);
    const post = await one.api('POST', SITES, { name: 'anon-site', slug: 'anon-site' }, anon);
    expectStatus(post, 403, 'anonymous POST');
    assert.equal(post.body, NO_CREDENTIALS);
    const patch = await one.api('PATCH', `${SITES}${created.body.id}/`, { description: 'anon' }, anon);
    expectStatus(patch, 403, 'anonymous PATCH');
    const del = await one.api('DELETE', `${SITES}${created.body.id}/`, undefined, anon);
    expectStatus(del, 403, 'anonymous DELETE');
    assert.is((await one.api('GET', SITES)).body.count, 1, 'nothing was created or deleted');
    const bad = await one.api('GET', SITES, undefined, { token: 'e'.repeat(40) });
    expectStatus(bad, 403, 'an invalid token still fails on an exempt model');
  } finally {
    await one.stop();
  }
});

exempt('*: every model outside users is readable without a token; users and tokens are not', async () => {
  const all = await startApp({ EXEMPT_VIEW_PERMISSIONS: '*' });
  try {
    const closed: string[] = [];
    for (const m of modelList.filter((e) => e.definition.app !== 'users')) {
      const reply = await all.api('GET', listPath(m), undefined, anon);
      if (reply.status !== 200) closed.push(`${listPath(m)} → ${reply.status}`);
    }
    assert.equal(closed, [], closed.join(', '));
    for (const path of [USERS, TOKENS]) {
      const reply = await all.api('GET', path, undefined, anon);
      expectStatus(reply, 403, path);
      assert.equal(reply.body, NO_CREDENTIALS);
    }
    expectStatus(await all.api('POST', SITES, { name: 'star', slug: 'star' }, anon), 403, 'writes still need a token');
  } finally {
    await all.stop();
  }
});

exempt('unset: nothing is readable without a token', async () => {
  const none = await startApp();
  try {
    const open: string[] = [];
    for (const m of modelList) {
      const reply = await none.api('GET', listPath(m), undefined, anon);
      if (reply.status !== 403) open.push(`${listPath(m)} → ${reply.status}`);
    }
    assert.equal(open, [], open.join(', '));
  } finally {
    await none.stop();
  }
});

exempt.run();

// ---------------------------------------------------------------------------------------------
// Configuration errors

const config = suite('invalid configuration');
let dataDir: string;
config.before(() => { dataDir = mkdtempSync(join(tmpdir(), 'netledger-config-')); });
config.after(() => rmSync(dataDir, { recursive: true, force: true }));
const env = (extra: Record<string, string>) => ({ DATA_DIR: dataDir, SECRET_KEY: 's'.repeat(40), ...extra });

function throwsNaming(extra: Record<string, string>, name: string): void {
  let error: unknown;
  try {
    loadConfig(env(extra));
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof Error, `${JSON.stringify(extra)} is rejected`);
  assert.ok((error as Error).message.includes(name), `the message names ${name}: ${(error as Error).message}`);
}

config('a valid configuration loads', () => {
  const c = loadConfig(env({ PORT: '8080', MAX_PAGE_SIZE: '500', ADMIN_TOKEN, DATABASE_URL: 'postgres://u@h:5432/d' }));
  assert.is(c.port, 8080);
  assert.is(c.maxPageSize, 500);
  assert.is(c.adminToken, ADMIN_TOKEN);
});

config('PORT=abc is rejected naming PORT', () => throwsNaming({ PORT: 'abc' }, 'PORT'));
config('MAX_PAGE_SIZE=-1 is rejected naming MAX_PAGE_SIZE', () => throwsNaming({ MAX_PAGE_SIZE: '-1' }, 'MAX_PAGE_SIZE'));
config('ADMIN_TOKEN=xyz is rejected naming ADMIN_TOKEN', () => throwsNaming({ ADMIN_TOKEN: 'xyz' }, 'ADMIN_TOKEN'));
config('DATABASE_URL=mysql://x is rejected naming DATABASE_URL', () => throwsNaming({ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'));

config.run();
