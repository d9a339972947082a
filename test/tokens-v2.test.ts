/**
 * v2 API tokens (NetBox 4.5+): `nbt_<key>.<secret>` sent as `Authorization: Bearer ...`, stored as an
 * HMAC keyed with a pepper. Through the 4.6 API a new token is v2 by default, through 3.7 it is v1;
 * both kinds work through both versions. With no API_TOKEN_PEPPERS the service generates a pepper and
 * keeps it in the database; configured peppers rotate (the newest signs, the older still verify). The
 * plaintext is in the creating answer only.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../runtime/core/config.js';
import { ADMIN_TOKEN, expectStatus, startApp, type TestApp } from './helpers.js';

const ADMIN_PASSWORD = 'admin-password-for-tests';
const PEPPER_1 = 'first-pepper-'.padEnd(60, 'x');
const PEPPER_2 = 'second-pepper-'.padEnd(60, 'y');

const test = suite<{ app: TestApp; adminId: number; v2: { id: number; bearer: string; secret: string } }>('tokens-v2');

/** The database of `app`, for a second service started on it (a restart with other settings). */
function sameDatabase(app: TestApp): Record<string, string> {
  const { dataDir, databaseSchema } = app.running.config;
  return { DATA_DIR: dataDir, ...(databaseSchema ? { DATABASE_SCHEMA: databaseSchema } : {}) };
}

function bearer(app: TestApp, method: string, path: string, value: string, body?: unknown) {
  return app.api(method, path, body, { token: null, headers: { Authorization: `Bearer ${value}` } });
}

const V2 = (token: { key: string; token: string }) => `nbt_${token.key}.${token.token}`;

test.before(async (ctx) => {
  ctx.app = await startApp();
  const users = await ctx.app.get('/api/users/users/?username=admin');
  ctx.adminId = users.results[0].id;
});

test.after(async ({ app }) => { await app.stop(); });

test('through 4.6 a new token is v2: version, a 12-character key, the 40-character secret once, the pepper id', async (ctx) => {
  const { app, adminId } = ctx;
  const created = await app.post('/v4.6/api/users/tokens/', { user: adminId, description: 'v2 by default' });
  assert.is(created.version, 2);
  assert.match(created.key, /^[A-Za-z0-9]{12}$/);
  assert.match(created.token, /^[A-Za-z0-9]{40}$/);
  assert.is(created.pepper_id, 0, 'the generated pepper');
  assert.is(created.enabled, true);
  assert.is(created.write_enabled, true);
  assert.is(created.user.id, adminId);
  ctx.v2 = { id: created.id, bearer: V2(created), secret: created.token };
});

test('a v2 token works as Bearer through /api/ and /v4.6/api/, and reads and writes', async ({ app, v2 }) => {
  for (const path of ['/api/dcim/sites/', '/v3.7/api/dcim/sites/', '/v4.6/api/dcim/sites/']) {
    expectStatus(await bearer(app, 'GET', path, v2.bearer), 200, path);
  }
  const made = await bearer(app, 'POST', '/v4.6/api/dcim/sites/', v2.bearer, { name: 'By v2', slug: 'by-v2' });
  expectStatus(made, 201);
  // NetBox takes the value's form, not the word, for the version: `Token nbt_...` works too
  expectStatus(await app.api('GET', '/api/dcim/sites/', undefined, { token: null, headers: { Authorization: `Token ${v2.bearer}` } }), 200);
});

test('a wrong secret, an unknown key or a v2 value without its secret is a 403, alike for known and unknown keys', async ({ app, v2 }) => {
  const wrongSecret = v2.bearer.slice(0, -1) + (v2.bearer.endsWith('a') ? 'b' : 'a');
  const unknownKey = `nbt_ZZZZZZZZZZZZ.${v2.secret}`;
  const wrong = await bearer(app, 'GET', '/api/dcim/sites/', wrongSecret);
  const unknown = await bearer(app, 'GET', '/v4.6/api/dcim/sites/', unknownKey);
  assert.is(wrong.status, 403);
  assert.is(unknown.status, 403);
  assert.equal(wrong.body, unknown.body, 'the same answer: keys cannot be enumerated');
  const noSecret = await bearer(app, 'GET', '/api/dcim/sites/', v2.bearer.split('.')[0]);
  assert.is(noSecret.status, 403);
  assert.match(noSecret.body.detail, /v2 token/);
});

test('the plaintext is never returned again: not by the detail, the list, the brief form or 3.7', async ({ app, v2 }) => {
  for (const path of [`/v4.6/api/users/tokens/${v2.id}/`, '/v4.6/api/users/tokens/', '/v4.6/api/users/tokens/?brief=1', `/api/users/tokens/${v2.id}/`, '/api/users/tokens/']) {
    const reply = await app.api('GET', path);
    expectStatus(reply, 200, path);
    assert.not.ok(reply.text.includes(v2.secret), `${path} shows the secret`);
  }
  const detail = await app.get(`/v4.6/api/users/tokens/${v2.id}/`);
  assert.is(detail.token, null);
  assert.match(detail.key, /^[A-Za-z0-9]{12}$/, 'the key is not secret and stays readable');
  const old = await app.get(`/api/users/tokens/${v2.id}/`);
  assert.is(old.version, undefined, '3.7 has no version field');
  assert.match(old.key, /^nbt_[A-Za-z0-9]{12}\.\*+$/);
  // the key finds the token
  const found = await app.get(`/v4.6/api/users/tokens/?key=${detail.key}`);
  assert.equal(found.results.map((t: any) => t.id), [v2.id]);
});

test('through 3.7 a new token stays v1; v1 tokens keep working through both versions', async ({ app, adminId }) => {
  const created = await app.post('/api/users/tokens/', { user: adminId });
  assert.match(created.key, /^[0-9a-f]{40}$/);
  assert.is(created.version, undefined);
  for (const path of ['/api/dcim/sites/', '/v4.6/api/dcim/sites/']) {
    expectStatus(await app.api('GET', path, undefined, { token: created.key }), 200, path);
    expectStatus(await app.api('GET', path, undefined, { token: ADMIN_TOKEN }), 200, path);
  }
  const seen = await app.get(`/v4.6/api/users/tokens/${created.id}/`);
  assert.is(seen.version, 1);
  assert.is(seen.key, null, 'a v1 token has no v2 key');
  assert.is(seen.token, null);
  // a v1 token asked for through 4.6 shows its plaintext once, as `token`
  const v1Through46 = await app.post('/v4.6/api/users/tokens/', { user: adminId, version: 1 });
  assert.is(v1Through46.version, 1);
  assert.match(v1Through46.token, /^[0-9a-f]{40}$/);
  expectStatus(await app.api('GET', '/v4.6/api/dcim/sites/', undefined, { token: v1Through46.token }), 200);
});

test('provisioning: v2 through /v4.6/api/, v1 through /api/; the plaintext once', async ({ app }) => {
  const credentials = { username: 'admin', password: ADMIN_PASSWORD };
  const v2 = await app.api('POST', '/v4.6/api/users/tokens/provision/', credentials, { token: null });
  expectStatus(v2, 201);
  assert.is(v2.body.version, 2);
  assert.match(v2.body.token, /^[A-Za-z0-9]{40}$/);
  assert.is(v2.body.url, `${app.url}/v4.6/api/users/tokens/${v2.body.id}/`);
  expectStatus(await bearer(app, 'GET', '/v4.6/api/dcim/sites/', V2(v2.body)), 200);
  const v1 = await app.api('POST', '/api/users/tokens/provision/', credentials, { token: null });
  expectStatus(v1, 201);
  assert.match(v1.body.key, /^[0-9a-f]{40}$/);
  expectStatus(await app.api('GET', '/api/dcim/sites/', undefined, { token: v1.body.key }), 200);
});

test('a disabled token is refused; its version cannot change', async ({ app, adminId }) => {
  const created = await app.post('/v4.6/api/users/tokens/', { user: adminId, enabled: false });
  const refused = await bearer(app, 'GET', '/api/dcim/sites/', V2(created));
  assert.is(refused.status, 403);
  assert.is(refused.body.detail, 'Token disabled');
  await app.patch(`/v4.6/api/users/tokens/${created.id}/`, { enabled: true });
  expectStatus(await bearer(app, 'GET', '/api/dcim/sites/', V2(created)), 200);
  const changed = await app.api('PATCH', `/v4.6/api/users/tokens/${created.id}/`, { version: 1 });
  assert.is(changed.status, 400);
  assert.ok(changed.body.version);
});

test('the generated pepper is kept in the database: a restarted service verifies the same tokens', async ({ app, v2 }) => {
  const again = await startApp(sameDatabase(app));
  try {
    expectStatus(await bearer(again, 'GET', '/api/dcim/sites/', v2.bearer), 200);
    const made = await again.post('/v4.6/api/users/tokens/', { user: (await again.get('/api/users/users/?username=admin')).results[0].id });
    assert.is(made.pepper_id, 0);
    expectStatus(await bearer(app, 'GET', '/api/dcim/sites/', V2(made)), 200, 'the first service knows the same pepper');
  } finally {
    await again.stop();
  }
});

test('rotation: API_TOKEN_PEPPERS signs with the newest pepper, older ones (and the generated one) still verify', async ({ app, adminId, v2 }) => {
  const first = await startApp({ ...sameDatabase(app), API_TOKEN_PEPPERS: `1:${PEPPER_1}` });
  let withPepper1: string;
  try {
    const made = await first.post('/v4.6/api/users/tokens/', { user: adminId });
    assert.is(made.pepper_id, 1);
    withPepper1 = V2(made);
    expectStatus(await bearer(first, 'GET', '/api/dcim/sites/', withPepper1), 200);
    expectStatus(await bearer(first, 'GET', '/api/dcim/sites/', v2.bearer), 200, 'made with the generated pepper');
  } finally {
    await first.stop();
  }
  const second = await startApp({ ...sameDatabase(app), API_TOKEN_PEPPERS: JSON.stringify({ 1: PEPPER_1, 2: PEPPER_2 }) });
  try {
    const made = await second.post('/v4.6/api/users/tokens/', { user: adminId });
    assert.is(made.pepper_id, 2, 'the newest pepper signs');
    for (const value of [V2(made), withPepper1, v2.bearer]) expectStatus(await bearer(second, 'GET', '/v4.6/api/dcim/sites/', value), 200);
  } finally {
    await second.stop();
  }
  // a service that no longer lists pepper 1 refuses the tokens made with it
  const third = await startApp({ ...sameDatabase(app), API_TOKEN_PEPPERS: `2:${PEPPER_2}` });
  try {
    assert.is((await bearer(third, 'GET', '/api/dcim/sites/', withPepper1)).status, 403);
  } finally {
    await third.stop();
  }
});

test('API_TOKEN_PEPPERS that cannot be read stop the start with a message naming it', () => {
  for (const value of ['x', '1:short', '{"a": "' + PEPPER_1 + '"}', `1:${PEPPER_1},1:${PEPPER_2}`, '{not json']) {
    assert.throws(() => loadConfig({ DATA_DIR: '/tmp', SECRET_KEY: 'k'.repeat(40), API_TOKEN_PEPPERS: value }), /API_TOKEN_PEPPERS/, value);
  }
  const ok = loadConfig({ DATA_DIR: '/tmp', SECRET_KEY: 'k'.repeat(40), API_TOKEN_PEPPERS: `1:${PEPPER_1}, 3:${PEPPER_2}` });
  assert.equal([...ok.apiTokenPeppers.keys()], [1, 3]);
});

test.run();
