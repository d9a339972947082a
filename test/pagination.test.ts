/**
 * limit/offset pagination: the default page size, MAX_PAGE_SIZE capping and disabling, next and
 * previous links, walking `next` to the end with a stable order, and ?ordering.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { engine, expectStatus, startApp, watchPgQueries, type Reply, type TestApp } from './helpers.js';
import { createObject } from './factory.js';
import { model } from '../runtime/data/registry.js';
import { backfillNaturalKeys } from '../runtime/data/natural.js';

const SITES = '/api/dcim/sites/';
const STATUSES = ['active', 'planned', 'staging'];

/**
 * Sites from one bulk POST: site-001..site-060 created out of name order (so name order is not id
 * order), with the statuses cycling (many ties).
 */
async function sixtySites(app: TestApp, total = 60): Promise<any[]> {
  const inputs = Array.from({ length: total }, (_, i) => {
    const n = String(((i * 7) % total) + 1).padStart(3, '0');
    return { name: `site-${n}`, slug: `site-${n}`, status: STATUSES[i % STATUSES.length] };
  });
  const reply = await app.api('POST', SITES, inputs);
  expectStatus(reply, 201, 'bulk create');
  assert.is(reply.body.length, total);
  return reply.body;
}

function params(link: string | null): URLSearchParams {
  assert.ok(link, 'a link');
  return new URL(link!).searchParams;
}

/** Path and query of an absolute link on this app. */
function relative(app: TestApp, link: string): string {
  const u = new URL(link);
  assert.is(u.origin, new URL(app.url).origin, 'links are absolute URLs of this service');
  return u.pathname + u.search;
}

async function walk(app: TestApp, first: string): Promise<{ results: any[]; pages: number; counts: number[] }> {
  const results: any[] = [];
  const counts: number[] = [];
  let path: string | null = first;
  let pages = 0;
  while (path) {
    const reply: Reply = await app.api('GET', path);
    expectStatus(reply, 200, path);
    results.push(...reply.body.results);
    counts.push(reply.body.count);
    path = reply.body.next ? relative(app, reply.body.next) : null;
    if (++pages > 100) throw new Error('next never becomes null');
  }
  return { results, pages, counts };
}

// ---------------------------------------------------------------------------------------------
const startingDefault = startApp();
let app: TestApp;
let sites: any[] = [];
const defaults = suite('pagination (default settings)');
defaults.before(async () => {
  app = await startingDefault;
  sites = await sixtySites(app);
});
defaults.after(() => app.stop());

defaults('without limit a page holds 50 (PAGINATE_COUNT); next asks for limit=50&offset=50', async () => {
  const reply = await app.api('GET', SITES);
  expectStatus(reply, 200);
  assert.is(reply.body.count, 60);
  assert.is(reply.body.results.length, 50);
  assert.is(reply.body.previous, null);
  const next = params(reply.body.next);
  assert.is(next.get('limit'), '50');
  assert.is(next.get('offset'), '50');
  assert.is(new URL(reply.body.next).pathname, SITES);
  const second = await app.api('GET', relative(app, reply.body.next));
  assert.is(second.body.results.length, 10);
  assert.is(second.body.next, null);
  assert.is(second.body.count, 60);
});

defaults('limit=0 returns up to MAX_PAGE_SIZE (1000): all 60 here', async () => {
  const reply = await app.api('GET', `${SITES}?limit=0`);
  expectStatus(reply, 200);
  assert.is(reply.body.count, 60);
  assert.is(reply.body.results.length, 60);
  assert.is(reply.body.next, null);
  assert.is(reply.body.previous, null);
});

defaults('previous: offset=50&limit=25 → offset=25; offset=10&limit=25 → no offset at all', async () => {
  const late = await app.api('GET', `${SITES}?offset=50&limit=25`);
  expectStatus(late, 200);
  assert.is(late.body.results.length, 10);
  assert.is(late.body.next, null);
  const prev = params(late.body.previous);
  assert.is(prev.get('offset'), '25');
  assert.is(prev.get('limit'), '25');

  const early = await app.api('GET', `${SITES}?offset=10&limit=25`);
  expectStatus(early, 200);
  const prevEarly = params(early.body.previous);
  assert.is(prevEarly.get('limit'), '25');
  assert.not.ok(prevEarly.has('offset'), `no offset: ${early.body.previous}`);
  assert.is(params(early.body.next).get('offset'), '35');
  const back = await app.api('GET', relative(app, early.body.previous));
  const firstPage = await app.api('GET', `${SITES}?limit=25`);
  assert.equal(back.body.results.map((r: any) => r.id), firstPage.body.results.map((r: any) => r.id), 'previous starts at the first object');
});

defaults('links keep the other query parameters', async () => {
  const reply = await app.api('GET', `${SITES}?status=active&limit=5&offset=5`);
  expectStatus(reply, 200);
  assert.is(reply.body.count, 20);
  for (const link of [reply.body.next, reply.body.previous]) assert.is(params(link).get('status'), 'active');
  for (const r of reply.body.results) assert.is(r.status.value, 'active');
});

defaults('an exact multiple: 60 objects at limit=30 make two pages, the second with next null', async () => {
  const first = await app.api('GET', `${SITES}?limit=30`);
  assert.is(first.body.results.length, 30);
  assert.is(params(first.body.next).get('offset'), '30');
  const second = await app.api('GET', relative(app, first.body.next));
  expectStatus(second, 200);
  assert.is(second.body.results.length, 30);
  assert.is(second.body.next, null);
  assert.ok(second.body.previous);
  const past = await app.api('GET', `${SITES}?limit=30&offset=60`);
  expectStatus(past, 200);
  assert.equal(past.body.results, []);
  assert.is(past.body.count, 60);
});

defaults('walking next visits every object once, in a stable order (ties broken by id)', async () => {
  const all = new Set(sites.map((s) => s.id));
  for (const first of [`${SITES}?limit=7`, `${SITES}?limit=7&ordering=status`, `${SITES}?limit=11&ordering=-status`]) {
    const { results, pages, counts } = await walk(app, first);
    assert.is(pages, Math.ceil(60 / Number(new URLSearchParams(first.split('?')[1]).get('limit'))), `${first}: pages`);
    assert.ok(counts.every((c) => c === 60), `${first}: count stays 60`);
    const ids = results.map((r) => r.id);
    assert.is(ids.length, 60, `${first}: 60 rows`);
    assert.is(new Set(ids).size, 60, `${first}: no object twice`);
    for (const id of ids) assert.ok(all.has(id), `${first}: ${id} is one of ours`);
    // The same query again yields the same order.
    assert.equal((await walk(app, first)).results.map((r) => r.id), ids, `${first}: stable`);
  }
});

defaults('?ordering=status sorts by status, ties by id, across pages', async () => {
  const byStatus = (await walk(app, `${SITES}?limit=7&ordering=status`)).results;
  const expected = [...byStatus].sort((a, b) => (a.status.value < b.status.value ? -1 : a.status.value > b.status.value ? 1 : a.id - b.id));
  assert.equal(byStatus.map((r) => r.id), expected.map((r) => r.id), 'status, then id');
});

defaults('the default order is by name (not by id)', async () => {
  const names = sites.map((s) => s.name).sort();
  assert.not.equal([...sites].sort((a, b) => a.id - b.id).map((s) => s.name), names, 'fixture: id order differs from name order');
  const { results } = await walk(app, `${SITES}?limit=13`);
  assert.equal(results.map((r) => r.name), names);
});

defaults('?ordering=-name sorts descending', async () => {
  const names = sites.map((s) => s.name).sort();
  const desc = await app.api('GET', `${SITES}?ordering=-name&limit=0`);
  expectStatus(desc, 200);
  assert.equal(desc.body.results.map((r: any) => r.name), [...names].reverse());
  const asc = await app.api('GET', `${SITES}?limit=0`);
  assert.equal(asc.body.results.map((r: any) => r.name), names);
  const page = await app.api('GET', `${SITES}?ordering=-name&limit=5&offset=5`);
  assert.equal(page.body.results.map((r: any) => r.name), [...names].reverse().slice(5, 10));
  assert.is(params(page.body.next).get('ordering'), '-name');
});

defaults('an unknown ordering field is ignored (200, default order)', async () => {
  const names = sites.map((s) => s.name).sort();
  const reply = await app.api('GET', `${SITES}?ordering=no_such_field&limit=0`);
  expectStatus(reply, 200);
  assert.is(reply.body.count, 60);
  assert.equal(reply.body.results.map((r: any) => r.name), names);
  const mixed = await app.api('GET', `${SITES}?ordering=no_such_field,-name&limit=0`);
  expectStatus(mixed, 200);
  assert.equal(mixed.body.results.map((r: any) => r.name), [...names].reverse(), 'known names still apply');
});

defaults('a question that filled its page, then did not, then did, counts right each time', async () => {
  // The same shape of question (?status=&limit=5) answered full (20 matches), short (none), full again:
  // on PostgreSQL the count starts with the page once the shape filled it, and is dropped when short.
  for (const [status, count] of [['active', 20], ['active', 20], ['decommissioning', 0], ['planned', 20], ['decommissioning', 0]] as const) {
    const reply = await app.api('GET', `${SITES}?status=${status}&limit=5`);
    expectStatus(reply, 200);
    assert.is(reply.body.count, count, `${status}: count`);
    assert.is(reply.body.results.length, Math.min(count, 5));
    assert.is(!!reply.body.next, count > 5);
  }
  const later = await app.api('GET', `${SITES}?status=staging&limit=5&offset=15`);
  expectStatus(later, 200);
  assert.is(later.body.count, 20);
  assert.is(later.body.next, null);
  assert.is(later.body.results.length, 5);
});

defaults('PostgreSQL: a count the page will need is sent before the page is back; a short page sends none', async () => {
  if (engine !== 'postgres') return;
  const countSent = (events: string[]) => events.findIndex((e) => /^send select count\(\*\)/i.test(e));
  const firstDone = (events: string[]) => events.findIndex((e) => e.startsWith('done '));
  // A later page always needs its count: it goes out with the page.
  const later = await watchPgQueries(() => app.api('GET', `${SITES}?status=active&limit=5&offset=5`));
  assert.is(later.result.body.count, 20);
  assert.ok(countSent(later.events) >= 0 && countSent(later.events) < firstDone(later.events), later.events.join('\n'));
  // A first page whose question filled it last time: the same.
  await app.api('GET', `${SITES}?status=planned&limit=5`);
  const first = await watchPgQueries(() => app.api('GET', `${SITES}?status=planned&limit=5`));
  assert.is(first.result.body.count, 20);
  assert.ok(countSent(first.events) >= 0 && countSent(first.events) < firstDone(first.events), first.events.join('\n'));
  // A question whose page came back short: no count at all (the page tells it).
  await app.api('GET', `${SITES}?name=site-001&limit=5`);
  const short = await watchPgQueries(() => app.api('GET', `${SITES}?name=site-002&limit=5`));
  assert.is(short.result.body.count, 1);
  assert.is(countSent(short.events), -1, short.events.join('\n'));
});

defaults.run();

// ---------------------------------------------------------------------------------------------
const capped = suite('pagination (MAX_PAGE_SIZE=20)');
let small: TestApp;
capped.before(async () => {
  small = await startApp({ MAX_PAGE_SIZE: '20' });
  await sixtySites(small, 30);
});
capped.after(() => small.stop());

capped('a limit above MAX_PAGE_SIZE is capped: limit=100 → 20', async () => {
  const reply = await small.api('GET', `${SITES}?limit=100`);
  expectStatus(reply, 200);
  assert.is(reply.body.count, 30);
  assert.is(reply.body.results.length, 20);
  const next = params(reply.body.next);
  assert.is(next.get('limit'), '20');
  assert.is(next.get('offset'), '20');
});

capped('limit=0 means MAX_PAGE_SIZE: 20 rows', async () => {
  const reply = await small.api('GET', `${SITES}?limit=0`);
  expectStatus(reply, 200);
  assert.is(reply.body.count, 30);
  assert.is(reply.body.results.length, 20);
  assert.ok(reply.body.next, 'there is a next page');
  const second = await small.api('GET', relative(small, reply.body.next));
  assert.is(second.body.results.length, 10);
  assert.is(second.body.next, null);
});

capped('a limit below the maximum is kept', async () => {
  const reply = await small.api('GET', `${SITES}?limit=7`);
  assert.is(reply.body.results.length, 7);
  assert.is(params(reply.body.next).get('limit'), '7');
});

capped.run();

// ---------------------------------------------------------------------------------------------
for (const setting of ['0', 'none']) {
  const unlimited = suite(`pagination (MAX_PAGE_SIZE=${setting})`);
  let big: TestApp;
  unlimited.before(async () => {
    big = await startApp({ MAX_PAGE_SIZE: setting });
    await sixtySites(big);
  });
  unlimited.after(() => big.stop());

  unlimited('limit=0 returns every object; next and previous are null', async () => {
    const reply = await big.api('GET', `${SITES}?limit=0`);
    expectStatus(reply, 200);
    assert.is(reply.body.count, 60);
    assert.is(reply.body.results.length, 60);
    assert.is(reply.body.next, null);
    assert.is(reply.body.previous, null);
    assert.is(new Set(reply.body.results.map((r: any) => r.id)).size, 60);
  });

  unlimited('a large limit is not capped; no limit still pages by 50', async () => {
    const reply = await big.api('GET', `${SITES}?limit=5000`);
    assert.is(reply.body.results.length, 60);
    const plain = await big.api('GET', SITES);
    assert.is(plain.body.results.length, 50);
    assert.is(params(plain.body.next).get('offset'), '50');
  });

  unlimited.run();
}

// ---------------------------------------------------------------------------------------------
// Natural order: digit runs compare as numbers, as NetBox sorts names.

const natural = suite('natural order');
let naturalApp: TestApp;
natural.before(async () => { naturalApp = await startApp({ RUN_WORKER: '0' }); });
natural.after(() => naturalApp.stop());

natural('sites and interfaces sort dc2 before dc10 and eth1/2 before eth1/10, on both engines', async () => {
  await naturalApp.post('/api/dcim/sites/', ['dc10', 'DC2', 'dc1', 'dc-a', 'dc02b'].map((n) => ({ name: n, slug: n.toLowerCase() })));
  const sites = await naturalApp.get('/api/dcim/sites/?limit=100');
  assert.equal(sites.results.map((s: any) => s.name), ['dc-a', 'dc1', 'DC2', 'dc02b', 'dc10']);
  const reverse = await naturalApp.get('/api/dcim/sites/?limit=100&ordering=-name');
  assert.equal(reverse.results.map((s: any) => s.name), ['dc10', 'dc02b', 'DC2', 'dc1', 'dc-a']);
  const device = await createObject(naturalApp, model('Device'));
  await naturalApp.post('/api/dcim/interfaces/', ['eth1/10', 'eth1/2', 'eth10', 'eth2', 'eth1/1'].map((name) => ({ device: device.id, name, type: 'virtual' })));
  const ifaces = await naturalApp.get(`/api/dcim/interfaces/?device_id=${device.id}&limit=100`);
  assert.equal(ifaces.results.map((i: any) => i.name), ['eth1/1', 'eth1/2', 'eth1/10', 'eth2', 'eth10']);
  const renamed = await naturalApp.patch(`/api/dcim/interfaces/${ifaces.results[4].id}/`, { name: 'eth0' });
  assert.is(renamed.name, 'eth0');
  assert.is((await naturalApp.get(`/api/dcim/interfaces/?device_id=${device.id}&limit=100`)).results[0].name, 'eth0', 'a rename re-sorts');
});

natural('rows written before a field became natural get their sort keys at start-up', async () => {
  await naturalApp.running.db('dcim_site').update({ _name_natural: null });
  await backfillNaturalKeys(naturalApp.running.db);
  const sites = await naturalApp.get('/api/dcim/sites/?limit=100&name__isw=dc');
  assert.equal(sites.results.map((s: any) => s.name), ['dc-a', 'dc1', 'DC2', 'dc02b', 'dc10']);
  assert.is(Number((await naturalApp.running.db('dcim_site').whereNull('_name_natural').count('* as n').first())?.n), 0);
});

natural.run();
