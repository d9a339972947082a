/**
 * Oversized bodies cost the service nothing it cannot afford: a 200 MB chunked body (no length
 * announced), alone and 20 at once, with and without a token, is answered 413 while it is still
 * being sent, and the server's memory (the RSS of a separately started `npm start` process, sampled
 * throughout) grows by less than 50 MB. Each answer's status line arrives within a second of the
 * request's start (the times are printed too): a body the shared budget cannot hold is refused before
 * any of it is read, and the others are refused once they pass the limit.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import knex from 'knex';
import { ADMIN_TOKEN, engine, testSchemaName } from './helpers.js';
import { upload, type Answer } from './upload.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BODY = 200 * 1024 * 1024;
const MB = 1024 * 1024;
/** the bound on the time from a request's start to its 413 status line */
const PROMPT_MS = 1000;
const test = suite(`oversized bodies (${engine})`);

let server: ChildProcess;
let url: URL;
const dataDir = mkdtempSync(join(tmpdir(), 'netledger-body-'));
const schema = testSchemaName('t_body');
const databaseUrl = engine === 'postgres' ? (process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test') : null;

function rss(): number {
  const status = readFileSync(`/proc/${server.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** Samples the server's RSS every 5 ms while `work` runs; returns the peak. */
async function peakDuring(work: () => Promise<unknown>): Promise<number> {
  let peak = rss();
  const timer = setInterval(() => { peak = Math.max(peak, rss()); }, 5);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, rss());
}

/** A 200 MB chunked body to the sites list, with the admin's token or none. */
function uploadSites(token: boolean, total = BODY): Promise<Answer> {
  return upload(url, '/api/dcim/sites/', { 'Content-Type': 'application/json', ...(token ? { Authorization: `Token ${ADMIN_TOKEN}` } : {}) }, total);
}

function report(what: string, answers: Answer[]): void {
  const ms = answers.map((a) => a.ms);
  const range = (list: Answer[]) => (list.length ? `${Math.min(...list.map((a) => a.ms)).toFixed(0)}-${Math.max(...list.map((a) => a.ms)).toFixed(0)} ms` : '-');
  const unread = answers.filter((a) => a.retryAfter);
  console.log(`  ${what}: ${answers.length} answered ${[...new Set(answers.map((a) => a.status))].join('/')} in ${Math.min(...ms).toFixed(0)}-${Math.max(...ms).toFixed(0)} ms (${unread.length} refused unread for the shared budget: ${range(unread)}; the others read to the limit: ${range(answers.filter((a) => !a.retryAfter))}), after at most ${(Math.max(...answers.map((a) => a.sent)) / MB).toFixed(1)} MB sent`);
}

test.before(async () => {
  const env: NodeJS.ProcessEnv = {
    ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ADMIN_TOKEN, ADMIN_PASSWORD: 'body-limits-admin', LOG_REQUESTS: '0', RUN_WORKER: '0', WEB_CONCURRENCY: '1',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema } : {}),
  };
  server = spawn(process.execPath, ['--import', 'tsx', join(root, 'runtime/cli.ts'), 'start'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  url = await new Promise<URL>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start in 60 s: ${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      const m = /listening on (http:\/\/[^/\s]+)\/api\//.exec(output);
      if (m) { clearTimeout(timer); resolve(new URL(m[1])); }
    };
    server.stdout!.on('data', onData);
    server.stderr!.on('data', onData);
    server.on('exit', (code) => reject(new Error(`the server exited (${code}): ${output}`)));
  });
  // Warm up: the code paths of a refused body, so that loading them is not counted as growth.
  for (const token of [true, false]) assert.is((await uploadSites(token, 8 * MB)).status, 413);
});

test.after(async () => {
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  if (databaseUrl) {
    const db = knex({ client: 'pg', connection: databaseUrl });
    await db.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]);
    await db.destroy();
  }
  rmSync(dataDir, { recursive: true, force: true });
});

test('one 200 MB chunked body, without and with a token: 413 before it is sent, memory flat', async () => {
  const before = rss();
  const answers: Answer[] = [];
  const peak = await peakDuring(async () => {
    answers.push(await uploadSites(false));
    answers.push(await uploadSites(true));
  });
  report('one at a time (anonymous, token)', answers);
  console.log(`  server RSS ${(before / MB).toFixed(0)} MB, peak ${(peak / MB).toFixed(0)} MB (+${((peak - before) / MB).toFixed(1)} MB)`);
  for (const a of answers) {
    assert.is(a.status, 413, a.error ?? a.body);
    assert.match(a.body, /Request body too large: at most \d+ bytes are accepted/);
    assert.ok(a.sent < 32 * MB, `answered while the body was still arriving (${(a.sent / MB).toFixed(1)} MB sent)`);
    assert.ok(a.ms < PROMPT_MS, `answered in ${a.ms.toFixed(0)} ms`);
  }
  assert.ok(peak - before < 50 * MB, `RSS grew by ${((peak - before) / MB).toFixed(1)} MB`);
});

test('20 such bodies at once, without and with a token: each answered 413, memory grows < 50 MB', async () => {
  for (const token of [false, true]) {
    const before = rss();
    let answers: Answer[] = [];
    const peak = await peakDuring(async () => { answers = await Promise.all(Array.from({ length: 20 }, () => uploadSites(token))); });
    report(`20 at once (${token ? 'token' : 'anonymous'})`, answers);
    console.log(`  server RSS ${(before / MB).toFixed(0)} MB, peak ${(peak / MB).toFixed(0)} MB (+${((peak - before) / MB).toFixed(1)} MB)`);
    for (const a of answers) {
      assert.is(a.status, 413, a.error ?? a.body);
      // Too large once past the limit, or refused unread (with Retry-After) when the budget is full.
      if (a.retryAfter) assert.match(a.body, /too many request bodies at once; retry shortly/);
      else assert.match(a.body, /Request body too large: at most \d+ bytes are accepted/);
      assert.ok(a.sent < BODY, 'answered before the whole body was sent');
      assert.ok(a.ms < PROMPT_MS, `answered in ${a.ms.toFixed(0)} ms`);
    }
    assert.ok(peak - before < 50 * MB, `RSS grew by ${((peak - before) / MB).toFixed(1)} MB`);
  }
  // The service still answers normally afterwards, and the budget was given back: a write is read.
  const res = await fetch(`${url.origin}/api/dcim/sites/`, { headers: { Authorization: `Token ${ADMIN_TOKEN}` } });
  assert.is(res.status, 200);
  const created = await fetch(`${url.origin}/api/dcim/sites/`, {
    method: 'POST', headers: { Authorization: `Token ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'After the flood', slug: 'after-the-flood' }),
  });
  assert.is(created.status, 201, await created.text());
});

test.run();
