/**
 * A database failure inside a request is that request's 500 (with its request id), never the end of
 * the process: a trigger makes the database refuse one write (create, update, delete, the bulk
 * forms, a hook's side write, the change log, the webhook queue), the request answers 500, nothing
 * is left as an unhandled rejection, and the same service answers the next request. Also the
 * deletes SQLite once refused row by row (a parent interface with its child, in one request or
 * through their device's cascade).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { engine, expectStatus, startApp, type TestApp } from './helpers.js';
import { createObject } from './factory.js';
import { model } from '../runtime/data/registry.js';

const test = suite('database failures');
let app: TestApp;
let n = 0;
const unique = (s: string) => `${s}-df${++n}`;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => { unhandled.push(reason); };

/** Makes the database refuse `event` (INSERT, UPDATE, DELETE) on `table` while `fn` runs. */
async function refusing<T>(table: string, event: 'INSERT' | 'UPDATE' | 'DELETE', fn: () => Promise<T>): Promise<T> {
  const db = app.running.db;
  const name = `refuse_${table}_${event.toLowerCase()}`;
  if (engine === 'postgres') {
    await db.raw(`create or replace function refuse_write() returns trigger language plpgsql as $$ begin raise exception 'injected failure' using errcode = 'XX000'; end $$`);
    await db.raw(`create trigger ${name} before ${event} on ${table} for each row execute function refuse_write()`);
  } else {
    await db.raw(`create trigger ${name} before ${event} on ${table} begin select raise(abort, 'injected failure'); end`);
  }
  try {
    return await fn();
  } finally {
    await db.raw(engine === 'postgres' ? `drop trigger ${name} on ${table}` : `drop trigger ${name}`);
  }
}

/** The request fails with a bare 500 naming its request id, and the process serves on. */
async function failsAlone(method: string, path: string, body?: unknown): Promise<void> {
  const reply = await app.api(method, path, body);
  expectStatus(reply, 500, `${method} ${path}:`);
  assert.is(reply.body.request_id, reply.headers.get('x-request-id'));
  assert.not.ok(JSON.stringify(reply.body).includes('injected'), 'the database message stays in the log');
  // let any stray rejection of the request surface before looking
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(unhandled, [], `no unhandled rejection after ${method} ${path}`);
  expectStatus(await app.api('GET', '/api/tenancy/tenants/?limit=1'), 200, 'the service after the failure:');
}

/** Once the database accepts writes again, the same service writes. */
async function writesAgain(): Promise<void> {
  await app.post('/api/tenancy/tenant-groups/', { name: unique('alive'), slug: unique('alive') });
}

const TENANTS = () => model('Tenant').definition.table;
const tenant = () => app.post('/api/tenancy/tenants/', { name: unique('t'), slug: unique('t') });

test.before(async () => {
  process.on('unhandledRejection', onUnhandled);
  app = await startApp({ RUN_WORKER: '0' });
});
test.after(async () => {
  await app.stop();
  process.off('unhandledRejection', onUnhandled);
});

test('create, update and delete, single and bulk, refused by the database: 500, and the process serves on', async () => {
  const [a, b] = [await tenant(), await tenant()];
  await refusing(TENANTS(), 'INSERT', async () => {
    await failsAlone('POST', '/api/tenancy/tenants/', { name: unique('t'), slug: unique('t') });
    await failsAlone('POST', '/api/tenancy/tenants/', [{ name: unique('t'), slug: unique('t') }, { name: unique('t'), slug: unique('t') }]);
  });
  await refusing(TENANTS(), 'UPDATE', async () => {
    await failsAlone('PATCH', `/api/tenancy/tenants/${a.id}/`, { description: 'x' });
    await failsAlone('PUT', `/api/tenancy/tenants/${a.id}/`, { name: a.name, slug: a.slug, description: 'y' });
    await failsAlone('PATCH', '/api/tenancy/tenants/', [{ id: a.id, description: 'x' }, { id: b.id, description: 'x' }]);
  });
  await refusing(TENANTS(), 'DELETE', async () => {
    await failsAlone('DELETE', `/api/tenancy/tenants/${a.id}/`);
    await failsAlone('DELETE', '/api/tenancy/tenants/', [{ id: a.id }, { id: b.id }]);
  });
  await writesAgain();
  // nothing was written by the failed requests
  expectStatus(await app.api('GET', `/api/tenancy/tenants/${a.id}/`), 200);
  assert.is((await app.get(`/api/tenancy/tenants/${a.id}/`)).description, '');
});

test('a side write, the change log and the webhook queue refused by the database: 500, and the process serves on', async () => {
  const device = await createObject(app, model('Device'));
  await refusing(model('Device').definition.table, 'UPDATE', () => failsAlone('POST', '/api/dcim/virtual-chassis/', { name: unique('vc'), master: device.id }));
  await refusing(model('ObjectChange').definition.table, 'INSERT', async () => {
    await failsAlone('POST', '/api/tenancy/tenants/', { name: unique('t'), slug: unique('t') });
    const t = await app.api('GET', '/api/tenancy/tenants/?limit=1');
    await failsAlone('DELETE', `/api/tenancy/tenants/${t.body.results[0].id}/`);
  });
  const hook = await app.post('/api/extras/webhooks/', { name: unique('hook'), payload_url: 'http://127.0.0.1:9/' });
  const rule = await app.post('/api/extras/event-rules/', {
    name: unique('rule'), content_types: ['tenancy.tenant'], type_create: true, type_update: true, type_delete: true,
    action_type: 'webhook', action_object_type: 'extras.webhook', action_object_id: hook.id,
  });
  const victim = await tenant();
  await refusing(model('WebhookDelivery').definition.table, 'INSERT', async () => {
    await failsAlone('POST', '/api/tenancy/tenants/', { name: unique('t'), slug: unique('t') });
    await failsAlone('PATCH', `/api/tenancy/tenants/${victim.id}/`, { description: 'x' });
    await failsAlone('DELETE', `/api/tenancy/tenants/${victim.id}/`);
  });
  await writesAgain();
  expectStatus(await app.api('DELETE', `/api/extras/event-rules/${rule.id}/`), 204);
});

test('a parent interface and its child deleted in one request, or with their device: both go (204)', async () => {
  for (const prefix of ['/api/dcim', '/api/virtualization']) {
    const virtual = prefix === '/api/virtualization';
    const owner = await createObject(app, model(virtual ? 'VirtualMachine' : 'Device'));
    const base = virtual ? { virtual_machine: owner.id } : { device: owner.id, type: 'virtual' };
    const parent = await app.post(`${prefix}/interfaces/`, { ...base, name: unique('p') });
    const child = await app.post(`${prefix}/interfaces/`, { ...base, name: unique('c'), parent: parent.id });
    const grandchild = await app.post(`${prefix}/interfaces/`, { ...base, name: unique('g'), parent: child.id });
    // alone, a parent with children is protected
    expectStatus(await app.api('DELETE', `${prefix}/interfaces/${parent.id}/`), 409);
    expectStatus(await app.api('DELETE', `${prefix}/interfaces/`, [{ id: parent.id }, { id: child.id }, { id: grandchild.id }]), 204, `${prefix} bulk delete:`);
    for (const i of [parent, child, grandchild]) expectStatus(await app.api('GET', `${prefix}/interfaces/${i.id}/`), 404);
    const again = await app.post(`${prefix}/interfaces/`, { ...base, name: unique('p') });
    await app.post(`${prefix}/interfaces/`, { ...base, name: unique('c'), parent: again.id });
    expectStatus(await app.api('DELETE', `${virtual ? '/api/virtualization/virtual-machines' : '/api/dcim/devices'}/${owner.id}/`), 204, `${prefix} owner delete:`);
    expectStatus(await app.api('GET', `${prefix}/interfaces/${again.id}/`), 404);
  }
  assert.equal(unhandled, []);
});

test.run();
