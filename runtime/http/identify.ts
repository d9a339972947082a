/**
 * Who is asking, for every request past the guards: the cache version (runtime/data/cache.ts), then
 * the token or the session, then the user's permissions; then the rest of the chain.
 *
 * On PostgreSQL a read of a model route (GET or HEAD) does not wait for the version before it
 * starts: it authenticates from the caches as they were at the last sync and runs, so its first read
 * travels in the same round trip as the version read (runtime/data/pg-batch.ts), one round trip less
 * per request. Its answer is only released once that version is known. Unchanged: no token, user,
 * permission or other cached row changed between the sync the caches were filled under and this
 * request's own read of the version, made after the request arrived, so the answer stands. Moved:
 * the caches are emptied and the request runs again from the start, its first answer discarded. A
 * revoked token therefore never gets an answer, in any process. Such a run may not write: authorize()
 * refuses any action but view while it is unconfirmed (then the request runs again, confirmed).
 */
import type { Context, Middleware } from 'koa';
import { authenticate, type Auth } from '../auth/authenticate.js';
import { loadGrants } from '../auth/permissions.js';
import { sessionAuth } from '../auth/sessions.js';
import { applyCacheVersion, knownCacheVersion, readCacheVersion, syncCaches } from '../data/cache.js';
import type { Services, State } from './state.js';

/** Thrown by a write reached before the cache version was confirmed: the request runs again, confirmed. */
export class Unconfirmed extends Error {}

async function identify(ctx: Context, services: Services): Promise<Auth> {
  const { db } = services;
  let auth = await authenticate(db, ctx.get('Authorization') || undefined, new Date(), ctx.ip, services.peppers);
  // No token: a session cookie may authenticate instead (writes need its CSRF token).
  if (!auth.user) auth = (await sessionAuth(ctx, services)) ?? auth;
  if (auth.user && !auth.user.isSuperuser) auth.grants = await loadGrants(db, auth.user);
  return auth;
}

/** What a discarded first run may have changed in the response: restored before the run again. */
interface Fresh {
  headers: Record<string, unknown>;
  status: number;
  message: string;
}

function freshOf(ctx: Context): Fresh {
  return { headers: ctx.res.getHeaders(), status: ctx.res.statusCode, message: ctx.res.statusMessage };
}

function restore(ctx: Context, fresh: Fresh): void {
  const response = ctx.response as Context['response'] & { _body?: unknown; _explicitStatus?: boolean; _explicitNullBody?: boolean };
  for (const name of ctx.res.getHeaderNames()) if (!(name in fresh.headers)) ctx.res.removeHeader(name);
  for (const [name, value] of Object.entries(fresh.headers)) ctx.res.setHeader(name, value as string | string[]);
  response._body = undefined;
  response._explicitStatus = false;
  response._explicitNullBody = false;
  ctx.res.statusCode = fresh.status;
  ctx.res.statusMessage = fresh.message;
  delete (ctx as Context & { matched?: unknown }).matched;
}

/**
 * The authentication middleware; `rest` is the chain after it (it may run twice), `speculative`
 * says which requests may start before the cache version is known.
 */
export function identified(services: Services, rest: (ctx: Context) => Promise<void>, speculative: (ctx: Context) => boolean): Middleware {
  const { db } = services;
  return async (ctx) => {
    const state = ctx.state as State;
    const known = speculative(ctx) ? knownCacheVersion(db) : null;
    if (known !== null) {
      const version = readCacheVersion(db);
      // Awaited below, after the run: a failure must not count as unhandled meanwhile.
      version.catch(() => {});
      const fresh = freshOf(ctx);
      let failure: { error: unknown } | null = null;
      state.unconfirmed = true;
      try {
        state.auth = await identify(ctx, services);
        await rest(ctx);
      } catch (error) {
        failure = { error };
      }
      state.unconfirmed = false;
      const current = await version;
      applyCacheVersion(db, current);
      if (current === known && !(failure?.error instanceof Unconfirmed)) {
        if (failure) throw failure.error;
        return;
      }
      restore(ctx, fresh);
    } else {
      // Caches of tokens, permissions, custom fields and config contexts: dropped if any process changed them.
      await syncCaches(db);
    }
    state.auth = await identify(ctx, services);
    await rest(ctx);
  };
}
