/**
 * The operators' endpoints, through HTTP: /healthz (alive), /readyz (database reachable and every
 * migration applied, else 503), /metrics (Prometheus text; without a token only from METRICS_ALLOWED),
 * and the settings that govern them.
 */
import { suite } from 'uvu';
import knex from 'knex';
import * as assert from 'uvu/assert';
import { ADMIN_TOKEN, engine, startApp, type TestApp } from './helpers.js';
import { ConfigError, loadConfig } from '../runtime/core/config.js';

const test = suite(`operations: health, readiness, metrics (${engine})`);

async function get(app: TestApp, path: string, headers: Record<string, string> = {}) {
  const res = await fetch(app.url + path, { headers, redirect: 'manual' });
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') ?? '' };
}

test('/healthz and /readyz answer without a token, and a bad token does not matter', async () => {
  const app = await startApp();
  try {
    for (const path of ['/healthz', '/readyz']) {
      const reply = await get(app, path, { Authorization: 'Token 0000000000000000000000000000000000000000' });
      assert.is(reply.status, 200, reply.text);
      assert.is(JSON.parse(reply.text).status, 'ok');
    }
    assert.equal(JSON.parse((await get(app, '/readyz')).text), { status: 'ok', database: 'ok', migrations: 'ok' });
  } finally {
    await app.stop();
  }
});

test('/readyz is 503 while a migration is pending, and again 200 once it is applied', async () => {
  const app = await startApp();
  try {
    const { db } = app.running;
    const [last] = await db('knex_migrations').orderBy('id', 'desc').limit(1);
    await db('knex_migrations').where('id', last.id).delete();
    const pending = await get(app, '/readyz');
    assert.is(pending.status, 503);
    const body = JSON.parse(pending.text);
    assert.is(body.status, 'unavailable');
    assert.is(body.database, 'ok');
    assert.match(body.migrations, new RegExp(`1 pending.*npm run migrate.*${last.name}`));
    assert.is((await get(app, '/healthz')).status, 200, 'still alive');
    await db('knex_migrations').insert({ name: last.name, batch: last.batch, migration_time: last.migration_time });
    assert.is((await get(app, '/readyz')).status, 200);
  } finally {
    await app.stop();
  }
});

test('/readyz is 503 when the database does not answer', async () => {
  const app = await startApp({ RUN_WORKER: '0' });
  const { db } = app.running;
  await db.destroy();
  try {
    const reply = await get(app, '/readyz');
    assert.is(reply.status, 503, reply.text);
    assert.match(JSON.parse(reply.text).database, /^unreachable: /);
    assert.is((await get(app, '/healthz')).status, 200);
  } finally {
    // Everything the start opened (the statistics round's timer too, which would otherwise try the
    // destroyed pool every minute), then the schema, through a connection of its own.
    await app.running.close();
    const { databaseUrl, databaseSchema } = app.running.config;
    if (engine === 'postgres') {
      const other = knex({ client: 'pg', connection: databaseUrl!, pool: { min: 0, max: 1 } });
      await other.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [databaseSchema]);
      await other.destroy();
    }
  }
});

/** A series' value in a scrape (0 when absent); counters live as long as the test process, so tests compare. */
function value(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

test('/metrics: Prometheus text from loopback; requests by route template, queue and pool series', async () => {
  const app = await startApp();
  try {
    const before = (await get(app, '/metrics')).text;
    const SITE = 'netledger_http_requests_total{method="GET",route="/api/dcim/sites/{id}/",status="200"}';
    const CREATE = 'netledger_http_requests_total{method="POST",route="/api/dcim/sites/",status="201"}';
    const LIST = 'netledger_http_request_duration_seconds_count{method="GET",route="/api/dcim/sites/",status="200"}';
    await app.get('/api/dcim/sites/');
    const site = await app.post('/api/dcim/sites/', { name: 'metrics-site', slug: 'metrics-site' });
    await app.get(`/api/dcim/sites/${site.id}/`);
    const reply = await get(app, '/metrics');
    assert.is(reply.status, 200, reply.text);
    assert.match(reply.type, /^text\/plain/);
    assert.is(value(reply.text, SITE) - value(before, SITE), 1, 'the route template, not the id');
    assert.is(value(reply.text, CREATE) - value(before, CREATE), 1);
    assert.is(value(reply.text, LIST) - value(before, LIST), 1);
    assert.not.match(reply.text, new RegExp(`/api/dcim/sites/${site.id}/`));
    assert.match(reply.text, /^netledger_webhook_deliveries\{state="queued"\} 0$/m);
    assert.match(reply.text, /^netledger_webhook_queue_depth 0$/m);
    assert.match(reply.text, /^netledger_webhook_queue_oldest_age_seconds 0$/m);
    assert.match(reply.text, /^netledger_db_pool_connections\{pool="api",state="max"\} \d+$/m);
    assert.match(reply.text, /^netledger_process_resident_memory_bytes \d+/m);
  } finally {
    await app.stop();
  }
});

test('/metrics from an address outside METRICS_ALLOWED: 403 without a token, 200 with one', async () => {
  const app = await startApp({ METRICS_ALLOWED: '192.0.2.0/24' });
  try {
    const anonymous = await get(app, '/metrics');
    assert.is(anonymous.status, 403);
    assert.match(JSON.parse(anonymous.text).detail, /METRICS_ALLOWED/);
    assert.is((await get(app, '/metrics', { Authorization: 'Token 0000000000000000000000000000000000000000' })).status, 403, 'a wrong token');
    const withToken = await get(app, '/metrics', { Authorization: `Token ${ADMIN_TOKEN}` });
    assert.is(withToken.status, 200);
    assert.match(withToken.text, /netledger_http_requests_total/);
  } finally {
    await app.stop();
  }
});

test('settings: LOG_FORMAT, METRICS_ALLOWED and WEB_CONCURRENCY are checked and name themselves', () => {
  const base = { DATA_DIR: '/tmp/netledger-config-test', SECRET_KEY: 'x'.repeat(40) };
  assert.throws(() => loadConfig({ ...base, LOG_FORMAT: 'xml' }), (e: Error) => e instanceof ConfigError && /^LOG_FORMAT/.test(e.message));
  assert.throws(() => loadConfig({ ...base, METRICS_ALLOWED: '10.0.0.0/8,nonsense' }), (e: Error) => e instanceof ConfigError && /^METRICS_ALLOWED: 'nonsense'/.test(e.message));
  assert.throws(() => loadConfig({ ...base, WEB_CONCURRENCY: '0' }), (e: Error) => e instanceof ConfigError && /^WEB_CONCURRENCY/.test(e.message));
  const config = loadConfig({ ...base, LOG_FORMAT: 'JSON', WEB_CONCURRENCY: '3' });
  assert.is(config.logFormat, 'json');
  assert.is(config.webConcurrency, 3);
  assert.equal(config.metricsAllowed, ['127.0.0.0/8', '::1']);
});

test.run();
