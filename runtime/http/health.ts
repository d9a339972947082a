/**
 * Probes for load balancers and orchestrators, answered before authentication (no token needed):
 *
 * - `GET /healthz`: the process is alive and serving (200), without touching the database;
 * - `GET /readyz`: the database answers and every migration is applied (200), else 503 with the
 *   reason, so traffic goes elsewhere during an outage or before `npm run migrate`.
 */
import type { Context, Next } from 'koa';
import { pendingMigrations } from '../data/migrate.js';
import type { Services } from './state.js';

const PROBE_TIMEOUT_MS = 3000;

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} did not answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS); });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function readiness({ db, config }: Services): Promise<{ ready: boolean; checks: Record<string, string> }> {
  try {
    await withTimeout(db.raw('select 1'), 'the database');
  } catch (error) {
    return { ready: false, checks: { database: `unreachable: ${(error as Error).message}`, migrations: 'unknown' } };
  }
  try {
    const pending = await withTimeout(pendingMigrations(db, config.databaseSchema), 'the migration table');
    if (pending.length) return { ready: false, checks: { database: 'ok', migrations: `${pending.length} pending (run npm run migrate): ${pending.join(', ')}` } };
  } catch (error) {
    return { ready: false, checks: { database: 'ok', migrations: `unknown: ${(error as Error).message}` } };
  }
  return { ready: true, checks: { database: 'ok', migrations: 'ok' } };
}

export function healthProbes(services: Services) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const path = ctx.path.replace(/\/$/, '');
    if (path === '/healthz') {
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { status: 'ok' };
    } else if (path === '/readyz') {
      const { ready, checks } = await readiness(services);
      ctx.set('Cache-Control', 'no-store');
      ctx.status = ready ? 200 : 503;
      ctx.body = { status: ready ? 'ok' : 'unavailable', ...checks };
    } else {
      await next();
    }
  };
}
