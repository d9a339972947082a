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
 * - Each file runs on each engine in its own uvu process (a crash or hang costs that file only), TEST_JOBS
 *   (default 2) at a time, engines interleaved, largest files first. A file's output is printed when it
 *   fails; every file prints one line with its counts and duration.
 * - uvu runs as `node --import tsx node_modules/uvu/bin.js <dir> <pattern> --no-color`. Its `-r tsx` option
 *   cannot be used: with `-r`, uvu loads test files with require(), which fails on top-level await.
 * - uvu prints Total/Passed/Skipped but no failed count. Total excludes skipped tests, so failed = Total - Passed.
 *   A uvu run that ends without its summary (a crash), or with a non-zero exit code and nothing failed, counts 1 failed.
 * - The last line printed is `N passed, N failed`. Exit code 1 if anything failed or no test ran at all.
 *
 * - On PostgreSQL, a schema of the run (named with its TEST_RUN_TAG) still there at the end counts 1 failed.
 *
 * - A file that needs longer than TEST_TIMEOUT says so in a line `// @test-timeout <seconds>`; such files start first.
 *
 * Other env: TEST_TIMEOUT (seconds per file and engine, default 900), TEST_EXIT_GRACE (seconds uvu may take to exit
 * after its summary before it is stopped, default 15).
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/test';
const ENGINES = ['sqlite', 'postgres'];
const timeoutSeconds = Number(process.env.TEST_TIMEOUT || 900);
const exitGraceSeconds = Number(process.env.TEST_EXIT_GRACE || 15);

const running = new Set(); // the uvu children, so a signal to us can stop their process groups
let runCount = 0;

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
function runUvu(env, nodeBin, dir, pattern, limitSeconds) {
  return new Promise((resolveRun) => {
    const args = ['--import', 'tsx', join(root, 'node_modules/uvu/bin.js'), dir, pattern, '--no-color'];
    // stderr goes to a file rather than a pipe: some tests behave differently when stderr is a pipe.
    const errFile = join(tmpdir(), `netledger-test-${process.pid}-${++runCount}.stderr`);
    const errFd = openSync(errFile, 'w');
    const child = spawn(nodeBin, args, { cwd: root, env, stdio: ['ignore', 'pipe', errFd], detached: true });
    closeSync(errFd);
    running.add(child);
    let tail = '';
    let output = '';
    const keep = (chunk) => {
      output = (output + chunk.toString('utf8')).slice(-262144);
    };
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
    const timeout = setTimeout(() => stop(`uvu still running after ${limitSeconds} s: stopped`), limitSeconds * 1000);

    child.stdout.on('data', (chunk) => {
      keep(chunk);
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
      running.delete(child);
      killGroup(child, 'SIGKILL'); // anything the tests started and left behind
      let errors = '';
      try {
        errors = readFileSync(errFile, 'utf8').slice(-65536);
        rmSync(errFile, { force: true });
      } catch {
        // nothing written
      }
      resolveRun({ summary: lastSummary(tail) ?? summary, code: exited, note, output: errors ? `${output}\n[stderr]\n${errors}` : output });
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
  for (const child of running) killGroup(child, 'SIGKILL');
  process.exit(signal === 'SIGINT' ? 130 : 143);
}
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

/** The time limit of a test file: TEST_TIMEOUT, or more when the file declares `// @test-timeout <seconds>`. */
function fileTimeout(path) {
  const declared = /^\/\/ @test-timeout (\d+)$/m.exec(readFileSync(path, 'utf8'));
  return Math.max(timeoutSeconds, declared ? Number(declared[1]) : 0);
}

/** The test files under `dir` whose relative path matches `pattern`, longest time limit first, then largest (a rough proxy for slowest). */
function testFiles(dir, pattern) {
  const re = new RegExp(pattern, 'i');
  const base = resolve(root, dir);
  return readdirSync(base, { recursive: true })
    .map((name) => String(name).split(sep).join('/'))
    .filter((name) => re.test(name) && !name.split('/').includes('node_modules'))
    .map((name) => ({ name, size: statSync(join(base, name)).size, limit: fileTimeout(join(base, name)) }))
    .sort((a, b) => b.limit - a.limit || b.size - a.size || a.name.localeCompare(b.name))
    .map((f) => ({ name: f.name, limit: f.limit }));
}

const escapeRegex = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Runs `jobs` (functions returning promises) at most `limit` at a time. */
async function pool(jobs, limit) {
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) await jobs[next++]();
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
}

/** One test file on one engine in its own uvu process; returns its counts and prints its outcome. */
async function runFile(engine, env, nodeBin, dir, { name: file, limit }) {
  const started = Date.now();
  const { summary, code, note, output } = await runUvu(env, nodeBin, dir, `^${escapeRegex(file)}$`, limit);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  let failed;
  let why = note;
  if (!summary) {
    failed = 1;
    why = why || `uvu exited with code ${code} before printing its summary: counted as 1 failed`;
  } else {
    failed = Math.max(0, summary.total - summary.passed);
    if (code !== 0 && failed === 0 && !note) {
      why = `uvu exited with code ${code} although no test failed: counted as 1 failed`;
      failed = 1;
    }
  }
  const passed = summary?.passed ?? 0;
  if (failed > 0 || why) {
    console.log(`\n----- [${engine}] ${file}: output -----\n${stripAnsi(output).trimEnd()}\n----- end of [${engine}] ${file} -----`);
  }
  console.log(`[${engine}] ${file}: ${passed} passed, ${failed} failed in ${seconds} s${why ? ` (${why})` : ''}`);
  return { passed, failed, skipped: summary?.skipped ?? 0, ran: summary?.total ?? 0 };
}

async function main() {
  const pattern = filePattern(process.argv.slice(2));
  const engines = selectedEngines();
  const dir = process.env.TEST_DIR || 'test';
  if (!existsSync(join(root, 'node_modules/uvu/bin.js')) || !existsSync(join(root, 'node_modules/tsx'))) {
    fail('node_modules/uvu or node_modules/tsx is missing: run npm ci first');
  }
  if (!existsSync(resolve(root, dir))) fail(`Test directory ${dir} does not exist`);
  // The project pins its Node as a dependency; use it even when this script was started by another node.
  const localNode = join(root, 'node_modules/.bin/node');
  const nodeBin = existsSync(localNode) ? localNode : process.execPath;
  const files = testFiles(dir, pattern);

  const totals = Object.fromEntries(engines.map((e) => [e, { engine: e, passed: 0, failed: 0, skipped: 0, ran: 0 }]));
  const jobs = [];
  // Letters hex never holds around the random part: no schema of another run (or none of ours) matches by chance.
  const runTag = `r${Math.random().toString(16).slice(2, 8)}x`;
  const envs = {};
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
          Object.assign(totals[engine], { failed: 1, note: 'PostgreSQL not reachable' });
        } else {
          console.log(`(${why})`);
          console.log(`PostgreSQL not reachable at ${redact(url)}: PostgreSQL run not done (set REQUIRE_POSTGRES=1 to fail instead)`);
          totals[engine].skippedEngine = true;
        }
        continue;
      }
    }
    envs[engine] = env;
  }
  // Engines interleaved, file by file: both engines make progress together and the slowest files start first.
  for (const file of files) {
    for (const engine of Object.keys(envs)) {
      jobs.push(async () => {
        const r = await runFile(engine, envs[engine], nodeBin, dir, file);
        for (const k of ['passed', 'failed', 'skipped', 'ran']) totals[engine][k] += r[k];
      });
    }
  }
  const limit = Math.max(1, Number(process.env.TEST_JOBS || 2));
  console.log(`=== ${files.length} test files on ${Object.keys(envs).join(' and ') || 'no engine'}, ${limit} at a time ===`);
  await pool(jobs, limit);

  if (envs.postgres) {
    const left = await leftSchemas(envs.postgres.TEST_DATABASE_URL, runTag).catch((err) => [`(could not list them: ${err.message})`]);
    if (left.length) {
      console.log(`[postgres] schemas the tests left in the database (dropped now): ${left.join(', ')}: counted as 1 failed`);
      totals.postgres.failed += 1;
    }
  }

  console.log('');
  let passed = 0;
  let failed = 0;
  let ran = 0;
  for (const r of Object.values(totals)) {
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
