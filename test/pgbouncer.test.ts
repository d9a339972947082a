/**
 * Behind PgBouncer in transaction mode (docs/scaling-out.md): the service as two processes
 * (WEB_CONCURRENCY=2) on a pooler with two server connections, so every server connection serves
 * both processes' transactions and batched reads. Under concurrent writes and reads every answer is
 * right and none is a 5xx: with prepared statements (an EXECUTE landing on a server connection that
 * lacks its statement runs again alone; a name never means another process's statement) and with
 * DATABASE_PREPARED_STATEMENTS=0 (statements sent as text). PostgreSQL only; on SQLite the setting's
 * parsing is checked.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { ADMIN_TOKEN, engine } from './helpers.js';
import { loadConfig } from '../runtime/core/config.js';

const test = suite(`PgBouncer in transaction mode (${engine})`);

if (engine === 'sqlite') {
  test('DATABASE_PREPARED_STATEMENTS is a flag: 0 turns prepared statements off, anything else but 1 is refused', () => {
    assert.is(loadConfig({ DATA_DIR: tmpdir(), DATABASE_PREPARED_STATEMENTS: '0' }).databasePreparedStatements, false);
    assert.is(loadConfig({ DATA_DIR: tmpdir() }).databasePreparedStatements, true);
    assert.throws(() => loadConfig({ DATA_DIR: tmpdir(), DATABASE_PREPARED_STATEMENTS: 'maybe' }), /DATABASE_PREPARED_STATEMENTS/);
  });
} else {
  const target = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
  const dir = mkdtempSync(join(tmpdir(), 'netledger-pgbouncer-'));
  const database = `pgbouncer_${process.pid}`;
  const admin = ['-w', '-h', target.hostname, '-p', target.port || '5432', '-U', target.username || 'postgres'];
  const headers = { Authorization: `Token ${ADMIN_TOKEN}`, 'Content-Type': 'application/json', Accept: 'application/json' };
  let bouncerPort = 0;

  const freePort = () => new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address() as { port: number }; s.close(() => resolve(port)); });
  });

  /** The service as its own processes on the pooler; `fn` gets its base URL. */
  async function withService(extra: NodeJS.ProcessEnv, fn: (base: string) => Promise<void>): Promise<void> {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env, DATA_DIR: join(dir, 'data'), PORT: String(port), HOST: '127.0.0.1', WEB_CONCURRENCY: '2', RUN_WORKER: '0', LOG_REQUESTS: '0',
      ADMIN_TOKEN, ADMIN_PASSWORD: 'pgbouncer-admin-password', DATABASE_URL: `postgres://postgres@127.0.0.1:${bouncerPort}/${database}`, DATABASE_SCHEMA: '', ...extra,
    };
    const child = spawn('node_modules/.bin/node', ['--import', 'tsx', 'runtime/cli.ts', 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      const base = `http://127.0.0.1:${port}`;
      // "listening" is logged once the first start's admin (ADMIN_TOKEN) exists.
      let ready = false;
      for (let i = 0; i < 3000 && !ready && child.exitCode === null; i++) {
        ready = /NetLedger listening/.test(out);
        if (!ready) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(ready, `the service did not start:\n${out}`);
      await fn(base);
      assert.not.match(out, /unexpected error/, out);
    } finally {
      try { process.kill(-child.pid!, 'SIGTERM'); } catch { /* gone */ }
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ }
    }
  }

  async function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  /** Writes and reads at once from many clients; every answer is checked against what was written. */
  async function exercise(base: string, tag: string): Promise<void> {
    const site = await call(base, 'POST', '/api/dcim/sites/', { name: `Site ${tag}`, slug: `site-${tag}` });
    assert.is(site.status, 201, JSON.stringify(site.body));
    const role = await call(base, 'POST', '/api/dcim/device-roles/', { name: `Role ${tag}`, slug: `role-${tag}` });
    const maker = await call(base, 'POST', '/api/dcim/manufacturers/', { name: `Maker ${tag}`, slug: `maker-${tag}` });
    const type = await call(base, 'POST', '/api/dcim/device-types/', { manufacturer: maker.body.id, model: `Model ${tag}`, slug: `model-${tag}` });
    const devices = await Promise.all(Array.from({ length: 12 }, (_, i) => call(base, 'POST', '/api/dcim/devices/', { name: `dev-${tag}-${i}`, site: site.body.id, role: role.body.id, device_type: type.body.id })));
    for (const d of devices) assert.is(d.status, 201, JSON.stringify(d.body));
    const interfaces = await call(base, 'POST', '/api/dcim/interfaces/', devices.flatMap((d) => Array.from({ length: 8 }, (_, i) => ({ device: d.body.id, name: `eth${i}`, type: '1000base-t' }))));
    assert.is(interfaces.status, 201, JSON.stringify(interfaces.body).slice(0, 500));
    // Each round: every device's detail, its interfaces, the site's devices: right answers, no 5xx.
    for (let round = 0; round < 4; round++) {
      const answers = await Promise.all(devices.flatMap((d) => [
        call(base, 'GET', `/api/dcim/devices/${d.body.id}/`).then((r) => { assert.is(r.status, 200); assert.is(r.body.name, d.body.name); assert.is(r.body.site.id, site.body.id); assert.is(r.body.device_type.id, type.body.id); }),
        call(base, 'GET', `/api/dcim/interfaces/?device_id=${d.body.id}&limit=50`).then((r) => { assert.is(r.status, 200); assert.is(r.body.count, 8); assert.ok(r.body.results.every((i: any) => i.device.id === d.body.id)); }),
        call(base, 'PATCH', `/api/dcim/devices/${d.body.id}/`, { description: `round ${round}` }).then((r) => { assert.is(r.status, 200, JSON.stringify(r.body)); assert.is(r.body.description, `round ${round}`); }),
      ]).concat([
        call(base, 'GET', `/api/dcim/devices/?site_id=${site.body.id}&limit=100`).then((r) => { assert.is(r.status, 200); assert.is(r.body.count, 12); }),
      ]));
      assert.is(answers.length, devices.length * 3 + 1);
    }
  }

  test.before(() => {
    const postgres = Number(execFileSync('id', ['-u', 'postgres']).toString());
    chownSync(dir, postgres, postgres);
    execFileSync('createdb', [...admin, database]);
  });

  test.after(() => {
    try { process.kill(Number(readFileSync(join(dir, 'pgbouncer.pid'), 'utf8').trim()), 'SIGTERM'); } catch { /* not running */ }
    try { execFileSync('dropdb', [...admin, '--if-exists', '--force', database]); } catch { /* gone */ }
    rmSync(dir, { recursive: true, force: true });
  });

  test('PgBouncer runs in transaction mode with two server connections', async () => {
    assert.ok(existsSync('/usr/sbin/pgbouncer'), 'pgbouncer is installed (.ci/run installs it)');
    bouncerPort = await freePort();
    writeFileSync(join(dir, 'users.txt'), `"${target.username || 'postgres'}" ""\n`);
    writeFileSync(join(dir, 'pgbouncer.ini'), [
      '[databases]', `* = host=${target.hostname} port=${target.port || 5432}`, '[pgbouncer]',
      'listen_addr = 127.0.0.1', `listen_port = ${bouncerPort}`, 'unix_socket_dir =', 'auth_type = trust', `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction', 'default_pool_size = 2', 'max_client_conn = 200', `logfile = ${join(dir, 'pgbouncer.log')}`, `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      'ignore_startup_parameters = extra_float_digits,options',
    ].join('\n'));
    execFileSync('chown', ['-R', 'postgres', dir]);
    execFileSync('runuser', ['-u', 'postgres', '--', '/usr/sbin/pgbouncer', '-d', join(dir, 'pgbouncer.ini')]);
    const one = execFileSync('psql', ['-w', '-h', '127.0.0.1', '-p', String(bouncerPort), '-U', 'postgres', '-d', database, '-Atc', 'select 1']).toString().trim();
    assert.is(one, '1');
  });

  test('with prepared statements: every answer right under concurrent writes and reads from two processes', async () => {
    await withService({}, (base) => exercise(base, 'prepared'));
  });

  test('with DATABASE_PREPARED_STATEMENTS=0: the same', async () => {
    await withService({ DATABASE_PREPARED_STATEMENTS: '0' }, (base) => exercise(base, 'text'));
  });
}

test.run();
