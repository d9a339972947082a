/**
 * Concurrent writes: racing requests may both pass validation, but the database's constraints
 * decide, and the loser gets a 4xx JSON error, never a 500 and never a duplicate.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp, type TestApp } from './helpers.js';

const test = suite('concurrent writes');
let app: TestApp;

test.before(async () => { app = await startApp({ RUN_WORKER: '0' }); });
test.after(() => app.stop());

test('ten concurrent creates of one unique slug: one 201, nine 400, one object', async () => {
  const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => app.api('POST', '/api/dcim/sites/', { name: `race-${i}`, slug: 'race' })));
  const statuses = replies.map((r) => r.status).sort();
  assert.equal(statuses, [201, 400, 400, 400, 400, 400, 400, 400, 400, 400], replies.map((r) => r.text.slice(0, 120)).join('\n'));
  for (const r of replies.filter((x) => x.status === 400)) assert.type(r.body, 'object');
  assert.is((await app.get('/api/dcim/sites/?slug=race')).count, 1);
});

test('concurrent bulk updates of the same objects all finish, with one of them last', async () => {
  const sites = await app.post('/api/dcim/sites/', Array.from({ length: 20 }, (_, i) => ({ name: `cc-${i}`, slug: `cc-${i}` })));
  const replies = await Promise.all(Array.from({ length: 6 }, (_, k) => app.api('PATCH', '/api/dcim/sites/', sites.map((s: any) => ({ id: s.id, description: `round ${k}` })))));
  for (const r of replies) assert.is(r.status, 200, r.text.slice(0, 200));
  const now = await app.get('/api/dcim/sites/?name__isw=cc-&limit=100');
  assert.is(new Set(now.results.map((s: any) => s.description)).size, 1, 'every object shows the same (last) round');
});

test.run();
