/**
 * Read scaling (DATABASE_READ_URL), through HTTP. On PostgreSQL the test makes a primary and a
 * streaming standby of its own (initdb, pg_basebackup; PostgreSQL runs as the `postgres` user, so it
 * needs root, as CI has) and checks: reads without a recent write go to the standby; a client that
 * wrote reads its write back at once while the standby has not replayed it (its reads go to the
 * primary), and reads from the standby again once it has; a standby that stops answering sends reads
 * to the primary. On SQLite, which has no standby, the setting is refused at start.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { appendFileSync, chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { engine, startApp, type TestApp } from './helpers.js';
import { loadConfig } from '../runtime/core/config.js';

const test = suite(`read scaling: a standby serves reads, read-your-writes (${engine})`);

if (engine === 'sqlite') {
  test('DATABASE_READ_URL without DATABASE_URL is refused, naming the setting', () => {
    assert.throws(() => loadConfig({ DATA_DIR: tmpdir(), DATABASE_READ_URL: 'postgres://postgres@127.0.0.1:5432/test' }), /DATABASE_READ_URL/);
    assert.throws(() => loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test', DATABASE_READ_URL: 'mysql://x' }), /DATABASE_READ_URL: expected postgres/);
  });
} else {
  const bin = join('/usr/lib/postgresql', readdirSync('/usr/lib/postgresql').sort().at(-1)!, 'bin');
  const dir = mkdtempSync(join(tmpdir(), 'netledger-standby-'));
  const asPostgres = (command: string, ...args: string[]) => execFileSync('runuser', ['-u', 'postgres', '--', join(bin, command), ...args], { stdio: 'pipe', timeout: 120_000 }).toString();
  let primaryPort = 0;
  let standbyPort = 0;
  let app: TestApp;
  let other: { id: number; key: string };

  const freePort = () => new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address() as { port: number }; s.close(() => resolve(port)); });
  });
  const psql = (port: number, sql: string) => execFileSync('psql', ['-w', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-Atc', sql], { stdio: 'pipe' }).toString().trim();
  const cluster = (name: string, port: number, extra: string) => {
    appendFileSync(join(dir, name, 'postgresql.conf'), `\nport = ${port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '${dir}'\nfsync = off\n${extra}\n`);
    asPostgres('pg_ctl', '-D', join(dir, name), '-l', join(dir, `${name}.log`), '-w', 'start');
  };
  /** Where the reads went, from /metrics. */
  async function readsBy(): Promise<{ standby: number; primary: number }> {
    const text = await (await fetch(`${app.url}/metrics`)).text();
    const value = (db: string) => Number(new RegExp(`netledger_reads_total\\{database="${db}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
    return { standby: value('standby'), primary: value('primary') };
  }
  /** Runs `read` and says which database served it. */
  async function servedBy(read: () => Promise<unknown>): Promise<'standby' | 'primary'> {
    const before = await readsBy();
    await read();
    const after = await readsBy();
    // A read may be routed twice (a speculative start run again once the caches are confirmed), to one database.
    const [standby, primary] = [after.standby - before.standby, after.primary - before.primary];
    assert.ok(standby + primary >= 1 && (standby === 0 || primary === 0), `reads counted: standby ${standby}, primary ${primary}`);
    return standby > 0 ? 'standby' : 'primary';
  }
  const replayed = async () => {
    const target = psql(primaryPort, 'select pg_current_wal_lsn()');
    for (let i = 0; i < 200; i++) {
      if (psql(standbyPort, `select pg_last_wal_replay_lsn() >= '${target}'::pg_lsn`) === 't') return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the standby did not catch up within 10 s');
  };

  test.before(async () => {
    chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString()), Number(execFileSync('id', ['-g', 'postgres']).toString()));
    [primaryPort, standbyPort] = [await freePort(), await freePort()];
    asPostgres('initdb', '-D', join(dir, 'primary'), '-A', 'trust', '-U', 'postgres', '--no-sync');
    cluster('primary', primaryPort, 'wal_level = replica\nmax_wal_senders = 4');
    asPostgres('pg_basebackup', '-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', join(dir, 'standby'), '-R', '-X', 'stream', '--no-sync');
    cluster('standby', standbyPort, '');
    const url = (port: number) => `postgres://postgres@127.0.0.1:${port}/postgres`;
    app = await startApp({ DATABASE_URL: url(primaryPort), DATABASE_READ_URL: url(standbyPort), METRICS_ALLOWED: '127.0.0.0/8,::1' });
    const user = await app.post('/api/users/users/', { username: 'reader', password: 'a-long-password-1', is_superuser: true });
    const token = await app.post('/api/users/tokens/', { user: user.id });
    other = { id: user.id, key: token.key };
    await replayed();
  });

  test.after(async () => {
    await app?.stop();
    for (const name of ['standby', 'primary']) {
      try { asPostgres('pg_ctl', '-D', join(dir, name), '-m', 'immediate', 'stop'); } catch { /* not running */ }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  test('a read without a recent write is served by the standby, and answers from its data', async () => {
    assert.is(await servedBy(() => app.get('/api/dcim/sites/')), 'standby');
    assert.is(await servedBy(() => app.get(`/api/users/users/${other.id}/`)), 'standby');
  });

  test('read-your-writes: a client reads its own write at once while the standby has not replayed it', async () => {
    psql(standbyPort, 'select pg_wal_replay_pause()');
    try {
      const site = await app.post('/api/dcim/sites/', { name: 'Fresh', slug: 'fresh' });
      // The writer's read goes to the primary and finds the site.
      let found: { status: number; body: any } = { status: 0, body: null };
      assert.is(await servedBy(async () => { found = await app.api('GET', `/api/dcim/sites/${site.id}/`); }), 'primary');
      assert.is(found.status, 200);
      // Another client reads from the standby, which has not replayed the write yet.
      let elsewhere: { status: number; body: any } = { status: 0, body: null };
      assert.is(await servedBy(async () => { elsewhere = await app.api('GET', `/api/dcim/sites/?slug=fresh`, undefined, { token: other.key }); }), 'standby');
      assert.is(elsewhere.status, 200);
      assert.is(elsewhere.body.count, 0, 'the paused standby has not seen the site');
    } finally {
      psql(standbyPort, 'select pg_wal_replay_resume()');
    }
    await replayed();
    // Once the standby has replayed past the write, the writer reads from it again.
    assert.is(await servedBy(() => app.get('/api/dcim/sites/?slug=fresh')), 'standby');
    const after = await app.api('GET', '/api/dcim/sites/?slug=fresh', undefined, { token: other.key });
    assert.is(after.body.count, 1);
  });

  test('a standby that stops answering sends reads to the primary; nothing fails', async () => {
    asPostgres('pg_ctl', '-D', join(dir, 'standby'), '-m', 'immediate', 'stop');
    const first = await app.api('GET', '/api/dcim/sites/?slug=fresh');
    assert.is(first.status, 200);
    assert.is(first.body.count, 1);
    assert.is(await servedBy(() => app.get('/api/dcim/sites/')), 'primary');
  });
}

test.run();
