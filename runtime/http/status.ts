/**
 * `GET /api/status/`: NetBox's status document (clients read `netbox-version`), plus NetLedger's own
 * version, the database kind, the running webhook workers and the versions of the main packages.
 */
import type { Context } from 'koa';
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runningWorkers } from '../webhooks/worker.js';
import type { Services } from './state.js';
import { requestVersion } from './versions.js';

const require = createRequire(import.meta.url);

/** The installed version of a package, from its package.json (null when it is not installed). */
export function packageVersion(name: string): string | null {
  try {
    let dir = dirname(require.resolve(name));
    for (;;) {
      const file = join(dir, 'package.json');
      if (existsSync(file)) {
        const pkg = JSON.parse(readFileSync(file, 'utf8'));
        if (pkg.name === name) return String(pkg.version);
      }
      const up = dirname(dir);
      if (up === dir) return null;
      dir = up;
    }
  } catch {
    return null;
  }
}

/** `netbox-version` is the NetBox release of the API version the request is answered in. */
export function status(services: Services, netledger: string) {
  const postgres = services.db.client.driverName === 'pg';
  const apps: Record<string, string | null> = { netledger };
  for (const name of ['knex', 'koa', postgres ? 'pg' : 'better-sqlite3']) apps[name] = packageVersion(name);
  const installed = Object.fromEntries(Object.entries(apps).sort(([a], [b]) => a.localeCompare(b)));
  return async (ctx: Context): Promise<void> => {
    ctx.body = {
      'django-version': null,
      'installed-apps': installed,
      'netbox-version': requestVersion(ctx).netbox,
      'netledger-version': netledger,
      'node-version': process.versions.node,
      database: postgres ? 'postgresql' : 'sqlite',
      plugins: {},
      'python-version': null,
      'rq-workers-running': runningWorkers(),
    };
  };
}
