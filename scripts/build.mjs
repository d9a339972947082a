/**
 * `npm run build`: compiles runtime/ and generated/ to JavaScript in dist/ (tsc), so production runs
 * plain Node, with no TypeScript loader. `--if-stale` (npm's prestart) builds only when a source is
 * newer than the last build, so `npm ci && npm start` works on a fresh clone and costs nothing after.
 *
 * Plain Node with built-ins only, apart from the TypeScript compiler. It is a production dependency
 * because `npm ci --omit=dev && npm start` must be able to build (see README, Production).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const stamp = join(dist, '.build-stamp');
const SOURCES = ['runtime', 'generated', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

/** The latest change under `path`; a folder's own time counts, so a deleted or renamed file does too. */
function newest(path) {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  return Math.max(info.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

const stale = () => !existsSync(stamp) || SOURCES.some((s) => existsSync(join(root, s)) && newest(join(root, s)) > statSync(stamp).mtimeMs);
const ifStale = process.argv.includes('--if-stale');
if (ifStale && !stale()) process.exit(0);

/**
 * One build at a time per checkout: processes started together (several `npm start`s, tests run in
 * parallel) would otherwise empty and rewrite dist/ under each other, and one would load a module
 * another is writing. The lock is a folder holding its owner's pid; a dead owner's lock is taken over.
 */
const lock = join(root, '.build-lock');
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
for (const deadline = Date.now() + 15 * 60_000; ;) {
  try {
    mkdirSync(lock);
    writeFileSync(join(lock, 'pid'), String(process.pid));
    break;
  } catch (error) {
    if (error.code !== 'EEXIST') throw error;
    let owner = 0;
    try { owner = Number(readFileSync(join(lock, 'pid'), 'utf8')); } catch { /* being written or removed */ }
    let alive = true;
    if (owner) try { process.kill(owner, 0); } catch (e) { alive = e.code === 'EPERM'; }
    if (!alive) rmSync(lock, { recursive: true, force: true });
    else if (Date.now() > deadline) { console.error(`build: ${lock} is held by process ${owner}`); process.exit(1); }
    else sleep(200);
  }
}
process.on('exit', () => rmSync(lock, { recursive: true, force: true }));
// the build that held the lock may have made this one unnecessary
if (ifStale && !stale()) process.exit(0);

const started = Date.now();
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
if (result.status !== 0) {
  console.error('build: tsc failed; dist/ is incomplete (fix the errors above, then npm run build)');
  process.exit(result.status ?? 1);
}
// Read at run time beside the compiled code (runtime/http/docs.ts).
mkdirSync(join(dist, 'generated'), { recursive: true });
copyFileSync(join(root, 'generated/openapi.json'), join(dist, 'generated/openapi.json'));
mkdirSync(join(dist, 'generated/migrations'), { recursive: true });
copyFileSync(join(root, 'generated/migrations/sqlite-schema.json'), join(dist, 'generated/migrations/sqlite-schema.json'));
writeFileSync(stamp, new Date().toISOString() + '\n');
console.error(`build: dist/ compiled in ${((Date.now() - started) / 1000).toFixed(1)} s`);
