/**
 * The service as `npm start` runs it: one log line per request (method, path, status, duration),
 * and a clean exit on SIGTERM.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { engine } from './helpers.js';

const test = suite('npm start');

test('logs one line per request and exits 0 on SIGTERM', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'netledger-service-'));
  const schema = `svc_${randomBytes(4).toString('hex')}`;
  const port = String(20000 + Math.floor(Math.random() * 20000));
  const env: NodeJS.ProcessEnv = {
    ...process.env, DATA_DIR: dataDir, PORT: port, LOG_REQUESTS: '1', RUN_WORKER: '0',
    ...(engine === 'postgres' ? { DATABASE_URL: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test', DATABASE_SCHEMA: schema } : { DATABASE_URL: '' }),
  };
  const child = spawn('node_modules/.bin/node', ['--import', 'tsx', 'runtime/cli.ts', 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    for (let i = 0; i < 200 && !out.includes('listening'); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(out.includes('listening'), out);
    const reply = await fetch(`http://127.0.0.1:${port}/api/?x=1`);
    assert.is(reply.status, 200);
    await fetch(`http://127.0.0.1:${port}/api/dcim/sites/`);
    await new Promise((r) => setTimeout(r, 200));
    assert.match(out, /^GET \/api\/ 200 \d+(\.\d+)?ms$/m);
    assert.match(out, /^GET \/api\/dcim\/sites\/ 403 \d+(\.\d+)?ms$/m);
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
});

test.run();
