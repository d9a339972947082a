/**
 * The compiled build the benches serve, brought up to date first exactly as `npm start` does
 * (`node scripts/build.mjs --if-stale`), so a bench never measures a dist/ older than the sources.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function buildIfStale(root: string): void {
  const result = spawnSync(join(root, 'node_modules/.bin/node'), ['scripts/build.mjs', '--if-stale'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) throw new Error(`build of ${root} failed (status ${result.status})`);
}

/**
 * The Node flags `npm start` passes (package.json's `start` script, e.g. the young generation's
 * size), so a bench that starts the service itself starts it exactly as production does.
 */
export function startFlags(root: string): string[] {
  const script: string = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.start;
  const words = script.split(/\s+/);
  return words.slice(1, words.indexOf('dist/runtime/cli.js')).filter((w) => w.startsWith('--'));
}
