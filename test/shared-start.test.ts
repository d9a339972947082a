/**
 * Services that start at the same moment on one new database (two hosts on one PostgreSQL, `npm
 * start` beside `npm run worker`): one prepares it (schema, migrations, the first admin) while the
 * others wait, and every one of them serves (runtime/data/prepare-lock.ts, ensureAdmin).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { loadConfig } from '../runtime/core/config.js';
import { start, type Running } from '../runtime/server.js';
import { ADMIN_TOKEN, engine, testDatabase } from './helpers.js';

const test = suite(`services started together on one new database (${engine})`);

test('three services at once: all serve, one first admin, every migration once', async () => {
  const { env, dataDir, schema } = testDatabase();
  const started = await Promise.allSettled([1, 2, 3].map(() => start(loadConfig(env))));
  const running = started.filter((s): s is PromiseFulfilledResult<Running> => s.status === 'fulfilled').map((s) => s.value);
  try {
    const failures = started.filter((s): s is PromiseRejectedResult => s.status === 'rejected').map((s) => String(s.reason));
    assert.equal(failures, [], 'every start succeeds');
    assert.is(running.filter((r) => r.admin).length, 1, 'exactly one of them created the first admin');
    for (const r of running) {
      const res = await fetch(`${r.url}/api/users/users/`, { headers: { Authorization: `Token ${ADMIN_TOKEN}`, Accept: 'application/json' } });
      assert.is(res.status, 200);
      assert.is((await res.json()).count, 1, 'one user');
    }
    const migrations = await running[0].db('knex_migrations').select('name');
    assert.is(new Set(migrations.map((m: { name: string }) => m.name)).size, migrations.length, 'no migration applied twice');
  } finally {
    for (const r of running) await r.worker?.stop();
    if (engine === 'postgres' && running.length) await running[0].db.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]);
    for (const r of running) await r.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
