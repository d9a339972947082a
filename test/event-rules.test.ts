/**
 * NetBox 3.7's extras: event rules driving webhooks (and the 3.6 trigger fields on webhooks mapped
 * onto them), export templates (?export=), saved filters (?filter=) and custom links, through HTTP.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { engine, expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite(`event rules and list extras (${engine})`);
let app: TestApp;
let n = 0;
const unique = (prefix: string) => `${prefix}-${++n}`;

test.before(async () => {
  // Deliveries go nowhere reachable; the worker is off so the queue can be read as written.
  app = await startApp({ RUN_WORKER: '0' });
});
test.after(async () => { await app?.stop(); });

async function deliveriesOf(webhookId: number): Promise<any[]> {
  return (await app.get(`/api/extras/webhook-deliveries/?webhook_id=${webhookId}&limit=1000`)).results;
}

async function bad(path: string, body: Record<string, unknown>, key: string): Promise<void> {
  const reply = await app.api('POST', path, body);
  expectStatus(reply, 400, `${path} ${JSON.stringify(body)}:`);
  assert.ok(reply.body[key]?.length, `${JSON.stringify(body)} should name ${key}: ${reply.text}`);
}

test('a 3.7 webhook has no triggers of its own; an event rule makes it fire', async () => {
  const hook = await app.post('/api/extras/webhooks/', { name: unique('w37'), payload_url: 'http://127.0.0.1:9/', description: 'to the CMDB' });
  assert.is(hook.description, 'to the CMDB');
  assert.equal(hook.content_types, []);
  await app.post('/api/tenancy/tenants/', { name: unique('quiet'), slug: unique('quiet') });
  assert.is((await deliveriesOf(hook.id)).length, 0, 'no rule: no delivery');

  const rule = await app.post('/api/extras/event-rules/', {
    name: unique('tenants'), content_types: ['tenancy.tenant'], type_create: true, type_update: true,
    action_type: 'webhook', action_object_type: 'extras.webhook', action_object_id: hook.id,
    conditions: { and: [{ attr: 'name', value: 'loud', op: 'contains' }] },
  });
  assert.equal([rule.action_type.value, rule.action_object_type, rule.action_object.id, rule.enabled], ['webhook', 'extras.webhook', hook.id, true]);
  assert.is(rule.action_object.name, hook.name);

  const loud = await app.post('/api/tenancy/tenants/', { name: unique('loud'), slug: unique('loud') });
  await app.post('/api/tenancy/tenants/', { name: unique('silent'), slug: unique('silent') });
  const queued = await deliveriesOf(hook.id);
  assert.equal(queued.map((d) => [d.event.value, d.object_id]), [['created', loud.id]], 'only the object the conditions match');

  await app.patch(`/api/extras/event-rules/${rule.id}/`, { enabled: false });
  await app.patch(`/api/tenancy/tenants/${loud.id}/`, { description: 'changed' });
  assert.is((await deliveriesOf(hook.id)).length, 1, 'a disabled rule fires nothing');

  // Two enabled rules acting on one webhook: one delivery per rule, as NetBox enqueues one job per rule.
  await app.patch(`/api/extras/event-rules/${rule.id}/`, { enabled: true, conditions: null });
  await app.post('/api/extras/event-rules/', {
    name: unique('also'), content_types: ['tenancy.tenant'], type_delete: true,
    action_type: 'webhook', action_object_type: 'extras.webhook', action_object_id: hook.id,
  });
  expectStatus(await app.api('DELETE', `/api/tenancy/tenants/${loud.id}/`), 204);
  const events = (await deliveriesOf(hook.id)).map((d) => d.event.value).sort();
  assert.equal(events, ['created', 'deleted']);

  // Rules go with the webhook they act on.
  expectStatus(await app.api('DELETE', `/api/extras/webhooks/${hook.id}/`), 204);
  const left = await app.get(`/api/extras/event-rules/?action_object_id=${hook.id}`);
  assert.is(left.count, 0);
});

test('event rules: each rule a 400 naming the field, and the accepted counterpart', async () => {
  const hook = await app.post('/api/extras/webhooks/', { name: unique('target'), payload_url: 'http://127.0.0.1:9/' });
  const good = { content_types: ['dcim.site'], type_create: true, action_type: 'webhook', action_object_type: 'extras.webhook', action_object_id: hook.id };
  await bad('/api/extras/event-rules/', { ...good, name: unique('r'), type_create: false }, '__all__');
  await bad('/api/extras/event-rules/', { ...good, name: unique('r'), content_types: [] }, 'content_types');
  await bad('/api/extras/event-rules/', { ...good, name: unique('r'), content_types: ['dcim.nosuchmodel'] }, 'content_types');
  await bad('/api/extras/event-rules/', { ...good, name: unique('r'), conditions: { attr: 'name', value: 'x' } }, 'conditions');
  await bad('/api/extras/event-rules/', { ...good, name: unique('r'), action_type: 'script' }, 'action_type');
  await bad('/api/extras/event-rules/', { ...good, name: unique('r'), action_type: 'email' }, 'action_type');
  await bad('/api/extras/event-rules/', { ...good, name: unique('r'), action_object_id: 999999 }, 'action_object_id');
  const ok = await app.post('/api/extras/event-rules/', { ...good, name: unique('r'), type_job_end: true });
  assert.is(ok.type_job_end, true);
  const listed = await app.get('/api/extras/event-rules/?content_types=dcim.site');
  assert.ok(listed.results.some((r: any) => r.id === ok.id));
  const bulk = await app.api('POST', '/api/extras/event-rules/', [{ ...good, name: unique('r') }, { ...good, name: unique('r'), type_create: false }]);
  expectStatus(bulk, 400, 'bulk with one bad rule:');
  assert.ok(bulk.body[1].__all__?.length, bulk.text);
});

test('NetBox 3.6 webhook fields are mapped onto an event rule of the same name, both ways', async () => {
  const name = unique('legacy');
  const hook = await app.post('/api/extras/webhooks/', {
    name, payload_url: 'http://127.0.0.1:9/', content_types: ['dcim.site'], type_create: true, enabled: true,
  });
  const rules = (await app.get(`/api/extras/event-rules/?name=${name}`)).results;
  assert.is(rules.length, 1);
  assert.equal([rules[0].content_types, rules[0].type_create, rules[0].type_update, rules[0].action_object.id], [['dcim.site'], true, false, hook.id]);

  await app.patch(`/api/extras/webhooks/${hook.id}/`, { type_update: true, content_types: ['dcim.site', 'tenancy.tenant'] });
  const rule = await app.get(`/api/extras/event-rules/${rules[0].id}/`);
  assert.equal([rule.type_update, rule.content_types], [true, ['dcim.site', 'tenancy.tenant']]);

  await app.patch(`/api/extras/event-rules/${rule.id}/`, { type_delete: true, enabled: false });
  const mirrored = await app.get(`/api/extras/webhooks/${hook.id}/`);
  assert.equal([mirrored.type_delete, mirrored.enabled], [true, false]);

  // The 3.6 fields still fire through the rule.
  await app.patch(`/api/extras/webhooks/${hook.id}/`, { enabled: true });
  const site = await app.post('/api/dcim/sites/', { name: unique('s'), slug: unique('s') });
  assert.equal((await deliveriesOf(hook.id)).map((d) => [d.event.value, d.object_id]), [['created', site.id]]);

  // The companion name belongs to this webhook: another webhook with 3.6 triggers may not take a rule's name.
  await app.post('/api/extras/event-rules/', {
    name: unique('taken'), content_types: ['dcim.site'], type_create: true, action_type: 'webhook', action_object_type: 'extras.webhook', action_object_id: hook.id,
  });
  await bad('/api/extras/webhooks/', { name: `taken-${n}`, payload_url: 'http://127.0.0.1:9/', content_types: ['dcim.site'], type_create: true }, 'name');
});

test('export templates render the filtered list with ?export=<name>', async () => {
  for (const name of ['alpha', 'beta', 'gamma']) await app.post('/api/tenancy/tenants/', { name: `exp-${name}`, slug: `exp-${name}` });
  const template = await app.post('/api/extras/export-templates/', {
    name: 'names', content_types: ['tenancy.tenant'], template_code: '{% for t in queryset %}{{ t.name }};{% endfor %}',
    mime_type: 'text/csv', file_extension: 'csv', as_attachment: true, description: 'one line',
  });
  assert.is(template.as_attachment, true);
  const reply = await app.api('GET', '/api/tenancy/tenants/?export=names&name__isw=exp-&ordering=-name');
  expectStatus(reply, 200, 'export:');
  assert.is(reply.text, 'exp-gamma;exp-beta;exp-alpha;');
  assert.match(reply.headers.get('content-type') ?? '', /^text\/csv/);
  assert.match(reply.headers.get('content-disposition') ?? '', /attachment; filename="netledger_tenants\.csv"/);

  await app.patch(`/api/extras/export-templates/${template.id}/`, { as_attachment: false, mime_type: '' });
  const inline = await app.api('GET', '/api/tenancy/tenants/?export=names&name=exp-beta');
  assert.is(inline.text, 'exp-beta;');
  assert.is(inline.headers.get('content-disposition'), null);
  assert.match(inline.headers.get('content-type') ?? '', /^text\/plain/);

  const unknown = await app.api('GET', '/api/tenancy/tenants/?export=nosuch');
  expectStatus(unknown, 400, 'unknown template:');
  assert.ok(unknown.body.export?.length);
  expectStatus(await app.api('GET', '/api/dcim/sites/?export=names'), 400, 'a template of another type:');
  await bad('/api/extras/export-templates/', { name: 'broken', content_types: ['tenancy.tenant'], template_code: '{% for t in queryset %}' }, 'template_code');
  await bad('/api/extras/export-templates/', { name: 'nowhere', content_types: ['dcim.nosuch'], template_code: 'x' }, 'content_types');
});

test('saved filters apply their parameters with ?filter=<slug>', async () => {
  for (const [name, status] of [['sf-a', 'active'], ['sf-b', 'planned'], ['sf-c', 'active']]) {
    await app.post('/api/dcim/sites/', { name, slug: name, status });
  }
  const saved = await app.post('/api/extras/saved-filters/', {
    name: 'Active sf', slug: 'active-sf', content_types: ['dcim.site'], parameters: { status: ['active'], name__isw: 'sf-' },
  });
  assert.is(saved.user.username, 'admin', 'user defaults to the requester');
  const narrowed = await app.get('/api/dcim/sites/?filter=active-sf');
  assert.equal(narrowed.results.map((s: any) => s.name), ['sf-a', 'sf-c']);
  const combined = await app.get('/api/dcim/sites/?filter=active-sf&name=sf-c');
  assert.equal(combined.results.map((s: any) => s.name), ['sf-c'], 'the request’s own filters apply too');

  const unknown = await app.api('GET', '/api/dcim/sites/?filter=nosuch');
  expectStatus(unknown, 400, 'unknown saved filter:');
  assert.ok(unknown.body.filter?.length);
  expectStatus(await app.api('GET', '/api/tenancy/tenants/?filter=active-sf'), 400, 'another type:');
  await app.patch(`/api/extras/saved-filters/${saved.id}/`, { enabled: false });
  expectStatus(await app.api('GET', '/api/dcim/sites/?filter=active-sf'), 400, 'disabled:');
  await bad('/api/extras/saved-filters/', { name: 'x', slug: 'x', content_types: ['dcim.site'], parameters: ['status'] }, 'parameters');
  await bad('/api/extras/saved-filters/', { name: 'y', slug: 'y', content_types: ['dcim.site'], parameters: { status: { nested: true } } }, 'parameters');
});

test('custom links: templates must parse', async () => {
  const link = await app.post('/api/extras/custom-links/', {
    name: 'cmdb', content_types: ['dcim.site'], link_text: 'CMDB {{ object.name }}', link_url: 'https://cmdb.example/{{ object.slug }}', button_class: 'blue', new_window: true,
  });
  assert.equal([link.button_class.value, link.new_window, link.enabled, link.weight], ['blue', true, true, 100]);
  await bad('/api/extras/custom-links/', { name: 'broken', content_types: ['dcim.site'], link_text: '{% if x %}', link_url: 'https://x/' }, 'link_text');
  await bad('/api/extras/custom-links/', { name: 'colour', content_types: ['dcim.site'], link_text: 'x', link_url: 'https://x/', button_class: 'plaid' }, 'button_class');
  const found = await app.get('/api/extras/custom-links/?content_types=dcim.site');
  assert.equal(found.results.map((l: any) => l.name), ['cmdb']);
});

test.run();
