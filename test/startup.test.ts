/**
 * Start-up failures of the production start (`node dist/runtime/cli.js start`, what `npm start`
 * runs): each exits non-zero with exactly one line that names the cause and the variable to change,
 * and no stack trace. Run once per engine: the PostgreSQL cases need no server, the rest no database.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { engine } from './helpers.js';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const node = join(root, 'node_modules/.bin/node');
const test = suite(`start-up errors (${engine})`);
const scratch = mkdtempSync(join(tmpdir(), 'netledger-startup-'));

interface Outcome { code: number | null; lines: string[]; text: string }

function run(env: NodeJS.ProcessEnv, nodeBinary = node): Promise<Outcome> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(DATABASE_|DATA_DIR|PORT|HOST|RUN_WORKER|ADMIN_|LOG_|WEB_CONCURRENCY|DEBUG)/.test(k)));
  const child = spawn(nodeBinary, ['dist/runtime/cli.js', 'start'], { cwd: root, env: { ...inherited, DATA_DIR: join(scratch, 'data'), PORT: '0', HOST: '127.0.0.1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout.on('data', (d) => { text += d; });
  child.stderr.on('data', (d) => { text += d; });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((done) => child.on('close', (code) => {
    clearTimeout(timer);
    done({ code, lines: text.trim().split('\n').filter(Boolean), text });
  }));
}

/** Exit code non-zero, one line, no stack, naming the variable; returns the line's message. */
function assertOneLine(outcome: Outcome, variable: string, cause: RegExp): string {
  assert.ok(outcome.code !== 0 && outcome.code !== null, `exit code ${outcome.code}:\n${outcome.text}`);
  assert.is(outcome.lines.length, 1, `exactly one line:\n${outcome.text}`);
  assert.not.match(outcome.text, /^\s+at /m, 'no stack trace');
  const line = outcome.lines[0];
  let message = line;
  try { message = JSON.parse(line).msg; } catch { /* a plain line (too old a Node) */ }
  assert.ok(message.includes(variable), `names ${variable}: ${message}`);
  assert.match(message, cause);
  return message;
}

test.before(() => {
  execFileSync(node, ['scripts/build.mjs', '--if-stale'], { cwd: root, stdio: 'inherit', timeout: 300_000 });
});

test.after(() => rmSync(scratch, { recursive: true, force: true }));

test('PostgreSQL not reachable: DATABASE_URL, without its password', async () => {
  const message = assertOneLine(await run({ DATABASE_URL: 'postgres://netledger:s3cret-pw@127.0.0.1:1/netledger', WEB_CONCURRENCY: '2' }), 'DATABASE_URL', /cannot connect to PostgreSQL.*ECONNREFUSED/);
  assert.not.ok(message.includes('s3cret-pw'), message);
});

test('PostgreSQL database missing: DATABASE_URL', async () => {
  const url = (process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test').replace(/\/[^/]*$/, '/netledger_no_such_database');
  assertOneLine(await run({ DATABASE_URL: url, WEB_CONCURRENCY: '1' }), 'DATABASE_URL', /does not exist \(3D000\)/);
});

test('port in use: PORT, in one process and in a cluster', async () => {
  const holder = createServer();
  await new Promise<void>((done) => holder.listen(0, '127.0.0.1', done));
  const port = String((holder.address() as { port: number }).port);
  try {
    for (const processes of ['1', '2']) {
      assertOneLine(await run({ PORT: port, WEB_CONCURRENCY: processes, DATA_DIR: join(scratch, `port-${processes}`) }), 'PORT', /already in use \(EADDRINUSE\)/);
    }
  } finally {
    holder.close();
  }
});

test('host not resolvable: HOST', async () => {
  assertOneLine(await run({ HOST: 'no-such-host.invalid', WEB_CONCURRENCY: '2', DATA_DIR: join(scratch, 'host') }), 'HOST', /does not resolve/);
});

test('DATA_DIR not writable (a file, not a folder): DATA_DIR', async () => {
  const file = join(scratch, 'a-file');
  writeFileSync(file, 'not a folder');
  assertOneLine(await run({ DATA_DIR: file, WEB_CONCURRENCY: '1' }), 'DATA_DIR', /not a writable folder/);
});

test('DEBUG=1 adds the stack trace', async () => {
  const outcome = await run({ HOST: 'no-such-host.invalid', WEB_CONCURRENCY: '1', DATA_DIR: join(scratch, 'debug'), DEBUG: '1' });
  assert.ok(outcome.code !== 0);
  assert.match(outcome.text, /does not resolve/);
  assert.match(outcome.text, /^\s+at /m);
});

test('Node.js too old: one line naming the Node.js needed, not a segmentation fault', async () => {
  // The machine's own Node (20 here); npm start uses the project's Node 24 from node_modules.
  const system = '/usr/bin/node';
  const version = execFileSync(system, ['--version'], { encoding: 'utf8' }).trim();
  assert.ok(Number(version.slice(1).split('.')[0]) < 24, `this test needs an older system Node, found ${version}`);
  const outcome = await run({ WEB_CONCURRENCY: '1' }, system);
  assert.is(outcome.code, 1, outcome.text);
  assertOneLine(outcome, 'Node.js 24', /too old/);
});

test.run();
