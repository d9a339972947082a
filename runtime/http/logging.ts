/**
 * One log line per request (LOG_REQUESTS=1, the default) and the request metrics, both taken as the
 * answer leaves: time, level, request id, method, path, status, duration, user and client address.
 * The path is logged without its query string, and no header is: a line never holds a token, a
 * cookie or a password.
 */
import type { Context, Next } from 'koa';
import { requestLog } from '../core/log.js';
import { httpDuration, httpRequests } from '../core/metrics.js';
import type { State } from './state.js';

/** Route templates by the router's pattern (a fixed set: the routes declared). */
const templates = new Map<string, string>();

/** The route template a request matched (`/api/dcim/sites/{id}/`), so metrics keep few labels. */
function routeOf(ctx: Context): string {
  const matched = (ctx as Context & { _matchedRoute?: string | RegExp })._matchedRoute;
  if (typeof matched === 'string') {
    let template = templates.get(matched);
    if (template === undefined) templates.set(matched, (template = matched.replace(/:([A-Za-z_]+)/g, '{$1}')));
    return template;
  }
  return ctx.status === 404 ? 'unmatched' : ctx.path.replace(/\d+/g, '{n}').slice(0, 100);
}

export function observeRequests(logRequests: boolean) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const seconds = (performance.now() - started) / 1000;
      const labels = { method: ctx.method, route: routeOf(ctx), status: String(ctx.status) };
      httpRequests.inc(labels);
      httpDuration.observe(labels, seconds);
      if (logRequests) {
        const state = ctx.state as Partial<State>;
        const durationMs = Math.round(seconds * 10_000) / 10;
        requestLog.info({
          reqId: state.requestId,
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          durationMs,
          user: state.auth?.user?.username ?? null,
          client: ctx.ip,
        }, `${ctx.method} ${ctx.path} ${ctx.status} ${durationMs}ms`);
      }
    }
  };
}
