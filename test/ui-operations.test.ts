/**
 * The web interface's operational pages in a real Chromium: API tokens (the key shown once, then
 * never again), a failed webhook delivery retried from its page until it succeeds, the change log's
 * before/after diff, and the browsable API with its JSON fallback for API clients.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_TOKEN, startApp, type TestApp } from './helpers.js';
import { expectAccessible, login, openBrowser, type Browser } from './browser.js';

const test = suite('web interface: operations');
let app: TestApp;
let browser: Browser;
let base: string;
let receiver: Server;
let receiverUrl: string;
/** the receiver answers 503 until this is true */
let receiverUp = false;
const received: string[] = [];
const tag = `o${Date.now().toString(36)}`;

test.before(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      received.push(body);
      res.writeHead(receiverUp ? 200 : 503, { 'Content-Type': 'text/plain' });
      res.end(receiverUp ? 'thanks' : 'down for maintenance');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  // No automatic retry: a failed attempt is failed for good until somebody retries it.
  app = await startApp({ WEBHOOK_RETRY_SCHEDULE: '0', WEBHOOK_TIMEOUT: '2' });
  base = app.url;
  browser = await openBrowser();
  await login(browser.page, base);
});

test.after(async () => {
  await browser?.close();
  await app?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

async function until<T>(what: string, check: () => Promise<T | false | undefined | null>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('a new token shows its key once; the list and the next visit show only the masked key', async () => {
  const { page } = browser;
  await page.goto(`${base}/user/api-tokens/`);
  await page.click('a:has-text("Add a token")');
  await page.fill('#token-description', `${tag} laptop`);
  await page.click('button:has-text("Save")');
  const key = (await page.locator('[data-new-key]').innerText()).trim();
  assert.match(key, /^[0-9a-f]{40}$/);
  const works = await app.api('GET', '/api/dcim/sites/', undefined, { token: key });
  assert.is(works.status, 200, 'the key shown authenticates');
  await page.goto(`${base}/user/api-tokens/`);
  const list = await page.locator('main').innerText();
  assert.ok(list.includes(`${tag} laptop`));
  assert.not.ok(list.includes(key), 'the list does not show the key');
  assert.not.ok((await page.content()).includes(key), 'nor does its HTML');
  const row = page.locator('tr', { hasText: `${tag} laptop` });
  await row.locator('a:has-text("Edit")').click();
  assert.not.ok((await page.content()).includes(key), 'nor the edit page');
  await page.fill('#token-description', `${tag} desktop`);
  await Promise.all([page.waitForURL(/\/user\/api-tokens\/$/), page.click('button:has-text("Save")')]);
  await page.locator('tr', { hasText: `${tag} desktop` }).locator('a:has-text("Delete")').click();
  await Promise.all([page.waitForURL(/\/user\/api-tokens\/$/), page.click('button:has-text("Delete")')]);
  assert.is((await app.api('GET', '/api/dcim/sites/', undefined, { token: key })).status, 403, 'the deleted key is refused');
  // NetBox 4.6's choice of version: a v2 token, shown once as nbt_<key>.<secret>, taken as a Bearer token
  await page.goto(`${base}/user/api-tokens/add/`);
  await page.fill('#token-description', `${tag} v2`);
  await page.locator('#token-version').selectOption('2');
  await page.click('button:has-text("Save")');
  const v2 = (await page.locator('[data-new-key]').innerText()).trim();
  assert.match(v2, /^nbt_[0-9A-Za-z]+\.[0-9A-Za-z]+$/);
  const bearer = await fetch(`${app.url}/v4.6/api/dcim/sites/`, { headers: { Authorization: `Bearer ${v2}`, Accept: 'application/json' } });
  assert.is(bearer.status, 200, 'the v2 token shown authenticates');
  const made = (await app.get('/v4.6/api/users/tokens/?limit=1000')).results.find((t: any) => t.description === `${tag} v2`);
  assert.is(made.version, 2);
});

test('a failed delivery is failed for good, retried from its page until it succeeds', async () => {
  const { page } = browser;
  const hook = await app.post('/api/extras/webhooks/', { name: `${tag} hook`, content_types: ['tenancy.tenant'], type_create: true, payload_url: receiverUrl });
  const tenant = await app.post('/api/tenancy/tenants/', { name: `${tag} tenant`, slug: `${tag}-tenant` });
  const delivery = await until('the failed delivery', async () => (await app.get(`/api/extras/webhook-deliveries/?webhook_id=${hook.id}&state=failed`)).results[0]);
  await page.goto(`${base}/extras/webhook-deliveries/`);
  // The filter form: state, webhook, object type and event.
  await page.locator('#filter-state').selectOption('failed');
  await page.locator('#filter-webhook').selectOption(String(hook.id));
  await page.fill('#filter-type', 'tenancy.tenant');
  await page.locator('#filter-event').selectOption('created');
  await Promise.all([page.waitForURL(/state=failed/), page.click('button:has-text("Filter")')]);
  assert.match(await page.locator('main').innerText(), new RegExp(`${tag} tenant`));
  await expectAccessible(page, 'the delivery list');
  await page.locator('#filter-event').selectOption('deleted');
  await Promise.all([page.waitForURL(/event=deleted/), page.click('button:has-text("Filter")')]);
  assert.match(await page.locator('table[aria-label="Webhook deliveries"]').innerText(), /No deliveries/);
  await page.goto(`${base}/extras/webhook-deliveries/?state=failed`);
  await page.click(`a[href="/extras/webhook-deliveries/${delivery.id}/"]`);
  assert.match(await page.locator('[data-delivery-status]').innerText(), /Failed for good/);
  assert.match(await page.locator('table[aria-label=Attempts]').innerText(), /503\s+\d+\s+HTTP 503\s+down for maintenance/);
  await expectAccessible(page, 'a delivery page');
  // Still down: the retry fails again, with a second attempt.
  await Promise.all([page.waitForURL(/retried=1/), page.click('button:has-text("Retry")')]);
  await until('the second attempt', async () => (await app.get(`/api/extras/webhook-deliveries/${delivery.id}/`)).attempt_count === 2);
  await page.reload();
  assert.is(await page.locator('table[aria-label=Attempts] tbody tr').count(), 2);
  receiverUp = true;
  // The URL already says retried=1, so wait for the form's POST itself, not for the URL.
  await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('button:has-text("Retry")')]);
  await until('success', async () => (await app.get(`/api/extras/webhook-deliveries/${delivery.id}/`)).state.value === 'succeeded');
  await page.goto(`${base}/extras/webhook-deliveries/${delivery.id}/`);
  assert.match(await page.locator('main').innerText(), /Succeeded/);
  assert.match(await page.locator('table[aria-label=Attempts]').innerText(), /200\s+\d+\s+thanks/);
  assert.is(await page.locator('button:has-text("Retry")').count(), 0, 'nothing left to retry');
  assert.is(received.length, 3);
  // The README's screenshot: rewritten only on request (UPDATE_SCREENSHOTS=1), so test runs leave the tree clean.
  const png = await page.screenshot({ fullPage: true });
  assert.ok(png.length > 10_000, 'a rendered page, not a blank one');
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    mkdirSync(join(import.meta.dirname, '../docs/screenshots'), { recursive: true });
    writeFileSync(join(import.meta.dirname, '../docs/screenshots/webhook-delivery.png'), png);
  }
  await app.api('DELETE', `/api/extras/webhooks/${hook.id}/`);
  await app.api('DELETE', `/api/tenancy/tenants/${tenant.id}/`);
});

test('the change log shows what an edit changed, before and after', async () => {
  const { page } = browser;
  const site = await app.post('/api/dcim/sites/', { name: `${tag} site`, slug: `${tag}-site`, description: 'before' });
  await page.goto(`${base}/dcim/sites/${site.id}/edit/`);
  await page.fill('#field-description', 'after');
  await Promise.all([page.waitForURL(/\/dcim\/sites\/\d+\/$/), page.click('button:has-text("Save")')]);
  await Promise.all([page.waitForURL(/\/changelog\/$/), page.click('.nav-tabs a:has-text("Change log")')]);
  assert.match(new URL(page.url()).pathname, /^\/dcim\/sites\/\d+\/changelog\/$/);
  const update = page.locator('tbody tr', { hasText: 'Update' }).first();
  const row = update.locator('table[aria-label=Difference] tr', { hasText: 'description' });
  assert.equal(await row.locator('td').allInnerTexts(), ['before', 'after']);
  await page.goto(`${base}/extras/changelog/`);
  assert.match(await page.locator('main').innerText(), new RegExp(`${tag} site`));
  assert.ok(await page.locator('td.nl-diff-added', { hasText: 'after' }).count() > 0);
});

test('an /api/ URL in a browser is a page with links; API clients and ?format=json get JSON', async () => {
  const { page } = browser;
  const site = (await app.get(`/api/dcim/sites/?slug=${tag}-site`)).results[0];
  const reply = await page.goto(`${base}/api/dcim/sites/?slug=${tag}-site`);
  assert.match(reply!.headers()['content-type'], /^text\/html/);
  assert.match(await page.locator('[data-api-status]').innerText(), /HTTP 200/);
  assert.match(await page.locator('main').innerText(), /Allow: GET, POST/);
  await Promise.all([page.waitForURL(new RegExp(`/api/dcim/sites/${site.id}/$`)), page.click(`a[href="/api/dcim/sites/${site.id}/"]`)]);
  assert.match(await page.locator('[data-api-response]').innerText(), new RegExp(`"name": "${tag} site"`));
  // The form sends a JSON body with the session's CSRF token.
  await page.locator('#api-method').selectOption('PATCH');
  await page.fill('#api-body', '{"description": "patched from the browsable API"}');
  await page.click('button:has-text("Send")');
  await until('the answer', async () => (await page.locator('[data-api-status]').innerText()).includes('HTTP 200') && (await page.locator('[data-api-response]').innerText()).includes('patched from'));
  assert.is((await app.get(`/api/dcim/sites/${site.id}/`)).description, 'patched from the browsable API');
  const json = await page.request.get(`${base}/api/dcim/sites/${site.id}/?format=json`);
  assert.match(json.headers()['content-type'], /^application\/json/);
  assert.is((await json.json()).id, site.id);
  const client = await fetch(`${base}/api/dcim/sites/${site.id}/`, { headers: { Accept: 'application/json', Authorization: `Token ${ADMIN_TOKEN}` } });
  assert.match(client.headers.get('content-type') ?? '', /^application\/json/);
  const api = await fetch(`${base}/api/dcim/sites/?format=api`, { headers: { Accept: 'application/json', Authorization: `Token ${ADMIN_TOKEN}` } });
  assert.match(api.headers.get('content-type') ?? '', /^text\/html/, '?format=api asks for the page');
  const yaml = await page.request.get(`${base}/api/schema/?format=yaml`, { headers: { Accept: 'text/html' } });
  assert.not.match(yaml.headers()['content-type'], /^text\/html/, 'the API\'s own formats stay the API\'s');
  assert.match(await yaml.text(), /^openapi: /m);
  // Anonymous, the page still renders the API's answer (403) and offers to log in.
  const other = await fetch(`${base}/api/dcim/sites/`, { headers: { Accept: 'text/html' } });
  assert.is(other.status, 403);
  const text = await other.text();
  assert.match(text, /Authentication credentials were not provided/);
  assert.match(text, /href="\/login\/\?next=\/api\/dcim\/sites\/"/);
});

test('global search, the journal tab, and a relation select that searches the API as one types', async () => {
  const { page } = browser;
  const site = await app.post('/api/dcim/sites/', { name: `${tag} searchable`, slug: `${tag}-searchable` });
  await page.goto(`${base}/`);
  await page.fill('header input[name=q]', `${tag} searchable`);
  await Promise.all([page.waitForURL(/\/search\/\?q=/), page.press('header input[name=q]', 'Enter')]);
  await page.click(`a:text-is("${tag} searchable")`);
  assert.is(new URL(page.url()).pathname, `/dcim/sites/${site.id}/`);
  await page.click('.nav-tabs a:has-text("Journal")');
  await page.locator('#field-kind').selectOption('warning');
  await page.fill('#field-comments', 'Power work tonight');
  await Promise.all([page.waitForURL(/\/journal\/$/), page.click('button:has-text("Add journal entry")')]);
  assert.match(await page.locator('table[aria-label=Journal]').innerText(), /Warning\s+Power work tonight/);
  // 100 other sites come first, so the new one is found only by searching.
  await app.post('/api/dcim/sites/', Array.from({ length: 100 }, (_, i) => ({ name: `${tag} a${String(i).padStart(3, '0')}`, slug: `${tag}-a${i}` })));
  await page.goto(`${base}/dcim/racks/add/`);
  assert.is(await page.locator(`#field-site option:text-is("${tag} searchable")`).count(), 0);
  await page.fill('#field-site-combobox', 'searchable');
  await page.locator(`[role=listbox] [role=option]:text-is("${tag} searchable")`).click();
  assert.is(await page.locator('#field-site').inputValue(), String(site.id));
  await page.fill('#field-name', `${tag} rack`);
  await Promise.all([page.waitForURL(/\/dcim\/racks\/\d+\/$/), page.click('button:has-text("Save")')]);
  assert.match(await page.locator('main').innerText(), new RegExp(`${tag} searchable`));
});

test('profile, and a password change that ends the session', async () => {
  const { page } = browser;
  const password = `dave-${tag}-password-1`;
  await app.post('/api/users/users/', { username: `dave-${tag}`, password, email: 'dave@example.com' });
  await Promise.all([page.waitForURL(/\/login\//), page.click('button:has-text("Log out")')]);
  await login(page, base, { username: `dave-${tag}`, password }, '/user/profile/');
  assert.match(await page.locator('main').innerText(), /dave@example\.com/);
  await page.goto(`${base}/user/password/`);
  await page.fill('#old-password', 'not my password');
  await page.fill('#new-password', `${password}-new`);
  await page.fill('#confirm-password', `${password}-new`);
  await page.click('button:has-text("Change password")');
  assert.match(await page.locator('main').innerText(), /old password was entered incorrectly/);
  await page.fill('#old-password', password);
  await page.fill('#new-password', `${password}-new`);
  await page.fill('#confirm-password', `${password}-new`);
  await Promise.all([page.waitForURL(/\/login\//), page.click('button:has-text("Change password")')]);
  await login(page, base, { username: `dave-${tag}`, password: `${password}-new` }, '/user/profile/');
  assert.is(new URL(page.url()).pathname, '/user/profile/');
  await Promise.all([page.waitForURL(/\/login\//), page.click('button:has-text("Log out")')]);
  await login(page, base);
});

test.run();
