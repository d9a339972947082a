/**
 * The backups docs/scaling-out.md documents, taken while the service runs and restored into a new
 * database that a second service then serves: SQLite's online backup (`sqlite3 … ".backup …"`) and
 * `pg_dump --format=custom` / `pg_restore --no-owner`. Every object reads back the same through the
 * API, and the API token still works.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engine, startApp, type TestApp } from './helpers.js';
import { createObject } from './factory.js';
import { model } from '../runtime/data/registry.js';

const test = suite(`backup and restore (${engine})`);
const LISTS = ['/api/dcim/sites/', '/api/dcim/devices/', '/api/dcim/interfaces/', '/api/ipam/ip-addresses/', '/api/extras/tags/', '/api/users/users/'];
const dir = mkdtempSync(join(tmpdir(), 'netledger-backup-'));
let app: TestApp;

/** Every list as the service answers it, its own address taken out of the URLs. */
async function snapshot(on: TestApp): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const path of LISTS) out[path] = JSON.parse(JSON.stringify(await on.get(`${path}?limit=0`)).replaceAll(on.url, ''));
  return out;
}

test.before(async () => {
  app = await startApp();
  const tag = await app.post('/api/extras/tags/', { name: 'backed-up', slug: 'backed-up' });
  const device = await createObject(app, model('Device'));
  await app.patch(`/api/dcim/devices/${device.id}/`, { tags: [tag.id], comments: 'kept' });
  const iface = await app.post('/api/dcim/interfaces/', { device: device.id, name: 'eth0', type: '1000base-t' });
  await app.post('/api/ipam/ip-addresses/', { address: '192.0.2.7/24', assigned_object_type: 'dcim.interface', assigned_object_id: iface.id, tags: [tag.id] });
});

test.after(async () => {
  await app?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('a backup taken while the service runs restores into a database another service serves the same', async () => {
  const before = await snapshot(app);
  assert.ok((before['/api/ipam/ip-addresses/'] as { count: number }).count >= 1);
  let restored: TestApp;
  let cleanup: () => void;
  if (engine === 'sqlite') {
    const copy = join(dir, 'restored');
    execFileSync('mkdir', ['-p', copy]);
    execFileSync('sqlite3', [join(app.running.config.dataDir, 'netledger.sqlite3'), `.backup ${join(copy, 'netledger.sqlite3')}`]);
    restored = await startApp({ DATA_DIR: copy }, { takesOverDatabase: true });
    cleanup = () => undefined;
  } else {
    const { databaseUrl, databaseSchema } = app.running.config;
    const file = join(dir, 'netledger.dump');
    execFileSync('pg_dump', ['--format=custom', `--dbname=${databaseUrl}`, `--schema=${databaseSchema}`, `--file=${file}`]);
    const name = `restore_${databaseSchema}`;
    const url = new URL(databaseUrl!);
    const admin = ['-w', '-h', url.hostname, '-p', url.port || '5432', '-U', url.username || 'postgres'];
    execFileSync('createdb', [...admin, name]);
    cleanup = () => execFileSync('dropdb', [...admin, '--if-exists', name]);
    try {
      // A dump of one schema leaves out the extensions (in public) its indexes use.
      execFileSync('psql', [...admin, '-d', name, '-qc', 'create extension if not exists pg_trgm']);
      execFileSync('pg_restore', ['--no-owner', `--dbname=${new URL(`/${name}`, url).href}`, file]);
      url.pathname = `/${name}`;
      restored = await startApp({ DATABASE_URL: url.href, DATABASE_SCHEMA: databaseSchema! }, { takesOverDatabase: false });
    } catch (error) {
      cleanup();
      throw error;
    }
  }
  try {
    assert.equal(await snapshot(restored), before);
    // The admin token (stored as a hash) works on the restored database: the reads above used it.
    const write = await restored.api('POST', '/api/dcim/sites/', { name: 'After restore', slug: 'after-restore' });
    assert.is(write.status, 201, 'ids continue past the restored rows');
  } finally {
    await restored.stop();
    cleanup();
  }
});

test.run();
