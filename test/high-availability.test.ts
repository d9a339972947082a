/**
 * What several nodes and a failing-over database need from one node, through HTTP: writes sent with
 * an `Idempotency-Key` answered once and replayed after (by any node on the same database), and, on
 * PostgreSQL, a database that goes away (a TCP relay in front of it, closed) answered 503 with
 * Retry-After and a 503 /readyz, never a 500 or a hang; transactions run again only when their
 * connection died before COMMIT was sent.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { ADMIN_TOKEN, engine, startApp, type TestApp } from './helpers.js';
import { loadConfig } from '../runtime/core/config.js';
import { isConnectionLost } from '../runtime/core/errors.js';
import { openDatabase } from '../runtime/data/db.js';
import { inTransaction } from '../runtime/data/transactions.js';

const test = suite(`high availability: idempotency keys, database loss (${engine})`);
const SITES = '/api/dcim/sites/';
let seq = 0;
const newSite = () => { const slug = `ha-site-${process.pid}-${++seq}`; return { name: slug, slug }; };
const keyed = (key: string) => ({ headers: { 'Idempotency-Key': key } });
const target = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');

/** A TCP relay to the tests' PostgreSQL: `down()` closes it and cuts every connection, `up()` opens it again on the same port. */
async function relay(to: URL): Promise<{ port: number; up(): Promise<void>; down(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const up = () => new Promise<void>((resolve, reject) => {
    if (server) return resolve();
    server = createServer((client) => {
      const upstream = connect(Number(to.port || 5432), to.hostname);
      for (const s of [client, upstream]) { sockets.add(s); s.on('close', () => sockets.delete(s)); s.on('error', () => {}); }
      client.pipe(upstream).pipe(client);
    });
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => { port = (server!.address() as { port: number }).port; resolve(); });
  });
  const down = () => new Promise<void>((resolve) => {
    for (const s of sockets) s.destroy();
    if (!server) return resolve();
    server.close(() => resolve());
    server = null;
  });
  await up();
  return { get port() { return port; }, up, down };
}

// One service for the whole file (a fresh database takes a while to prepare); on PostgreSQL it
// reaches the database through the relay, which the outage test closes.
const proxy = engine === 'postgres' ? await relay(target) : null;
const through = new URL(target);
if (proxy) through.port = String(proxy.port);
const app = await startApp({ RUN_WORKER: '0', STATISTICS_INTERVAL: '3600', ...(proxy ? { DATABASE_URL: through.toString() } : {}) });

test('a POST sent again with its Idempotency-Key gets the first answer and creates nothing', async () => {
  {
    const site = newSite();
    const first = await app.api('POST', SITES, site, keyed('create-1'));
    assert.is(first.status, 201, first.text);
    assert.is(first.headers.get('idempotent-replayed'), null);
    const again = await app.api('POST', SITES, site, keyed('create-1'));
    assert.is(again.status, 201, again.text);
    assert.is(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.body, first.body);
    assert.is(again.headers.get('location'), first.headers.get('location'));
    assert.is((await app.get(`${SITES}?slug=${site.slug}`)).count, 1);
    // Without a key the same body is a new request (and a duplicate).
    assert.is((await app.api('POST', SITES, site)).status, 400);
    // The same key with another body is refused, naming the header; another key runs.
    const other = await app.api('POST', SITES, newSite(), keyed('create-1'));
    assert.is(other.status, 400, other.text);
    assert.ok(other.body['Idempotency-Key'], other.text);
    assert.is((await app.api('POST', SITES, newSite(), keyed('create-2'))).status, 201);
  }
});

test('PATCH and DELETE with a key replay their answers; a refused write is not remembered', async () => {
  {
    const site = await app.post(SITES, newSite());
    const patched = await app.api('PATCH', `${SITES}${site.id}/`, { description: 'one' }, keyed('patch-1'));
    assert.is(patched.status, 200, patched.text);
    await app.patch(`${SITES}${site.id}/`, { description: 'two' });
    const replay = await app.api('PATCH', `${SITES}${site.id}/`, { description: 'one' }, keyed('patch-1'));
    assert.is(replay.status, 200);
    assert.is(replay.body.description, 'one');
    assert.is((await app.get(`${SITES}${site.id}/`)).description, 'two', 'the replay wrote nothing');

    const gone = await app.api('DELETE', `${SITES}${site.id}/`, undefined, keyed('delete-1'));
    assert.is(gone.status, 204);
    const goneAgain = await app.api('DELETE', `${SITES}${site.id}/`, undefined, keyed('delete-1'));
    assert.is(goneAgain.status, 204, 'the retry of a committed delete is its 204, not a 404');
    assert.is(goneAgain.headers.get('idempotent-replayed'), 'true');

    const refused = await app.api('POST', SITES, { name: 'no slug' }, keyed('fix-me'));
    assert.is(refused.status, 400);
    const fixed = await app.api('POST', SITES, { name: 'no slug' }, keyed('fix-me'));
    assert.is(fixed.status, 400, 'ran again, not replayed');
    assert.is(fixed.headers.get('idempotent-replayed'), null);

    const bad = await app.api('POST', SITES, newSite(), keyed('a key with spaces'));
    assert.is(bad.status, 400);
    assert.ok(bad.body['Idempotency-Key'], bad.text);
  }
});

test('keys live in the database: another node replays them, and concurrent retries make one object', async () => {
  const { config } = app.running;
  const peer = await startApp({ RUN_WORKER: '0', DATA_DIR: config.dataDir, ...(config.databaseSchema ? { DATABASE_SCHEMA: config.databaseSchema } : {}) });
  try {
    const site = newSite();
    const first = await app.api('POST', SITES, site, keyed('shared-1'));
    assert.is(first.status, 201);
    const elsewhere = await peer.api('POST', SITES, site, keyed('shared-1'));
    assert.is(elsewhere.status, 201);
    assert.is(elsewhere.headers.get('idempotent-replayed'), 'true');
    assert.is(elsewhere.body.id, first.body.id);

    const racing = newSite();
    const replies = await Promise.all([app, peer, app, peer].map((node) => node.api('POST', SITES, racing, keyed('race-1'))));
    for (const reply of replies) assert.is(reply.status, 201, reply.text);
    assert.is(new Set(replies.map((r) => r.body.id)).size, 1);
    assert.is((await app.get(`${SITES}?slug=${racing.slug}`)).count, 1);
  } finally {
    await peer.stop();
  }
});

async function raw(app: TestApp, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(app.url + path, {
    method,
    headers: { Authorization: `Token ${ADMIN_TOKEN}`, Accept: 'application/json', ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  return { status: res.status, text, retryAfter: res.headers.get('retry-after') };
}

if (proxy) {

  test('the database gone: 503 with Retry-After for reads and writes, /readyz 503; back: 200, and a keyed write runs', async () => {
    try {
      assert.is((await raw(app, 'GET', '/readyz')).status, 200);
      const site = newSite();
      await proxy.down();
      for (const [method, path, body] of [['GET', SITES], ['GET', '/api/dcim/devices/1/'], ['POST', SITES, site]] as const) {
        const reply = await raw(app, method, path, body, { 'Idempotency-Key': 'during-outage' });
        assert.is(reply.status, 503, `${method} ${path}: ${reply.text}`);
        assert.ok(Number(reply.retryAfter) > 0, `${method} ${path} Retry-After`);
        assert.match(JSON.parse(reply.text).detail, /database is unavailable/);
      }
      const ready = await raw(app, 'GET', '/readyz');
      assert.is(ready.status, 503);
      assert.match(JSON.parse(ready.text).database, /^unreachable: /);
      assert.is((await raw(app, 'GET', '/healthz')).status, 200, 'alive, not ready');

      await proxy.up();
      assert.is((await raw(app, 'GET', '/readyz')).status, 200);
      const created = await raw(app, 'POST', SITES, site, { 'Idempotency-Key': 'during-outage' });
      assert.is(created.status, 201, created.text);
      assert.is((await raw(app, 'GET', `${SITES}?slug=${site.slug}`)).status, 200);
    } finally {
      await proxy.up();
    }
  });

  test('a transaction whose connection died before COMMIT runs again; one that reached COMMIT does not', async () => {
    const db = openDatabase(loadConfig({ DATABASE_URL: target.toString(), DATA_DIR: '/tmp', SECRET_KEY: 'x'.repeat(40) }));
    try {
      let attempts = 0;
      const answer = await inTransaction(db, async (trx) => {
        attempts++;
        // The server ends this very connection mid-transaction (as a primary that dies does).
        if (attempts === 1) await trx.raw('select pg_terminate_backend(pg_backend_pid())');
        return (await trx.raw('select 42 as answer')).rows[0].answer;
      });
      assert.is(attempts, 2);
      assert.is(answer, 42);

      attempts = 0;
      let failure: unknown = null;
      try {
        await inTransaction(db, async (trx) => {
          attempts++;
          const pid = (await trx.raw('select pg_backend_pid() as pid')).rows[0].pid;
          // Killed from elsewhere once the work is done: COMMIT goes to a dead connection, outcome unknown.
          await db.raw('select pg_terminate_backend(?, 5000)', [pid]);
        });
      } catch (error) {
        failure = error;
      }
      assert.is(attempts, 1, 'not run again');
      assert.ok(failure && isConnectionLost(failure), String(failure));
    } finally {
      await db.destroy();
    }
  });
}

test.after(async () => {
  await app.stop();
  await proxy?.down();
});

test.run();
