/**
 * Every model's pages, from the registry (so models other branches add are covered too): the list,
 * the CSV export, an object's page, its edit form and its delete confirmation, the add form, the
 * filter form, and the browsable API of its list, each answering 200 to a logged-in superuser.
 * Plain HTTP with the session cookie; the browser tests cover behaviour.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { modelList } from '../runtime/data/registry.js';
import { listPath, startApp, type TestApp } from './helpers.js';
import { createObject, seedRow } from './factory.js';

const test = suite('web interface: every model');
let app: TestApp;
let cookie = '';

test.before(async () => {
  app = await startApp({ RUN_WORKER: '0' });
  const login = await fetch(`${app.url}/login/`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'admin-password-for-tests' }) });
  assert.is(login.status, 200);
  cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
});

test.after(() => app?.stop());

async function page(path: string): Promise<{ status: number; text: string; type: string }> {
  const res = await fetch(`${app.url}${path}`, { headers: { Cookie: cookie, Accept: 'text/html' }, redirect: 'manual' });
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') ?? '' };
}

test('an unknown page is a 404 page, not bare text', async () => {
  const reply = await page('/no/such-page/');
  assert.is(reply.status, 404);
  assert.match(reply.type, /^text\/html/);
  assert.match(reply.text, /<h1[^>]*>Not found<\/h1>/);
});

for (const entry of modelList) {
  const d = entry.definition;
  const list = `/${d.app}/${d.endpoint}/`;
  test(`${d.name}: list, export, object, edit, delete, add, filter form and browsable API pages`, async () => {
    let id: number;
    try {
      id = d.readOnly ? await seedRow(app, entry) : (await createObject(app, entry)).id;
    } catch {
      // A model the factory cannot build alone (an event rule needs its action object): pages without an object.
      id = 0;
    }
    // the browsable API under the version that serves the model (a 4.x-only one under /v4.6)
    const paths = [list, listPath(entry)];
    // The generic list (not a page of its own, as webhook deliveries have) offers export and the filter form.
    if ((await page(list)).text.includes(`${list}filter-form/`)) paths.push(`${list}?export=csv`, `${list}filter-form/`);
    if (id) paths.push(`${list}${id}/`);
    if (id && !d.readOnly) paths.push(`${list}${id}/edit/`, `${list}${id}/delete/`);
    if (!d.readOnly) paths.push(`${list}add/`, `${list}import/`);
    for (const path of paths) {
      const reply = await page(path);
      assert.is(reply.status, 200, `${path}: ${reply.text.slice(0, 300)}`);
      if (!path.includes('export')) assert.match(reply.type, /^text\/html/, path);
    }
    if (id) {
      const detail = await page(`${list}${id}/`);
      assert.ok(!detail.text.includes('[object Object]'), `${list}${id}/ renders every value`);
    }
  });
}

test.run();
