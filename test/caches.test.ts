/**
 * The process caches (tokens with their users, permissions, custom field definitions, config
 * contexts) never serve a stale answer: every change made through one app is seen by the very next
 * request to a second app on the same database (the same SQLite file, the same PostgreSQL schema),
 * as two processes of one deployment would. Each check warms the second app's cache first. The
 * last test runs the second service in a real process of its own (test/bench/serve.ts).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite('process caches across apps on one database');
let a: TestApp;
let b: TestApp;

test.before(async () => {
  a = await startApp();
  // The second app opens the first one's database: its data folder (SQLite) or schema (PostgreSQL).
  b = await startApp({ DATA_DIR: a.running.config.dataDir, ...(a.running.config.databaseSchema ? { DATABASE_SCHEMA: a.running.config.databaseSchema } : {}), RUN_WORKER: '0' });
});

test.after(async () => {
  await b?.stop();
  await a?.stop();
});

let n = 0;
async function userWithToken(extra: Record<string, unknown> = {}): Promise<{ id: number; token: string; tokenId: number }> {
  n++;
  const user = await a.post('/api/users/users/', { username: `cache-user-${n}`, password: `cache-user-${n}-password` });
  const token = await a.post('/api/users/tokens/', { user: user.id, ...extra });
  return { id: user.id, token: token.key, tokenId: token.id };
}

test('a deleted token fails on the next request, in both apps', async () => {
  const { token, tokenId } = await userWithToken();
  expectStatus(await b.api('GET', `/api/users/tokens/${tokenId}/`, undefined, { token }), 200);
  expectStatus(await b.api('GET', `/api/users/tokens/${tokenId}/`, undefined, { token }), 200);
  expectStatus(await a.api('DELETE', `/api/users/tokens/${tokenId}/`), 204);
  const after = await b.api('GET', `/api/users/tokens/${tokenId}/`, undefined, { token });
  assert.is(after.status, 403);
  assert.is(after.body.detail, 'Invalid token');
  assert.is((await a.api('GET', `/api/users/tokens/${tokenId}/`, undefined, { token })).status, 403);
});

test('a deactivated user, an expired or read-only token take effect at once', async () => {
  const alice = await userWithToken();
  expectStatus(await b.api('GET', `/api/users/tokens/${alice.tokenId}/`, undefined, { token: alice.token }), 200);
  await a.patch(`/api/users/users/${alice.id}/`, { is_active: false });
  const inactive = await b.api('GET', `/api/users/tokens/${alice.tokenId}/`, undefined, { token: alice.token });
  assert.is(inactive.status, 403);
  assert.is(inactive.body.detail, 'User inactive');

  const bob = await userWithToken();
  expectStatus(await b.api('GET', `/api/users/tokens/${bob.tokenId}/`, undefined, { token: bob.token }), 200);
  await a.patch(`/api/users/tokens/${bob.tokenId}/`, { expires: '2000-01-01T00:00:00Z' });
  assert.is((await b.api('GET', `/api/users/tokens/${bob.tokenId}/`, undefined, { token: bob.token })).body.detail, 'Token expired');

  const carol = await userWithToken({ write_enabled: true });
  await a.post('/api/users/permissions/', { name: `carol adds tags ${n}`, object_types: ['extras.tag'], actions: ['add', 'view'], users: [carol.id] });
  expectStatus(await b.api('POST', '/api/extras/tags/', { name: 'carol-1', slug: 'carol-1' }, { token: carol.token }), 201);
  await a.patch(`/api/users/tokens/${carol.tokenId}/`, { write_enabled: false });
  assert.is((await b.api('POST', '/api/extras/tags/', { name: 'carol-2', slug: 'carol-2' }, { token: carol.token })).status, 403);
});

test('granting, narrowing and withdrawing a permission take effect at once', async () => {
  const dave = await userWithToken();
  await a.post('/api/dcim/sites/', { name: 'Cache A', slug: 'cache-a' });
  await a.post('/api/dcim/sites/', { name: 'Cache B', slug: 'cache-b' });
  assert.is((await b.api('GET', '/api/dcim/sites/', undefined, { token: dave.token })).status, 403);
  const perm = await a.post('/api/users/permissions/', { name: 'dave reads sites', object_types: ['dcim.site'], actions: ['view'], users: [dave.id] });
  const all = await b.api('GET', '/api/dcim/sites/?slug__isw=cache-', undefined, { token: dave.token });
  expectStatus(all, 200);
  assert.is(all.body.count, 2);
  await a.patch(`/api/users/permissions/${perm.id}/`, { constraints: { slug: 'cache-a' } });
  assert.is((await b.api('GET', '/api/dcim/sites/?slug__isw=cache-', undefined, { token: dave.token })).body.count, 1);
  await a.patch(`/api/users/permissions/${perm.id}/`, { enabled: false });
  assert.is((await b.api('GET', '/api/dcim/sites/', undefined, { token: dave.token })).status, 403);
  await a.patch(`/api/users/permissions/${perm.id}/`, { enabled: true });
  expectStatus(await b.api('GET', '/api/dcim/sites/', undefined, { token: dave.token }), 200);
  // Through a group: removing the user from the group withdraws it.
  const group = await a.post('/api/users/groups/', { name: 'cache readers' });
  await a.patch(`/api/users/permissions/${perm.id}/`, { users: [], groups: [group.id] });
  assert.is((await b.api('GET', '/api/dcim/sites/', undefined, { token: dave.token })).status, 403);
  await a.patch(`/api/users/users/${dave.id}/`, { groups: [group.id] });
  expectStatus(await b.api('GET', '/api/dcim/sites/', undefined, { token: dave.token }), 200);
  expectStatus(await a.api('DELETE', `/api/users/groups/${group.id}/`), 204);
  assert.is((await b.api('GET', '/api/dcim/sites/', undefined, { token: dave.token })).status, 403);
});

test('a detail read follows a permission changed in the other app at once (also unconstrained, and revoked)', async () => {
  const erin = await userWithToken();
  const inside = await a.post('/api/dcim/sites/', { name: 'Cache D', slug: 'cache-d' });
  const outside = await a.post('/api/dcim/sites/', { name: 'Cache E', slug: 'cache-e' });
  const perm = await a.post('/api/users/permissions/', { name: 'erin reads one site', object_types: ['dcim.site'], actions: ['view'], users: [erin.id], constraints: { slug: 'cache-d' } });
  const read = async (id: number) => (await b.api('GET', `/api/dcim/sites/${id}/`, undefined, { token: erin.token })).status;
  assert.is(await read(inside.id), 200);
  assert.is(await read(outside.id), 404);
  await a.patch(`/api/users/permissions/${perm.id}/`, { constraints: null });
  assert.is(await read(outside.id), 200);
  await a.patch(`/api/users/permissions/${perm.id}/`, { constraints: { slug: 'cache-d' } });
  assert.is(await read(outside.id), 404);
  assert.is(await read(inside.id), 200);
  expectStatus(await a.api('DELETE', `/api/users/tokens/${erin.tokenId}/`), 204);
  assert.is(await read(inside.id), 403);
});

test('custom fields and config contexts changed in one app render at once in the other', async () => {
  const site = await a.post('/api/dcim/sites/', { name: 'Cache C', slug: 'cache-c' });
  assert.equal((await b.get(`/api/dcim/sites/${site.id}/`)).custom_fields, {});
  const field = await a.post('/api/extras/custom-fields/', { name: 'cache_note', type: 'text', content_types: ['dcim.site'] });
  assert.equal((await b.get(`/api/dcim/sites/${site.id}/`)).custom_fields, { cache_note: null });
  expectStatus(await a.api('DELETE', `/api/extras/custom-fields/${field.id}/`), 204);
  assert.equal((await b.get(`/api/dcim/sites/${site.id}/`)).custom_fields, {});

  const maker = await a.post('/api/dcim/manufacturers/', { name: 'Cache maker', slug: 'cache-maker' });
  const type = await a.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Cache box', slug: 'cache-box' });
  const role = await a.post('/api/dcim/device-roles/', { name: 'Cache role', slug: 'cache-role' });
  const device = await a.post('/api/dcim/devices/', { name: 'cache-dev', site: site.id, device_type: type.id, role: role.id });
  assert.equal((await b.get(`/api/dcim/devices/${device.id}/`)).config_context, {});
  const ctx = await a.post('/api/extras/config-contexts/', { name: 'cache ctx', data: { ntp: '10.0.0.1' }, sites: [site.id] });
  assert.equal((await b.get(`/api/dcim/devices/${device.id}/`)).config_context, { ntp: '10.0.0.1' });
  await a.patch(`/api/extras/config-contexts/${ctx.id}/`, { data: { ntp: '10.0.0.2' } });
  assert.equal((await b.get(`/api/dcim/devices/${device.id}/`)).config_context, { ntp: '10.0.0.2' });
  await a.patch(`/api/extras/config-contexts/${ctx.id}/`, { is_active: false });
  assert.equal((await b.get(`/api/dcim/devices/${device.id}/`)).config_context, {});
});

test('a revoked token never works again in another process, not even while requests are in flight', async () => {
  const { config } = a.running;
  const child = fork(fileURLToPath(new URL('./bench/serve.ts', import.meta.url)), ['--serve'], { execArgv: ['--import', 'tsx'] });
  const reply = <T>(message: unknown) => new Promise<T>((resolve) => { child.once('message', (m) => resolve(m as T)); child.send(message as never); });
  let stop = false;
  let hammer: Promise<void> = Promise.resolve();
  try {
    const { url } = await reply<{ url: string }>({ cmd: 'start', env: {
      DATA_DIR: config.dataDir, PORT: '0', HOST: '127.0.0.1', LOG_REQUESTS: '0', RUN_WORKER: '0',
      ...(config.databaseUrl ? { DATABASE_URL: config.databaseUrl, DATABASE_SCHEMA: config.databaseSchema! } : {}),
    } });
    const { token, tokenId } = await userWithToken();
    const other = async () => (await fetch(`${url}/api/users/tokens/${tokenId}/`, { headers: { Authorization: `Token ${token}`, Accept: 'application/json' } })).status;
    assert.is(await other(), 200);
    // The other process keeps asking while the token is deleted here: every request sent after
    // the DELETE was answered must fail.
    const seen: { sent: number; status: number }[] = [];
    let deletedAt = Infinity;
    hammer = (async () => {
      while (!stop) { const sent = performance.now(); seen.push({ sent, status: await other().catch(() => 0) }); }
    })();
    await new Promise((r) => setTimeout(r, 50));
    expectStatus(await a.api('DELETE', `/api/users/tokens/${tokenId}/`), 204);
    deletedAt = performance.now();
    await new Promise((r) => setTimeout(r, 100));
    for (let i = 0; i < 5; i++) assert.is(await other(), 403);
    stop = true;
    await hammer;
    const late = seen.filter((r) => r.sent > deletedAt);
    assert.ok(late.length > 0, 'requests were sent after the delete');
    assert.equal(late.filter((r) => r.status !== 403), [], 'no request sent after the delete succeeded');
    assert.ok(seen.some((r) => r.sent < deletedAt && r.status === 200), 'the token worked in the other process before');
  } finally {
    stop = true;
    await hammer;
    await reply({ cmd: 'stop' });
  }
});

test.run();
