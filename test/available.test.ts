/**
 * /api/ipam/prefixes/<id>/available-ips/ and /available-prefixes/: free space listed in address
 * order, allocation first fit with the parent's VRF forced, 409 when space runs out, no double
 * allocation under concurrency, and the add permission on what is created.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite('available-ips / available-prefixes');
let app: TestApp;

const prefix = async (body: Record<string, unknown>) => {
  const reply = await app.api('POST', '/api/ipam/prefixes/', body);
  expectStatus(reply, 201);
  return reply.body;
};

test.before(async () => { app = await startApp({ RUN_WORKER: '0' }); });
test.after(() => app.stop());

test('GET lists free host addresses, skipping network, broadcast and used ones', async () => {
  const p = await prefix({ prefix: '10.9.0.0/29' });
  expectStatus(await app.api('POST', '/api/ipam/ip-addresses/', { address: '10.9.0.2/29' }), 201);
  const reply = await app.api('GET', `/api/ipam/prefixes/${p.id}/available-ips/`);
  expectStatus(reply, 200);
  assert.equal(reply.body.map((x: any) => x.address), ['10.9.0.1/29', '10.9.0.3/29', '10.9.0.4/29', '10.9.0.5/29', '10.9.0.6/29']);
  assert.equal(reply.body[0], { family: 4, address: '10.9.0.1/29', vrf: null });
  assert.is((await app.api('GET', `/api/ipam/prefixes/${p.id}/available-ips/?limit=2`)).body.length, 2);
  const pool = await prefix({ prefix: '10.9.1.0/30', is_pool: true });
  assert.equal((await app.api('GET', `/api/ipam/prefixes/${pool.id}/available-ips/`)).body.map((x: any) => x.address), ['10.9.1.0/30', '10.9.1.1/30', '10.9.1.2/30', '10.9.1.3/30'], 'a pool uses every address');
  const full = await prefix({ prefix: '10.9.2.0/24', mark_utilized: true });
  assert.equal((await app.api('GET', `/api/ipam/prefixes/${full.id}/available-ips/`)).body, [], 'mark_utilized: nothing free');
  const v6 = await prefix({ prefix: '2001:db8:5::/64' });
  assert.equal((await app.api('GET', `/api/ipam/prefixes/${v6.id}/available-ips/?limit=2`)).body.map((x: any) => x.address), ['2001:db8:5::1/64', '2001:db8:5::2/64']);
});

test('POST allocates the next free addresses, keeps the client fields, forces the VRF, then 409', async () => {
  const vrf = (await app.api('POST', '/api/ipam/vrfs/', { name: 'blue', rd: '65000:1' })).body;
  const p = await prefix({ prefix: '10.20.0.0/30', vrf: vrf.id });
  const one = await app.api('POST', `/api/ipam/prefixes/${p.id}/available-ips/`, { description: 'first', prefix: '10.20.0.0/30', vrf: null });
  expectStatus(one, 201);
  assert.is(one.body.address, '10.20.0.1/30');
  assert.is(one.body.description, 'first');
  assert.is(one.body.vrf.id, vrf.id, 'the parent\'s VRF');
  assert.is(one.body.url, `${app.url}/api/ipam/ip-addresses/${one.body.id}/`);
  const more = await app.api('POST', `/api/ipam/prefixes/${p.id}/available-ips/`, [{}, {}]);
  expectStatus(more, 409, 'only one address is left');
  assert.match(more.body.detail, /insufficient/i);
  const last = await app.api('POST', `/api/ipam/prefixes/${p.id}/available-ips/`, [{ status: 'reserved' }]);
  expectStatus(last, 201);
  assert.equal(last.body.map((x: any) => [x.address, x.status.value]), [['10.20.0.2/30', 'reserved']]);
  assert.equal((await app.api('GET', `/api/ipam/prefixes/${p.id}/available-ips/`)).body, []);
});

test('concurrent allocations never hand out the same address', async () => {
  const p = await prefix({ prefix: '10.30.0.0/26' });
  const replies = await Promise.all(Array.from({ length: 12 }, () => app.api('POST', `/api/ipam/prefixes/${p.id}/available-ips/`, [{}, {}])));
  for (const r of replies) expectStatus(r, 201);
  const addresses = replies.flatMap((r) => r.body.map((x: any) => x.address));
  assert.is(addresses.length, 24);
  assert.is(new Set(addresses).size, 24, 'all distinct');
});

test('available-prefixes: free blocks, first-fit allocation, 400 and 409', async () => {
  const parent = await prefix({ prefix: '10.40.0.0/22' });
  await prefix({ prefix: '10.40.1.0/24' });
  const free = await app.api('GET', `/api/ipam/prefixes/${parent.id}/available-prefixes/`);
  expectStatus(free, 200);
  assert.equal(free.body.map((x: any) => x.prefix), ['10.40.0.0/24', '10.40.2.0/23']);
  const made = await app.api('POST', `/api/ipam/prefixes/${parent.id}/available-prefixes/`, [{ prefix_length: 25, status: 'reserved' }, { prefix_length: 23 }]);
  expectStatus(made, 201);
  assert.equal(made.body.map((x: any) => x.prefix), ['10.40.0.0/25', '10.40.2.0/23']);
  assert.is(made.body[0].status.value, 'reserved');
  const one = await app.api('POST', `/api/ipam/prefixes/${parent.id}/available-prefixes/`, { prefix_length: 26 });
  expectStatus(one, 201);
  assert.is(one.body.prefix, '10.40.0.128/26', 'an object in, an object out');
  expectStatus(await app.api('POST', `/api/ipam/prefixes/${parent.id}/available-prefixes/`, {}), 400);
  expectStatus(await app.api('POST', `/api/ipam/prefixes/${parent.id}/available-prefixes/`, { prefix_length: 'x' }), 400);
  expectStatus(await app.api('POST', `/api/ipam/prefixes/${parent.id}/available-prefixes/`, { prefix_length: 24 }), 409);
  expectStatus(await app.api('GET', '/api/ipam/prefixes/999999/available-prefixes/'), 404);
});

test('allocation needs view on the prefix and add on what is created', async () => {
  const user = (await app.api('POST', '/api/users/users/', { username: 'ipam-viewer', password: 'viewer-password-1' })).body;
  const key = (await app.api('POST', '/api/users/tokens/', { user: user.id })).body.key;
  const p = await prefix({ prefix: '10.50.0.0/29' });
  expectStatus(await app.api('GET', `/api/ipam/prefixes/${p.id}/available-ips/`, undefined, { token: key }), 403, 'no permission at all');
  await app.api('POST', '/api/users/permissions/', { name: 'view prefixes', object_types: ['ipam.prefix'], actions: ['view'], users: [user.id] });
  expectStatus(await app.api('GET', `/api/ipam/prefixes/${p.id}/available-ips/`, undefined, { token: key }), 200);
  expectStatus(await app.api('POST', `/api/ipam/prefixes/${p.id}/available-ips/`, {}, { token: key }), 403, 'no add permission on IP addresses');
  await app.api('POST', '/api/users/permissions/', { name: 'add ips', object_types: ['ipam.ipaddress'], actions: ['add'], users: [user.id] });
  expectStatus(await app.api('POST', `/api/ipam/prefixes/${p.id}/available-ips/`, {}, { token: key }), 201);
});

test.run();
