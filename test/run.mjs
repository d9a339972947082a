/**
 * `npm test [-- <pattern>...]`: run the uvu suite once per database engine, then print one summary line.
 *
 * Plain Node ESM with built-ins only (plus `pg` from node_modules for the PostgreSQL probe).
 *
 * - Test files: `<TEST_DIR>/**\/*.test.ts` (TEST_DIR defaults to `test`). Patterns given after `--` are
 *   file-name regexes (case-insensitive, OR'd together) that narrow that set: `npm test -- sites`.
 * - Engines: SQLite (TEST_DATABASE=sqlite), then PostgreSQL (TEST_DATABASE=postgres, TEST_DATABASE_URL,
 *   default postgres://postgres@127.0.0.1:5432/test). TEST_ENGINES=sqlite|postgres|sqlite,postgres restricts them.
 *   When PostgreSQL is not reachable its run is left out, or counted as 1 failed with REQUIRE_POSTGRES=1.
 * - uvu runs as `node --import tsx node_modules/uvu/bin.js <dir> <pattern> --no-color`. Its `-r tsx` option
 *   cannot be used: with `-r`, uvu loads test files with require(), which fails on top-level await.
 * - uvu prints Total/Passed/Skipped but no failed count. Total excludes skipped tests, so failed = Total - Passed.
 *   A uvu run that ends without its summary (a crash), or with a non-zero exit code and nothing failed, counts 1 failed.
 * - The last line printed is `N passed, N failed`. Exit code 1 if anything failed or no test ran at all.
 *
 * - On PostgreSQL, a schema of the run (named with its TEST_RUN_TAG) still there at the end counts 1 failed.
 *
 * Other env: TEST_TIMEOUT (seconds per engine, default 1800), TEST_EXIT_GRACE (seconds uvu may take to exit
 * after its summary before it is stopped, default 15).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/test';
const ENGINES = ['sqlite', 'postgres'];
const timeoutSeconds = Number(process.env.TEST_TIMEOUT || 1800);
const exitGraceSeconds = Number(process.env.TEST_EXIT_GRACE || 15);

let current = null; // the running uvu child, so a signal to us can stop its process group

function finish(passed, failed, code) {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(code);
}

function fail(message) {
  console.log(message);
  finish(0, 1, 1);
}

function filePattern(args) {
  if (args.length === 0) return '\\.test\\.ts$';
  const any = args.join('|');
  try {
    new RegExp(any, 'i');
  } catch (err) {
    fail(`Invalid test file pattern ${JSON.stringify(any)}: ${err.message}`);
  }
  // Only *.test.ts files, and only those whose path matches one of the patterns.
  return `^(?=.*(?:${any})).*\\.test\\.ts$`;
}

function selectedEngines() {
  const raw = (process.env.TEST_ENGINES || '').trim();
  if (!raw) return ENGINES;
  const list = raw.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  const unknown = list.filter((e) => !ENGINES.includes(e));
  if (unknown.length) fail(`TEST_ENGINES: unknown engine ${unknown.join(', ')} (use sqlite, postgres or both, comma-separated)`);
  return ENGINES.filter((e) => list.includes(e));
}

function redact(url) {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

/** `fn` with a client connected to `url` (pg from node_modules), ended after. */
async function withPostgres(url, fn) {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on('error', () => {});
  try {
    await client.connect();
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Resolves to null when PostgreSQL answers `select 1`, else to the reason it did not. */
async function probePostgres(url) {
  try {
    await import('pg');
  } catch (err) {
    return `the pg package could not be loaded (${err.message}); run npm ci`;
  }
  try {
    await withPostgres(url, (client) => client.query('select 1'));
    return null;
  } catch (err) {
    return err.message || String(err);
  }
}

/**
 * Schemas named with this run's tag (test/helpers.ts testSchemaName) still in the database: each test
 * removes the schema it made, so any left is a test that did not; they are dropped here.
 */
function leftSchemas(url, tag) {
  return withPostgres(url, async (client) => {
    const { rows } = await client.query("select nspname from pg_namespace where strpos(nspname, '_' || $1) > 0 order by 1", [tag]);
    for (const { nspname } of rows) await client.query(`drop schema if exists "${nspname}" cascade`);
    return rows.map((r) => r.nspname);
  });
}

const stripAnsi = (s) => s.replace(/\x1b\[[0-9;]*m/g, '');
const SUMMARY = /^\s*Total:\s+(\d+)\s*\n\s*Passed:\s+(\d+)\s*\n\s*Skipped:\s+(\d+)\s*\n\s*Duration:[^\n]*\n/gm;

function lastSummary(text) {
  let found = null;
  for (const m of stripAnsi(text).matchAll(SUMMARY)) found = m;
  if (!found) return null;
  return { total: Number(found[1]), passed: Number(found[2]), skipped: Number(found[3]) };
}

function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** Runs uvu for one engine; resolves to { summary, code, note }. */
function runUvu(env, nodeBin, dir, pattern) {
  return new Promise((resolveRun) => {
    const args = ['--import', 'tsx', join(root, 'node_modules/uvu/bin.js'), dir, pattern, '--no-color'];
    const child = spawn(nodeBin, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    current = child;
    let tail = '';
    let summary = null;
    let note = '';
    let exited = null;
    let graceTimer = null;
    let closeTimer = null;

    const stop = (why) => {
      if (!note) note = why;
      killGroup(child, 'SIGTERM');
      setTimeout(() => killGroup(child, 'SIGKILL'), 3000).unref();
    };
    const timeout = setTimeout(() => stop(`uvu still running after ${timeoutSeconds} s: stopped`), timeoutSeconds * 1000);

    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      tail = (tail + chunk.toString('utf8')).slice(-262144);
      if (!summary) {
        summary = lastSummary(tail);
        if (summary) {
          graceTimer = setTimeout(
            () => stop(`uvu printed its summary but did not exit within ${exitGraceSeconds} s (an open server, pool or timer?): stopped`),
            exitGraceSeconds * 1000,
          );
        }
      }
    });

    let finished = false;
    const done = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timeout);
      clearTimeout(graceTimer);
      clearTimeout(closeTimer);
      current = null;
      killGroup(child, 'SIGKILL'); // anything the tests started and left behind
      resolveRun({ summary: lastSummary(tail) ?? summary, code: exited, note });
    };
    child.on('error', (err) => {
      note = `could not start uvu: ${err.message}`;
      exited = 1;
      done();
    });
    child.on('exit', (code, signal) => {
      exited = code ?? (signal ? 128 : 1);
      // A process the tests started may still hold stdout open; do not wait on it for long.
      closeTimer = setTimeout(done, 2000);
    });
    child.on('close', () => {
      if (exited === null) exited = child.exitCode ?? 1;
      done();
    });
  });
}

function onSignal(signal) {
  if (current) killGroup(current, 'SIGKILL');
  process.exit(signal === 'SIGINT' ? 130 : 143);
}
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

async function main() {
  const pattern = filePattern(process.argv.slice(2));
  const engines = selectedEngines();
  const dir = process.env.TEST_DIR || 'test';
  if (!existsSync(join(root, 'node_modules/uvu/bin.js')) || !existsSync(join(root, 'node_modules/tsx'))) {
    fail('node_modules/uvu or node_modules/tsx is missing: run npm ci first');
  }
  if (!existsSync(resolve(root, dir))) fail(`Test directory ${dir} does not exist`);
  // The project pins Node 24 as a devDependency; use it even when this script was started by another node.
  const localNode = join(root, 'node_modules/.bin/node');
  const nodeBin = existsSync(localNode) ? localNode : process.execPath;

  const results = [];
  // Letters hex never holds around the random part: no schema of another run (or none of ours) matches by chance.
  const runTag = `r${Math.random().toString(16).slice(2, 8)}x`;
  for (const engine of engines) {
    const env = { ...process.env, TEST_DATABASE: engine, TEST_RUN_TAG: runTag };
    delete env.TEST_DATABASE_URL;
    if (engine === 'postgres') {
      const url = process.env.TEST_DATABASE_URL || DEFAULT_PG_URL;
      env.TEST_DATABASE_URL = url;
      const why = await probePostgres(url);
      if (why) {
        if (process.env.REQUIRE_POSTGRES === '1') {
          console.log(`PostgreSQL not reachable at ${redact(url)}: ${why} (REQUIRE_POSTGRES=1: counted as 1 failed)`);
          results.push({ engine, passed: 0, failed: 1, skipped: 0, ran: 0, note: 'PostgreSQL not reachable' });
        } else {
          console.log(`(${why})`);
          console.log(`PostgreSQL not reachable at ${redact(url)}: PostgreSQL run not done (set REQUIRE_POSTGRES=1 to fail instead)`);
          results.push({ engine, skippedEngine: true });
        }
        continue;
      }
    }

    console.log(`\n=== ${engine}: TEST_DATABASE=${engine}${engine === 'postgres' ? ` TEST_DATABASE_URL=${redact(env.TEST_DATABASE_URL)}` : ''} ===\n`);
    const { summary, code, note } = await runUvu(env, nodeBin, dir, pattern);
    if (note) console.log(`[${engine}] ${note}`);
    if (!summary) {
      console.log(`[${engine}] uvu exited with code ${code} before printing its summary: counted as 1 failed`);
      results.push({ engine, passed: 0, failed: 1, skipped: 0, ran: 0 });
      continue;
    }
    let failed = Math.max(0, summary.total - summary.passed);
    if (code !== 0 && failed === 0 && !note) {
      console.log(`[${engine}] uvu exited with code ${code} although no test failed: counted as 1 failed`);
      failed = 1;
    }
    if (code === 0 && failed > 0) {
      console.log(`[${engine}] uvu exited 0 but ${failed} test(s) did not pass: uvu reports no error when a before/after hook throws`);
    }
    if (engine === 'postgres') {
      const left = await leftSchemas(env.TEST_DATABASE_URL, runTag).catch((err) => [`(could not list them: ${err.message})`]);
      if (left.length) {
        console.log(`[${engine}] schemas the tests left in the database (dropped now): ${left.join(', ')}: counted as 1 failed`);
        failed += 1;
      }
    }
    results.push({ engine, passed: summary.passed, failed, skipped: summary.skipped, ran: summary.total });
  }

  console.log('');
  let passed = 0;
  let failed = 0;
  let ran = 0;
  for (const r of results) {
    if (r.skippedEngine) {
      console.log(`[${r.engine}] not run (PostgreSQL not reachable)`);
      continue;
    }
    passed += r.passed;
    failed += r.failed;
    ran += r.ran;
    const extra = r.skipped ? `, ${r.skipped} skipped` : '';
    console.log(`[${r.engine}] ${r.passed} passed, ${r.failed} failed${extra}${r.note ? ` (${r.note})` : ''}`);
  }
  if (ran === 0 && failed === 0) {
    console.log(`No test ran: no file under ${dir}/ matched ${pattern}, or the files hold no tests.`);
    finish(0, 0, 1);
  }
  finish(passed, failed, failed > 0 || ran === 0 ? 1 : 0);
}

main().catch((err) => {
  console.log(`test/run.mjs crashed: ${err.stack || err}`);
  finish(0, 1, 1);
});
