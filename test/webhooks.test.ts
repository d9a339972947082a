/**
 * Webhooks end to end, against real HTTP(S) receivers started here on 127.0.0.1: capture in the
 * writing transaction, each event kind, conditions, templates, signatures, automatic and manual
 * retries, timeouts, TLS settings, rollbacks, competing workers, a SIGKILL in the middle of a stream of
 * writes, pruning and the webhook-receiver command. Runs on the engine TEST_DATABASE names.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_TOKEN, engine, expectStatus, startApp, testSchemaName, type TestApp } from './helpers.js';
import { model } from '../runtime/data/registry.js';
import { createObjects, updateObjects } from '../runtime/data/write.js';
import { loadConfig, ConfigError } from '../runtime/core/config.js';
import { startWorker, WebhookWorker } from '../runtime/webhooks/worker.js';
import { matches, conditionError } from '../runtime/webhooks/conditions.js';
import { jinjaToLiquid } from '../runtime/webhooks/template.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ENV = { WEBHOOK_RETRY_SCHEDULE: '1,1', WEBHOOK_TIMEOUT: '10' };

// ---------------------------------------------------------------------------------------------
// A receiver that records every request and answers as each path is told to.

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: string;
  at: number;
}

type Answer = { status: number; body?: string; delayMs?: number } | 'hang';

class Receiver {
  readonly requests: Received[] = [];
  readonly answers = new Map<string, (n: number) => Answer>();
  private hanging: ServerResponse[] = [];
  private server!: Server;
  private port = 0;
  constructor(private readonly tls?: { key: Buffer; cert: Buffer }) {}

  async start(): Promise<void> {
    const handler = (req: import('node:http').IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = (req.url ?? '/').split('?')[0];
        const raw = Buffer.concat(chunks);
        this.requests.push({ method: req.method ?? '', path, headers: req.headers, raw, body: raw.toString('utf8'), at: Date.now() });
        const n = this.requests.filter((r) => r.path === path).length;
        const answer = this.answers.get(path)?.(n) ?? { status: 200, body: 'ok' };
        if (answer === 'hang') { this.hanging.push(res); return; }
        const reply = () => { res.writeHead(answer.status, { 'Content-Type': 'text/plain' }); res.end(answer.body ?? ''); };
        if (answer.delayMs) setTimeout(reply, answer.delayMs);
        else reply();
      });
    };
    this.server = this.tls ? createHttpsServer(this.tls, handler) : createHttpServer(handler);
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.address() as { port: number }).port;
  }

  url(path: string): string {
    return `${this.tls ? 'https' : 'http'}://127.0.0.1:${this.port}${path}`;
  }

  at(path: string): Received[] {
    return this.requests.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

// ---------------------------------------------------------------------------------------------

let app: TestApp;
let rx: Receiver;
let seq = 0;
const unique = (prefix: string) => `${prefix}-${++seq}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Found<T> = Exclude<T, false | null | undefined | 0 | ''>;

async function waitFor<T>(what: string, fn: () => T | Promise<T>, timeoutMs = 10_000): Promise<Found<T>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value as Found<T>;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

async function makeWebhook(spec: Record<string, unknown>, on: TestApp = app): Promise<any> {
  const reply = await on.api('POST', '/api/extras/webhooks/', { name: unique('hook'), content_types: ['tenancy.tenant'], type_create: true, ...spec });
  expectStatus(reply, 201, 'create webhook:');
  return reply.body;
}

async function dropWebhook(hook: { id: number } | undefined, on: TestApp = app): Promise<void> {
  if (hook) await on.api('DELETE', `/api/extras/webhooks/${hook.id}/`);
}

async function deliveries(params: string, on: TestApp = app): Promise<any[]> {
  const reply = await on.api('GET', `/api/extras/webhook-deliveries/?limit=1000&${params}`);
  expectStatus(reply, 200, 'list deliveries:');
  return reply.body.results;
}

async function tenant(name: string, extra: Record<string, unknown> = {}): Promise<{ body: any; requestId: string }> {
  const reply = await app.api('POST', '/api/tenancy/tenants/', { name, slug: name, ...extra });
  expectStatus(reply, 201, `create tenant ${name}:`);
  return { body: reply.body, requestId: reply.headers.get('x-request-id')! };
}

function json(r: Received): any {
  return JSON.parse(r.body);
}

// ---------------------------------------------------------------------------------------------
// The condition language and the template dialect, without a server.

const units = suite('webhooks: conditions, templates, configuration');

units('conditions: operators, nesting, negation, dotted paths through lists', () => {
  const data = { name: 'core-1', status: { value: 'active' }, vid: 120, tags: [{ slug: 'gold' }, { slug: 'edge' }], site: null, flags: [true] };
  const one = (c: Record<string, unknown>) => matches({ and: [c] }, data);
  assert.ok(one({ attr: 'status.value', value: 'active' }));
  assert.not.ok(one({ attr: 'status.value', value: 'planned' }));
  assert.ok(one({ attr: 'status.value', value: 'planned', negate: true }));
  assert.ok(one({ attr: 'vid', value: 100, op: 'gt' }) && one({ attr: 'vid', value: 120, op: 'gte' }) && one({ attr: 'vid', value: 121, op: 'lt' }) && one({ attr: 'vid', value: 120, op: 'lte' }));
  assert.not.ok(one({ attr: 'site.id', value: 1, op: 'gt' }), 'gt against null is false, not an error');
  assert.ok(one({ attr: 'status.value', value: ['active', 'planned'], op: 'in' }));
  assert.ok(one({ attr: 'tags.slug', value: 'edge', op: 'contains' }), 'a path through a list collects every element');
  assert.ok(one({ attr: 'name', value: 'ore', op: 'contains' }));
  assert.ok(one({ attr: 'flags', value: true, op: 'contains' }));
  assert.ok(one({ attr: 'name', value: 'core-\\d+', op: 'regex' }));
  assert.not.ok(one({ attr: 'name', value: '\\d', op: 'regex' }), 'regex is anchored at the start');
  assert.ok(one({ attr: 'name', value: '(?i)CORE', op: 'regex' }));
  assert.ok(one({ attr: 'missing.deeper', value: null }), 'a missing key is null');
  assert.ok(matches({ or: [{ attr: 'vid', value: 1 }, { and: [{ attr: 'name', value: 'core-1' }, { attr: 'site', value: null }] }] }, data));
  assert.not.ok(matches({ and: [{ attr: 'vid', value: 120 }, { or: [{ attr: 'name', value: 'x' }, { attr: 'name', value: 'y' }] }] }, data));
  assert.ok(matches(null, data) && matches({}, data), 'no conditions always hold');
});

units('conditions: what a save rejects', () => {
  assert.is(conditionError({ and: [{ attr: 'status.value', value: 'active' }] }), null);
  assert.is(conditionError({ or: [{ and: [{ attr: 'a', value: 1, op: 'gte', negate: true }] }] }), null);
  for (const bad of [
    { attr: 'a', value: 1 }, // a bare condition at the top
    { AND: [{ attr: 'a', value: 1 }] },
    { and: [{ attr: 'a', value: 1 }], or: [] },
    { and: { attr: 'a', value: 1 } },
    { and: [{ attr: 'a', value: 'x', op: 'neq' }] },
    { and: [{ attr: 'a', value: 'x', op: 'gt' }] },
    { and: [{ attr: 'a', value: true, op: 'in' }] },
    { and: [{ attr: 'a', value: null, op: 'contains' }] },
    { and: [{ attr: 'a', value: { b: 1 } }] },
    { and: [{ attr: 'a', value: '(', op: 'regex' }] },
    { and: [{ attr: 'a', value: 1, extra: 1 }] },
    { and: [{ value: 1 }] },
    { and: [{ attr: 'a' }] },
    { and: [{ attr: 'a', value: 1, negate: 'yes' }] },
    'status=active',
  ]) assert.type(conditionError(bad), 'string', JSON.stringify(bad));
});

units('templates: Jinja spellings become Liquid, outside string literals only', () => {
  assert.is(jinjaToLiquid(`{{ data.tags | join(", ") }}`), `{{ data.tags | join: ", " }}`);
  assert.is(jinjaToLiquid(`{{ x | replace('-', '_') | upper() }}`), `{{ x | replace: '-', '_' | upper }}`);
  assert.is(jinjaToLiquid(`{% if a %}1{% elif b %}2{%- elif c -%}3{% endif %}`), `{% if a %}1{% elsif b %}2{%- elsif c -%}3{% endif %}`);
  assert.is(jinjaToLiquid(`{% if loop.first and x == None %}{{ "loop.first | f(1)" }}{% endif %}`), `{% if forloop.first and x == nil %}{{ "loop.first | f(1)" }}{% endif %}`);
  assert.is(jinjaToLiquid('plain text (with parens) | pipes'), 'plain text (with parens) | pipes');
});

units('configuration: webhook variables are checked', () => {
  const base = { DATA_DIR: mkdtempSync(join(tmpdir(), 'netledger-cfg-')) };
  const c = loadConfig(base);
  assert.equal([c.webhookTimeout, c.webhookRetrySchedule, c.webhookConcurrency, c.webhookPruneAfter, c.runWorker], [15, [5, 60, 600, 3600, 18000], 8, 7, true]);
  const d = loadConfig({ ...base, WEBHOOK_TIMEOUT: '2.5', WEBHOOK_RETRY_SCHEDULE: '0', WEBHOOK_CONCURRENCY: '3', WEBHOOK_PRUNE_AFTER: '0', RUN_WORKER: '0' });
  assert.equal([d.webhookTimeout, d.webhookRetrySchedule, d.webhookConcurrency, d.webhookPruneAfter, d.runWorker], [2.5, [], 3, 0, false]);
  for (const [name, value] of [['WEBHOOK_TIMEOUT', '0'], ['WEBHOOK_RETRY_SCHEDULE', '5,x'], ['WEBHOOK_RETRY_SCHEDULE', '5,0'], ['WEBHOOK_CONCURRENCY', '0'], ['WEBHOOK_PRUNE_AFTER', '-1'], ['RUN_WORKER', 'maybe']]) {
    assert.throws(() => loadConfig({ ...base, [name]: value }), (e: unknown) => e instanceof ConfigError && (e as Error).message.startsWith(name), `${name}=${value}`);
  }
  rmSync(base.DATA_DIR, { recursive: true, force: true });
});

units.run();

// ---------------------------------------------------------------------------------------------

const test = suite(`webhooks over HTTP (${engine})`);

test.before(async () => {
  rx = new Receiver();
  await rx.start();
  app = await startApp(ENV);
});

test.after(async () => {
  await app?.stop();
  await rx?.close();
});

test('saving a webhook: NetBox 3.6 fields, defaults, and 400 for what cannot work', async () => {
  const hook = await makeWebhook({
    payload_url: 'http://127.0.0.1:9/x', type_update: true, conditions: { and: [{ attr: 'status.value', value: 'active' }, { or: [{ attr: 'name', value: 'a', op: 'contains' }] }] },
  });
  try {
    assert.equal(hook.content_types, ['tenancy.tenant']);
    assert.equal([hook.type_create, hook.type_update, hook.type_delete, hook.enabled, hook.ssl_verification], [true, true, false, true, true]);
    assert.equal([hook.http_method, hook.http_content_type, hook.additional_headers, hook.body_template, hook.secret, hook.ca_file_path], ['POST', 'application/json', '', '', '', null]);
    const bad = async (spec: Record<string, unknown>, key: string) => {
      const reply = await app.api('POST', '/api/extras/webhooks/', { name: unique('bad'), content_types: ['tenancy.tenant'], type_create: true, payload_url: 'http://127.0.0.1:9/', ...spec });
      expectStatus(reply, 400, JSON.stringify(spec));
      assert.ok(reply.body[key]?.length, `${JSON.stringify(spec)} → ${reply.text}`);
    };
    await bad({ content_types: [] }, 'content_types');
    await bad({ content_types: 'tenancy.tenant' }, 'content_types');
    await bad({ content_types: ['dcim.nosuchmodel'] }, 'content_types');
    await bad({ content_types: ['users.token'] }, 'content_types');
    await bad({ type_create: false }, '__all__');
    await bad({ http_method: 'FETCH' }, 'http_method');
    await bad({ ssl_verification: false, ca_file_path: '/etc/ssl/certs/ca-certificates.crt' }, 'ca_file_path');
    await bad({ conditions: { and: [{ attr: 'status.value', value: 'active', op: 'neq' }] } }, 'conditions');
    await bad({ conditions: { attr: 'status.value', value: 'active' } }, 'conditions');
    await bad({ conditions: { and: [{ attr: 'vid', value: 'x', op: 'gt' }] } }, 'conditions');
    await bad({ body_template: '{% if data.name %}unclosed' }, 'body_template');
    await bad({ body_template: '{{ data.name | nosuchfilter }}' }, 'body_template');
    await bad({ additional_headers: 'X-A: {{ data.name ' }, 'additional_headers');
    const off = await app.api('PATCH', `/api/extras/webhooks/${hook.id}/`, { type_create: false, type_update: false });
    expectStatus(off, 400, 'every event type off:');
    const listed = async (q: string) => (await app.api('GET', `/api/extras/webhooks/?${q}`)).body.results.map((w: any) => w.id);
    assert.ok((await listed('content_types=tenancy.tenant')).includes(hook.id));
    assert.ok((await listed('content_types=dcim.site&content_types=tenancy.tenant')).includes(hook.id));
    assert.not.ok((await listed('content_types=dcim.site')).includes(hook.id));
    assert.not.ok((await listed('content_types=tenancy_tenant')).includes(hook.id), '_ is not a wildcard');
    const fine = await app.api('PATCH', `/api/extras/webhooks/${hook.id}/`, { type_create: false, http_method: 'PUT', conditions: null });
    expectStatus(fine, 200);
    assert.equal([fine.body.type_create, fine.body.type_update, fine.body.http_method, fine.body.conditions], [false, true, 'PUT', null]);
  } finally {
    await dropWebhook(hook);
  }
});

test('each event kind is delivered with the documented context; the request does not wait for delivery', async () => {
  const hook = await makeWebhook({ payload_url: rx.url('/events'), type_update: true, type_delete: true });
  rx.answers.set('/events', () => ({ status: 200, body: 'ok', delayMs: 1500 }));
  try {
    const name = unique('ev');
    const t0 = performance.now();
    const made = await tenant(name, { description: 'before' });
    assert.ok(performance.now() - t0 < 1000, 'the create returned before the receiver answered');
    const created = json(await waitFor('the created event', () => rx.at('/events')[0]));
    assert.equal(Object.keys(created).sort(), ['data', 'event', 'model', 'request_id', 'snapshots', 'timestamp', 'username']);
    assert.equal([created.event, created.model, created.username, created.request_id], ['created', 'tenant', 'admin', made.requestId]);
    assert.ok(!Number.isNaN(Date.parse(created.timestamp)));
    assert.is(created.data.id, made.body.id);
    assert.is(created.data.name, name);
    assert.is(created.data.url, made.body.url);
    assert.equal(Object.keys(created.snapshots).sort(), ['postchange', 'prechange']);
    assert.is(created.snapshots.prechange, null);
    assert.is(created.snapshots.postchange.name, name);
    const first = rx.at('/events')[0];
    assert.is(first.method, 'POST');
    assert.is(first.headers['content-type'], 'application/json');
    assert.is(first.headers['x-hook-signature'], undefined, 'no secret, no signature');
    assert.match(String(first.headers['webhook-id']), /^msg_/);

    rx.answers.delete('/events');
    const patched = await app.api('PATCH', `/api/tenancy/tenants/${made.body.id}/`, { description: 'after' });
    expectStatus(patched, 200);
    const updated = json(await waitFor('the updated event', () => rx.at('/events')[1]));
    assert.equal([updated.event, updated.request_id, updated.data.description], ['updated', patched.headers.get('x-request-id'), 'after']);
    assert.is(updated.snapshots.prechange.description, 'before');
    assert.is(updated.snapshots.postchange.description, 'after');

    const removed = await app.api('DELETE', `/api/tenancy/tenants/${made.body.id}/`);
    expectStatus(removed, 204);
    const deleted = json(await waitFor('the deleted event', () => rx.at('/events')[2]));
    assert.equal([deleted.event, deleted.data.id, deleted.data.description], ['deleted', made.body.id, 'after']);
    assert.is(deleted.snapshots.prechange.description, 'after');
    assert.is(deleted.snapshots.postchange, null);

    const rows = await waitFor('three succeeded deliveries', async () => {
      const list = await deliveries(`webhook_id=${hook.id}`);
      return list.length === 3 && list.every((d) => d.state.value === 'succeeded') && list;
    });
    const byEvent = Object.fromEntries(rows.map((d: any) => [d.event.value, d]));
    assert.equal(Object.keys(byEvent).sort(), ['created', 'deleted', 'updated']);
    const d = byEvent.created;
    assert.equal([d.object_type, d.object_id, d.request_id, d.attempt_count, d.webhook.id], ['tenancy.tenant', made.body.id, made.requestId, 1, hook.id], JSON.stringify(d.attempts));
    assert.equal(Object.keys(d.attempts[0]).sort(), ['duration_ms', 'error', 'response_excerpt', 'status_code', 'time']);
    assert.equal([d.attempts[0].status_code, d.attempts[0].error, d.attempts[0].response_excerpt], [200, null, 'ok']);
    assert.ok(d.attempts[0].duration_ms >= 1400, 'the slow answer was timed');
    assert.equal(d.payload, created, 'the delivery keeps the context it sent');
    // filters: webhook, state, object type, request id, event
    assert.is((await deliveries(`request_id=${made.requestId}`)).length, 1);
    assert.is((await deliveries(`webhook_id=${hook.id}&state=succeeded&object_type=tenancy.tenant`)).length, 3);
    assert.is((await deliveries(`webhook_id=${hook.id}&state=failed`)).length, 0);
    assert.is((await deliveries(`webhook_id=${hook.id}&object_type=dcim.site`)).length, 0);
    assert.is((await deliveries(`webhook_id=${hook.id}&event=updated`)).length, 1);
    assert.is((await deliveries(`webhook=${encodeURIComponent(hook.name)}`)).length, 3);
    expectStatus(await app.api('GET', '/api/extras/webhook-deliveries/', undefined, { token: null }), 403, 'anonymous list:');
  } finally {
    rx.answers.delete('/events');
    await dropWebhook(hook);
  }
});

test('one request: one event per object, sharing the request id; repeated writes coalesce to the last state', async () => {
  const hook = await makeWebhook({ payload_url: rx.url('/one'), type_update: true, type_delete: true });
  try {
    const names = [unique('bulk'), unique('bulk'), unique('bulk')];
    const reply = await app.api('POST', '/api/tenancy/tenants/', names.map((n) => ({ name: n, slug: n })));
    expectStatus(reply, 201);
    const requestId = reply.headers.get('x-request-id');
    await waitFor('three events', () => rx.at('/one').length >= 3);
    const bodies = rx.at('/one').map(json);
    assert.equal(bodies.map((b) => b.data.name).sort(), [...names].sort());
    assert.ok(bodies.every((b) => b.request_id === requestId && b.event === 'created'));
    assert.is(new Set(rx.at('/one').map((r) => r.headers['webhook-id'])).size, 3, 'each delivery has its own webhook-id');

    // Two write calls in one transaction (one request): create, then update, of the same object.
    const user = { id: 1, username: 'admin', isSuperuser: true, isActive: true };
    const name = unique('twice');
    const requestA = randomUUID();
    let id = 0;
    await app.running.db.transaction(async (trx) => {
      const ctx = { db: trx, user, now: new Date().toISOString(), requestId: requestA, baseUrl: app.url };
      id = (await createObjects(model('Tenant'), [{ name, slug: name, description: 'first' }], false, ctx)).ids[0];
      await updateObjects(model('Tenant'), [{ id, description: 'second' }], true, false, ctx);
      await updateObjects(model('Tenant'), [{ id, description: 'third' }], true, false, ctx);
    });
    app.running.worker!.wake();
    const coalesced = await waitFor('the coalesced event', async () => {
      const list = await deliveries(`request_id=${requestA}`);
      return list.length === 1 && list[0].state.value === 'succeeded' && list;
    });
    assert.is(coalesced[0].event.value, 'created');
    const sent = rx.at('/one').map(json).filter((b) => b.request_id === requestA);
    assert.is(sent.length, 1);
    assert.equal([sent[0].event, sent[0].data.description, sent[0].snapshots.prechange, sent[0].snapshots.postchange.description], ['created', 'third', null, 'third']);

    // Two updates in one transaction: one `updated`, prechange from before the first.
    const requestB = randomUUID();
    await app.running.db.transaction(async (trx) => {
      const ctx = { db: trx, user, now: new Date().toISOString(), requestId: requestB, baseUrl: app.url };
      await updateObjects(model('Tenant'), [{ id, description: 'fourth' }], true, false, ctx);
      await updateObjects(model('Tenant'), [{ id, description: 'fifth' }], true, false, ctx);
    });
    app.running.worker!.wake();
    await waitFor('the second coalesced event', async () => (await deliveries(`request_id=${requestB}&state=succeeded`)).length === 1);
    const again = rx.at('/one').map(json).filter((b) => b.request_id === requestB);
    assert.is(again.length, 1);
    assert.equal([again[0].event, again[0].snapshots.prechange.description, again[0].snapshots.postchange.description], ['updated', 'third', 'fifth']);
  } finally {
    await dropWebhook(hook);
  }
});

test('conditions decide whether a webhook fires', async () => {
  const hook = await makeWebhook({
    content_types: ['dcim.site'], payload_url: rx.url('/cond'),
    conditions: { and: [{ attr: 'status.value', value: 'active' }, { or: [{ attr: 'name', value: 'cond-yes', op: 'regex' }, { attr: 'tags.slug', value: 'vip', op: 'contains' }] }, { attr: 'description', value: 'skip', negate: true }] },
  });
  try {
    const vip = await app.api('POST', '/api/extras/tags/', { name: unique('VIP'), slug: 'vip' });
    expectStatus(vip, 201);
    const site = async (name: string, extra: Record<string, unknown> = {}) => expectStatus(await app.api('POST', '/api/dcim/sites/', { name, slug: name, ...extra }), 201, name);
    await site('cond-yes-1');
    await site('cond-yes-2', { status: 'planned' });
    await site('cond-other-1');
    await site('cond-other-2', { tags: ['vip'] });
    await site('cond-yes-3', { description: 'skip' });
    await site('cond-yes-4');
    await waitFor('the matching events', () => rx.at('/cond').length >= 3);
    await sleep(300);
    assert.equal(rx.at('/cond').map((r) => json(r).data.name).sort(), ['cond-other-2', 'cond-yes-1', 'cond-yes-4']);
    assert.is((await deliveries(`webhook_id=${hook.id}`)).length, 3, 'no delivery is queued when the conditions are false');
    await app.api('DELETE', `/api/extras/tags/${vip.body.id}/`);
  } finally {
    await dropWebhook(hook);
  }
});

test('templates: body, headers and URL are rendered (Jinja-style) in a sandbox', async () => {
  for (const [name, slug] of [['Red', 'red'], ['Blue', 'blue']]) await app.api('POST', '/api/extras/tags/', { name, slug });
  const hook = await makeWebhook({
    payload_url: rx.url('/tpl/{{ data.slug }}'),
    http_method: 'PUT',
    http_content_type: 'text/plain',
    additional_headers: "X-Event: {{ event }}\nX-Slug: {{ data['slug'] }}\n\nContent-Type: application/vnd.test+json\nX-Tags: {{ data.tags | map: 'name' | join(', ') }}",
    body_template: [
      '{"name": "{{ data.name | upper }}", "slug": "{{ data[\'slug\'] }}", "group": "{{ data.group | default(\'none\') }}",',
      ' "tags": "{% for t in data.tags %}{{ t.slug }}{% if not loop.last %},{% endif %}{% endfor %}", "count": {{ data.tags | length }},',
      ' "kind": "{% if event == \'updated\' %}changed{% elif event == \'created\' %}new{% else %}gone{% endif %}",',
      ' "title": "{{ data.description | title }}", "json": {{ data.tags | map: \'slug\' | tojson }}, "who": "{{ username }}",',
      ' "sandbox": "[{{ data.constructor }}|{{ data.__proto__ }}|{{ data.hasOwnProperty }}]"}',
    ].join(''),
  });
  try {
    const name = unique('tpl');
    await tenant(name, { description: 'hello big world', tags: ['red', 'blue'] });
    const got = await waitFor('the templated request', () => rx.at(`/tpl/${name}`)[0]);
    assert.is(got.method, 'PUT');
    assert.is(got.headers['content-type'], 'application/vnd.test+json', 'additional headers may replace Content-Type');
    assert.equal([got.headers['x-event'], got.headers['x-slug'], got.headers['x-tags']], ['created', name, 'Blue, Red']);
    assert.equal(JSON.parse(got.body), {
      name: name.toUpperCase(), slug: name, group: 'none', tags: 'blue,red', count: 2, kind: 'new', title: 'Hello Big World', json: ['blue', 'red'], who: 'admin', sandbox: '[||]',
    });
  } finally {
    await dropWebhook(hook);
  }
});

test('a template error fails the delivery with its message, not the worker', async () => {
  const include = await makeWebhook({ payload_url: rx.url('/tpl-bad'), body_template: "{% include 'secrets.txt' %}" });
  const header = await makeWebhook({ payload_url: rx.url('/tpl-bad'), additional_headers: 'X-Fine: yes\nthis line has no colon {{ data.name }}' });
  const limit = await makeWebhook({ payload_url: rx.url('/tpl-bad'), body_template: '{% for i in (1..100000000) %}{{ i }}{% endfor %}' });
  const good = await makeWebhook({ payload_url: rx.url('/tpl-good') });
  try {
    await tenant(unique('tplerr'));
    await waitFor('the good delivery', () => rx.at('/tpl-good').length === 1);
    const failed = await waitFor('three failed attempts', async () => {
      const list = await deliveries('state=retrying&state=failed');
      const mine = list.filter((d) => [include.id, header.id, limit.id].includes(d.webhook.id));
      return mine.length === 3 && mine.every((d) => d.attempt_count >= 1) && mine;
    });
    const error = (hook: { id: number }) => failed.find((d: any) => d.webhook.id === hook.id).attempts[0].error as string;
    assert.match(error(include), /^body_template: /);
    assert.match(error(header), /^additional_headers: .*Name: Value/);
    assert.match(error(limit), /^body_template: .*limit/);
    assert.is(failed[0].attempts[0].status_code, null);
    assert.is(rx.at('/tpl-bad').length, 0, 'nothing was sent for them');
  } finally {
    for (const h of [include, header, limit, good]) await dropWebhook(h);
  }
});

test('signatures: X-Hook-Signature and Standard Webhooks headers verify against the exact body', async () => {
  const plain = await makeWebhook({ payload_url: rx.url('/signed'), secret: 'correct horse ⚡ battery' });
  const whsecKey = randomBytes(24);
  const standard = await makeWebhook({ payload_url: rx.url('/signed-std'), secret: `whsec_${whsecKey.toString('base64')}` });
  try {
    const before = Math.floor(Date.now() / 1000);
    await tenant(unique('sig'), { description: 'ünïcødé ✓' });
    const got = await waitFor('the signed request', () => rx.at('/signed')[0]);
    const expected = createHmac('sha512', Buffer.from('correct horse ⚡ battery', 'utf8')).update(got.raw).digest('hex');
    assert.is(got.headers['x-hook-signature'], expected);
    const id = String(got.headers['webhook-id']);
    const ts = Number(got.headers['webhook-timestamp']);
    assert.ok(ts >= before - 1 && ts <= Math.floor(Date.now() / 1000) + 1, 'webhook-timestamp is the send time in seconds');
    const std = createHmac('sha256', Buffer.from('correct horse ⚡ battery', 'utf8')).update(`${id}.${ts}.`).update(got.raw).digest('base64');
    assert.is(got.headers['webhook-signature'], `v1,${std}`);
    const other = await waitFor('the whsec_ request', () => rx.at('/signed-std')[0]);
    const mac = createHmac('sha256', whsecKey).update(`${other.headers['webhook-id']}.${other.headers['webhook-timestamp']}.`).update(other.raw).digest('base64');
    assert.is(other.headers['webhook-signature'], `v1,${mac}`, 'a whsec_ secret is base64 key material');
  } finally {
    await dropWebhook(plain);
    await dropWebhook(standard);
  }
});

test('a non-2xx answer fails the attempt; the automatic retry then succeeds, with the same webhook-id', async () => {
  rx.answers.set('/flaky', (n) => (n <= 2 ? { status: n === 1 ? 500 : 404, body: `boom ${n}` } : { status: 204 }));
  const hook = await makeWebhook({ payload_url: rx.url('/flaky') });
  try {
    await tenant(unique('flaky'));
    const failedOnce = await waitFor('the first failure', async () => (await deliveries(`webhook_id=${hook.id}&state=retrying`))[0]);
    assert.ok(failedOnce.next_attempt_at, 'a retry is scheduled');
    assert.is(failedOnce.state.label, 'Retrying', 'a failure with a retry scheduled is not failed for good');
    assert.equal([failedOnce.attempts[0].status_code, failedOnce.attempts[0].error, failedOnce.attempts[0].response_excerpt], [500, 'HTTP 500', 'boom 1']);
    const done = await waitFor('success after retries', async () => (await deliveries(`webhook_id=${hook.id}&state=succeeded`))[0], 8000);
    assert.is(done.attempt_count, 3);
    assert.equal(done.attempts.map((a: any) => a.status_code), [500, 404, 204]);
    assert.is(done.next_attempt_at, null);
    const sent = rx.at('/flaky');
    assert.is(sent.length, 3);
    assert.is(new Set(sent.map((r) => r.headers['webhook-id'])).size, 1, 'webhook-id is stable across retries');
    assert.ok(sent[1].at - sent[0].at >= 900, 'the retry waited for the schedule');
  } finally {
    rx.answers.delete('/flaky');
    await dropWebhook(hook);
  }
});

test('after the last retry a delivery stays failed; POST …/retry/ queues it again', async () => {
  let up = false;
  rx.answers.set('/down', () => (up ? { status: 200, body: 'back' } : { status: 503, body: 'down' }));
  const hook = await makeWebhook({ payload_url: rx.url('/down') });
  try {
    await tenant(unique('down'));
    const failed = await waitFor('the final failure', async () => {
      const d = (await deliveries(`webhook_id=${hook.id}`))[0];
      return d && d.state.value === 'failed' && d.attempt_count === 3 && d.next_attempt_at === null && d;
    }, 8000);
    await sleep(1300);
    assert.is(rx.at('/down').length, 3, 'no attempt after the schedule ran out');
    const path = `/api/extras/webhook-deliveries/${failed.id}/retry/`;
    expectStatus(await app.api('POST', path, undefined, { token: null }), 403, 'anonymous retry:');
    expectStatus(await app.api('POST', '/api/extras/webhook-deliveries/999999/retry/'), 404, 'unknown delivery:');
    expectStatus(await app.api('GET', path), 405, 'GET on the retry route:');
    up = true;
    const retried = await app.api('POST', path);
    expectStatus(retried, 200, 'retry:');
    assert.is(retried.body.id, failed.id);
    assert.is(retried.body.state.value, 'queued');
    const done = await waitFor('the retried delivery', async () => {
      const d = (await deliveries(`webhook_id=${hook.id}`))[0];
      return d.state.value === 'succeeded' && d;
    });
    assert.is(done.attempt_count, 4);
    assert.equal(done.attempts.at(-1).response_excerpt, 'back');
    const again = await app.api('POST', path);
    expectStatus(again, 409, 'retrying a succeeded delivery:');
    assert.match(again.body.detail, /failed/);
  } finally {
    rx.answers.delete('/down');
    await dropWebhook(hook);
  }
});

test('a receiver that does not answer, or refuses the connection, fails the attempt in time', async () => {
  rx.answers.set('/hang', () => 'hang');
  const closed = createHttpServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
  const closedPort = (closed.address() as { port: number }).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const hang = await makeWebhook({ payload_url: rx.url('/hang') });
  const refused = await makeWebhook({ payload_url: `http://127.0.0.1:${closedPort}/` });
  try {
    await tenant(unique('slow'));
    const timedOut = await waitFor('the timeout', async () => (await deliveries(`webhook_id=${hang.id}&state=retrying&state=failed`))[0], 40_000);
    assert.match(timedOut.attempts[0].error, /timed out after 10 s/);
    assert.ok(timedOut.attempts[0].duration_ms >= 9900 && timedOut.attempts[0].duration_ms < 39_000, 'the attempt ended at the timeout');
    const noConnection = (await waitFor('the refusal', async () => (await deliveries(`webhook_id=${refused.id}&state=retrying&state=failed`))[0]));
    assert.match(noConnection.attempts[0].error, /ECONNREFUSED/);
  } finally {
    await dropWebhook(hang);
    await dropWebhook(refused);
  }
});

test('TLS: verification off accepts a self-signed receiver; on, it is refused; a CA file trusts it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'netledger-tls-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-subj', '/CN=localhost', '-days', '1', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { stdio: 'ignore' });
  const secure = new Receiver({ key: readFileSync(key), cert: readFileSync(cert) });
  await secure.start();
  const off = await makeWebhook({ payload_url: secure.url('/insecure'), ssl_verification: false });
  const on = await makeWebhook({ payload_url: secure.url('/verified') });
  const withCa = await makeWebhook({ payload_url: secure.url('/ca'), ca_file_path: cert });
  try {
    await tenant(unique('tls'));
    await waitFor('the unverified delivery', async () => (await deliveries(`webhook_id=${off.id}&state=succeeded`)).length === 1);
    await waitFor('the CA-verified delivery', async () => (await deliveries(`webhook_id=${withCa.id}&state=succeeded`)).length === 1);
    const refused = await waitFor('the verified failure', async () => (await deliveries(`webhook_id=${on.id}&state=retrying&state=failed`))[0]);
    assert.match(refused.attempts[0].error, /self[- ]signed/i);
    assert.is(secure.at('/verified').length, 0);
    assert.is(secure.at('/insecure').length, 1);
    assert.is(secure.at('/ca').length, 1);
  } finally {
    for (const h of [off, on, withCa]) await dropWebhook(h);
    await secure.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a rolled-back request queues and sends nothing', async () => {
  const hook = await makeWebhook({ payload_url: rx.url('/rollback') });
  try {
    const good = unique('rb-valid');
    const reply = await app.api('POST', '/api/tenancy/tenants/', [{ name: good, slug: good }, { name: unique('rb-valid'), slug: unique('rb-valid') }, { name: '', slug: 'not valid!' }]);
    expectStatus(reply, 400, 'bulk create with an invalid element:');
    const failedRequest = reply.headers.get('x-request-id')!;
    // A transaction that wrote (and queued) and then failed.
    const requestId = randomUUID();
    const written = unique('rb-written');
    await app.running.db.transaction(async (trx) => {
      await createObjects(model('Tenant'), [{ name: written, slug: written }], false, { db: trx, user: null, now: new Date().toISOString(), requestId, baseUrl: app.url });
      assert.is((await trx(model('WebhookDelivery').definition.table).where('request_id', requestId)).length, 1, 'queued inside the transaction');
      throw new Error('roll back');
    }).catch((error: Error) => { if (error.message !== 'roll back') throw error; });
    app.running.worker!.wake(true);
    const marker = unique('rb-marker');
    await tenant(marker);
    await waitFor('the marker', () => rx.at('/rollback').some((r) => json(r).data.name === marker));
    await sleep(300);
    assert.equal(rx.at('/rollback').map((r) => json(r).data.name), [marker]);
    assert.is((await deliveries(`request_id=${failedRequest}`)).length, 0);
    assert.is((await deliveries(`request_id=${requestId}`)).length, 0);
  } finally {
    await dropWebhook(hook);
  }
});

test('a delivery leased by one worker is not claimed by another', async () => {
  rx.answers.set('/held', () => ({ status: 200, delayMs: 1200 }));
  const hook = await makeWebhook({ payload_url: rx.url('/held') });
  const other = new WebhookWorker({ db: app.running.db }, { concurrency: 4, timeoutSeconds: 2, retrySchedule: [], pruneAfterDays: 0, log: false });
  try {
    const names = [unique('held'), unique('held'), unique('held')];
    expectStatus(await app.api('POST', '/api/tenancy/tenants/', names.map((n) => ({ name: n, slug: n }))), 201);
    await waitFor('three requests in flight', () => rx.at('/held').length === 3);
    const leased = await app.running.db(model('WebhookDelivery').definition.table).where('webhook_id', hook.id);
    assert.ok(leased.every((r: any) => r.lease_owner === app.running.worker!.owner && r.lease_expires_at > new Date().toISOString()), 'the app worker holds the leases');
    assert.equal(await other.claim(10), [], 'a second worker on the same database claims nothing');
    await waitFor('the held deliveries', async () => (await deliveries(`webhook_id=${hook.id}&state=succeeded`)).length === 3);
    assert.equal(await other.claim(10), [], 'nor once they succeeded');
    assert.is(rx.at('/held').length, 3);
  } finally {
    rx.answers.delete('/held');
    await other.stop();
    await dropWebhook(hook);
  }
});

if (engine === 'postgres') {
  test('two workers on one PostgreSQL deliver each event exactly once', async () => {
    const shared = await startApp({ ...ENV, RUN_WORKER: '0' });
    const workers: WebhookWorker[] = [];
    const claimed = [0, 0];
    try {
      for (let i = 0; i < 2; i++) {
        const w = await startWorker(shared.running.config, shared.running.db, { concurrency: 6 });
        const claim = w.claim.bind(w);
        w.claim = async (limit: number) => { const rows = await claim(limit); claimed[i] += rows.length; return rows; };
        workers.push(w);
      }
      rx.answers.set('/two', () => ({ status: 200, delayMs: 20 }));
      await makeWebhook({ payload_url: rx.url('/two') }, shared);
      const total = 240;
      for (let batch = 0; batch < 3; batch++) {
        const items = Array.from({ length: total / 3 }, (_, i) => { const n = `two-${batch}-${i}`; return { name: n, slug: n }; });
        const reply = await shared.api('POST', '/api/tenancy/tenants/', items);
        expectStatus(reply, 201);
      }
      await waitFor('every event', () => new Set(rx.at('/two').map((r) => r.headers['webhook-id'])).size === total, 30_000);
      await sleep(1000);
      assert.is(rx.at('/two').length, total, 'no event was sent twice');
      assert.is(claimed[0] + claimed[1], total);
      assert.ok(claimed[0] > 0 && claimed[1] > 0, `both workers delivered (${claimed.join(' + ')})`);
      assert.is((await deliveries('state=succeeded', shared)).length, total);
    } finally {
      rx.answers.delete('/two');
      for (const w of workers) await w.stop();
      await shared.stop();
    }
  });
}

// ---------------------------------------------------------------------------------------------
// The service as a child process, killed with SIGKILL in the middle of a stream of writes.

interface Child { process: ChildProcess; url: string; output: string[] }

function startChild(env: Record<string, string>): Promise<Child> {
  const node = join(root, 'node_modules/.bin/node');
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(DATABASE_|DATA_DIR|PORT|HOST|WEBHOOK_|RUN_WORKER|ADMIN_)/.test(k))) as Record<string, string>;
  // One process: the test kills it and restarts it (production.test.ts covers the cluster).
  const child = spawn(node, ['--import', 'tsx', 'runtime/cli.ts', 'start'], { cwd: root, env: { ...inherited, WEB_CONCURRENCY: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`the service did not start:\n${output.join('')}`)); }, 120_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output.push(chunk.toString());
      const m = /listening on (http:\/\/\S+?)\/api\//.exec(output.join(''));
      if (m) { clearTimeout(timer); resolve({ process: child, url: m[1], output }); }
    });
    child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`the service exited (${code}) before listening:\n${output.join('')}`)); });
  });
}

test('SIGKILL mid-stream: every committed change is delivered at least once, no rolled-back one ever', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'netledger-crash-'));
  const schema = testSchemaName('crash');
  const env: Record<string, string> = {
    DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ADMIN_TOKEN, LOG_REQUESTS: '0', RUN_WORKER: '1',
    WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1', WEBHOOK_TIMEOUT: '2', WEBHOOK_CONCURRENCY: '4',
    ...(engine === 'postgres' ? { DATABASE_URL: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test', DATABASE_SCHEMA: schema } : {}),
  };
  const call = (url: string, method: string, path: string, body?: unknown) => fetch(url + path, {
    method, headers: { Authorization: `Token ${ADMIN_TOKEN}`, 'Content-Type': 'application/json', Accept: 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  let child: Child | null = null;
  let killed = false;
  // A slow receiver, so the queue is behind the writes when the service is killed.
  rx.answers.set('/crash', () => ({ status: 200, delayMs: 100 }));
  try {
    child = await startChild(env);
    const made = await call(child.url, 'POST', '/api/extras/webhooks/', { name: 'crash', content_types: ['tenancy.tenant'], type_create: true, payload_url: rx.url('/crash') });
    assert.is(made.status, 201, await made.clone().text());
    const committed = new Set<string>();
    const rolledBack = new Set<string>();
    const unknown = new Set<string>();
    let next = 0;
    const writer = async (url: string) => {
      while (!killed) {
        const i = next++;
        if (i % 5 === 4) {
          const names = [`crash-rb-${i}-a`, `crash-rb-${i}-b`];
          try {
            const r = await call(url, 'POST', '/api/tenancy/tenants/', [...names.map((n) => ({ name: n, slug: n })), { name: '', slug: '' }]);
            if (r.status === 400) names.forEach((n) => rolledBack.add(n));
            else names.forEach((n) => unknown.add(n));
          } catch { names.forEach((n) => unknown.add(n)); }
        } else {
          const names = i % 5 === 3 ? [`crash-ok-${i}-a`, `crash-ok-${i}-b`, `crash-ok-${i}-c`] : [`crash-ok-${i}`];
          try {
            const r = await call(url, 'POST', '/api/tenancy/tenants/', names.length === 1 ? { name: names[0], slug: names[0] } : names.map((n) => ({ name: n, slug: n })));
            if (r.status === 201) names.forEach((n) => committed.add(n));
            else names.forEach((n) => unknown.add(n));
          } catch { names.forEach((n) => unknown.add(n)); }
        }
      }
    };
    const writers = [writer(child.url), writer(child.url), writer(child.url)];
    await waitFor('a stream of writes and deliveries', () => committed.size >= 60 && rx.at('/crash').length >= 10, 20_000);
    child.process.kill('SIGKILL');
    killed = true;
    await Promise.all(writers);
    await new Promise((resolve) => (child!.process.exitCode !== null || child!.process.signalCode ? resolve(null) : child!.process.once('exit', resolve)));
    const deliveredBeforeRestart = new Set(rx.at('/crash').map((r) => json(r).data.name)).size;
    child = await startChild(env);
    const delivered = () => new Set(rx.at('/crash').map((r) => json(r).data.name as string));
    await waitFor(`all ${committed.size} committed changes delivered (${deliveredBeforeRestart} were before the kill)`, () => [...committed].every((n) => delivered().has(n)), 30_000);
    await sleep(500);
    const got = delivered();
    const leaked = [...rolledBack].filter((n) => got.has(n));
    assert.equal(leaked, [], 'no rolled-back change was delivered');
    assert.ok(rolledBack.size > 0, 'some requests were rolled back');
    assert.ok([...got].every((n) => committed.has(n) || unknown.has(n)), 'nothing was invented');
    assert.ok(deliveredBeforeRestart < committed.size, `the kill left committed changes undelivered (${deliveredBeforeRestart} of ${committed.size} were delivered)`);
    const pending = async (state: string) => ((await (await call(child!.url, 'GET', `/api/extras/webhook-deliveries/?state=${state}&limit=1`)).json()) as { count: number }).count;
    await waitFor('an empty queue', async () => (await pending('queued')) === 0);
    assert.is(await pending('failed'), 0);
    assert.is(await pending('retrying'), 0);
    const listed = await (await call(child.url, 'GET', '/api/tenancy/tenants/?limit=0&name__isw=crash-ok')).json() as { count: number };
    assert.ok(listed.count >= committed.size);
  } finally {
    killed = true;
    rx.answers.delete('/crash');
    if (child) {
      child.process.kill('SIGTERM');
      await new Promise((resolve) => { const t = setTimeout(() => { child!.process.kill('SIGKILL'); resolve(null); }, 5000); child!.process.once('exit', () => { clearTimeout(t); resolve(null); }); });
    }
    if (engine === 'postgres') await app.running.db.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]);
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('webhook-receiver prints the headers and body of each request and answers 200', async () => {
  const node = join(root, 'node_modules/.bin/node');
  const child = spawn(node, ['--import', 'tsx', 'runtime/cli.ts', 'webhook-receiver', '--port', '0'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
  try {
    const port = Number((await waitFor('the receiver', () => /Listening for webhooks on http:\/\/127\.0\.0\.1:(\d+)\//.exec(out), 20_000))[1]);
    const res = await fetch(`http://127.0.0.1:${port}/hook`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Hook-Signature': 'abc123' }, body: '{"event": "created"}' });
    assert.is(res.status, 200);
    await res.text();
    await waitFor('the printed request', () => out.includes('{"event": "created"}'));
    assert.match(out, /POST \/hook/);
    assert.match(out, /x-hook-signature: abc123/i);
    assert.match(out, /content-type: application\/json/i);
  } finally {
    child.kill('SIGTERM');
  }
});

test('GET /api/status/ counts the running worker', async () => {
  const reply = await app.api('GET', '/api/status/');
  expectStatus(reply, 200);
  assert.ok(reply.body['rq-workers-running'] >= 1);
});

test('old succeeded deliveries are pruned; failed ones are kept', async () => {
  const table = model('WebhookDelivery').definition.table;
  const count = async (state: string) => Number((await app.running.db(table).whereIn('state', state === 'failed' ? ['failed', 'retrying'] : [state]).count('* as n').first())?.n ?? 0);
  rx.answers.set('/prune-fail', () => ({ status: 500 }));
  const ok = await makeWebhook({ payload_url: rx.url('/prune-ok') });
  const bad = await makeWebhook({ payload_url: rx.url('/prune-fail') });
  try {
    await tenant(unique('prune'));
    await waitFor('both outcomes', async () => (await deliveries(`webhook_id=${ok.id}&state=succeeded`)).length === 1 && (await deliveries(`webhook_id=${bad.id}&state=retrying&state=failed`)).length === 1);
    const failedBefore = await count('failed');
    assert.ok((await count('succeeded')) >= 1);
    assert.is(await app.running.worker!.prune(), 0, 'nothing is old enough yet');
    const removed = await app.running.worker!.prune(new Date(Date.now() + 8 * 86_400_000));
    assert.ok(removed >= 1);
    assert.is(await count('succeeded'), 0);
    assert.is(await count('failed'), failedBefore);
  } finally {
    rx.answers.delete('/prune-fail');
    await dropWebhook(ok);
    await dropWebhook(bad);
  }
});

test.run();
