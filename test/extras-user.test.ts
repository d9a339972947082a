/**
 * NetBox 3.7's per-user extras through HTTP: a choice set's /choices/ page, the dashboard
 * (`/api/extras/dashboard/`), bookmarks (user default, uniqueness per object and user, filters,
 * cascade with their object) and users/config in the API document.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { expectStatus, startApp, type TestApp } from './helpers.js';

let starting: Promise<TestApp> | undefined;
let app: TestApp;
const boot = async () => { app = await (starting ??= startApp()); };
const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

/** A user without permissions and a write-enabled token of theirs. */
async function account(): Promise<{ id: number; key: string }> {
  const user = await app.post('/api/users/users/', { username: unique('u').replace(/-/g, '_'), password: 'Passphrase-for-tests-1' });
  const token = await app.post('/api/users/tokens/', { user: user.id });
  return { id: user.id, key: token.key };
}

const choices = suite('custom field choice sets: /choices/');
choices.before(boot);

choices('pages the choices as {id, display}, q narrowing by value or label, alphabetical when asked', async () => {
  const set = await app.post('/api/extras/custom-field-choice-sets/', { name: unique('set'), extra_choices: [['gold', 'Gold'], ['silver', 'Silver'], ['bronze', 'Bronze']] });
  const all = await app.get(`/api/extras/custom-field-choice-sets/${set.id}/choices/`);
  assert.equal(all.count, 3);
  assert.equal(all.results, [{ id: 'gold', display: 'Gold' }, { id: 'silver', display: 'Silver' }, { id: 'bronze', display: 'Bronze' }]);
  const q = await app.get(`/api/extras/custom-field-choice-sets/${set.id}/choices/?q=SIL`);
  assert.equal(q.results, [{ id: 'silver', display: 'Silver' }]);
  const page = await app.get(`/api/extras/custom-field-choice-sets/${set.id}/choices/?limit=1&offset=1`);
  assert.equal(page.results, [{ id: 'silver', display: 'Silver' }]);
  assert.match(page.next, /offset=2/);
  await app.patch(`/api/extras/custom-field-choice-sets/${set.id}/`, { order_alphabetically: true });
  const sorted = await app.get(`/api/extras/custom-field-choice-sets/${set.id}/choices/`);
  assert.equal(sorted.results.map((c: any) => c.id), ['bronze', 'gold', 'silver']);
  expectStatus(await app.api('GET', '/api/extras/custom-field-choice-sets/999999/choices/'), 404);
});

const dashboard = suite('/api/extras/dashboard/');
dashboard.before(boot);

dashboard('each user reads and writes their own; PATCH keeps the other field; DELETE empties it', async () => {
  const erin = await account();
  const empty = await app.api('GET', '/api/extras/dashboard/', undefined, { token: erin.key });
  expectStatus(empty, 200);
  assert.equal(empty.body, { layout: [], config: {} });
  const layout = [{ id: 'w1', x: 0, y: 0, w: 4, h: 3 }];
  const put = await app.api('PUT', '/api/extras/dashboard/', { layout, config: { w1: { class: 'extras.NoteWidget', config: { content: 'hi' } } } }, { token: erin.key });
  expectStatus(put, 200);
  const patch = await app.api('PATCH', '/api/extras/dashboard/', { layout: [] }, { token: erin.key });
  expectStatus(patch, 200);
  assert.equal(patch.body.layout, []);
  assert.equal(patch.body.config.w1.config.content, 'hi');
  // the admin's dashboard is another one
  assert.equal(await app.get('/api/extras/dashboard/'), { layout: [], config: {} });
  const bad = await app.api('PATCH', '/api/extras/dashboard/', { layout: 'nope' }, { token: erin.key });
  expectStatus(bad, 400);
  assert.ok(bad.body.layout);
  expectStatus(await app.api('PUT', '/api/extras/dashboard/', { layout: [] }, { token: erin.key }), 400);
  expectStatus(await app.api('DELETE', '/api/extras/dashboard/', undefined, { token: erin.key }), 204);
  assert.equal((await app.api('GET', '/api/extras/dashboard/', undefined, { token: erin.key })).body, { layout: [], config: {} });
  expectStatus(await app.api('GET', '/api/extras/dashboard/', undefined, { token: null }), 403);
  assert.ok((await app.get('/api/extras/')).dashboard);
});

const bookmarks = suite('bookmarks');
bookmarks.before(boot);

bookmarks('user defaults to the requester; one per object and user; filters; removed with the object', async () => {
  const site = await app.post('/api/dcim/sites/', { name: unique('site'), slug: unique('site') });
  const mark = await app.post('/api/extras/bookmarks/', { object_type: 'dcim.site', object_id: site.id });
  assert.equal(mark.object_type, 'dcim.site');
  assert.equal(mark.object.id, site.id);
  assert.equal(mark.display, site.name);
  assert.ok(mark.user?.id);
  assert.ok(mark.created);
  const again = await app.api('POST', '/api/extras/bookmarks/', { object_type: 'dcim.site', object_id: site.id });
  expectStatus(again, 400);
  const brief = await app.get(`/api/extras/bookmarks/${mark.id}/?brief=1`);
  assert.equal(Object.keys(brief).sort(), ['display', 'id', 'object_id', 'object_type', 'url']);
  assert.equal((await app.get(`/api/extras/bookmarks/?object_type=dcim.site&object_id=${site.id}`)).count, 1);
  assert.equal((await app.get(`/api/extras/bookmarks/?user_id=${mark.user.id}&object_id=${site.id}`)).count, 1);
  const ct = (await app.get('/api/extras/content-types/?app_label=dcim&model=site')).results[0];
  assert.equal((await app.get(`/api/extras/bookmarks/?object_type_id=${ct.id}&object_id=${site.id}`)).count, 1);
  assert.equal((await app.get(`/api/extras/bookmarks/?object_type_id=${ct.id + 100000}&object_id=${site.id}`)).count, 0);
  expectStatus(await app.api('DELETE', `/api/dcim/sites/${site.id}/`), 204);
  expectStatus(await app.api('GET', `/api/extras/bookmarks/${mark.id}/`), 404);
});

const documented = suite('users/config and the dashboard in the API document');
documented.before(boot);
documented.after(async () => { await app.stop(); });

documented('both paths are described', async () => {
  const schema = await app.get('/api/schema/');
  assert.ok(schema.paths['/api/users/config/'].get);
  assert.ok(schema.paths['/api/extras/dashboard/'].patch);
  assert.ok(schema.paths['/api/extras/custom-field-choice-sets/{id}/choices/'].get);
});

choices.run();
dashboard.run();
bookmarks.run();
documented.run();
