/**
 * The compiled build the benches serve, brought up to date first exactly as `npm start` does
 * (`node scripts/build.mjs --if-stale`), so a bench never measures a dist/ older than the sources.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export function buildIfStale(root: string): void {
  const result = spawnSync(join(root, 'node_modules/.bin/node'), ['scripts/build.mjs', '--if-stale'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) throw new Error(`build of ${root} failed (status ${result.status})`);
}
