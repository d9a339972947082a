/**
 * The service as a process (tsx, one process): one log line per request, JSON when stdout is not a
 * terminal and text with LOG_FORMAT=text; no secret in any line; a clean exit on SIGTERM.
 * The compiled production mode and the cluster are in production.test.ts.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_TOKEN, engine, testSchemaName } from './helpers.js';

const test = suite('npm start (logs)');
const PASSWORD = 'correct-horse-battery-staple-42';

async function withService(extra: NodeJS.ProcessEnv, fn: (port: string, output: () => string) => Promise<void>): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'netledger-service-'));
  const schema = testSchemaName('svc');
  const port = String(20000 + Math.floor(Math.random() * 20000));
  const env: NodeJS.ProcessEnv = {
    ...process.env, DATA_DIR: dataDir, PORT: port, LOG_REQUESTS: '1', RUN_WORKER: '0', WEB_CONCURRENCY: '1', ADMIN_TOKEN, ADMIN_PASSWORD: PASSWORD, LOG_FORMAT: '',
    ...(engine === 'postgres' ? { DATABASE_URL: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test', DATABASE_SCHEMA: schema } : { DATABASE_URL: '' }),
    ...extra,
  };
  const child = spawn('node_modules/.bin/node', ['--import', 'tsx', 'runtime/cli.ts', 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    for (let i = 0; i < 300 && !out.includes('listening'); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(out.includes('listening'), out);
    await fn(port, () => out);
    child.kill('SIGTERM');
    assert.is(await exited, 0, out);
    assert.match(out, /SIGTERM: shutting down/);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    if (engine === 'postgres') {
      const { default: knex } = await import('knex');
      const db = knex({ client: 'pg', connection: env.DATABASE_URL });
      await db.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]);
      await db.destroy();
    }
  }
}

/** Requests that carry every kind of secret: a token, a cookie, a password in a body and in a query. */
async function secretBearingRequests(port: string): Promise<void> {
  const base = `http://127.0.0.1:${port}`;
  await fetch(`${base}/api/dcim/sites/`, { headers: { Authorization: `Token ${ADMIN_TOKEN}`, Cookie: 'sessionid=cookie-secret-value-1234; csrftoken=csrf-secret-value-5678' } });
  await fetch(`${base}/api/?password=${PASSWORD}&token=${ADMIN_TOKEN}`, { headers: { Authorization: `Token ${ADMIN_TOKEN}` } });
  await fetch(`${base}/api/users/tokens/provision/`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
  await fetch(`${base}/api/users/tokens/provision/`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'wrong-password-xyz' }) });
  await fetch(`${base}/login/`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `username=admin&password=${PASSWORD}`, redirect: 'manual' });
}

function assertNoSecret(out: string): void {
  for (const secret of [PASSWORD, ADMIN_TOKEN, 'cookie-secret-value-1234', 'csrf-secret-value-5678', 'wrong-password-xyz']) {
    assert.not.ok(out.includes(secret), `a log line holds a secret (${secret.slice(0, 6)}…):\n${out}`);
  }
  assert.not.match(out, /Authorization|Cookie:/i);
}

test('JSON by default off a terminal: one line per request with the request fields, and no secret', async () => {
  await withService({}, async (port, output) => {
    const reply = await fetch(`http://127.0.0.1:${port}/api/?x=1`);
    assert.is(reply.status, 200);
    const requestId = reply.headers.get('x-request-id');
    await fetch(`http://127.0.0.1:${port}/api/dcim/sites/`);
    await secretBearingRequests(port);
    await new Promise((r) => setTimeout(r, 200));
    const lines = output().trim().split('\n');
    const entries = lines.map((line) => { try { return JSON.parse(line); } catch { assert.unreachable(`not a JSON line: ${line}`); } });
    const api = entries.find((e) => e.path === '/api/');
    assert.ok(api, output());
    assert.is(api.method, 'GET');
    assert.is(api.status, 200);
    assert.is(api.level, 'info');
    assert.is(api.reqId, requestId);
    assert.is(api.client, '127.0.0.1');
    assert.is(api.user, null);
    assert.type(api.durationMs, 'number');
    assert.ok(!Number.isNaN(Date.parse(api.time)), api.time);
    const sites = entries.filter((e) => e.path === '/api/dcim/sites/');
    // Anonymous (403), then with a token and a session cookie (200); the secrets in the query string
    // go to /api/, whose line must not show them.
    assert.equal(sites.map((e) => e.status), [403, 200]);
    assert.is(sites[1].user, 'admin', 'the token\'s user is named');
    assert.ok(entries.some((e) => e.path === '/api/users/tokens/provision/' && e.status === 201));
    assertNoSecret(output());
  });
});

test('LOG_FORMAT=text: readable lines, still without secrets', async () => {
  await withService({ LOG_FORMAT: 'text' }, async (port, output) => {
    assert.is((await fetch(`http://127.0.0.1:${port}/api/`)).status, 200);
    await secretBearingRequests(port);
    await new Promise((r) => setTimeout(r, 200));
    assert.match(output(), /INFO.*GET \/api\/ 200 [\d.]+ms/);
    assert.not.match(output(), /^\{"level"/m);
    assertNoSecret(output());
  });
});

test.run();
