/**
 * The production mode the README documents: `npm start` runs the compiled JavaScript in dist/ (no
 * tsx), as a cluster of WEB_CONCURRENCY=2 processes. Requests go over fresh connections, so the
 * cluster spreads them over both processes, and the guarantees must hold across processes:
 * concurrent writes never fail, available-IP allocation never hands out an address twice, a webhook
 * event arrives exactly once, the login throttle and cookie sessions are shared, /metrics sums every
 * process, a killed process is replaced (the one running the webhook worker too, which resumes
 * delivering), and SIGTERM stops everything cleanly.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_TOKEN, engine, testSchemaName } from './helpers.js';
import { THROTTLE_LIMIT } from '../runtime/auth/throttle.js';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const test = suite(`production mode: npm start, 2 processes (${engine})`);
const PASSWORD = 'production-test-password-1';

interface Reply { status: number; headers: IncomingHttpHeaders; text: string; json: any }

/** One request on a connection of its own (no keep-alive), so the cluster may pick any process. */
function call(base: string, method: string, path: string, options: { body?: unknown; token?: string | null; headers?: Record<string, string>; raw?: string } = {}): Promise<Reply> {
  const token = options.token === undefined ? ADMIN_TOKEN : options.token;
  const headers: Record<string, string> = { Accept: 'application/json', Connection: 'close', ...(options.headers ?? {}) };
  if (token) headers.Authorization = `Token ${token}`;
  const payload = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (payload !== undefined) headers['Content-Type'] ??= 'application/json';
  return new Promise((done, fail) => {
    const req = request(base + path, { method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => { text += chunk; });
      res.on('end', () => {
        let json: unknown = null;
        try { json = JSON.parse(text); } catch { /* not JSON */ }
        done({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', fail);
    req.end(payload);
  });
}

interface Service { child: ChildProcess; url: string; output: string[]; exited: Promise<number | null>; dataDir: string; schema: string; env: NodeJS.ProcessEnv }

/** `npm start` in a process group of its own (npm, the primary, the workers). */
async function startService(extra: NodeJS.ProcessEnv = {}): Promise<Service> {
  const dataDir = mkdtempSync(join(tmpdir(), 'netledger-prod-'));
  const schema = testSchemaName('prod');
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(DATABASE_|DATA_DIR|PORT|HOST|WEBHOOK_|RUN_WORKER|ADMIN_|LOG_|WEB_CONCURRENCY|npm_)/.test(k)));
  const env: NodeJS.ProcessEnv = {
    ...inherited, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ADMIN_TOKEN, ADMIN_PASSWORD: PASSWORD, WEB_CONCURRENCY: '2', RUN_WORKER: '1', LOG_REQUESTS: '1',
    WEBHOOK_RETRY_SCHEDULE: '1,1,1', WEBHOOK_TIMEOUT: '5',
    ...(engine === 'postgres' ? { DATABASE_URL: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test', DATABASE_SCHEMA: schema } : {}),
    ...extra,
  };
  const child = spawn('npm', ['start', '--silent'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const output: string[] = [];
  child.stdout!.on('data', (d: Buffer) => output.push(d.toString()));
  child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  for (let i = 0; i < 1200; i++) {
    const m = /listening on (http:\/\/\S+?)\/api\//.exec(output.join(''));
    if (m) return { child, url: m[1], output, exited, dataDir, schema, env };
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  stopGroup(child, 'SIGKILL');
  throw new Error(`npm start did not listen:\n${output.join('')}`);
}

function stopGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try { process.kill(-child.pid!, signal); } catch { /* gone */ }
}

async function cleanup(service: Service): Promise<void> {
  stopGroup(service.child, 'SIGKILL');
  rmSync(service.dataDir, { recursive: true, force: true });
  if (engine === 'postgres') {
    const { default: knex } = await import('knex');
    const db = knex({ client: 'pg', connection: service.env.DATABASE_URL });
    await db.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [service.schema]);
    await db.destroy();
  }
}

/** The JSON log lines printed so far. */
function logLines(service: Service): Record<string, any>[] {
  return service.output.join('').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
}

/** The processes that logged a request to `path`. */
function servingPids(service: Service, path: string): Set<number> {
  return new Set(logLines(service).filter((e) => e.path === path).map((e) => Number(e.pid)));
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.unreachable(`timed out waiting for ${what}`);
}

/** A webhook receiver that records every request it gets. */
function startReceiver(): Promise<{ server: Server; url: string; received: { headers: IncomingHttpHeaders; body: any }[] }> {
  const received: { headers: IncomingHttpHeaders; body: any }[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => { text += c; });
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(text || 'null') });
      res.end('ok');
    });
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    done({ server, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`, received });
  }));
}

test.before(() => {
  // What npm's prestart does; done here too so the build's time is not counted in start-up waits.
  execFileSync(join(root, 'node_modules/.bin/node'), ['scripts/build.mjs', '--if-stale'], { cwd: root, stdio: 'inherit', timeout: 300_000 });
});

test('serves compiled JavaScript without tsx, in two processes that share the work and the guarantees', async () => {
  const service = await startService();
  const rx = await startReceiver();
  try {
    const { url } = service;
    // No TypeScript loader anywhere: every process that logged runs dist/runtime/cli.js.
    for (let i = 0; i < 10; i++) assert.is((await call(url, 'GET', '/api/status/', { token: null })).status, 200);
    await waitFor('both processes to serve', () => servingPids(service, '/api/status/').size === 2);
    for (const pid of servingPids(service, '/api/status/')) {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      assert.match(cmdline, /dist\/runtime\/cli\.js start/);
      assert.not.match(cmdline, /tsx/);
    }

    // /metrics sums both processes: exactly the ten status requests, whoever answers the scrape.
    const metrics = await call(url, 'GET', '/metrics', { token: null });
    assert.is(metrics.status, 200);
    assert.match(metrics.text, /^netledger_http_requests_total\{method="GET",route="\/api\/status\/",status="200"\} 10$/m);
    for (const name of ['netledger_http_request_duration_seconds_bucket', 'netledger_webhook_deliveries', 'netledger_webhook_queue_depth', 'netledger_webhook_queue_oldest_age_seconds', 'netledger_db_pool_connections', 'netledger_process_cpu_user_seconds_total']) {
      assert.ok(metrics.text.includes(name), `${name} in /metrics`);
    }

    // Concurrent writes from both processes: no 500, and every webhook event arrives exactly once.
    const hook = await call(url, 'POST', '/api/extras/webhooks/', { body: { name: 'prod', content_types: ['tenancy.tenant'], type_create: true, payload_url: rx.url } });
    assert.is(hook.status, 201, hook.text);
    const names = Array.from({ length: 40 }, (_, i) => `prod-tenant-${i}`);
    const created = await Promise.all(names.map((name) => call(url, 'POST', '/api/tenancy/tenants/', { body: { name, slug: name } })));
    assert.equal(created.map((r) => r.status), names.map(() => 201), created.filter((r) => r.status !== 201).map((r) => r.text).join('\n'));
    await waitFor('40 webhook deliveries', () => rx.received.length >= 40, 30_000);
    await new Promise((r) => setTimeout(r, 2500));
    assert.is(rx.received.length, 40, 'no event was sent twice');
    assert.equal(rx.received.map((r) => r.body.data.name).sort(), [...names].sort());
    assert.is(new Set(rx.received.map((r) => r.headers['webhook-id'])).size, 40);
    // Each attempt is one log line (through the same logger) and counted once in the summed metrics.
    const attempts = logLines(service).filter((e) => e.webhook === 'prod');
    assert.is(attempts.length, 40);
    assert.ok(attempts.every((e) => e.outcome === 'success' && e.statusCode === 200 && !JSON.stringify(e).includes(rx.url)), JSON.stringify(attempts[0]));
    const after = await call(url, 'GET', '/metrics', { token: null });
    assert.match(after.text, /^netledger_webhook_attempts_total\{outcome="success"\} 40$/m);
    assert.match(after.text, /^netledger_webhook_deliveries\{state="succeeded"\} 40$/m);
    assert.match(after.text, /^netledger_webhook_queue_depth 0$/m);

    // Available IPs allocated concurrently from both processes: all different.
    const prefix = await call(url, 'POST', '/api/ipam/prefixes/', { body: { prefix: '10.77.0.0/27' } });
    assert.is(prefix.status, 201, prefix.text);
    const allocations = await Promise.all(Array.from({ length: 16 }, () => call(url, 'POST', `/api/ipam/prefixes/${prefix.json.id}/available-ips/`, { body: {} })));
    assert.equal(allocations.map((r) => r.status), allocations.map(() => 201), allocations.map((r) => r.text).join('\n'));
    const addresses = allocations.map((r) => r.json.address);
    assert.is(new Set(addresses).size, 16, `distinct addresses: ${addresses.join(' ')}`);

    // A cookie session made by one process is good in the other.
    const login = await call(url, 'POST', '/login/', { token: null, raw: `username=admin&password=${PASSWORD}&next=/api/`, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    assert.ok([200, 302, 303].includes(login.status), login.text);
    const cookies = (login.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
    assert.match(cookies, /sessionid=/);
    const before = servingPids(service, '/api/tenancy/tenants/').size;
    for (let i = 0; i < 6; i++) {
      const reply = await call(url, 'GET', '/api/tenancy/tenants/?limit=1', { token: null, headers: { Cookie: cookies } });
      assert.is(reply.status, 200, reply.text);
      assert.is(reply.json.count, 40);
    }
    assert.ok(before >= 1);
    assert.is(servingPids(service, '/api/tenancy/tenants/').size, 2);
    // The login throttle counts failures from both processes together.
    const provision = (password: string) => call(url, 'POST', '/api/users/tokens/provision/', { token: null, body: { username: 'admin', password } });
    for (let i = 0; i < THROTTLE_LIMIT; i++) assert.is((await provision(`wrong-${i}`)).status, 403);
    assert.is((await provision(PASSWORD)).status, 429, 'the limit holds across processes');

  } finally {
    rx.server.close();
    await cleanup(service);
  }
});

test('a process that dies is replaced; SIGTERM stops every process and exits 0', async () => {
  const service = await startService({ RUN_WORKER: '0' });
  try {
    for (let i = 0; i < 6; i++) await call(service.url, 'GET', '/api/status/', { token: null });
    await waitFor('both processes to serve', () => servingPids(service, '/api/status/').size === 2);
    const [victim] = servingPids(service, '/api/status/');
    process.kill(victim, 'SIGKILL');
    await waitFor('the replacement', () => logLines(service).some((e) => e.level === 'warn' && String(e.msg).includes(`API process ${victim} died`)));
    await waitFor('a new process to serve', async () => {
      await call(service.url, 'GET', '/api/status/', { token: null });
      return servingPids(service, '/api/status/').size === 3;
    });
    const pids = [...servingPids(service, '/api/status/')].filter((pid) => pid !== victim);
    // SIGTERM to the primary, as systemd or a container runtime sends it.
    const primary = logLines(service).find((e) => String(e.msg).includes('listening on'))!.pid;
    process.kill(primary, 'SIGTERM');
    assert.is(await service.exited, 0, service.output.join(''));
    for (const pid of pids) assert.throws(() => process.kill(pid, 0), `process ${pid} is gone`);
    assert.match(service.output.join(''), /SIGTERM: shutting down/);
  } finally {
    await cleanup(service);
  }
});

test('the process running the webhook worker dies: it is replaced with its worker, and deliveries go on', async () => {
  const service = await startService();
  const rx = await startReceiver();
  try {
    const { url } = service;
    const hook = await call(url, 'POST', '/api/extras/webhooks/', { body: { name: 'crash', content_types: ['tenancy.tenant'], type_create: true, payload_url: rx.url } });
    assert.is(hook.status, 201, hook.text);
    const attempts = () => logLines(service).filter((e) => e.webhook === 'crash');
    assert.is((await call(url, 'POST', '/api/tenancy/tenants/', { body: { name: 'before-crash', slug: 'before-crash' } })).status, 201);
    await waitFor('the first delivery', () => attempts().length === 1, 30_000);
    // The attempt's log line names the process whose webhook worker sent it.
    const victim = Number(attempts()[0].pid);
    process.kill(victim, 'SIGKILL');
    await waitFor('the replacement', () => logLines(service).some((e) => e.level === 'warn' && String(e.msg).includes(`API process ${victim} died`)));
    // Written while (or after) the worker is down: delivered once the replacement's worker runs.
    const written = await call(url, 'POST', '/api/tenancy/tenants/', { body: { name: 'after-crash', slug: 'after-crash' } });
    assert.is(written.status, 201, written.text);
    await waitFor('the delivery after the crash', () => rx.received.some((r) => r.body.data.name === 'after-crash'), 30_000);
    // The attempt's log line is written once the receiver has answered, so it may come a moment after.
    const deliveredByAnother = () => attempts().some((e) => e.outcome === 'success' && Number(e.pid) !== victim);
    await waitFor('the log line of the delivery after the crash', deliveredByAnother, 10_000).catch(() => {});
    assert.ok(deliveredByAnother(), `a new process delivered: ${JSON.stringify(attempts())}`);
    // At least once: a kill between sending and recording an attempt may repeat it (webhook-id tells).
    assert.equal([...new Set(rx.received.map((r) => r.body.data.name))].sort(), ['after-crash', 'before-crash']);
  } finally {
    rx.server.close();
    await cleanup(service);
  }
});

test.run();
